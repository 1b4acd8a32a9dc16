"""The parent of the scale benchmark: each figure taken for both trees, printed, and its RESULT line."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from bench._scale import (
    GROUPS,
    KIP848_BASELINE,
    KIP848_GROUPS,
    LAG_TARGET_MS,
    LIVE_GROUPS,
    LOADED_FRAME_MS,
    MEMORY_TARGET_MB,
    PARTITIONS,
    POLL_TARGET_S,
    QUIET_FRAME_MS,
    ROOT,
    SCRIPT,
    THROUGHPUT_RATIO,
    TOPICS,
)
from bench._scale.cluster import RealKafka, live_members, load_cluster, load_kip848
from bench._scale.trees import baseline_path, child_env, run_child
from bench.common.machine import BusyProcesses, load
from bench.common.process import quit_and_wait
from bench.common.stats import median, verdict


def show_poll(tree: str, r: dict[str, Any], counts: dict[str, int]) -> None:
    t = sorted(r["times"])
    print(f"  {tree:5s} full poll median {median(t):6.3f} s (min {t[0]:.3f}, max {t[-1]:.3f}) over {len(t)} polls;"
          f" {r['partitions']:,} partitions, {r['groups']:,} groups, {median(r['fresh']):.0f} with offsets read this"
          f" poll; problems {median(r['problems']):.0f}")  # fmt: skip
    print(f"        RSS {r['rss_mb']:.0f} MB, {r['threads']} threads, {r['fds']} fds after the polls")
    for p in r["sample_problems"]:
        print(f"        e.g. {p}")
    total = sum(v for k, v in counts.items() if k != "ApiVersions")
    shown = ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1]) if k != "ApiVersions")
    print(f"        requests in one steady poll: {total} ({shown})")


def poll_figures(tree: str, baseline: Path, bootstrap: str, counted: str | None, groups_file: str, runs: int,
                 count: Callable[[str], dict[str, int]]) -> tuple[dict[str, Any], dict[str, int]]:  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, str(SCRIPT), "--child", "poll", bootstrap, counted or "", groups_file, str(runs)],
        cwd=ROOT, env=child_env(tree, baseline), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    counts: dict[str, int] = {}
    result: dict[str, Any] | None = None
    for line in proc.stdout:
        if line.startswith("READY"):
            count("reset")
            proc.stdin.write("\n")
            proc.stdin.flush()
        elif line.startswith("DONE"):
            counts = count("read")
            proc.stdin.write("\n")
            proc.stdin.flush()
        elif line.startswith("{"):
            result = json.loads(line)
    proc.wait(60)
    if result is None:
        raise RuntimeError(f"{tree} poll failed ({proc.returncode})")
    return result, counts


def cluster_figures(args: Any, baseline: Path, tmp: Path, only: set[str], results: list[str]) -> None:
    home = os.environ.get("KAFKA_HOME")
    groups_file = ""
    mock: subprocess.Popen[str] | None = None
    kafka: RealKafka | None = None
    if home:
        root = Path(args.keep) if args.keep else tmp / "kafka"
        kafka = RealKafka(Path(home), root)
        t0 = time.monotonic()
        try:
            kafka.start()
            load_cluster(kafka.bootstrap, TOPICS, PARTITIONS, GROUPS)
        except BaseException:
            kafka.stop()
            raise
        print(f"-- cluster: real Kafka from {home} (1 KRaft node, heap 2 GiB), ready in {time.monotonic() - t0:.0f} s")
        bootstrap, counted = kafka.bootstrap, kafka.counted_bootstrap

        def count(what: str) -> dict[str, int]:
            assert kafka is not None
            if what == "reset":
                kafka.proxy.reset()
                return {}
            time.sleep(0.2)  # the last bytes forwarded
            return dict(kafka.proxy.counts)
    else:
        print("-- cluster: the librdkafka mock (no KAFKA_HOME), in a process of its own")
        mock = subprocess.Popen([sys.executable, str(SCRIPT), "--mock-host"], cwd=ROOT, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True)  # fmt: skip
        assert mock.stdout is not None and mock.stdin is not None
        line = mock.stdout.readline()
        while line and not line.startswith("{"):  # what load_cluster says
            print(line.rstrip())
            line = mock.stdout.readline()
        if not line:
            raise RuntimeError("the mock's host process ended before the cluster was loaded")
        ready = json.loads(line)
        print(f"   loaded in {ready['load_s']:.0f} s; the mock lists no groups: the source watches the 1,000")
        bootstrap, counted = ready["bootstrap"], None
        groups_file = str(tmp / "groups.json")
        Path(groups_file).write_text(json.dumps(ready["groups"]))

        def count(what: str) -> dict[str, int]:
            assert mock is not None and mock.stdin is not None and mock.stdout is not None
            mock.stdin.write("track\n" if what == "reset" else "counts\n")
            mock.stdin.flush()
            answer: dict[str, int] = json.loads(mock.stdout.readline())
            return answer

    try:
        with live_members(bootstrap, LIVE_GROUPS) if kafka is not None else nullcontext():
            if "poll" in only:
                print(f"-- poll ({load()})")
                figures = {}
                for tree in ("today", "now"):
                    r, counts = poll_figures(tree, baseline, bootstrap, counted, groups_file, args.runs, count)
                    show_poll(tree, r, counts)
                    figures[tree] = (r, counts)
                print(f"   ({load()})")
                now, today = figures["now"], figures["today"]
                t_now, t_today = median(now[0]["times"]), median(today[0]["times"])
                req_now = sum(v for k, v in now[1].items() if k != "ApiVersions")
                req_today = sum(v for k, v in today[1].items() if k != "ApiVersions")
                results.append(
                    f"RESULT poll: full poll at {now[0]['partitions']:,} partitions / {now[0]['groups']:,} groups "
                    f"median {t_now:.3f} s (today {t_today:.3f} s, ratio now/today {t_now / t_today:.2f}), offsets of "
                    f"{median(now[0]['fresh']):.0f} groups read per poll (today {median(today[0]['fresh']):.0f}); "
                    f"target ≤ {POLL_TARGET_S:g} s -> {verdict(t_now <= POLL_TARGET_S)}"
                )
                results.append(
                    f"RESULT requests: {req_now} requests in a steady poll (today {req_today}; "
                    f"ratio {req_now / max(req_today, 1):.3f}) -> "
                    f"{verdict(req_now < req_today or req_today == 0)}"
                )
            if "kip848" in only:
                if kafka is None:
                    print("-- kip848: needs a real Kafka (KAFKA_HOME): the librdkafka mock has no KIP-848 groups")
                else:
                    kip848_figures(args, bootstrap, counted, count, results)
            if "app" in only:
                print(
                    f"-- the app's memory, headless 160x45, polling every 2 s for {args.app_seconds:.0f} s ({load()})"
                )
                mem = {}
                for tree in ("today", "now"):
                    r = run_child(tree, baseline, "app", bootstrap, groups_file, str(args.app_seconds))
                    mem[tree] = r
                    print(
                        f"  {tree:5s} RSS peak {r['peak']:.0f} MB, at the end {r['end']:.0f} MB; samples "
                        + " ".join(f"{v:.0f}" for v in r["samples"][:: max(1, len(r["samples"]) // 8)])
                    )
                print(f"   ({load()})")
                peak = mem["now"]["peak"]
                results.append(
                    f"RESULT memory: app RSS peak {peak:.0f} MB (today {mem['today']['peak']:.0f} MB); target ≤ "
                    f"{MEMORY_TARGET_MB:.0f} MB -> {verdict(peak <= MEMORY_TARGET_MB)}"
                )
    finally:
        if kafka is not None:
            kafka.stop()
        if mock is not None:
            quit_and_wait(mock, 60)


TABLE_FIGURES = (  # what the table child measures, and the targets of issue 30 they are held to
    ("refresh", ("steady", "failover")),
    ("filter keystroke", ("keystroke",)),
    ("order (o)", ("order",)),
    ("topic rows refresh", ("topic rows",)),
)


def table_figures(args: Any, before: Path, results: list[str]) -> None:
    """The partition table at 10,000 rows, headless 160x45, each tree in a fresh child: on this machine as it is
    (quiet: target QUIET_FRAME_MS), then with 4 busy processes on its CPUs (LOADED_FRAME_MS)."""
    for label, busy, target in (("quiet", 0, QUIET_FRAME_MS), ("at load 4", 4, LOADED_FRAME_MS)):
        with BusyProcesses(busy):
            print(f"-- the partition table at 10,000 rows, headless 160x45, {label} ({load()}) --")
            figures = {}
            for tree in ("before", "now"):
                r = run_child("today" if tree == "before" else "now", before, "table", str(args.runs))
                figures[tree] = r
                parts = [f"{k} {median(v):.1f} ms" for k, v in r.items() if isinstance(v, list) and v]
                print(f"  {tree:6s} rows {r['rows']:,} ({r['filtered']} after the filter): " + ", ".join(parts))
                print(f"         full garbage collections {r.get('full collections', '?')}, the longest "
                      f"{r.get('longest', float('nan')):.0f} ms")  # fmt: skip
            print(f"   ({load()})")
        now, old = figures["now"], figures["before"]
        for name, keys in TABLE_FIGURES:
            worst_now = max(median(now.get(k, [])) for k in keys)
            worst_old = max(median(old.get(k, [])) for k in keys)
            which = f"slowest median of {', '.join(keys)}" if len(keys) > 1 else "median"
            results.append(
                f"RESULT table {name}, {label}: 10,000 rows to its frame, {which} {worst_now:.1f} ms (before issue 30 "
                f"{worst_old:.1f} ms, ratio {worst_now / worst_old:.2f}); target ≤ {target:.0f} ms -> "
                f"{verdict(worst_now <= target)}"
            )


def console_figures(before: Path, results: list[str], tmp: Path) -> None:
    """With KAFKA_HOME, on a Kafka node of its own: the mock keeps 100,000 records per partition and drops the
    oldest, so a consumer a few seconds behind 100,000 msg/s loses records there, whatever kafkatop does. Each tree's
    console beside a bare confluent-kafka consumer, the same producer, in the same run."""
    home = os.environ.get("KAFKA_HOME")
    kafka = RealKafka(Path(home), tmp / "console-kafka") if home else None
    where = "a real Kafka node" if kafka else "the librdkafka mock"
    print(f"-- the consumer console at 100,000 msg/s for 30 s beside a bare consumer (bench/consumer_console.py, "
          f"{where} in a process of its own) ({load()})")  # fmt: skip
    figures: dict[str, dict[str, Any]] = {}
    try:
        if kafka is not None:
            kafka.start()
        for tree in ("before", "now"):
            figures_of(tree, before, kafka, figures)
    finally:
        if kafka is not None:
            kafka.stop()
    print(f"   ({load()})")
    if "now" not in figures:
        return
    f, b = figures["now"], figures.get("before", {})
    ok = f["lost"] == 0 and f["ratio"] >= THROUGHPUT_RATIO and f["p99"] <= LAG_TARGET_MS
    results.append(
        f"RESULT console: {f['received']:,} of {f['delivered']:,} records received after draining, lost {f['lost']:,} "
        f"(lag at the last produce {f['behind']:,}, drained in {f['drain']}); {f['rate']:,.0f} records/s = "
        f"{f['ratio']:.2f}x the bare consumer's {f['bare']:,.0f}; loop lag p99 {f['p99']:.1f} ms; memory {f['memory']}"
        f" | before issue 30: lost {b.get('lost', '?')}, {b.get('ratio', float('nan')):.2f}x, p99 "
        f"{b.get('p99', float('nan')):.1f} ms | target lost 0, ≥ {THROUGHPUT_RATIO:g}x, p99 ≤ {LAG_TARGET_MS:.0f} ms "
        f"-> {verdict(ok)}"
    )


def figures_of(tree: str, before: Path, kafka: RealKafka | None, figures: dict[str, dict[str, Any]]) -> None:
    """One run of bench/consumer_console.py (bare consumer, then the console) in `tree`, read from what it prints."""
    where = ["--bootstrap-server", kafka.bootstrap] if kafka is not None else []
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "consumer_console.py"), "--runs", "1", "--rate", "100000",
         "--seconds", "30", "--cluster", "separate", *where],
        cwd=ROOT, env=child_env("today" if tree == "before" else "now", before), capture_output=True, text=True,
        timeout=1200,
    )  # fmt: skip
    text = done.stdout
    lines = {who: re.search(rf"^  {who} +received ([\d,]+) of ([\d,]+) delivered .*?; ([\d,]+) behind .*?, drained "
                            rf"(.+?) after it; ([\d,]+) records/s; lost ([\d,]+)$", text, re.M)
             for who in ("bare", "console")}  # fmt: skip
    p99 = re.search(r"event-loop lag p99, median of \d+ runs ([\d.]+) ms", text)
    flat = re.search(r"RESULT memory \(separate layout\): (\w+)", text)
    console, bare = lines["console"], lines["bare"]
    if not (console and bare and p99):
        print(f"  {tree}: no figures ({done.returncode}):\n{text[-1500:]}\n{done.stderr[-1500:]}")
        return
    number = lambda m, i: int(m.group(i).replace(",", ""))  # noqa: E731
    rate, limit = number(console, 5), number(bare, 5)
    figures[tree] = f = {
        "received": number(console, 1), "delivered": number(console, 2), "behind": number(console, 3),
        "drain": console.group(4), "rate": rate, "bare": limit, "ratio": rate / limit if limit else 0.0,
        "lost": number(console, 6), "p99": float(p99.group(1)), "memory": flat.group(1) if flat else "?",
    }  # fmt: skip
    print(f"  {tree:6s} console: {f['received']:,} of {f['delivered']:,} received, lost {f['lost']:,}, "
          f"{f['behind']:,} behind at the last produce, drained in {f['drain']}; {rate:,} records/s against the bare "
          f"consumer's {limit:,} ({f['ratio']:.2f}x; bare lost {number(bare, 6):,}); loop lag p99 {f['p99']:.1f} ms; "
          f"memory {f['memory']}")  # fmt: skip


def kip848_figures(args: Any, bootstrap: str, counted: str | None, count: Callable[[str], dict[str, int]],
                   results: list[str]) -> None:  # fmt: skip
    """1,000 KIP-848 groups beside the 1,000 classic ones: the poll's time and its requests, now (one
    ConsumerGroupDescribe per coordinator) and before (a librdkafka describe call per group)."""
    print(f"-- {KIP848_GROUPS:,} KIP-848 groups ({load()})")
    t0 = time.monotonic()
    load_kip848(bootstrap, KIP848_GROUPS, [(f"t-{t:03}", PARTITIONS) for t in range(TOPICS)])
    print(f"   ready in {time.monotonic() - t0:.0f} s; before = {KIP848_BASELINE}")
    before = baseline_path(KIP848_BASELINE)
    figures = {}
    for tree in ("today", "now"):
        r, counts = poll_figures(tree, before, bootstrap, counted, "", args.runs, count)
        show_poll("before" if tree == "today" else "now", r, counts)
        figures[tree] = (r, counts)
    print(f"   ({load()})")
    (now, now_counts), (old, old_counts) = figures["now"], figures["today"]
    t_now, t_old = median(now["times"]), median(old["times"])
    described, described_old = now_counts.get("ConsumerGroupDescribe", 0), old_counts.get("ConsumerGroupDescribe", 0)
    results.append(
        f"RESULT kip848 poll: {now['groups']:,} groups ({KIP848_GROUPS:,} KIP-848) median {t_now:.3f} s (before "
        f"{t_old:.3f} s, ratio now/before {t_now / t_old:.2f}); target ≤ {POLL_TARGET_S:g} s -> "
        f"{verdict(t_now <= POLL_TARGET_S)}"
    )
    results.append(
        f"RESULT kip848 requests: ConsumerGroupDescribe {described} in a steady poll for {KIP848_GROUPS:,} KIP-848 "
        f"groups on 1 coordinator (before {described_old}); target: one per coordinator -> {verdict(described == 1)}"
    )
