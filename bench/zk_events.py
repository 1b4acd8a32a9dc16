"""Benchmark: latency from a Kafka znode change to the event ZooKeeperSource pushes for it.

Prints figures; asserts nothing about timings. Run from the repository root:

    .venv/bin/python bench/zk_events.py [--isr N] [--brokers-down N]

What it does:
  1. Starts a real ZooKeeper (pyspark's jars, 127.0.0.1, a temporary data directory) and writes the znodes of a
     ZooKeeper-mode Kafka cluster with the helpers of tests/fixtures/kafka_znodes.py: 3 brokers (each an ephemeral
     registration in its own kazoo session), a controller, and 50 topics x 20 partitions (1,000 partition state
     znodes), so the source holds a realistic number of watches. Times ZooKeeperSource.start() (initial load).
  2. ISR changes: for each sample, t0 = perf_counter() right before the partition state znode is set (the ISR
     alternately shrinks and expands, the leader epoch goes up every time), then blocks on source.events until
     the PartitionStateChanged of that partition with that leader epoch arrives.
  3. Broker deregistrations: t0 right before a broker's kazoo session is stopped (its ephemeral registration goes
     away), until BrokerDeregistered for that broker; the broker is re-registered between samples.
"""

from __future__ import annotations

import argparse
import os
import platform
import queue
import statistics
import sys
import time
from pathlib import Path

import kazoo

from kafkatop.backends.model.zookeeper import BrokerDeregistered, BrokerRegistered, PartitionStateChanged, ZkEvent
from kafkatop.backends.zookeeper.server import four_letter_word
from kafkatop.backends.zookeeper.watch import ZooKeeperSource

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.*, tests.* as a file too
from bench.common.stats import stats_line
from bench.common.zookeeper import bench_zookeeper
from tests.fixtures import kafka_znodes as kz

TARGET_MS = 50.0
BROKER_IDS = kz.BENCH_BROKERS
CONTROLLER = BROKER_IDS[0]
TOPICS = 50
PARTITIONS = 20
ISR_SAMPLES = 300
DEREGISTRATIONS = 30
EVENT_TIMEOUT_S = 10.0


