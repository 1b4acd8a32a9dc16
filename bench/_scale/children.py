"""The measurements of the scale benchmark, each in a child process of the tree measured (`scale.py --child MODE
...`): a full poll and a counted one, the app's memory over time, the partition table at 10,000 rows. Each prints
its result as one JSON line. `kafkatop` is imported inside the functions: from the tree the child runs for."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench._scale import PARTITIONS, TOPICS
from bench.common.frames import FrameWatch, frames_drawn
from bench.common.machine import rss_mb


def child_poll(bootstrap: str, counted: str, groups_file: str, runs: int) -> dict[str, Any]:
    """Timed full polls on `bootstrap`, then one steady poll through `counted` (the parent counts its requests)."""
    from kafkatop.backends.kafka.admin.admin import AdminSource
    from kafkatop.backends.model.connection import KafkaConnection

    watch = json.loads(Path(groups_file).read_text()) if groups_file else []
    source = AdminSource(KafkaConnection.parse(bootstrap), timeout_s=10.0, watch_groups=watch)
    for _ in range(3):
        source.poll()
    times, fresh, problems = [], [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        snap = source.poll()
        times.append(time.perf_counter() - t0)
        fresh.append(sum(1 for g in snap.groups if g.offsets))
        problems.append(len(snap.problems))
    partitions = len(snap.partitions)
    groups = len(snap.groups)
    import psutil

    me = psutil.Process()
    out: dict[str, Any] = {
        "times": times, "fresh": fresh, "problems": problems, "partitions": partitions, "groups": groups,
        "rss_mb": rss_mb(), "threads": me.num_threads(), "fds": me.num_fds(),
        "sample_problems": sorted({f"{p.what}: {p.reason}"[:120] for p in snap.problems})[:3],
    }  # fmt: skip
    source.close()
    # The counted poll: through the counting proxy, or on the mock (which counts itself).
    counting = AdminSource(KafkaConnection.parse(counted or bootstrap), timeout_s=10.0, watch_groups=watch)
    for _ in range(3):
        counting.poll()
    print("READY", flush=True)
    sys.stdin.readline()  # the parent reset its counts
    counting.poll()
    print("DONE", flush=True)
    sys.stdin.readline()
    counting.close()
    return out


async def _app_memory(bootstrap: str, groups_file: str, seconds: float) -> dict[str, Any]:
    from kafkatop.backends.kafka.admin.admin import AdminSource
    from kafkatop.backends.model.connection import KafkaConnection
    from kafkatop.tui.live.app import KafkatopApp
    from kafkatop.tui.live.sources import Settings, Sources

    watch = json.loads(Path(groups_file).read_text()) if groups_file else []
    source = AdminSource(KafkaConnection.parse(bootstrap), timeout_s=10.0, watch_groups=watch)
    app = KafkatopApp(Sources(source.poll), Settings(poll_interval_s=2.0))
    samples = []
    async with app.run_test(size=(160, 45)) as pilot:
        tabs = app if hasattr(app, "action_tab") else app.main_screen  # the app's in "today", its screen's now
        end = time.monotonic() + seconds
        tab = 0
        while time.monotonic() < end:
            await pilot.pause(1.0)
            tab = tab % 5 + 1  # every tab drawn in turn: Partitions, Brokers, Produce, Consume, Groups
            tabs.action_tab(tab)
            samples.append(rss_mb())
        polled = app.snapshot is not None and len(app.snapshot.partitions)
    source.close()
    return {"samples": samples, "peak": max(samples), "end": samples[-1], "partitions": polled}


def ten_thousand(taken_at: float, failed_broker: int | None = None) -> Any:
    """A 10,000-partition snapshot (100 topics x 100 partitions, RF 3 on 3 brokers)."""
    from kafkatop.backends.model.cluster import Broker, ClusterSnapshot, Partition, Topic

    brokers = tuple(Broker(b, "127.0.0.1", 9092 + b, alive=b != failed_broker) for b in (1, 2, 3))
    topics = []
    for t in range(TOPICS):
        name = f"t-{t:03}"
        parts = []
        for p in range(PARTITIONS):
            replicas = tuple(((p + i) % 3) + 1 for i in range(3))
            isr = tuple(r for r in replicas if r != failed_broker)
            leader = replicas[0] if replicas[0] != failed_broker else replicas[1]
            offline = (failed_broker,) if failed_broker else ()
            parts.append(Partition(name, p, leader, replicas, isr, offline, 0, 1000 + p + int(taken_at)))
        topics.append(Topic(name, tuple(parts)))
    return ClusterSnapshot("bench", taken_at, "bench", "kraft", None, brokers, tuple(topics))


async def _table(runs: int) -> dict[str, Any]:
    """Each interaction timed as a terminal user sees it (FrameWatch: to the end of the last frame that drew what it
    changed, the key delivered as the driver does); the filter's keystroke also through Textual's Pilot, as the
    figures before issue 30 were taken (the Pilot's own waiting is inside that window)."""
    from kafkatop.tui.live.app import KafkatopApp
    from kafkatop.tui.live.feed import Feed
    from kafkatop.tui.live.sources import Settings, Sources
    from kafkatop.tui.live.widgets import partitions as module

    base = ten_thousand(1.0)
    app = KafkatopApp(Sources(lambda: base), Settings(poll_interval_s=86_400), clock=lambda: 1.0)
    out: dict[str, list[float]] = {
        "steady": [], "failover": [], "keystroke": [], "order": [], "topic rows": [], "keystroke (pilot)": [],
    }  # fmt: skip
    import gc

    started: list[float] = []
    collections: list[tuple[int, float]] = []

    def collected(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[:] = [time.perf_counter()]
        elif started:
            collections.append((info["generation"], (time.perf_counter() - started[0]) * 1000))

    gc.callbacks.append(collected)
    async with app.run_test(size=(160, 45)) as pilot:
        pane = app.query_one(module.PartitionsPane)
        if hasattr(pane, "by_topic"):
            pane.by_topic = False  # every partition: the worst case (now starts with one row per topic here)
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        watch = FrameWatch(app)
        times = frames_drawn(app)
        table = app.query_one(module.PartitionTable)
        summary = app.query_one("#topic-summary")
        posted: list[Any] = []
        feed = Feed(posted.append)  # as the app's poll worker hands a poll on: history and timeline with it
        clock = 10.0

        def delivered(snap: Any) -> Any:
            feed.cluster(snap)
            return posted.pop()

        async def refresh(snap: Any, *changed: Any) -> float:
            """From the poll's message posted (its worker done) to its frame."""
            nonlocal clock
            clock += 2.0
            message = await asyncio.to_thread(delivered, replace(snap, taken_at=clock))
            return await watch.time(lambda: app.post_message(message), summary, *changed)

        for _ in range(3):
            await refresh(base, table)
        for _ in range(runs):
            out["steady"].append(await refresh(base, table))
            out["failover"].append(await refresh(ten_thousand(1.0, failed_broker=2), table))
            await refresh(base, table)
        rows = table.row_count
        await pilot.press("slash")
        field = app.query_one("#filter-input")
        field.cursor_blink = False  # a blink is a frame of its own, not the keystroke's
        count = app.query_one("#filter-count")
        for ch in "t-042-7":
            out["keystroke"].append(await watch.time(watch.key(ch), table, field, count))
        for _ in "t-042-7":
            await watch.time(watch.key("backspace"), table, field, count)
        await asyncio.sleep(0.15)
        for ch in "t-042-7":  # as measured before issue 30: through the Pilot
            times.clear()
            t0 = time.perf_counter()
            await pilot.press(ch)
            out["keystroke (pilot)"].append((times[-1] - t0) * 1000 if times else float("nan"))
        filtered = table.row_count
        await pilot.press("escape")
        if hasattr(table, "order"):  # `o` (now only): faults first, most messages first, by leader, back
            table.focus()
            await pilot.pause()
            for _ in range(runs):
                out["order"].append(await watch.time(watch.key("o"), table, summary))
        if hasattr(pane, "by_topic"):
            pane.by_topic = True
            topics = app.query_one("#topic-table")
            await refresh(base, topics)
            for _ in range(runs):
                out["topic rows"].append(await refresh(base, topics))
    gc.callbacks.remove(collected)
    full = [ms for generation, ms in collections if generation == 2]
    return {**out, "rows": rows, "filtered": filtered, "full collections": len(full), "longest": max(full, default=0)}


def child(argv: list[str]) -> None:
    mode = argv[0]
    if mode == "poll":
        result = child_poll(argv[1], argv[2], argv[3], int(argv[4]))
    elif mode == "app":
        result = asyncio.run(_app_memory(argv[1], argv[2], float(argv[3])))
    elif mode == "table":
        result = asyncio.run(_table(int(argv[1])))
    else:
        raise SystemExit(f"unknown child mode {mode}")
    print(json.dumps(result), flush=True)
