"""`bench/scale.py --shape anchor` (issue 45): the figures at the anchor's shape, each beside the tree before issue 45
in the same run — a full poll and its requests, the app's memory after 60 s of polling, the frames at 39,000 rows
and at 2,200 groups, and the headless commands against Kafka's own tools, whole process."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench._scale import ROOT
from bench._scale.anchor import (
    GROUPS,
    LIVE_GROUPS,
    PARTITIONS,
    TOPICS,
    AnchorKafka,
    brokers_needed,
    load_anchor,
    topic_names,
)
from bench._scale.cluster import live_members
from bench._scale.figures import poll_figures, show_poll
from bench._scale.trees import baseline_path, child_env, run_child
from bench.common.machine import load
from bench.common.stats import median, verdict

BEFORE_45 = "1b2b84d"  # main before issue 45
POLL_TARGET_S, MEMORY_TARGET_MB, FRAME_TARGET_MS = 1.5, 400.0, 25.0
APP_SECONDS = 60.0
SHAPE = f"{TOPICS:,} topics, {PARTITIONS:,} partitions, {GROUPS:,} groups"


def anchor_figures(args: Any, only: set[str], results: list[str]) -> None:
    before = baseline_path(args.before if args.before_given else BEFORE_45)
    label = args.before if args.before_given else BEFORE_45
    print(f"== the anchor's shape (kafbat #1776): {SHAPE}; before = {label} ==")
    if only & {"table", "groups"}:
        frame_figures(args.runs, before, only, results)
    home = os.environ.get("KAFKA_HOME")
    if not only & {"poll", "app", "headless"}:
        return
    if not home:
        print("-- poll, app, headless: need a real Kafka (KAFKA_HOME); the librdkafka mock holds no such cluster")
        return
    count, why = brokers_needed()
    print(f"-- cluster: {why}")
    root = Path(args.keep) if args.keep else Path(args.tmp) / "anchor-kafka"
    kafka = AnchorKafka(Path(home), root, count)
    t0 = time.monotonic()
    try:
        kafka.start()
        print(f"   started in {time.monotonic() - t0:.0f} s ({root}{', kept' if args.keep else ''})", flush=True)
        load_anchor(kafka.bootstrap)
        print(f"   ready in {time.monotonic() - t0:.0f} s; {LIVE_GROUPS} groups with a live member on b-0000…")
        live = [name for name, _ in topic_names()[-LIVE_GROUPS:]]
        with live_members(kafka.bootstrap, LIVE_GROUPS, live):
            for line in kafka.held():
                print(f"   {line}")
            if "poll" in only:
                cluster_poll(args.runs, before, kafka, results)
            if "app" in only:
                app_memory(before, kafka.bootstrap, results)
            if "headless" in only:
                headless(args.runs, before, Path(home), kafka.bootstrap, results)
    finally:
        kafka.stop()


def cluster_poll(runs: int, before: Path, kafka: AnchorKafka, results: list[str]) -> None:
    print(f"-- poll ({load()})")

    def count(what: str) -> dict[str, int]:
        if what == "reset":
            kafka.tally.reset()
            return {}
        time.sleep(0.2)  # the last bytes forwarded
        return dict(kafka.counts)

    figures = {}
    for tree in ("before", "now"):
        r, counts = poll_figures("today" if tree == "before" else "now", before, kafka.bootstrap,
                                 kafka.counted_bootstrap, "", runs, count)  # fmt: skip
        show_poll(tree, r, counts)
        figures[tree] = (r, counts)
    print(f"   ({load()})")
    (now, now_counts), (old, old_counts) = figures["now"], figures["before"]
    t_now, t_old = median(now["times"]), median(old["times"])
    results.append(
        f"RESULT anchor poll: full poll at {now['partitions']:,} partitions / {now['groups']:,} groups median "
        f"{t_now:.3f} s (before {t_old:.3f} s, ratio now/before {t_now / t_old:.2f}); target ≤ {POLL_TARGET_S:g} s "
        f"-> {verdict(t_now <= POLL_TARGET_S)}"
    )
    # Two requests of an API per broker (each broker is also a group coordinator here) at the most — ListOffsets asks
    # each leader for the earliest and the latest offsets — and Metadata twice in all: what grows with topics,
    # partitions or groups is batched into those.
    per_api = {k: v for k, v in now_counts.items() if k != "ApiVersions"}
    worst = max(per_api.items(), key=lambda kv: kv[1], default=("none", 0))
    most = 2 * kafka.count
    total, total_old = sum(per_api.values()), sum(v for k, v in old_counts.items() if k != "ApiVersions")
    results.append(
        f"RESULT anchor requests: {total} requests in a steady poll on {kafka.count} brokers/coordinators (before "
        f"{total_old}); the most of one API: {worst[0]} {worst[1]}; target: no API more than twice per broker (none "
        f"per topic, partition or group) -> {verdict(worst[1] <= most)}"
    )


def app_memory(before: Path, bootstrap: str, results: list[str]) -> None:
    print(f"-- the app's memory, headless 160x45, polling every 2 s for {APP_SECONDS:.0f} s ({load()})")
    mem = {}
    for tree in ("before", "now"):
        r = run_child("today" if tree == "before" else "now", before, "app", bootstrap, "", str(APP_SECONDS))
        mem[tree] = r
        print(f"  {tree:6s} RSS at the end {r['end']:.0f} MB, peak {r['peak']:.0f} MB; samples "
              + " ".join(f"{v:.0f}" for v in r["samples"][:: max(1, len(r["samples"]) // 8)]))  # fmt: skip
    end, peak, old = mem["now"]["end"], mem["now"]["peak"], mem["before"]["end"]
    results.append(
        f"RESULT anchor memory: app RSS after {APP_SECONDS:.0f} s of polling {end:.0f} MB (peak {peak:.0f} MB; before "
        f"{old:.0f} MB); target ≤ {MEMORY_TARGET_MB:.0f} MB -> {verdict(end <= MEMORY_TARGET_MB)}"
    )


FRAMES = (  # (child mode, figure, keys of its result)
    ("table", "refresh", ("steady", "failover")),
    ("table", "filter keystroke", ("keystroke",)),
    ("table", "order (o)", ("order",)),
    ("table", "topic rows refresh", ("topic rows",)),
    ("groups", "Groups refresh", ("steady", "moved")),
    ("groups", "Groups cursor", ("cursor",)),
    ("groups", "Groups filter keystroke", ("keystroke",)),
)


def frame_figures(runs: int, before: Path, only: set[str], results: list[str]) -> None:
    """Headless 160x45, quiet, each tree in a fresh child: the partition table at 39,000 rows and 9,000 topic rows,
    the Groups tab at 2,200 groups."""
    figures: dict[tuple[str, str], dict[str, Any]] = {}
    for mode, args in (("table", ("table", str(runs), "anchor")), ("groups", ("groups", str(runs)))):
        if mode not in only:
            continue
        print(f"-- {mode} frames at the anchor's shape, headless 160x45, quiet ({load()})")
        for tree in ("before", "now"):
            r = run_child("today" if tree == "before" else "now", before, *args)
            figures[(mode, tree)] = r
            parts = [f"{k} {median(v):.1f} ms" for k, v in r.items() if isinstance(v, list) and v]
            print(f"  {tree:6s} rows {r['rows']:,} ({r['filtered']:,} after the filter): " + ", ".join(parts))
    for mode, name, keys in FRAMES:
        if (mode, "now") not in figures:
            continue
        now, old = figures[(mode, "now")], figures[(mode, "before")]
        worst_now = max(median(now.get(k, [])) for k in keys)
        worst_old = max(median(old.get(k, [])) for k in keys)
        which = f"slowest median of {', '.join(keys)}" if len(keys) > 1 else "median"
        rows = f"{now['rows']:,} rows"
        results.append(
            f"RESULT anchor {name}: {rows}, to its frame, {which} {worst_now:.1f} ms (before {worst_old:.1f} ms, "
            f"ratio {worst_now / worst_old:.2f}); target ≤ {FRAME_TARGET_MS:.0f} ms -> "
            f"{verdict(worst_now <= FRAME_TARGET_MS)}"
        )


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """(wall s, CPU s of the process and its children, lines printed) of one whole run, as a shell waits for it.
    `kafkatop lag` exits 10 + the worst status's severity where a group is not OK (for cron): a run, not a failure."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    lines = sum(1 for _ in proc.stdout)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    if proc.returncode != 0 and not ("lag" in argv and 10 < proc.returncode < 20):
        raise RuntimeError(f"{' '.join(argv[:4])}… exited {proc.returncode}")
    # wait4 counts the process and its waited-for descendants (a Java tool's script execs its JVM).
    return wall, usage.ru_utime + usage.ru_stime, lines


