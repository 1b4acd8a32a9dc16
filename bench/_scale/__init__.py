"""The parts of bench/scale.py: the two trees measured (trees), the cluster and its load (cluster), the
measurements made in child processes (children) and the parent's figures and RESULT lines (figures); at the anchor's
shape (--shape anchor, issue 45), its cluster of several brokers and load (anchor) and its figures (anchor_figures).

Only the standard library is imported at the top of these modules: a child process of the "today" tree must import
`kafkatop` from that tree, and its memory is measured.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "scale.py"  # run again in every child process, with --child or --mock-host
BASELINE = "b66f29f"  # main before issue 16
TOPICS, PARTITIONS, GROUPS, LIVE_GROUPS = 100, 100, 1_000, 10
KIP848_GROUPS = 1_000  # issue 26: KIP-848 groups beside the classic ones, on a real Kafka only (the mock has none)
KIP848_BASELINE = "1c2da17"  # main before ConsumerGroupDescribe: a librdkafka describe call per KIP-848 group
BEFORE_30 = "e5e0cf4"  # main before issue 30 (frames within one tick; the console against a bare consumer)
POLL_TARGET_S, MEMORY_TARGET_MB, FRAME_TARGET_MS, LAG_TARGET_MS = 1.0, 300.0, 50.0, 100.0
# Issue 30: an interaction of the table at 10,000 rows to its frame, median, on a quiet machine and under load (4 busy
# processes on 2 cores); and the console's throughput against a bare consumer's.
QUIET_FRAME_MS, LOADED_FRAME_MS, THROUGHPUT_RATIO = 25.0, 50.0, 0.7
