"""The `lag` figure of bench/scale.py (issue 42): the lag evaluator's time per poll at the bench's shape — 100 topics x
100 partitions, 1,000 groups each with committed offsets on one topic's 100 partitions (100,000 offsets) — target
≤ 20 ms a poll, median.

The evaluator is pure (backends/insight/lag): it sees what a poll delivers and sends no request, so the polls' requests
are those of the `poll` figure, unchanged. It is fed here the snapshots a poll delivers, built in this process: each
poll new ConsumerGroup objects (as the group poll builds them), and the same Topic objects while no watermark of theirs
moved (as AdminSource reuses them). Three cases, each median of --runs over polls 2 s apart:
  quiet   nothing moved since the last poll (an idle cluster: most of them);
  busy    every high watermark and every committed offset moved (every group consuming, every topic written);
  first   the first poll (every group and partition new);
  budget  busy, with the live view's budget (tui/live/feed.py LAG_BUDGET_S): the CPU a poll takes then, and how many
          polls a group waits for its next evaluation at the most.
Also the evaluator's memory after 60 polls (tracemalloc: what its own code allocated and still holds).
"""

from __future__ import annotations

import time
import tracemalloc
from dataclasses import replace
from typing import Any

from bench._scale import GROUPS, PARTITIONS, TOPICS
from bench.common.stats import median, verdict

TARGET_S = 0.020
POLL_S = 2.0


def shape(step: int, topics: tuple[Any, ...] | None) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The topics (the same objects when `topics` is given: nothing moved) and the groups of poll `step`."""
    from kafkatop.backends.model.cluster import Partition, Topic
    from kafkatop.backends.model.groups import ConsumerGroup, GroupPartitionOffset, GroupState

    if topics is None:
        topics = tuple(
            Topic(f"t-{t:03d}", tuple(Partition(f"t-{t:03d}", p, 1, (1,), (1,), low_watermark=0,
                                                high_watermark=1_000 + 10 * step) for p in range(PARTITIONS)))
            for t in range(TOPICS)
        )  # fmt: skip
    groups = tuple(
        ConsumerGroup(f"g-{g:04d}", GroupState.EMPTY, group_type="classic", offsets=tuple(
            GroupPartitionOffset(f"t-{g % TOPICS:03d}", p, 990 + 10 * step - (p % 3), 1_000 + 10 * step)
            for p in range(PARTITIONS)))
        for g in range(GROUPS)
    )  # fmt: skip
    return topics, groups


def lag_figures(args: Any, results: list[str]) -> None:
    from kafkatop.backends.insight.lag.evaluator import LagEvaluator
    from kafkatop.backends.model.cluster import ClusterSnapshot

    def snapshot(at: float, topics: tuple[Any, ...], groups: tuple[Any, ...]) -> ClusterSnapshot:
        return ClusterSnapshot("admin", at, "c", "kraft", None, (), topics, groups)

    print(f"-- lag: {TOPICS * PARTITIONS:,} partitions, {GROUPS:,} groups x {PARTITIONS} committed offsets (the "
          "evaluator alone; it sends no request)")  # fmt: skip
    from kafkatop.tui.live.feed import LAG_BUDGET_S

    quiet: list[float] = []
    busy: list[float] = []
    first: list[float] = []
    budgeted: list[float] = []
    waits: list[int] = []
    memory = 0
    for run in range(args.runs + 1):
        budget = LAG_BUDGET_S if run == args.runs else None  # the last run: as the live view evaluates
        evaluator = LagEvaluator()
        at = 1_800_000_000.0
        topics, groups = shape(0, None)
        if run == 0:
            tracemalloc.start()
        t0 = time.process_time()
        evaluator.observe(snapshot(at, topics, groups))
        first.append(time.process_time() - t0)
        for step in range(1, 61):
            at += POLL_S
            moving = step % 2 == 0  # every other poll everything moves; in between, nothing
            if moving:
                topics, groups = shape(step, None)
            else:
                groups = tuple(replace(g, offsets=tuple(replace(o) for o in g.offsets)) for g in groups)
            t0 = time.process_time()
            lag = evaluator.observe(snapshot(at, topics, groups), budget)
            spent = time.process_time() - t0
            if budget is not None:
                if moving:
                    budgeted.append(spent)
                    waits.append(round(max(at - g.as_of for g in lag.groups) / POLL_S))
                continue
            (busy if moving else quiet).append(spent)
        if run == 0:  # what the evaluator's own code holds: its windows, points and last evaluation
            held = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(True, "*insight/lag/*")])
            memory = sum(stat.size for stat in held.statistics("filename"))
            tracemalloc.stop()
    q, b, f = median(quiet), median(busy), median(first)
    capped = median(budgeted)
    print(f"   per poll, CPU median: quiet {q * 1000:.1f} ms, busy {b * 1000:.1f} ms, first {f * 1000:.1f} ms; "
          f"the evaluator's memory after 60 polls (tracemalloc, run 1): {memory / 2**20:.1f} MiB")  # fmt: skip
    print(f"   busy with the live view's budget ({LAG_BUDGET_S * 1000:.0f} ms): {capped * 1000:.1f} ms a poll; a moved "
          f"group waits at most {max(waits)} polls for its evaluation (median {median(waits):.0f})")  # fmt: skip
    results.append(f"RESULT lag: evaluation per poll at {GROUPS:,} groups x {PARTITIONS} partitions: quiet "
                   f"{q * 1000:.1f} ms, busy (everything moved) {b * 1000:.1f} ms unbounded, {capped * 1000:.1f} ms "
                   f"with the live view's budget (a group waits ≤ {max(waits)} polls); target ≤ "
                   f"{TARGET_S * 1000:.0f} ms -> quiet {verdict(q <= TARGET_S)}, busy in the live view "
                   f"{verdict(capped <= TARGET_S)}; requests added per poll: 0")  # fmt: skip
