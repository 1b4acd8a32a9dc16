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


def shaped(topics: list[tuple[str, int]], taken_at: float, failed_broker: int | None = None,
           groups: tuple[Any, ...] = ()) -> Any:  # fmt: skip
    """A snapshot of `topics` (name, partitions), RF 3 on 3 brokers, with `groups`."""
    from kafkatop.backends.model.cluster import Broker, ClusterSnapshot, Partition, Topic

    brokers = tuple(Broker(b, "127.0.0.1", 9092 + b, alive=b != failed_broker) for b in (1, 2, 3))
    made = []
    for name, count in topics:
        parts = []
        for p in range(count):
            replicas = tuple(((p + i) % 3) + 1 for i in range(3))
            isr = tuple(r for r in replicas if r != failed_broker)
            leader = replicas[0] if replicas[0] != failed_broker else replicas[1]
            offline = (failed_broker,) if failed_broker else ()
            parts.append(Partition(name, p, leader, replicas, isr, offline, 0, 1000 + p + int(taken_at)))
        made.append(Topic(name, tuple(parts)))
    return ClusterSnapshot("bench", taken_at, "bench", "kraft", None, brokers, tuple(made), groups)


def ten_thousand(taken_at: float, failed_broker: int | None = None) -> Any:
    """A 10,000-partition snapshot (100 topics x 100 partitions, RF 3 on 3 brokers)."""
    return shaped([(f"t-{t:03}", PARTITIONS) for t in range(TOPICS)], taken_at, failed_broker)


def anchor(taken_at: float, failed_broker: int | None = None, moved: int = 0) -> Any:
    """The anchor's shape (bench/_scale/anchor.py): 9,000 topics, 39,000 partitions, RF 3 here (a failover changes
    ISRs), and its 2,200 groups, each committed on one topic's partitions `moved` records further than at 0; one group
    in five is behind its topic's end (the rest caught up, as most of a big cluster's groups are)."""
    from bench._scale.anchor import GROUPS, topic_names

    try:
        from kafkatop.backends.model.groups import ConsumerGroup, GroupPartitionOffset, GroupState
    except ImportError:  # a tree before the groups' module (the "before" of issue 45)
        from kafkatop.backends.model.cluster import (  # type: ignore[attr-defined,no-redef]
            ConsumerGroup,
            GroupPartitionOffset,
            GroupState,
        )

    names = topic_names()
    groups = []
    for g in range(GROUPS):
        topic, count = names[g * 37 % len(names)]
        end = 1000 + moved + int(taken_at)
        offsets = tuple(GroupPartitionOffset(topic, p, end + p - (g % 5 == 0) * (1 + p % 3), end + p)
                        for p in range(count))  # fmt: skip
        groups.append(ConsumerGroup(f"g-{g:04d}", GroupState.EMPTY, group_type="classic", offsets=offsets))
    return shaped(names, taken_at, failed_broker, tuple(groups))


def one_written(snap: Any, n: int) -> Any:
    """`snap` with its first topic's first partition `n + 1` records further: a poll of a cluster where one topic was
    written (the rest the same objects, as AdminSource hands on what did not change)."""
    first = snap.topics[0]
    p0 = first.partitions[0]
    moved = replace(p0, high_watermark=(p0.high_watermark or 0) + n + 1)
    return replace(snap, topics=(replace(first, partitions=(moved, *first.partitions[1:])), *snap.topics[1:]))


SHAPES = {"ten": (ten_thousand, "t-042-7"), "anchor": (anchor, "b-0042-1")}  # the snapshot, a filter typed


def panes() -> tuple[Any, Any]:
    """(PartitionsPane, PartitionTable) of the tree this child runs."""
    try:
        from kafkatop.tui.live.tabs.partitions.pane import PartitionsPane
        from kafkatop.tui.live.tabs.partitions.table import PartitionTable
    except ImportError:  # a tree before the tabs' packages
        from kafkatop.tui.live.widgets.partitions import PartitionsPane, PartitionTable  # type: ignore[no-redef]
    return PartitionsPane, PartitionTable


