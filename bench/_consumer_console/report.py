"""The parent's report of the consumer console benchmark: one layout's runs, their figures and medians."""

from __future__ import annotations

import argparse
import os
from typing import Any

from bench._consumer_console import IN_PROCESS, SLOW_CALLBACK_MS
from bench._consumer_console.bare import DRAIN_IDLE_S, Drained
from bench._consumer_console.run import RunResult
from bench.common.stats import median as med
from bench.common.stats import percentile, stats_line, worst


def rss_at(result: RunResult, s: float) -> float:
    """RSS (MB) of the last sample at or before `s` seconds after the first produce."""
    before = [mb for t, mb in result.rss_mb if t <= s]
    return before[-1] if before else result.rss_mb[0][1]


def report(layout: str, results: list[RunResult], args: argparse.Namespace) -> dict[str, Any]:
    """Prints one layout's figures; returns the medians the verdicts are made of."""
    n = len(results)
    print()
    print(f"==== cluster {layout}: {n} runs ====")
    print(f"-- throughput (target {args.rate:,.0f} msg/s for {args.seconds:g} s) --")
    for i, r in enumerate(results, 1):
        catch = f"{r.catch_up_s:.2f} s" if r.catch_up_s is not None else f"NOT (nothing came for {DRAIN_IDLE_S:.0f} s)"
        print(
            f"  run {i}: produced {r.produced:,} in {r.produce_s:.2f} s = {r.produced / r.produce_s:,.0f} msg/s, "
            f"all delivered after {r.flush_s:.2f} s ({r.delivery_errors} failed); consumer received {r.received:,}, "
            f"caught up {catch} after the last produce; to the UI {r.drained:,}, dropped {r.dropped:,}, "
            f"left in the buffer {r.left_buffered:,}"
        )
    print(f"  achieved produce rate, median {med([r.produced / r.produce_s for r in results]):,.0f} msg/s")

    print("-- the UI (lag: first produce until caught up; frames, drains: first to last drain with records) --")
    for i, r in enumerate(results, 1):
        lag, gaps = r.lag_ms, r.frame_gaps_ms
        print(
            f"  run {i}: {r.window_s:4.1f} s: loop lag max {worst(lag):6.1f} ms p99 {percentile(lag, 99):5.1f} ms "
            f"({len(lag)} probes) | {r.flow_s:4.1f} s flowing: {r.frames} frames ({r.frames / r.flow_s:.1f}/s), "
            f"worst gap {worst(gaps):6.1f} ms; {r.drains} drains, worst gap {worst(r.drain_gaps_ms):6.1f} ms"
        )
    print(f"  event-loop lag, max per run:       {stats_line([worst(r.lag_ms) for r in results])}")
    print(f"  event-loop lag, p99 per run:       {stats_line([percentile(r.lag_ms, 99) for r in results])}")
    print(f"  worst gap between frames, per run: {stats_line([worst(r.frame_gaps_ms) for r in results])}")
    print(
        f"    the same, only gaps with records in every drain between:  "
        f"{stats_line([worst(r.frame_gaps_fed_ms) for r in results])}"
    )
    print(
        f"    (drains that found nothing new while records flowed, per run: {[r.empty_drains for r in results]}: "
        "the consumer receives in bursts)"
    )
    print(f"  drain to screen, worst per run:    {stats_line([worst(r.to_screen_ms) for r in results])}")
    frames = [r.frames for r in results]
    print(f"  frames drawn per run:              median {med(frames):.0f}   min {min(frames)}   max {max(frames)}")
    all_frames = [x for r in results for x in r.frame_ms]
    all_records = [float(x) for r in results for x in r.drain_records]
    encoded = "" if args.no_encode else " + encoding"
    print(f"  each frame (compositor{encoded}): {stats_line(all_frames)}  ({len(all_frames)})")
    print(f"  each gap between frames:           {stats_line([x for r in results for x in r.frame_gaps_ms])}")
    print(f"  each ConsumerPane.show_drained:   {stats_line([x for r in results for x in r.panel_ms])}")
    print(f"  each gap between drains handled:   {stats_line([x for r in results for x in r.drain_gaps_ms])}")
    print(f"  each gap between Consoles.drain(): {stats_line([x for r in results for x in r.hub_drain_gaps_ms])}")
    print(f"  each Consoles.drain() (worker):    {stats_line([x for r in results for x in r.hub_drain_ms])}")
    print(f"  drain returned -> panel began:     {stats_line([x for r in results for x in r.handled_after_ms])}")
    print(f"  drain returned -> frame drawn:     {stats_line([x for r in results for x in r.to_screen_ms])}")
    print(
        f"  records per drain:                 median {med(all_records):.0f}   p90 {percentile(all_records, 90):.0f}"
        f"   min {min(all_records):.0f}   max {max(all_records):.0f}  (ConsumerPool.drain takes at most 2,000)"
    )
    print(f"  age of the newest line shown:      {stats_line([x for r in results for x in r.shown_age_ms], 0)}")
    buffered = [float(x) for r in results for x in r.buffered]
    print(
        f"  records waiting in the pool's buffer (every 100 ms): median {med(buffered):,.0f}   "
        f"p90 {percentile(buffered, 90):,.0f}   max {max(buffered):,.0f}  (it holds 20,000; beyond, the oldest drop)"
    )
    gens = sorted({g for r in results for g in r.gc_ms})
    gc_parts = []
    for g in gens:
        count = med([len(r.gc_ms.get(g, [])) for r in results])
        pause = max(x for r in results for x in r.gc_ms.get(g, [0.0]))
        gc_parts.append(f"{g} {count:.0f}× (max {pause:.1f} ms)")
    print(f"  garbage collections per run (median count, worst pause): {', '.join(gc_parts) or 'none'}")
    print(f"  loop callbacks ≥ {SLOW_CALLBACK_MS:.0f} ms per run: {[r.slow_callbacks for r in results]}")
    middle = len(results) // 2
    heap = med([r.heap_objects for r in results])
    full_gc = med([r.full_gc_ms for r in results])
    common = ", ".join(f"{name} {n:,}" for name, n in results[middle].heap_top)
    print(
        f"  heap a full collection walks, after the run (not frozen): median {heap:,.0f} objects; one gc.collect() "
        f"then took median {full_gc:.0f} ms; most common (run {middle + 1}): {common}"
    )
    print("  the worst lag spikes and what they overlapped:")
    for i, r in enumerate(results, 1):
        for spike in r.spikes:
            print(f"    run {i}: {spike}")

    window = med([r.window_s for r in results])
    print(f"-- CPU over the lag window (s, median of runs; {os.cpu_count()} CPUs) --")
    kinds = sorted({k for r in results for k in r.cpu_s}, key=lambda k: -med([r.cpu_s.get(k, 0.0) for r in results]))
    for k in kinds:
        v = med([r.cpu_s.get(k, 0.0) for r in results])
        print(f"  {k:<54} {v:6.2f} s  ({v / window * 100:5.1f} % of one CPU)")
    others = [r.others_cpu_s for r in results]
    print(
        f"  {'[other processes on the machine]':<54} {med(others):6.2f} s  ({med(others) / window * 100:5.1f} % of one "
        f"CPU; per run {', '.join(f'{x:.1f}' for x in others)} s: above ~0.5 s, the machine was busy with other work)"
    )

    print(f"-- memory: RSS of the app's process ({'with' if layout == IN_PROCESS else 'without'} the mock brokers) --")
    marks = sorted({s for s in (0, 1, 2, 4, 6, 8, args.seconds, args.seconds + 2) if s <= args.seconds + 2})
    print("  MB at s after the first produce: " + "  ".join(f"{s:g}s" for s in marks))
    for i, r in enumerate(results, 1):
        cluster = ""
        if r.cluster_rss_mb is not None:
            cluster = f" | cluster process {r.cluster_rss_mb[0]:.0f} -> {r.cluster_rss_mb[1]:.0f} MB"
        print(
            f"    run {i}: before {r.rss_before_mb:5.1f} | " + "  ".join(f"{rss_at(r, s):.0f}" for s in marks)
            + f" | peak (sampled) {max(mb for _, mb in r.rss_mb):.1f} | ru_maxrss {r.maxrss_mb:.1f}{cluster}"
        )  # fmt: skip
    peak = med([max(mb for _, mb in r.rss_mb) for r in results])
    growth = med([rss_at(r, args.seconds) - r.rss_before_mb for r in results])
    late = med([rss_at(r, args.seconds) - rss_at(r, 2) for r in results])
    half = args.seconds / 2
    second_half = med([rss_at(r, args.seconds) - rss_at(r, half) for r in results])
    flat = second_half <= max(5.0, 0.03 * peak)
    print(
        f"  peak RSS median {peak:.1f} MB; growth median {growth:+.1f} MB (before producing -> {args.seconds:g} s): "
        f"{late:+.1f} MB after the first 2 s, {second_half:+.1f} MB in the second half ({half:g} -> {args.seconds:g} s)"
        f" -> {'flat' if flat else 'GROWING'} (flat: the second half within max(5 MB, 3 % of the peak))"
    )
    if layout == IN_PROCESS:
        print(
            "  (this process holds the mock brokers, which keep every message produced — about 2.4 MB per 20,000 "
            "messages of 100 B — so it grows with them; the separate layout shows the app's process without them)"
        )
    return {
        "lag": med([worst(r.lag_ms) for r in results]),
        "p99": med([percentile(r.lag_ms, 99) for r in results]),
        "gap": med([worst(r.frame_gaps_ms) for r in results]),
        "gap_fed": med([worst(r.frame_gaps_fed_ms) for r in results]),
        "to_screen": med([worst(r.to_screen_ms) for r in results]),
        "flat": flat,
        "dropped": sum(r.dropped for r in results),
    }


