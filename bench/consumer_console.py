"""Benchmark: the consumer console receiving 20,000 messages/s for 10 s (librdkafka mock, or a real Kafka): event-loop
lag (target p99 ≤ 100 ms), gaps between frames, peak memory (bounded); and beside it a bare confluent-kafka consumer
on the same cluster and producer: each one's throughput, its lag when the last record was produced, the time to drain
from there, and the records it never received once drained (lost: must be 0). Target: the console's throughput at
least 0.9 times the bare consumer's (issue 45; `--rate max` produces at the bare consumer's own maximum, measured
first).

Prints figures; asserts nothing about timings. Run from the repository root:

    .venv/bin/python bench/consumer_console.py [--runs 3] [--rate 20000] [--seconds 10]
                                               [--cluster both|in-process|separate] [--consumer both|bare|console]
                                               [--bootstrap-server HOST:PORT] [--profile]

Draining: after the last produce, each consumer is given until it has every delivered record, or until no record came
for 10 s (at most 120 s); what it then still lacks is lost, what it lacked at the last produce is lag.
The bare consumer (--consumer both or bare, separate layout only): a plain Consumer in a group of its own, from the
beginning of the empty topic, `consume(10000)` in a loop counting records, in a fresh process of its own; the
physical limit of this client on this machine.

Each run is a fresh child process (so its peak RSS and ru_maxrss are its own), which:
  1. starts a 3-broker MockCluster with one topic of 6 partitions (RF 3);
  2. runs the app headless (App.run_test, 120×40) with Sources(poll_cluster=AdminSource(...).poll,
     consoles=Consoles(bootstrap)), shows the Consume tab (action_tab(4)) and starts one consumer through the hub
     (start_consumer([topic], "bench-PID", from_beginning=True): the topic is empty), waiting until its table says
     "consuming";
  3. produces from a thread (confluent_kafka Producer, linger.ms 5, acks 1, keyed values of --value-bytes), paced
     every millisecond to --rate for --seconds, then drains (above) until the consumer has received every
     message that was delivered;
  4. measures, from the first produce until the consumer caught up (the "window"):
     - event-loop lag: a task that sleeps 10 ms in a loop and records how late it wakes (max, p99);
     - frames: the screen's compositor refresh, wrapped (bench/common/frames.py) — how many, the worst gap between
       two, how long each took. Textual draws only when something changed, and a headless app does not encode its
       frames for a terminal: the hook does that encoding too (render_segments), as a real terminal needs it;
     - each consoles' Polled the consumer panel handled (show_drained wrapped): records, dropped, the consumer's
       `received`, time in the panel, and how old the newest record shown was (now minus its timestamp);
     - RSS every 100 ms (psutil) and ru_maxrss; CPU time per thread (UI, consumer, producer, librdkafka);
     - what the worst lag spikes overlapped: loop callbacks that ran ≥ 20 ms (with the UI thread's CPU time during
       them: far below the wall time means it was waiting for the GIL or a CPU), garbage collections, frames.
     Frame gaps and drains are counted from the first to the last drain that brought records to the panel. After
     the window: the objects a full garbage collection walks (by type) and what one gc.collect() costs then.

Where the cluster runs (--cluster, default both, runs alternating):
  in-process  the mock brokers and the producer thread live in the app's process, as the demo has them: they share
              its CPUs and its GIL with the UI, and the mock keeps every message in memory (~2.4 MB per 20,000
              messages of 100 B), so this process's RSS grows with what was produced.
  separate    the mock brokers and the producer run in a helper process (this script, --cluster-host): the app's
              process holds what kafkatop holds attached to a real cluster, so its RSS says whether the app's memory
              is bounded. The memory verdict is taken from this layout when it ran: bounded when RSS grows by at
              most max(5 MB, 3 % of the peak) over the second half of the run.
--profile adds one in-process run with cProfile on the UI thread (the event loop) and prints it (--runs 0 --profile:
only that run).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

import confluent_kafka

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.* also when run as a file
from bench._consumer_console import BROKERS, IN_PROCESS, PARTITIONS, SEPARATE, SIZE, TARGET_LAG_MS, TOPIC
from bench._consumer_console.bare import Drained, bare_max_rate, bare_run
from bench._consumer_console.cluster import cluster_host
from bench._consumer_console.report import against_bare, report
from bench._consumer_console.run import RunResult, one_run
from bench.common.machine import version_str
from bench.common.process import wait_or_kill
from bench.common.stats import worst


def bare_child(args: argparse.Namespace) -> Drained:
    """A run of the bare consumer, in a fresh process."""
    with tempfile.TemporaryDirectory(prefix="kafkatop-bench-") as tmp:
        out = Path(tmp) / "result.json"
        cmd = [sys.executable, __file__, "--child", str(out), "--consumer", "bare", "--cluster", SEPARATE, "--rate",
               str(args.rate), "--seconds", str(args.seconds), "--value-bytes", str(args.value_bytes)]  # fmt: skip
        if args.bootstrap_server:
            cmd += ["--bootstrap-server", args.bootstrap_server]
        proc = subprocess.Popen(cmd)
        limit = args.seconds + 240
        if wait_or_kill(proc, limit):
            raise SystemExit(f"a bare consumer's run did not end within {limit:.0f} s: killed its process {proc.pid}")
        if proc.returncode != 0 or not out.exists():
            raise SystemExit(f"a bare consumer's run failed (exit code {proc.returncode})")
        return Drained(**json.loads(out.read_text()))


def run_child(args: argparse.Namespace, layout: str, profile: bool) -> RunResult:
    with tempfile.TemporaryDirectory(prefix="kafkatop-bench-") as tmp:
        out = Path(tmp) / "result.json"
        cmd = [sys.executable, __file__, "--child", str(out), "--cluster", layout, "--rate", str(args.rate),
               "--seconds", str(args.seconds), "--value-bytes", str(args.value_bytes)]  # fmt: skip
        if args.bootstrap_server:
            cmd += ["--bootstrap-server", args.bootstrap_server]
        if profile:
            cmd.append("--profile")
        if args.no_encode:
            cmd.append("--no-encode")
        proc = subprocess.Popen(cmd)
        limit = args.seconds + 240
        if wait_or_kill(proc, limit):
            raise SystemExit(f"a run did not end within {limit:.0f} s: killed its process {proc.pid}")
        code = proc.returncode
        if code != 0 or not out.exists():
            raise SystemExit(f"a run failed (exit code {code})")
        data = json.loads(out.read_text())
    data["rss_mb"] = [tuple(x) for x in data["rss_mb"]]
    if data["cluster_rss_mb"] is not None:
        data["cluster_rss_mb"] = tuple(data["cluster_rss_mb"])
    return RunResult(**data)


MAX = -1.0  # --rate max


def _rate(text: str) -> float:
    return MAX if text == "max" else float(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per cluster layout (default 3)")
    parser.add_argument("--rate", type=_rate, default=20_000.0, help="messages per second (default 20000), or max: "
                        "the bare consumer's own maximum on this machine, measured first (issue 45)")  # fmt: skip
    parser.add_argument("--seconds", type=float, default=10.0, help="how long to produce (default 10)")
    parser.add_argument("--value-bytes", type=int, default=100, help="size of each message value (default 100)")
    parser.add_argument("--cluster", choices=("both", IN_PROCESS, SEPARATE), default="both")
    parser.add_argument("--profile", action="store_true", help="one more run, with cProfile on the UI thread")
    parser.add_argument("--no-encode", action="store_true", help="do not encode frames for a terminal (headless)")
    parser.add_argument("--child", metavar="FILE", help=argparse.SUPPRESS)
    parser.add_argument("--cluster-host", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--bootstrap-server", help="a real Kafka instead of the mock (--cluster separate only)")
    parser.add_argument(
        "--consumer", choices=("both", "bare", "console"), default="both",
        help="the console, a bare confluent-kafka consumer beside it (separate layout), or both",
    )  # fmt: skip
    args = parser.parse_args()
    if args.cluster_host:
        return cluster_host(args.rate, args.seconds, args.value_bytes, args.bootstrap_server)
    if args.child:
        child = bare_run(args) if args.consumer == "bare" else asyncio.run(one_run(args))
        Path(args.child).write_text(json.dumps(asdict(child)))
        return 0

    import textual

    if args.rate == MAX:
        rate, read = bare_max_rate(args)
        print(f"the bare consumer's own maximum: {rate:,.0f} records/s ({read:,} records of {args.value_bytes} B read "
              "from the beginning of a filled topic, nothing else running); the runs below produce at it")  # fmt: skip
        args.rate = round(rate)
    layouts = [IN_PROCESS, SEPARATE] if args.cluster == "both" else [args.cluster]
    if args.bootstrap_server and args.cluster != SEPARATE:
        parser.error("--bootstrap-server needs --cluster separate (the producer runs in a process of its own)")
    where = f"Kafka at {args.bootstrap_server}" if args.bootstrap_server else "librdkafka mock cluster"
    print(f"== kafkatop bench: the consumer console under a firehose ({where}) ==")
    print(
        f"python {platform.python_version()}, textual {textual.__version__}, confluent-kafka "
        f"{version_str(confluent_kafka.version())}, librdkafka {version_str(confluent_kafka.libversion())}, "
        f"{os.cpu_count()} CPUs; {BROKERS} brokers, topic {TOPIC} with {PARTITIONS} partitions; "
        f"{args.rate:,.0f} msg/s x {args.seconds:g} s, values of {args.value_bytes} B; headless {SIZE[0]}×{SIZE[1]}; "
        f"{args.runs} runs per layout ({', '.join(layouts)}), each in a fresh process"
    )
    results: dict[str, list[RunResult]] = {layout: [] for layout in layouts}
    bare: list[Drained] = []
    with_bare = SEPARATE in layouts and args.consumer in ("both", "bare")
    for i in range(args.runs):
        if with_bare:
            t0 = time.perf_counter()
            bare.append(bare_child(args))
            print(f"  run {i + 1} bare consumer done ({time.perf_counter() - t0:.1f} s)", flush=True)
        if args.consumer == "bare":
            continue
        for layout in layouts:
            t0 = time.perf_counter()
            results[layout].append(run_child(args, layout, profile=False))
            print(f"  run {i + 1} {layout} done ({time.perf_counter() - t0:.1f} s)", flush=True)
    verdicts = {layout: report(layout, rs, args) for layout, rs in results.items() if rs}
    consoles = [Drained(**r.consumed) for r in results.get(SEPARATE, []) if r.consumed]
    against_bare(consoles, bare)
    print()
    for layout, v in verdicts.items():
        print(
            f"RESULT ({layout}): event-loop lag p99, median of {args.runs} runs {v['p99']:.1f} ms (worst lag "
            f"{v['lag']:.1f} ms); target p99 ≤ {TARGET_LAG_MS:.0f} ms -> "
            f"{'PASS' if v['p99'] <= TARGET_LAG_MS else 'FAIL'}"
        )
        print(
            f"        worst gap between frames {v['gap']:.1f} ms ({v['gap_fed']:.1f} ms where every drain in between "
            f"brought records; frames follow the 100 ms drain timer), worst drain-to-screen {v['to_screen']:.1f} ms; "
            f"{v['dropped']:,} messages dropped in all runs"
        )
    if verdicts:
        memory_layout = SEPARATE if SEPARATE in verdicts else layouts[0]
        flat = verdicts[memory_layout]["flat"]
        note = "" if memory_layout == SEPARATE else " (the mock's own message log is in this process: see above)"
        print(
            f"RESULT memory ({memory_layout} layout): "
            f"{'bounded — RSS levels off, flat in the second half' if flat else 'NOT flat — RSS keeps growing'}{note}"
        )
    if args.profile:
        print()
        print("-- cProfile of the UI thread (event loop), one more in-process run; the profiler slows Python code --")
        r = run_child(args, IN_PROCESS, profile=True)
        print(
            f"  (that run: loop lag max {worst(r.lag_ms):.1f} ms, frames {r.frames}, drains {r.drains}, "
            f"UI thread CPU {r.ui_cpu_s:.2f} s of {r.window_s:.1f} s)"
        )
        print(r.profile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
