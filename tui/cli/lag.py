"""`kafkatop lag`: every group's lag in records and in time, its status and time to catch up — the live view's
evaluator (backends/insight/lag), fed by the same polls for one status window, then printed as a table or JSON Lines;
`--watch` goes on with a line per status change. Its exit status says the worst status, for cron and CI."""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace

from kafkatop.backends.insight.lag.evaluator import LagEvaluator
from kafkatop.backends.insight.lag.exact import read_times, unread_heads
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.records.browser import MessageBrowser
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.columns import printf_line, widest
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.backends.model.groups import ConsumerGroup
from kafkatop.backends.model.lag import GroupLag, LagRules, LagSnapshot, LagStatus, PartitionLag, StatusChange, worst
from kafkatop.backends.model.text import printable
from kafkatop.tui.cli.common import connection
from kafkatop.tui.cli.contexts import load_contexts
from kafkatop.tui.cli.exits import DONE, FAILED, INTERRUPTED, err
from kafkatop.tui.format import human_duration, rate

EXACT_AT_MOST = 1_000  # partitions whose oldest unread record is read for its time, at the end of a window


def rules_of(args: argparse.Namespace) -> LagRules:
    """The context's [lag] rules, with the command line's over them."""
    name = getattr(args, "context_name", None)
    context = None if name is None else load_contexts(args, quiet=True).get(name)
    rules = context.lag if context is not None else LagRules()
    if args.window is not None:
        rules = replace(rules, window_s=args.window)
    if args.warn_seconds is not None:
        rules = replace(rules, warn_seconds=args.warn_seconds or None)
    if args.warn_records is not None:
        rules = replace(rules, warn_records=args.warn_records or None)
    return rules


def chosen(snapshot: ClusterSnapshot, groups: list[str] | None, topics: list[str] | None) -> ClusterSnapshot:
    """Only the --group groups, and with --topic only their offsets on those topics."""
    kept: list[ConsumerGroup] = []
    for g in snapshot.groups:
        if groups and g.group_id not in groups:
            continue
        if topics:
            offsets = tuple(o for o in g.offsets if o.topic in topics)
            if not offsets:
                continue
            g = replace(g, offsets=offsets)
        kept.append(g)
    return replace(snapshot, groups=tuple(kept))


class LagWatch:
    """Polls and the evaluator: a window's worth, then on with --watch."""

    def __init__(self, kafka: KafkaConnection, args: argparse.Namespace) -> None:
        self.kafka = kafka
        self.args = args
        self.evaluator = LagEvaluator(rules_of(args))
        self.source = AdminSource(kafka, timeout_s=args.timeout)

    def close(self) -> None:
        self.source.close()

    def poll(self) -> LagSnapshot:
        return self.evaluator.observe(chosen(self.source.poll(), self.args.group, self.args.topic))

    def window(self) -> LagSnapshot:
        """Polls until the last is a whole window after the first; then the records older than the first poll are
        read for their times, and one more poll evaluates with them."""
        window = self.evaluator.rules.window_s
        if sys.stderr.isatty():
            err(f"observing the groups for {window:g} s, a poll every {self.args.interval:g} s (the status window; "
                "--window to change it)")  # fmt: skip
        first = lag = self.poll()
        while (left := window - (lag.taken_at - first.taken_at)) > 0:
            time.sleep(min(self.args.interval, left))
            lag = self.poll()
        if self.exact(lag):
            lag = self.poll()
        return lag

    def exact(self, lag: LagSnapshot) -> int:
        """Reads the oldest unread record of each partition whose lag in time is only a bound (written before the
        first poll): its own timestamp. At most EXACT_AT_MOST partitions; returns how many times were learnt."""
        heads = unread_heads(lag.groups, bounds_only=True, at_most=EXACT_AT_MOST)
        if not heads:
            return 0
        browser = MessageBrowser(self.kafka, self.args.timeout)
        try:
            times, failures = read_times(browser.first_timestamps, heads)
        finally:
            browser.close()
        for failure in failures:
            err(f"could not read the oldest unread records for their times: {printable(failure)}")
        return self.evaluator.learn(times)