THROUGHPUT_RATIO = 0.9  # the console's throughput against the bare consumer's, at least (issue 45; 0.7 before)


def drained_line(d: Drained) -> str:
    drain = f"{d.drain_s:.2f} s" if d.drain_s is not None else f"never (nothing came for {DRAIN_IDLE_S:.0f} s)"
    return (
        f"{d.consumer:7s} received {d.received:,} of {d.delivered:,} delivered ({d.produced:,} produced in "
        f"{d.produce_s:.1f} s); {d.behind:,} behind at the last produce (lag), drained {drain} after it; "
        f"{d.throughput:,.0f} records/s; lost {d.lost:,}"
    )


def against_bare(consoles: list[Drained], bare: list[Drained]) -> None:
    """The console's consumer beside a bare confluent-kafka consumer, run for run: throughput, lag, drain, loss."""
    if not consoles and not bare:
        return
    print()
    print("-- the console's consumer and a bare confluent-kafka consumer (separate layout), each after draining --")
    for d in [*bare, *consoles]:
        print(f"  {drained_line(d)}")
    if not (consoles and bare):
        return
    mine, limit = med([d.throughput for d in consoles]), med([d.throughput for d in bare])
    ratio = mine / limit if limit else 0.0
    lost = sum(d.lost for d in consoles)
    print(
        f"RESULT console throughput: median {mine:,.0f} records/s, bare consumer {limit:,.0f} records/s, ratio "
        f"{ratio:.2f}; target ≥ {THROUGHPUT_RATIO:g} -> {'PASS' if ratio >= THROUGHPUT_RATIO else 'FAIL'}"
    )
    print(
        f"RESULT console lost: {lost:,} records never received after draining, in {len(consoles)} runs (bare: "
        f"{sum(d.lost for d in bare):,}); lag at the last produce, median "
        f"{med([float(d.behind) for d in consoles]):,.0f} records (bare {med([float(d.behind) for d in bare]):,.0f}) "
        f"-> {'PASS' if lost == 0 else 'FAIL'}"
    )
