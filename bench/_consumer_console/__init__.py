"""The parts of bench/consumer_console.py: the measuring hooks (hooks), the cluster and its producer (cluster), one
run in a child process (run) and the parent's report (report). The figures and their meaning are described in that
script's docstring."""

from __future__ import annotations

from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "consumer_console.py"  # children run it again, with --child etc.
TARGET_LAG_MS = 100.0
SIZE = (120, 40)
BROKERS = 3
PARTITIONS = 6
TOPIC = "bench-firehose"
GROUP = "bench"
LAG_PROBE_S = 0.010
RSS_SAMPLE_S = 0.100
SLOW_CALLBACK_MS = 20.0
START_TIMEOUT_S = 30.0
IN_PROCESS, SEPARATE = "in-process", "separate"
