"""Benchmark: kafkatop at 10,000 partitions and 1,000 consumer groups, beside the same figures of kafkatop "today".

Prints figures and one `RESULT … PASS/FAIL` line per target; asserts nothing. Run from the repository root:

    .venv/bin/python bench/scale.py [--runs 5] [--baseline REV] [--before REV] [--keep DIR]
                                    [--only poll,app,table,console,kip848,logdirs,lag]
    .venv/bin/python bench/scale.py --shape anchor [--runs 5] [--before REV] [--keep DIR]
                                    [--only table,groups,poll,app,headless]

--shape anchor (issue 45) is the largest cluster an anchor's users report (kafbat #1776): 9,000 topics, 39,000
partitions, 2,200 groups with committed offsets (10 with a live member, 200 KIP-848), on a real Kafka of as many
brokers as this machine's open-file and memory-map limits need (bench/_scale/anchor.py says how many and why), each
figure beside the tree before issue 45 (--before): a full poll ≤ 1.5 s and its requests (no API more than twice per
broker), the app's RSS after 60 s of polling ≤ 400 MB, frames at 39,000 rows / 9,000 topic rows and at 2,200 groups
≤ 25 ms, and describe, groups --list and lag against kafka-topics.sh, kafka-groups.sh and kafka-consumer-groups.sh,
whole process, wall and CPU. --keep DIR builds the cluster once (the load is idempotent); the rest of this text is
of the 10,000-partition shape.

"Today" is the tree at --baseline (default: the commit before issue 16's work), unpacked with `git archive` and put
first on PYTHONPATH of its child processes; "now" is this working tree. Every figure is taken in a fresh child
process of each, one after the other, in the same run, on the same cluster; the machine's load average is printed
before and after each.

The cluster: with KAFKA_HOME set, one real Kafka (KRaft, broker+controller, heap 2 GiB) started here on 127.0.0.1
with 100 topics x 100 partitions and 1,000 groups that committed offsets (each on one topic's 100 partitions:
100,000 committed offsets), 10 of them with a live member; --keep DIR keeps its data to start again faster. Without
KAFKA_HOME, the librdkafka mock in a process of its own, loaded the same way where it can (its limits are printed).

Targets (issue 16, and issue 30 where said):
  poll     a full AdminSource poll ≤ 1 s (median); the requests of a steady poll counted per API, by a counting
           proxy in front of a second listener of the broker (the mock: its own request tracking);
  app      the app's memory (RSS, headless, polling every 2 s for 30 s) ≤ 300 MB;
  table    (issue 30) at 10,000 rows, headless 160x45, each interaction to the end of its frame, median: a refresh
           (steady and failover), a keystroke of the `/` filter, `o`, and a refresh of the topic rows (T) ≤ 25 ms on
           the machine as it is (quiet), ≤ 50 ms with 4 busy processes on its CPUs (load 4 on 2 cores); beside the
           tree before issue 30 (--before);
  kip848   (issue 26) 1,000 KIP-848 groups more, real Kafka only: a poll ≤ 1 s, and one ConsumerGroupDescribe per
           coordinator in a steady poll (before: a librdkafka describe call per group);
  console  (issue 30) the consumer console at 100,000 msg/s for 30 s beside a bare confluent-kafka consumer, the
           same producer and node: no record lost once drained (lag reported apart), ≥ 0.7x the bare consumer's
           records/s, event-loop lag p99 ≤ 100 ms, memory flat (bench/consumer_console.py, cluster in its own
           process); beside the tree before issue 30 (--before);
  logdirs  (issue 41) the live view's `log_dirs` source at 10,000 partitions: one DescribeLogDirs per broker (and one
           Metadata for the brokers), its CPU ≤ 10 % of a full poll's, median; on the mock (which answers no
           DescribeLogDirs) the read is measured on recorded-shape answers (bench/_scale/log_dirs.py), "now" only.
  lag      (issue 42) the lag evaluator per poll at 1,000 groups x 100 partitions ≤ 20 ms (quiet and busy polls), no
           request added (bench/_scale/lag.py), "now" only.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.* also when run as a file
from bench._scale import BASELINE, BEFORE_30
from bench._scale.anchor_figures import BEFORE_45, anchor_figures
from bench._scale.children import child
from bench._scale.cluster import mock_host
from bench._scale.figures import cluster_figures, console_figures, table_figures
from bench._scale.lag import lag_figures
from bench._scale.log_dirs import log_dirs_figures
from bench._scale.trees import baseline_path
from bench.common.machine import load, version_str


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", default=BASELINE, help=f"the tree measured as today (default {BASELINE})")
    parser.add_argument("--before", help=f"table and console: the tree before (default {BEFORE_30}; with --shape "
                        f"anchor, {BEFORE_45})")  # fmt: skip
    parser.add_argument("--shape", choices=("ten", "anchor"), default="ten",
                        help="ten: 10,000 partitions and 1,000 groups (issues 16-42); anchor: 9,000 topics, 39,000 "
                             "partitions, 2,200 groups on several brokers (issue 45)")  # fmt: skip
    parser.add_argument("--only", help="figures to take (ten: poll,app,table,console,logdirs,lag,kip848; anchor: "
                        "poll,app,table,groups,headless)")  # fmt: skip
    parser.add_argument("--keep", metavar="DIR", help="keep the real Kafka's data here, to start faster next time")
    parser.add_argument("--app-seconds", type=float, default=30.0)
    parser.add_argument("--child", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    parser.add_argument("--mock-host", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return 0
    if args.mock_host:
        mock_host()
        return 0
    args.before_given = args.before is not None
    args.before = args.before or BEFORE_30
    if args.shape == "anchor":
        return anchor(args)
    only = set((args.only or "poll,app,table,console,logdirs,lag").split(","))
    baseline = baseline_path(args.baseline)
    import confluent_kafka
    import textual

    print("== kafkatop bench: 10,000 partitions, 1,000 consumer groups ==")
    print(f"python {sys.version.split()[0]}, textual {textual.__version__}, confluent-kafka "
          f"{version_str(confluent_kafka.version())}, librdkafka {confluent_kafka.libversion()[0]}; "
          f"today = {args.baseline}; {args.runs} runs per figure; {load()}")  # fmt: skip
    results: list[str] = []
    tmp = Path(tempfile.mkdtemp(prefix="kafkatop-scale-"))
    try:
        if only & {"poll", "app", "kip848"}:
            cluster_figures(args, baseline, tmp, only, results)
        if "table" in only:
            table_figures(args, baseline_path(args.before), results)
        if "console" in only:
            console_figures(baseline_path(args.before), results, tmp)
        if "logdirs" in only:
            args.tmp = tmp
            log_dirs_figures(args, results)
        if "lag" in only:
            lag_figures(args, results)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print()
    for line in results:
        print(line)
    return 0


def anchor(args: argparse.Namespace) -> int:
    import confluent_kafka
    import textual

    print(f"python {sys.version.split()[0]}, textual {textual.__version__}, confluent-kafka "
          f"{version_str(confluent_kafka.version())}, librdkafka {confluent_kafka.libversion()[0]}; {args.runs} runs "
          f"per figure; {load()}")  # fmt: skip
    results: list[str] = []
    args.tmp = tempfile.mkdtemp(prefix="kafkatop-anchor-")
    try:
        anchor_figures(args, set((args.only or "table,groups,poll,app,headless").split(",")), results)
    finally:
        shutil.rmtree(args.tmp, ignore_errors=True)
    print()
    for line in results:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