class EventWaiter:
    """Takes events off source.events until one matches; counts the others it skipped."""

    def __init__(self, source: ZooKeeperSource) -> None:
        self.source = source
        self.skipped: dict[str, int] = {}

    def drain(self) -> None:
        while True:
            try:
                ev = self.source.events.get_nowait()
            except queue.Empty:
                return
            self.skipped[type(ev).__name__] = self.skipped.get(type(ev).__name__, 0) + 1

    def wait_for(self, matches: type, predicate: object) -> ZkEvent:
        deadline = time.monotonic() + EVENT_TIMEOUT_S
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no matching {matches.__name__} within {EVENT_TIMEOUT_S:g} s")
            ev = self.source.events.get(timeout=left)
            if isinstance(ev, matches) and predicate(ev):  # type: ignore[operator]
                return ev
            self.skipped[type(ev).__name__] = self.skipped.get(type(ev).__name__, 0) + 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--isr", type=int, default=ISR_SAMPLES, help="ISR changes to time (default %(default)s)")
    parser.add_argument(
        "--brokers-down", type=int, default=DEREGISTRATIONS, help="deregistrations to time (default %(default)s)"
    )
    args = parser.parse_args()
    isr_samples, deregistrations = max(200, args.isr), max(20, args.brokers_down)

    print("== kafkatop bench: ZooKeeper znode change -> ZooKeeperSource event ==")
    print(
        f"machine: cpu_count={os.cpu_count()} python={platform.python_version()} kazoo={kazoo.__version__} "
        f"({platform.system()} {platform.machine()}) load average {os.getloadavg()[0]:.2f}"
    )
    started = time.perf_counter()
    with bench_zookeeper("kafkatop-bench-zk-", TOPICS, PARTITIONS) as bench:
        server, zk, sessions = bench.server, bench.zk, bench.sessions
        source: ZooKeeperSource | None = None
        try:
            version = four_letter_word(server.host, server.port, "srvr").splitlines()[0]
            print(f"zookeeper: {server.address} up in {bench.start_s:.1f} s ({version})")
            print(
                f"layout: {len(BROKER_IDS)} brokers, controller {CONTROLLER}, {TOPICS} topics x {PARTITIONS} "
                f"partitions = {TOPICS * PARTITIONS} partition state znodes (written in {bench.write_s:.1f} s)"
            )

            # --- initial load -----------------------------------------------------------------------------------
            source = ZooKeeperSource(server.address)
            t0 = time.perf_counter()
            source.start()
            load_ms = (time.perf_counter() - t0) * 1000
            snap = source.snapshot()
            watches = four_letter_word(server.host, server.port, "wchs").strip().replace("\n", "; ")
            ok = (
                len(snap.partitions) == TOPICS * PARTITIONS
                and [b.id for b in snap.brokers_alive] == list(BROKER_IDS)
                and snap.controller_id == CONTROLLER
                and not snap.problems
            )
            print(
                f"ZooKeeperSource.start() (connect + load of {len(snap.partitions)} partitions): {load_ms:.1f} ms; "
                f"snapshot: {len(snap.brokers_alive)} brokers alive, controller {snap.controller_id}, "
                f"{len(snap.topics)} topics, {len(snap.problems)} problems -> {'OK' if ok else 'UNEXPECTED'}"
            )
            print(f"server watches (wchs): {watches}")
            waiter = EventWaiter(source)
            waiter.drain()

            # --- ISR changes ------------------------------------------------------------------------------------
            # Each of isr_samples/2 partitions (spread over all topics) shrinks, then expands again.
            targets = [(i % TOPICS, (i * 7 + i // TOPICS) % PARTITIONS) for i in range((isr_samples + 1) // 2)]
            epochs: dict[tuple[int, int], int] = {}
            isr_ms: list[float] = []
            for i in range(isr_samples):
                t, p = targets[i // 2]
                replicas = kz.bench_replicas(t, p)
                isr = replicas[:-1] if i % 2 == 0 else replicas  # shrink, then expand
                epoch = epochs.get((t, p), 0) + 1
                epochs[(t, p)] = epoch
                name = kz.bench_topic(t)
                t0 = time.perf_counter()
                kz.set_partition_state(zk, name, p, leader=replicas[0], isr=isr, leader_epoch=epoch)
                ev = waiter.wait_for(
                    PartitionStateChanged,
                    lambda e, name=name, p=p, epoch=epoch: (
                        e.topic == name and e.partition == p and e.state is not None and e.state.leader_epoch == epoch
                    ),
                )
                isr_ms.append((time.perf_counter() - t0) * 1000)
                if not (isinstance(ev, PartitionStateChanged) and ev.state is not None and ev.state.isr == tuple(isr)):
                    raise RuntimeError(f"unexpected event for {name}-{p}: {ev}")

            # --- broker deregistrations --------------------------------------------------------------------------
            # Brokers 2 and 3 in turn (1 stays up, as the controller); re-registered in a new session each time.
            dereg_ms: list[float] = []
            rereg_ms: list[float] = []
            for i in range(deregistrations):
                b = BROKER_IDS[1 + i % (len(BROKER_IDS) - 1)]
                session = sessions.pop(b)
                t0 = time.perf_counter()
                session.stop()  # closes the session: ZooKeeper deletes the ephemeral /brokers/ids/<b>
                waiter.wait_for(BrokerDeregistered, lambda e, b=b: e.broker_id == b)
                dereg_ms.append((time.perf_counter() - t0) * 1000)
                session.close()
                t0 = time.perf_counter()
                sessions[b] = kz.register_broker(server.address, b, 9091 + b, rack=f"rack-{b}")
                waiter.wait_for(BrokerRegistered, lambda e, b=b: e.broker.id == b)
                rereg_ms.append((time.perf_counter() - t0) * 1000)

            final = source.snapshot()
            print()
            print(f"ISR change -> PartitionStateChanged, {len(isr_ms)} samples over {len(targets)} partitions:")
            print(f"  {stats_line(isr_ms, digits=2)}")
            print(f"broker session closed -> BrokerDeregistered, {len(dereg_ms)} samples (brokers 2 and 3):")
            print(f"  {stats_line(dereg_ms, digits=2)}")
            print(
                "for information, re-registration (new kazoo session + ephemeral create) -> BrokerRegistered, "
                f"{len(rereg_ms)} samples:"
            )
            print(f"  {stats_line(rereg_ms, digits=2)}")
            print(
                f"other events taken off the queue meanwhile: {waiter.skipped or 'none'}; final snapshot: "
                f"{len(final.brokers_alive)} brokers alive, {len(final.problems)} problems, connected="
                f"{source.connected}"
            )

            isr_median, dereg_median = statistics.median(isr_ms), statistics.median(dereg_ms)
            print()
            for label, median in (("ISR change", isr_median), ("broker deregistration", dereg_median)):
                verdict = "PASS" if median <= TARGET_MS else "MISS"
                print(f"RESULT: {label:<22} median {median:6.2f} ms; target median <= {TARGET_MS:.0f} ms -> {verdict}")
        finally:
            if source is not None:
                source.close()
    print(f"        bench wall time {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
