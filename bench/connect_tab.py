"""Benchmark: one refresh of the Connect tab at 200 connectors × 4 tasks (target ≤ 50 ms).

The connectors are the answer recorded on a real Kafka 4.1 lab (`GET /connectors?expand=status&expand=info`,
tests/fixtures/connect/connectors_expanded.json: a FileStreamSource, a FileStreamSink, a sink whose task FAILED),
read by the adapter's own parser and scaled up to 200 connectors of 4 tasks over two workers. Each snapshot goes
through the app as a poll's would (`Polled`), in a headless Textual app at 160×45 with the Connect tab on
screen. Timed: from posting the message until the app is idle again with the new frame drawn. Three kinds:
- first: the tables built (200 connector rows, the highlighted connector's tasks), once, after an empty view;
- steady: a poll where nothing changed (a new snapshot, equal): no frame needed, timed until the app is idle;
- failover: a worker lost, every connector and task it ran moved to the other (half the rows change).
Median of several runs of each; prints a RESULT line for a refresh (steady or failover; the first build is a
one-off, reported beside it, as bench/tui_refresh.py does), and asserts nothing.

    .venv/bin/python bench/connect_tab.py [--runs 15]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.* also when run as a file
from bench.common.frames import frames_drawn
from bench.common.stats import print_kinds, slowest_refresh, verdict
from kafkatop.backends.connect.answers import connectors_of, worker_of
from kafkatop.backends.model.cluster import Broker, ClusterSnapshot
from kafkatop.backends.model.connect import ConnectSnapshot, ConnectTask
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.messages import Polled
from kafkatop.tui.live.sources import Settings, Sources

TARGET_MS = 50.0
SIZE = (160, 45)
CONNECTORS, TASKS = 200, 4
RECORDED = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "connect"
WORKERS = ("127.0.0.1:24480", "127.0.0.1:24481")  # the recording lab's


def connect_snapshot(taken_at: float, lost: str | None = None) -> ConnectSnapshot:
    """The recorded connectors scaled up; `lost`: that worker does not answer and its tasks run on the other."""
    base = connectors_of(json.loads((RECORDED / "connectors_expanded.json").read_text()))
    root = json.loads((RECORDED / "root.json").read_text())
    trace = next(t.trace for c in base for t in c.tasks if t.trace)
    connectors = []
    for i in range(CONNECTORS):
        like = base[i % len(base)]
        name = f"{like.name}-{i:03d}"
        tasks = []
        for t in range(TASKS):
            worker = WORKERS[(i + t) % 2]
            failed = (i * TASKS + t) % 20 == 7
            if worker == lost:
                worker = next(w for w in WORKERS if w != lost)
            tasks.append(ConnectTask(name, t, "FAILED" if failed else "RUNNING", worker, trace if failed else None))
        runs_on = WORKERS[i % 2] if WORKERS[i % 2] != lost else next(w for w in WORKERS if w != lost)
        connectors.append(replace(like, name=name, worker_id=runs_on, tasks=tuple(tasks)))
    workers = tuple(
        replace(worker_of(f"http://{w}", root), version=None, problem="did not answer (connection refused)")
        if w == lost
        else worker_of(f"http://{w}", root)
        for w in WORKERS
    )
    return ConnectSnapshot(taken_at, workers, tuple(sorted(connectors, key=lambda c: c.name)))


class RecordedWorkers:
    """A stand-in for the ConnectCluster port: the app's own first poll answers the scaled snapshot (the benchmark
    posts the others); every action is refused."""

    urls = tuple(f"http://{w}" for w in WORKERS)

    def __init__(self, first: ConnectSnapshot) -> None:
        self.first = first

    def poll(self) -> ConnectSnapshot:
        return self.first

    def __getattr__(self, name: str) -> object:
        raise AttributeError(f"{name}: a benchmark acts on nothing")

    def close(self) -> None:
        pass


async def measure(runs: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"first": [], "steady": [], "failover": []}
    cluster = ClusterSnapshot("bench", 1.0, "bench", "kraft", None, (Broker(1, "127.0.0.1", 9092),), ())
    base = connect_snapshot(1.0)
    for run in range(runs):
        sources = Sources(lambda: cluster, connect=RecordedWorkers(base))  # type: ignore[arg-type]
        settings = Settings(poll_interval_s=86_400, ensemble_interval_s=86_400, connect_interval_s=86_400)
        app = KafkatopApp(sources, settings, clock=lambda: 1.0)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.press("N")
            await pilot.pause()
            drawn = frames_drawn(app)
            for kind, snap in (
                ("first", connect_snapshot(2.0 + run)),  # after an empty view: every row built again
                ("steady", connect_snapshot(3.0 + run)),
                ("failover", connect_snapshot(4.0 + run, lost=WORKERS[1])),
            ):
                if kind == "first":
                    app.post_message(Polled("connect", replace(snap, connectors=())))
                    await pilot.pause()
                drawn.clear()
                t0 = time.perf_counter()
                app.post_message(Polled("connect", snap))
                await pilot.pause()
                idle = time.perf_counter()
                assert drawn or kind == "steady", f"{kind}: no frame was drawn"
                times[kind].append(((drawn[-1] if drawn else idle) - t0) * 1000)
            table = app.query_one("#connectors")
            assert table.row_count == CONNECTORS, table.row_count  # type: ignore[attr-defined]
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    times = asyncio.run(measure(args.runs))
    print(f"Connect tab, {CONNECTORS} connectors × {TASKS} tasks, {args.runs} runs, headless {SIZE[0]}×{SIZE[1]}")
    print("wall time, from the poll's message until the last frame it caused was drawn:")
    print_kinds(times)
    worst = slowest_refresh(times)
    print(
        f"RESULT: a Connect tab refresh ({CONNECTORS} connectors × {TASKS} tasks; steady or failover), slowest median "
        f"wall time {worst:.1f} ms; target ≤ {TARGET_MS:.0f} ms -> {verdict(worst <= TARGET_MS)}  (the first build "
        f"is a one-off: {statistics.median(times['first']):.1f} ms)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
