"""`kafkatop counts --topic T`: per-partition counts of a topic computed by Spark, on the command line.

Runs the Spark service (kafkatop.spark.service) as a child process, as the TUI does, and prints its report; this
process never loads pyspark. Progress goes to stderr when it is a terminal, the report to stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from typing import Any

from kafkatop.backends.model.columns import aligned_lines
from kafkatop.backends.model.spark import JobProgress, SparkJobError, SparkServiceError, TopicCounts, watermark_check
from kafkatop.backends.model.text import printable
from kafkatop.spark.client import SparkServiceClient
from kafkatop.spark.counter import masked_counts
from kafkatop.tui.cli.common import connection, state_root
from kafkatop.tui.cli.exits import INTERRUPTED
from kafkatop.tui.cli.terminal import unescaped
from kafkatop.tui.format import data_size


def cmd_counts(args: argparse.Namespace) -> int:
    cluster = connection(args)
    progress = _Progress(sys.stderr.isatty() and not args.json)
    client = SparkServiceClient(args.master, log_path=state_root(args) / "spark" / "spark-service.log")
    try:
        progress.say(f"starting Spark ({args.master})…")
        started = time.monotonic()
        client.start()
        info = client.wait_ready()
        progress.say(f"Spark {info.spark_version} ready in {time.monotonic() - started:.1f} s; counting {args.topic}…")
        counts = client.counts(
            cluster.bootstrap_servers,
            args.topic,
            client_config=cluster.client_settings,
            top_keys=args.top_keys,
            max_records_per_partition=args.max_records_per_partition,
            on_progress=progress.job,
            timeout_s=args.timeout,
        )
    except (SparkServiceError, SparkJobError) as e:
        progress.clear()
        print(f"kafkatop: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        progress.clear()
        print("kafkatop: interrupted", file=sys.stderr)
        return INTERRUPTED
    finally:
        client.close()
    progress.clear()
    counts = masked_counts(counts, getattr(args, "context_mask", None))  # a context's mask: its top keys
    if args.json:
        print(json.dumps(report_json(counts), indent=2))
    else:
        print(format_counts(counts))
    return 0


class _Progress:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def say(self, text: str) -> None:
        if self.enabled:
            out = unescaped(sys.stderr)  # the line redrawn in place: kafkatop's own sequences, not escaped
            out.write(f"\r\x1b[K{printable(text)}")
            out.flush()

    def job(self, p: JobProgress) -> None:
        self.say(f"Spark {p.stage or 'working'}: {p.done}/{p.total} tasks done, {p.running} running")

    def clear(self) -> None:
        self.say("")


def report_json(counts: TopicCounts) -> dict[str, Any]:
    data = counts.to_json()
    for part, raw in zip(counts.partitions, data["partitions"], strict=True):
        raw["check"] = watermark_check(part, counts.cleanup_policy)
    data["records"], data["bytes"] = counts.records, counts.bytes
    return data


def _time(ms: int | None) -> str:
    if ms is None:
        return "-"
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S")


def format_counts(counts: TopicCounts) -> str:
    header = [
        "PARTITION",
        "RECORDS",
        "BYTES",
        "FIRST",
        "LAST",
        "EARLIEST (UTC)",
        "LATEST (UTC)",
        "LOW",
        "HIGH",
        "CHECK",
    ]
    rows = [header]
    notes = []
    for p in counts.partitions:
        check = watermark_check(p, counts.cleanup_policy)
        rows.append(
            [
                str(p.partition),
                f"{p.records:,}",
                data_size(p.bytes),
                "-" if p.first_offset is None else str(p.first_offset),
                "-" if p.last_offset is None else str(p.last_offset),
                _time(p.earliest_timestamp_ms),
                _time(p.latest_timestamp_ms),
                str(p.low_watermark),
                str(p.high_watermark),
                "ok" if check is None else f"{p.gap:+,} (see below)" if p.gap < 0 else f"-{p.gap:,} (see below)",
            ]
        )
        if check:
            notes.append(f"  partition {p.partition}: {check}")
    lines = [
        f"Topic {counts.topic}: {counts.records:,} records, {data_size(counts.bytes)} in {len(counts.partitions)} "
        f"partitions (Spark {counts.master}, {counts.elapsed_s:.1f} s)"
    ]
    lines += aligned_lines(rows)
    if notes:
        lines += ["", "Count below high − low watermark:", *notes]
    keyed = [p for p in counts.partitions if p.top_keys]
    if keyed:
        lines += ["", "Top keys per partition (a key always lands on the same partition; order holds only within one):"]
        for p in keyed:
            keys = ", ".join(f"{k.key} ×{k.records:,}" for k in p.top_keys)
            lines.append(
                f"  {p.partition}: {keys}  ({p.distinct_keys:,} keys, {p.records - p.keyed_records:,} unkeyed)"
            )
    return "\n".join(lines)