def headless(runs: int, before: Path, home: Path, bootstrap: str, results: list[str]) -> None:
    """kafkatop's describe, groups --list and lag against kafka-topics.sh --describe, kafka-groups.sh --list and
    kafka-consumer-groups.sh --describe --all-groups, on the anchor cluster, whole process, wall and CPU. `lag` polls
    for a status window (60 s by default): here the shortest that gives rates, two polls 2 s apart (--window 2
    --interval 2), where Kafka's tool reads once; its wall holds those 2 s."""
    kafkatop = [sys.executable, "-c", "import sys; from kafkatop.tui.cli.main import main; sys.exit(main())"]
    server = ["--bootstrap-server", bootstrap]
    java_env = {k: v for k, v in os.environ.items() if k not in ("JMX_PORT", "KAFKA_OPTS")}
    pairs = (
        ("describe", [*kafkatop, *server, "describe"], [str(home / "bin" / "kafka-topics.sh"), *server, "--describe"]),
        ("groups --list", [*kafkatop, *server, "groups", "--list"],
         [str(home / "bin" / "kafka-groups.sh"), *server, "--list"]),
        ("lag", [*kafkatop, *server, "lag", "--window", "2", "--interval", "2"],
         [str(home / "bin" / "kafka-consumer-groups.sh"), *server, "--describe", "--all-groups"]),
    )  # fmt: skip
    print(f"-- headless commands, whole process, median of {runs} ({load()})")
    for name, ours, theirs in pairs:
        figures: dict[str, tuple[float, float, int]] = {}
        for who, argv, env in (
            ("kafka", theirs, java_env),
            ("before", ours, child_env("today", before)),
            ("now", ours, child_env("now", before)),
        ):
            try:
                taken = [timed(argv, env) for _ in range(runs)]
            except (RuntimeError, OSError) as e:
                print(f"  {name:14s} {who:6s} failed: {e}")
                continue
            wall, cpu = median([t[0] for t in taken]), median([t[1] for t in taken])
            figures[who] = (wall, cpu, taken[-1][2])
            print(f"  {name:14s} {who:6s} wall {wall:6.2f} s, CPU {cpu:6.2f} s, {taken[-1][2]:,} lines")
        if {"now", "kafka"} <= figures.keys():
            (w, c, _), (kw, kc, _) = figures["now"], figures["kafka"]
            bw = figures.get("before", (float("nan"),) * 3)[0]
            results.append(
                f"RESULT anchor {name}: wall {w:.2f} s, CPU {c:.2f} s (before {bw:.2f} s); Kafka's tool wall {kw:.2f} s"
                f", CPU {kc:.2f} s: ratio wall {w / kw:.2f}, CPU {c / kc:.2f} -> {verdict(w <= kw and c <= kc)}"
            )