def cmd_lag(args: argparse.Namespace) -> int:
    kafka = connection(args)
    watch = LagWatch(kafka, args)
    fail_on = LagStatus[args.fail_on.upper()]
    lag: LagSnapshot | None = None
    try:
        lag = watch.window()
        show(lag, args)
        while args.watch:
            time.sleep(args.interval)
            try:
                lag = watch.poll()
            except SourceUnavailable as e:  # a watch outlives a cluster that is away for a while: said, and on
                err(f"{time.strftime('%H:%M:%S')} the cluster could not be polled: {e}")
                continue
            for change in lag.changes:
                said(change, lag, args)
    except SourceUnavailable as e:
        err(str(e))
        return FAILED
    except KeyboardInterrupt:
        return INTERRUPTED
    finally:
        watch.close()
    missing = [g for g in args.group or () if lag.group(g) is None]
    for g in missing:
        err(f"group {printable(g)!r} has no committed offsets" + (" on these topics" if args.topic else "")
            + " (or does not exist): `kafkatop groups --list` lists the groups")  # fmt: skip
    status = worst([g.status for g in lag.groups])
    if status.severity >= fail_on.severity and status is not LagStatus.OK:
        return status.exit_code
    return FAILED if missing else DONE


def show(lag: LagSnapshot, args: argparse.Namespace) -> None:
    if args.json:
        for g in lag.groups:
            print(json.dumps(group_json(g, lag.taken_at)))
        return
    if not lag.groups:
        if not args.group:
            print("No group has committed offsets" + (" on these topics" if args.topic else "") + ".")
        return
    now = lag.taken_at
    rows: list[tuple[str, ...]] = [("GROUP", "STATUS", "LAG", "LAG-TIME", "CONSUMED", "PRODUCED", "CATCH-UP", "WHY")]
    for g in lag.groups:
        rows.append((printable(g.group_id), g.status.value, f"{g.lag:,}", seconds(g.lag_seconds(now), g.at_least),
                     rate(g.consume_rate), rate(g.produce_rate), catch_up(g), printable(g.why)))  # fmt: skip
        if args.partitions:
            rows.extend(partition_row(p, now) for p in g.partitions)
    widths = [widest(row[i] for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        print(printf_line(widths, row, "  "))


def partition_row(p: PartitionLag, now: float) -> tuple[str, ...]:
    return (f"  {printable(p.topic)}-{p.partition}", p.status.value, f"{p.lag:,}",
            seconds(p.lag_seconds(now), p.at_least), "", "", "", printable(p.why))  # fmt: skip


def seconds(value: float | None, at_least: bool) -> str:
    return ("≥" if at_least else "") + human_duration(value)


def catch_up(g: GroupLag) -> str:
    """How long to read up to the end; "keeping up" when it reads as fast as its partitions grow (within 5 %: a
    steady lag), "never" when slower."""
    if g.catch_up_s is not None:
        return human_duration(g.catch_up_s)
    if g.consume_rate is None or g.produce_rate is None:
        return "-"
    return "keeping up" if g.consume_rate >= 0.95 * g.produce_rate else "never"


def group_json(g: GroupLag, now: float) -> dict[str, object]:
    return {
        "group": g.group_id, "type": g.group_type, "status": g.status.value, "why": g.why, "lag": g.lag,
        "lag_seconds": _rounded(g.lag_seconds(now)), "lag_seconds_at_least": g.at_least,
        "consume_rate": _rounded(g.consume_rate), "produce_rate": _rounded(g.produce_rate),
        "catch_up_seconds": _rounded(g.catch_up_s), "observed_seconds": _rounded(g.observed_s),
        "partitions": [
            {"topic": p.topic, "partition": p.partition, "status": p.status.value, "why": p.why,
             "committed": p.committed, "high_watermark": p.high_watermark, "lag": p.lag,
             "lag_seconds": _rounded(p.lag_seconds(now)), "lag_seconds_at_least": p.at_least, "exact": p.exact}
            for p in g.partitions
        ],
    }  # fmt: skip


def said(change: StatusChange, lag: LagSnapshot, args: argparse.Namespace) -> None:
    g = lag.group(change.group_id)
    if args.json and g is not None:
        print(json.dumps({"at": change.at, "was": change.was, **group_json(g, lag.taken_at)}), flush=True)
        return
    when = time.strftime("%H:%M:%S", time.localtime(change.at))
    print(f"{when} {printable(change.group_id)} {change.was} -> {change.now}: {printable(change.why)}", flush=True)


def _rounded(x: float | None) -> float | None:
    return None if x is None else round(x, 3)