async def _table(runs: int, shape: str = "ten") -> dict[str, Any]:
    """Each interaction timed as a terminal user sees it (FrameWatch: to the end of the last frame that drew what it
    changed, the key delivered as the driver does); the filter's keystroke also through Textual's Pilot, as the
    figures before issue 30 were taken (the Pilot's own waiting is inside that window)."""
    from kafkatop.tui.live.app import KafkatopApp
    from kafkatop.tui.live.feed import Feed
    from kafkatop.tui.live.sources import Settings, Sources

    snapshot_of, typed = SHAPES[shape]
    pane_class, table_class = panes()
    base = snapshot_of(1.0)
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
        pane = app.query_one(pane_class)
        if hasattr(pane, "by_topic"):
            pane.by_topic = False  # every partition: the worst case (now starts with one row per topic here)
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        watch = FrameWatch(app)
        times = frames_drawn(app)
        table = app.query_one(table_class)
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

        failed = snapshot_of(1.0, failed_broker=2)  # made once, before any figure: not in a measured window
        for _ in range(3):
            await refresh(base, table)
        for _ in range(runs):
            out["steady"].append(await refresh(base, table))
            out["failover"].append(await refresh(failed, table))
            await refresh(base, table)
        rows = table.row_count
        await pilot.press("slash")
        field = app.query_one("#filter-input")
        field.cursor_blink = False  # a blink is a frame of its own, not the keystroke's
        count = app.query_one("#filter-count")
        for ch in typed:
            out["keystroke"].append(await watch.time(watch.key(ch), table, field, count))
        for _ in typed:
            await watch.time(watch.key("backspace"), table, field, count)
        await asyncio.sleep(0.15)
        for ch in typed:  # as measured before issue 30: through the Pilot
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
            for run in range(runs):  # a poll in which one topic was written (one row of the topics changes)
                out["topic rows"].append(await refresh(one_written(base, run), topics))
    gc.callbacks.remove(collected)
    full = [ms for generation, ms in collections if generation == 2]
    return {**out, "rows": rows, "filtered": filtered, "full collections": len(full), "longest": max(full, default=0)}


async def _groups(runs: int) -> dict[str, Any]:
    """The Groups tab at the anchor's 2,200 groups, headless 160x45, each interaction to the end of its frame
    (FrameWatch): a poll delivered with nothing moved, one where every group's committed offsets moved (every row
    new), the cursor moved down a group (its offsets shown), and a keystroke of its `/` filter."""
    from kafkatop.tui.live.app import KafkatopApp
    from kafkatop.tui.live.feed import Feed
    from kafkatop.tui.live.sources import Settings, Sources

    base = anchor(1.0)
    app = KafkatopApp(Sources(lambda: base), Settings(poll_interval_s=86_400), clock=lambda: 1.0)
    out: dict[str, list[float]] = {"steady": [], "moved": [], "cursor": [], "keystroke": []}
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        app.main_screen.show_tab("tab-groups")
        await pilot.pause()
        table = app.query_one("#groups")
        offsets = app.query_one("#group-offsets")
        table.focus()
        await pilot.pause()
        watch = FrameWatch(app)
        posted: list[Any] = []
        feed = Feed(posted.append)
        clock = 10.0

        def delivered(snap: Any) -> Any:
            feed.cluster(snap)
            return posted.pop()

        async def refresh(snap: Any) -> float:
            nonlocal clock
            clock += 2.0
            message = await asyncio.to_thread(delivered, replace(snap, taken_at=clock))
            return await watch.time(lambda: app.post_message(message), table)

        moved = [anchor(1.0, moved=run + 1) for run in range(runs)]  # made before any figure
        for _ in range(3):
            await refresh(base)
        for run in range(runs):
            out["steady"].append(await refresh(base))
            out["moved"].append(await refresh(moved[run]))
            out["cursor"].append(await watch.time(watch.key("down"), table, offsets))
        rows = table.row_count
        await pilot.press("slash")
        field = app.focused
        if field is not None:
            field.cursor_blink = False
        for ch in "g-01":
            out["keystroke"].append(await watch.time(watch.key(ch), table))
        filtered = table.row_count
        await pilot.press("escape")
    return {**out, "rows": rows, "filtered": filtered}


def child(argv: list[str]) -> None:
    mode = argv[0]
    if mode == "poll":
        result = child_poll(argv[1], argv[2], argv[3], int(argv[4]))
    elif mode == "app":
        result = asyncio.run(_app_memory(argv[1], argv[2], float(argv[3])))
    elif mode == "table":
        result = asyncio.run(_table(int(argv[1]), *argv[2:3]))
    elif mode == "groups":
        result = asyncio.run(_groups(int(argv[1])))
    else:
        raise SystemExit(f"unknown child mode {mode}")
    print(json.dumps(result), flush=True)
