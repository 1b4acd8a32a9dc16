"""Soak (issue 12): the live view attached to a real 3-node KRaft lab for 30 minutes, under a producer at ~2,000
msg/s and 3 consumers in one group, with a chaos step every 2 minutes (kill -9, stop, restart in turn; a node
killed or stopped is started again a minute later).

Prints, per minute, the app's resident memory and the event loop's lag; at the end: RSS growth after the first 5
minutes (target ≤ 10 %), event-loop lag p99 (target ≤ 100 ms), crashes (target 0), and for every chaos step how long
the view took to agree with the cluster again (leaders, ISR, live brokers, as an independent poll sees them).

    KAFKA_HOME=/opt/kafka_2.13-4.1.0 python bench/soak.py [--minutes 30] [--rate 2000]

The app runs in this process as the user's would (the composition root's own wiring, `kafkatop --bootstrap-server
… --interval 1`), headless at 160x45; the producer and the consumers are child processes, so the memory measured is
the app's. The lab binds 127.0.0.1 on free ports in a temp dir and is brought down at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
import tracemalloc
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import psutil

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.topics import TopicAdmin
from kafkatop.backends.lab.cluster import LabCluster
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.tui.cli.compose import compose_app
from kafkatop.tui.cli.parser import build_parser

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.* also when run as a file
from bench.common.lab import kraft_lab

TOPIC = "soak"
GROUP = "soak-group"

PRODUCER = """
import sys, time
from confluent_kafka import Producer
bootstrap, topic, rate = sys.argv[1], sys.argv[2], float(sys.argv[3])
p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "acks": "all", "message.timeout.ms": 60000})
n, start = 0, time.monotonic()
while True:
    due = int((time.monotonic() - start) * rate)
    while n < due:
        try:
            p.produce(topic, key=str(n % 1000).encode(), value=b"x" * 100)
            n += 1
        except BufferError:
            break
    p.poll(0.01)
"""

CONSUMERS = """
import sys, threading
from confluent_kafka import Consumer
bootstrap, topic, group = sys.argv[1:4]
def run(i):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "latest",
                  "client.id": f"soak-consumer-{i}"})
    c.subscribe([topic])
    while True:
        c.consume(500, 0.5)
threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(3)]
for t in threads: t.start()
for t in threads: t.join()
"""


class LagHistogram:
    """Event-loop lag samples counted per whole millisecond (up to 10 s), for quantiles in constant memory."""

    def __init__(self) -> None:
        self.counts = [0] * 10_001
        self.count = 0
        self.max = 0.0

    def add(self, lag_s: float) -> None:
        self.counts[min(10_000, max(0, round(lag_s * 1000)))] += 1
        self.count += 1
        self.max = max(self.max, lag_s)

    def quantile(self, q: float) -> float:
        wanted, seen = q * self.count, 0
        for ms, n in enumerate(self.counts):
            seen += n
            if n and seen >= wanted:
                return ms / 1000
        return 0.0


def layout(snapshot: ClusterSnapshot | None) -> tuple[Any, ...] | None:
    """What must agree between the app's view and the cluster: live brokers, and each partition's leader and ISR."""
    if snapshot is None:
        return None
    topic = snapshot.topic(TOPIC)
    parts = () if topic is None else tuple((p.id, p.leader, tuple(sorted(p.isr))) for p in topic.partitions)
    return tuple(sorted(b.id for b in snapshot.brokers_alive)), parts


async def soak(args: argparse.Namespace, cluster: LabCluster, bootstrap: str) -> int:
    cli = build_parser().parse_args(["--bootstrap-server", bootstrap, "--interval", "1"])
    truth_source = AdminSource(KafkaConnection.parse(bootstrap), timeout_s=3.0)
    # Lag samples as counts per millisecond (constant memory: a list of samples would itself grow the RSS measured).
    lags, minute_lags = LagHistogram(), LagHistogram()
    minute_rss: list[int] = []
    steps: list[tuple[str, float | None]] = []
    me = psutil.Process()
    crashes = 0
    traced_at_5: tracemalloc.Snapshot | None = None
    if args.trace:
        tracemalloc.start(6)
    with ExitStack() as stack:
        app = compose_app(cli, stack, terminal=False)
        try:
            async with app.run_test(size=(160, 45)) as pilot:
                start = time.monotonic()
                end = start + args.minutes * 60
                next_minute, next_step, step_no = start + 60, start + 120, 0
                restart_at: tuple[float, str] | None = None

                async def converged(what: str, node_id: int, alive: bool) -> None:
                    """Waits for the cluster to show the step (the node gone from the live brokers, or back in every
                    ISR), then for the view to agree with it: leaders, ISR, live brokers."""
                    t = time.monotonic()
                    settled = agreed = None
                    while time.monotonic() - t < 120:
                        try:
                            truth = layout(await asyncio.to_thread(truth_source.poll))
                        except KafkatopError:
                            truth = None
                        if truth is not None and settled is None:
                            brokers, parts = truth
                            shows = (node_id in brokers and all(node_id in isr for _, _, isr in parts)) if alive else (
                                node_id not in brokers)  # fmt: skip
                            if shows and parts:
                                settled = time.monotonic() - t
                        if settled is not None and truth is not None and layout(app.view.cluster) == truth:
                            agreed = time.monotonic() - t
                            break
                        await asyncio.sleep(0.25)
                    steps.append((what, None if agreed is None or settled is None else agreed - settled))
                    if agreed is None or settled is None:
                        print(f"  {what}: the view did NOT agree with the cluster within 120 s", flush=True)
                    else:
                        print(
                            f"  {what}: the cluster showed it after {settled:.1f} s, the view agreed "
                            f"{agreed - settled:.1f} s later",
                            flush=True,
                        )

                while time.monotonic() < end:
                    t = time.monotonic()
                    await asyncio.sleep(0.05)
                    lag = time.monotonic() - t - 0.05
                    lags.add(lag)
                    minute_lags.add(lag)
                    now = time.monotonic()
                    if now >= next_minute:
                        minute_rss.append(me.memory_info().rss)
                        if args.trace and len(minute_rss) == 5:
                            traced_at_5 = tracemalloc.take_snapshot()
                        p99 = minute_lags.quantile(0.99)
                        minute_lags = LagHistogram()
                        print(
                            f"minute {len(minute_rss):2d}: rss {minute_rss[-1] / 2**20:.1f} MiB, "
                            f"loop lag p99 {p99 * 1000:.0f} ms (last minute)",
                            flush=True,
                        )
                        next_minute += 60
                    if restart_at is not None and now >= restart_at[0]:
                        node = restart_at[1]
                        restart_at = None
                        await asyncio.to_thread(cluster.start, node)
                        await converged(f"start {node}", int(node.split("-")[1]), alive=True)
                    if now >= next_step:
                        action = ("kill", "stop", "restart")[step_no % 3]
                        node = f"broker-{step_no % 3 + 1}"
                        step_no += 1
                        next_step += 120
                        await asyncio.to_thread(getattr(cluster, action), node)
                        await converged(f"{action} {node}", int(node.split("-")[1]), alive=action == "restart")
                        if action != "restart":
                            restart_at = (time.monotonic() + 60, node)
                if args.trace and traced_at_5 is not None:
                    _print_growth(traced_at_5, tracemalloc.take_snapshot())
                await pilot.pause()
        except Exception as e:  # noqa: BLE001 - a crash of the app is the finding
            crashes += 1
            print(f"the app crashed: {type(e).__name__}: {e}", flush=True)
    truth_source.close()

    print()
    base = minute_rss[4] if len(minute_rss) >= 5 else (minute_rss[0] if minute_rss else 0)
    last = minute_rss[-1] if minute_rss else 0
    growth = (last - base) / base * 100 if base else 0.0
    p99 = lags.quantile(0.99)
    print(f"minutes: {len(minute_rss)}; rss at minute 5 {base / 2**20:.1f} MiB, at the end {last / 2**20:.1f} MiB")
    print(f"rss growth after the first 5 minutes: {growth:+.1f} % (target <= 10 %)")
    print(
        f"event-loop lag over {lags.count} samples: p50 {lags.quantile(0.5) * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, "
        f"max {lags.max * 1000:.0f} ms (target p99 <= 100 ms)"
    )
    print(f"crashes: {crashes}")
    converged_s = [s for _, s in steps if s is not None]
    print(
        f"chaos steps: {len(steps)}, the view agreed with the cluster after {len(converged_s)}"
        + (
            f"; lag behind the cluster median {statistics.median(converged_s):.1f} s, max {max(converged_s):.1f} s"
            if converged_s
            else ""
        )
    )
    ok = crashes == 0 and growth <= 10 and p99 <= 0.1 and len(converged_s) == len(steps)
    return 0 if ok else 1


def _print_growth(before: tracemalloc.Snapshot, after: tracemalloc.Snapshot) -> None:
    """Where Python's own allocations grew from minute 5 to the end (--trace; tracemalloc adds its own memory)."""
    stats = after.compare_to(before, "traceback")
    grown = sum(s.size_diff for s in stats)
    print(f"\npython allocations grew {grown / 2**20:+.2f} MiB from minute 5; the largest growths:")
    for stat in stats[:10]:
        print(f"  {stat.size_diff / 1024:+8.1f} KiB in {stat.count_diff:+d} blocks")
        for line in stat.traceback.format()[-6:]:
            print(f"      {line}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--rate", type=float, default=2000)
    ap.add_argument("--trace", action="store_true", help="also show where Python's allocations grew (tracemalloc)")
    args = ap.parse_args()
    children: list[subprocess.Popen[bytes]] = []
    with kraft_lab("soak") as cluster:
        try:
            snap = cluster.up(timeout_s=180)
            bootstrap = snap.bootstrap_servers
            with TopicAdmin(KafkaConnection.parse(bootstrap)) as topics:
                topics.create_topic(TOPIC, 6, 3)
            time.sleep(3)
            quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
            producer = [sys.executable, "-c", PRODUCER, bootstrap, TOPIC, str(args.rate)]
            children.append(subprocess.Popen(producer, **quiet))  # type: ignore[call-overload]
            consumers = [sys.executable, "-c", CONSUMERS, bootstrap, TOPIC, GROUP]
            children.append(subprocess.Popen(consumers, **quiet))  # type: ignore[call-overload]
            print(
                f"lab up at {bootstrap}; producer at {args.rate:g} msg/s, 3 consumers in {GROUP}; {args.minutes:g} min"
            )
            return asyncio.run(soak(args, cluster, bootstrap))
        finally:
            for child in children:  # they produce and consume until killed
                child.kill()
                child.wait(10)


if __name__ == "__main__":
    sys.exit(main())
