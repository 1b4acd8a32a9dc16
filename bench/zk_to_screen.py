"""Benchmark: latency from a Kafka znode change to the frame that shows it in the running app (ZooKeeper mode).
Prints figures; asserts nothing about timings. Run from the repository root:
    .venv/bin/python bench/zk_to_screen.py [--isr N] [--brokers-down N] [--runs N]
What it does:
  1. Starts a real ZooKeeper (pyspark's jars, 127.0.0.1, a temporary data directory) and writes the znodes of a
     ZooKeeper-mode Kafka cluster as Kafka writes them (tests/fixtures/kafka_znodes.py): 3 brokers (each an ephemeral
     registration in its own kazoo session), a controller, 50 topics x 20 partitions (1,000 partition state znodes).
  2. Runs the app headless (160x50, the Partitions tab) with the ZooKeeper watch wired as the command line wires it
     in ZooKeeper mode (Sources.zookeeper = ZooKeeperSource). The metadata poll is a stand-in that answers the state
     read before the changes, once: no ZooKeeper-mode Kafka broker can run here, and its interval is a day, so
     whatever reaches the screen came from the watches.
  3. ISR changes: t0 right before the partition state znode is set (the ISR of a partition in the first rows shrinks,
     then expands; the leader epoch goes up each time); the time is the first frame drawn (the screen's compositor
     refresh, wrapped) after the partition table holds the new ISR.
  4. Broker deregistrations: t0 right before a broker's session is closed (ZooKeeper deletes /brokers/ids/N); the time
     is the first frame drawn after the status bar says the broker is down; the broker registers again between
     samples.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

from kazoo.client import KazooClient

from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.zookeeper.watch import ZooKeeperSource
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.partitions.pane import PartitionTable
from kafkatop.tui.live.widgets.status_bar import StatusBar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.*, tests.* as a file too
from bench.common.frames import first_after, frames_drawn
from bench.common.stats import stats_line, verdict
from bench.common.zookeeper import bench_zookeeper
from tests.fixtures import kafka_znodes as kz

TARGET_MS = 100.0
SIZE = (160, 50)
BROKER_IDS = kz.BENCH_BROKERS
TOPICS, PARTITIONS = 50, 20
SAMPLE_TIMEOUT_S = 10.0


async def until_drawn(pilot: object, frames: list[float], shown: object) -> float:
    """Waits until `shown()` holds, then for the first frame drawn after that; returns that frame's time."""
    deadline = time.perf_counter() + SAMPLE_TIMEOUT_S
    seen_at: float | None = None
    while True:
        if seen_at is None and shown():  # type: ignore[operator]
            seen_at = time.perf_counter()
        if seen_at is not None and (frame := first_after(frames, seen_at)) is not None:
            return frame
        if time.perf_counter() > deadline:
            raise TimeoutError("the change did not reach the screen")
        await asyncio.sleep(0.001)


async def measure(address: str, zk: KazooClient, sessions: dict[int, KazooClient], isr_samples: int,
                  deregistrations: int) -> tuple[list[float], list[float]]:  # fmt: skip
    with ZooKeeperSource(address) as reader:
        before = replace(reader.snapshot(), source="admin")
    calls = 0

    def stale_poll() -> ClusterSnapshot:
        nonlocal calls
        calls += 1
        return replace(before, taken_at=time.time())

    watch = ZooKeeperSource(address)
    app = KafkatopApp(Sources(stale_poll, zookeeper=watch), Settings(poll_interval_s=86_400))
    isr_ms: list[float] = []
    dereg_ms: list[float] = []
    try:
        async with app.run_test(size=SIZE) as pilot:
            table = app.query_one(PartitionTable)
            status = app.query_one(StatusBar)
            deadline = time.monotonic() + 30
            while not (table.row_count == TOPICS * PARTITIONS and watch.connected):
                assert time.monotonic() < deadline, "the app did not start"
                await pilot.pause(0.05)
            await pilot.pause(0.3)
            frames = frames_drawn(app)
            epochs: dict[int, int] = {}
            for i in range(isr_samples):
                t, p = 0, (i // 2) % PARTITIONS  # topic-00: the first rows, on screen
                replicas = kz.bench_replicas(t, p)
                isr = replicas[:-1] if i % 2 == 0 else replicas
                epochs[p] = epoch = epochs.get(p, 0) + 1
                key, want = f"{kz.bench_topic(t)}-{p}", ",".join(map(str, isr))
                t0 = time.perf_counter()
                kz.set_partition_state(zk, kz.bench_topic(t), p, replicas[0], isr, epoch)
                frame = await until_drawn(pilot, frames, lambda key=key, want=want: table.row(key)[4] == want)
                isr_ms.append((frame - t0) * 1000)
                await pilot.pause(0.02)
            for i in range(deregistrations):
                b = BROKER_IDS[1 + i % (len(BROKER_IDS) - 1)]
                session = sessions.pop(b)
                t0 = time.perf_counter()
                session.stop()
                frame = await until_drawn(pilot, frames, lambda: "2 up 1 down" in status.text.plain)
                dereg_ms.append((frame - t0) * 1000)
                session.close()
                sessions[b] = kz.register_broker(address, b, 9091 + b)
                deadline = time.monotonic() + SAMPLE_TIMEOUT_S
                while "3 up" not in status.text.plain:
                    assert time.monotonic() < deadline, "the broker did not come back on screen"
                    await pilot.pause(0.02)
            assert calls == 1, f"the metadata poll ran {calls} times: it could have told"
            app.hold()
    finally:
        watch.close()
    return isr_ms, dereg_ms


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--isr", type=int, default=100, help="ISR changes to time (default %(default)s)")
    parser.add_argument("--brokers-down", type=int, default=20, help="deregistrations to time (default %(default)s)")
    args = parser.parse_args()
    print("== kafkatop bench: ZooKeeper znode change -> the frame that shows it (the running app) ==")
    print(
        f"machine: cpu_count={os.cpu_count()} python={platform.python_version()} ({platform.system()} "
        f"{platform.machine()}) load average {os.getloadavg()[0]:.2f}; headless {SIZE[0]}x{SIZE[1]}"
    )
    started = time.perf_counter()
    with bench_zookeeper("kafkatop-bench-zk-screen-", TOPICS, PARTITIONS) as bench:
        print(f"layout: 3 brokers, controller 1, {TOPICS} topics x {PARTITIONS} partitions = "
              f"{TOPICS * PARTITIONS} partition state znodes")  # fmt: skip
        address = bench.server.address
        isr_ms, dereg_ms = asyncio.run(measure(address, bench.zk, bench.sessions, args.isr, args.brokers_down))
    print()
    print(f"ISR change -> partition table row on screen, {len(isr_ms)} samples:")
    print(f"  {stats_line(isr_ms, digits=2)}")
    print(f"broker session closed -> 'down' in the status bar on screen, {len(dereg_ms)} samples:")
    print(f"  {stats_line(dereg_ms, digits=2)}")
    print()
    for label, values in (("ISR change to screen", isr_ms), ("deregistration to screen", dereg_ms)):
        median = statistics.median(values)
        print(
            f"RESULT: {label:<25} median {median:6.2f} ms; target median <= {TARGET_MS:.0f} ms -> "
            f"{verdict(median <= TARGET_MS)}"
        )
    print(f"        bench wall time {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
