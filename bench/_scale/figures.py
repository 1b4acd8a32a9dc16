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
    FRAME_TARGET_MS,
    GROUPS,
    KIP848_BASELINE,
    KIP848_GROUPS,
    LAG_TARGET_MS,
    LIVE_GROUPS,
    MEMORY_TARGET_MB,
    PARTITIONS,
    POLL_TARGET_S,
    ROOT,
    SCRIPT,
    TOPICS,
)
from bench._scale.cluster import RealKafka, live_members, load_cluster, load_kip848
from bench._scale.trees import baseline_path, child_env, run_child
from bench.common.machine import load
from bench.common.process import wait_or_kill
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
            assert mock.stdin is not None
            mock.stdin.write("quit\n")
            mock.stdin.flush()
            wait_or_kill(mock, 60)


def table_figures(args: Any, baseline: Path, results: list[str]) -> None:
    print(f"-- the partition table at 10,000 rows, headless 160x45 ({load()})")
    figures = {}
    for tree in ("today", "now"):
        r = run_child(tree, baseline, "table", str(args.runs))
        figures[tree] = r
        parts = [f"{k} {median(v):.1f} ms" for k, v in r.items() if isinstance(v, list) and v]
        print(f"  {tree:5s} rows {r['rows']:,} ({r['filtered']} after the filter): " + ", ".join(parts))
    print(f"   ({load()})")
    now, today = figures["now"], figures["today"]
    worst = max(median(now["steady"]), median(now["failover"]))
    worst_today = max(median(today["steady"]), median(today["failover"]))
    results.append(
        f"RESULT table refresh: 10,000 rows, slowest median (steady, failover) {worst:.1f} ms (today "
        f"{worst_today:.1f} ms, ratio {worst / worst_today:.2f}); target ≤ {FRAME_TARGET_MS:.0f} ms -> "
        f"{verdict(worst <= FRAME_TARGET_MS)}"
    )
    if now.get("order"):
        order = median(now["order"])
        results.append(
            f"RESULT order: `o` over 10,000 rows to its frame median {order:.1f} ms (today: no ordering); target ≤ "
            f"{FRAME_TARGET_MS:.0f} ms -> {verdict(order <= FRAME_TARGET_MS)}"
        )
    key, key_today = median(now["keystroke"]), median(today["keystroke"])
    results.append(
        f"RESULT filter keystroke: to its frame median {key:.1f} ms (today {key_today:.1f} ms, ratio "
        f"{key / key_today:.2f}); target ≤ {FRAME_TARGET_MS:.0f} ms -> {verdict(key <= FRAME_TARGET_MS)}"
    )


def console_figures(baseline: Path, results: list[str], tmp: Path) -> None:
    """With KAFKA_HOME, on a Kafka node of its own: the mock keeps 100,000 records per partition and drops the
    oldest, so a consumer a few seconds behind 100,000 msg/s loses records there, whatever kafkatop does."""
    home = os.environ.get("KAFKA_HOME")
    kafka = RealKafka(Path(home), tmp / "console-kafka") if home else None
    where = "a real Kafka node" if kafka else "the librdkafka mock"
    print(f"-- the consumer console at 100,000 msg/s for 30 s (bench/consumer_console.py, {where} in a process of its "
          f"own) ({load()})")  # fmt: skip
    figures = {}
    try:
        if kafka is not None:
            kafka.start()
        for tree in ("today", "now"):
            figures_of(tree, baseline, kafka, figures)
    finally:
        if kafka is not None:
            kafka.stop()
    print(f"   ({load()})")
    if "now" in figures:
        f = figures["now"]
        t = figures.get("today", {})
        ok = f["received"] == f["produced"] and f["p99"] <= LAG_TARGET_MS and f["memory"] == "bounded"
        results.append(
            f"RESULT console: {f['received']:,} of {f['produced']:,} records counted, loop lag p99 {f['p99']:.1f} ms "
            f"(today {t.get('p99', float('nan')):.1f} ms, {t.get('received', 0):,} counted), memory {f['memory']} "
            f"(today {t.get('memory', '?')}); target every record, p99 ≤ {LAG_TARGET_MS:.0f} ms, flat -> {verdict(ok)}"
        )


def figures_of(tree: str, baseline: Path, kafka: RealKafka | None, figures: dict[str, dict[str, Any]]) -> None:
    """One run of bench/consumer_console.py in `tree`, its figures read from what it prints."""
    where = ["--bootstrap-server", kafka.bootstrap] if kafka is not None else []
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "consumer_console.py"), "--runs", "1", "--rate", "100000",
         "--seconds", "30", "--cluster", "separate", *where],
        cwd=ROOT, env=child_env(tree, baseline), capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    text = done.stdout
    received = re.search(r"produced ([\d,]+) .*? consumer received ([\d,]+)", text)
    p99 = re.search(r"loop lag max +([\d.]+) ms p99 +([\d.]+) ms", text)
    flat = re.search(r"RESULT memory \(separate layout\): (\w+)", text)
    growth = re.search(r"growth median ([+\-\d.]+) MB.*?second half[^)]*\) -> (\w+)", text)
    if not (received and p99):
        print(f"  {tree}: no figures ({done.returncode}):\n{text[-1500:]}\n{done.stderr[-1500:]}")
        return
    figures[tree] = f = {
        "produced": int(received.group(1).replace(",", "")),
        "received": int(received.group(2).replace(",", "")),
        "max": float(p99.group(1)), "p99": float(p99.group(2)),
        "memory": flat.group(1) if flat else "?", "growth": growth.group(0) if growth else "",
    }  # fmt: skip
    print(f"  {tree:5s} produced {f['produced']:,}, consumer received {f['received']:,}; loop lag p99 "
          f"{f['p99']:.1f} ms (max {f['max']:.1f}); memory {f['memory']}: {f['growth']}")  # fmt: skip


def kip848_figures(args: Any, bootstrap: str, counted: str | None, count: Callable[[str], dict[str, int]],
                   results: list[str]) -> None:  # fmt: skip
    """1,000 KIP-848 groups beside the 1,000 classic ones: the poll's time and its requests, now (one
    ConsumerGroupDescribe per coordinator) and before (a librdkafka describe call per group)."""
    print(f"-- {KIP848_GROUPS:,} KIP-848 groups ({load()})")
    t0 = time.monotonic()
    load_kip848(bootstrap, KIP848_GROUPS, TOPICS)
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
