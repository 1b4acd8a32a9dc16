"""`kafkatop durability`: the durability check (backends/durability.py) from the command line, on a lab cluster or an
attached one. Prints a per-partition table and the verdict, or the report as JSON; progress goes to stderr.

Exit codes: 0 the log kept what the settings promise; 1 it did not (records lost under settings that promise none,
duplicated or reordered under idempotence), the run was incomplete, or the cluster failed; 2 bad input or refused
before anything was sent; 130 interrupted (a broker the run took down is started again first)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TextIO

from kafkatop.backends.errors import KafkatopError
from kafkatop.tui.commands import INTERRUPTED, _client_config, _err, interrupt_on_termination, open_cluster

if TYPE_CHECKING:
    from kafkatop.backends.control import ClusterControl
    from kafkatop.backends.durability import DurabilityProgress, DurabilityReport, DurabilitySettings

DEFAULT_RESTART_AT = 0.7


def settings_from_args(args: argparse.Namespace, *, attached: bool) -> DurabilitySettings:
    """The run's settings from the flags; DurabilityRefused says which flag is wrong."""
    from kafkatop.backends.durability import DurabilitySettings

    no_fault = args.fault == "none"
    if no_fault:
        restart_at = None
    elif args.restart_at is None:  # not given: kafkatop can only start again a broker it started
        restart_at = None if attached else DEFAULT_RESTART_AT
    else:
        restart_at = None if args.restart_at == "none" else float(args.restart_at)
    return DurabilitySettings(
        topic=args.topic,
        records=args.records,
        acks=args.acks,
        enable_idempotence=args.acks == "all" if args.idempotence is None else args.idempotence,
        retries=args.retries,
        delivery_timeout_s=args.delivery_timeout,
        fault="kill" if no_fault else args.fault,
        kill_at=None if no_fault else args.kill_at,
        restart_at=restart_at,
        partition=args.partition,
        rate=args.rate,
    )


@contextmanager
def _cluster(args: argparse.Namespace, settings: DurabilitySettings) -> Iterator[tuple[str, ClusterControl | None]]:
    """(bootstrap servers, the control that performs the fault): the attached cluster's local processes, or the lab
    cluster's nodes. A lab broker started again by the run is left running, as `kafkatop start` leaves it."""
    if args.bootstrap_server:
        if settings.kill_at is None:
            yield args.bootstrap_server, None
            return
        from kafkatop.backends.admin import AdminSource
        from kafkatop.backends.control import AttachedControl

        source = AdminSource(args.bootstrap_server, client_config=_client_config(args), timeout_s=5.0)
        try:
            yield args.bootstrap_server, AttachedControl(args.bootstrap_server, source.poll)
        finally:
            source.close()
        return
    from kafkatop.backends.control import LabControl

    try:
        cluster = open_cluster(args)
    except KafkatopError as e:
        raise KafkatopError(f"no cluster to check: give --bootstrap-server HOST:PORT, or start one ({e})") from None
    try:
        control = LabControl(cluster)
        yield control.bootstrap_servers, control
    finally:
        cluster.release()


def _progress_printer(out: TextIO) -> Callable[[DurabilityProgress], None]:
    shown: list[tuple[str, str | None]] = []
    started = time.monotonic()

    def show(p: DurabilityProgress) -> None:
        key = (p.step, p.note)
        if shown and shown[-1] == key:
            return  # counts alone change: one line per step, not a line per tick
        shown.append(key)
        counts = "" if p.step == "preflight" else f" ({p.acked} acked, {p.failed} failed of {p.records})"
        print(f"{time.monotonic() - started:6.1f} s  {p.note or p.step}{counts}", file=out, flush=True)

    return show


def cmd_durability(args: argparse.Namespace) -> int:
    from kafkatop.backends.durability import DurabilityCheck, DurabilityRefused

    try:
        settings = settings_from_args(args, attached=bool(args.bootstrap_server))
    except DurabilityRefused as e:
        _err(str(e))
        return 2
    with interrupt_on_termination():
        try:
            with _cluster(args, settings) as (bootstrap, control):
                check = DurabilityCheck(
                    bootstrap,
                    settings,
                    control,
                    client_config=_client_config(args),
                    on_progress=_progress_printer(sys.stderr),
                    timeout_s=args.timeout,
                )
                report = check.run()
        except DurabilityRefused as e:
            _err(str(e))
            return 2
        except KeyboardInterrupt:
            _err("interrupted: the check stopped (a broker it had taken down is started again if so planned)")
            return INTERRUPTED
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print_report(report)
    return 0 if report.as_expected else 1


# --- printing -------------------------------------------------------------------------------------------------------
def _percent(fraction: float) -> str:
    return f"{fraction * 100:g} %"


def describe_settings(s: DurabilitySettings) -> str:
    parts = [f"{s.records} records", f"acks={s.acks}", f"idempotence {'on' if s.enable_idempotence else 'off'}"]
    if s.retries is not None:
        parts.append(f"retries={s.retries}")
    if s.rate is not None:
        parts.append(f"{s.rate:g}/s")
    if s.kill_at is None:
        parts.append("no fault")
    else:
        parts.append(f"{s.fault} the leader of {s.topic}-{s.partition} at {_percent(s.kill_at)}")
        parts.append("leave it down" if s.restart_at is None else f"start it at {_percent(s.restart_at)}")
    return ", ".join(parts)


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
            for r in rows]  # fmt: skip


def print_report(report: DurabilityReport, out: TextIO = sys.stdout) -> None:
    s, facts, tl = report.settings, report.facts, report.timeline
    print(f"durability check of '{s.topic}' at {report.bootstrap_servers} · run {report.run_id}", file=out)
    print(f"settings: {describe_settings(s)}", file=out)
    min_isr = "unknown" if facts.min_insync_replicas is None else str(facts.min_insync_replicas)
    unclean = {None: "unknown", True: "on", False: "off"}[facts.unclean_leader_election]
    print(
        f"topic: {facts.partitions} partitions, RF {facts.replication_factor}, min.insync.replicas {min_isr}, "
        f"unclean leader election {unclean}",
        file=out,
    )
    print(report.expectation.summary, file=out)
    for reason in report.expectation.reasons:
        print(f"  {reason}", file=out)
    if tl.events:
        print("fault:", file=out)
        for e in tl.events:
            when = f"{e.at - report.started_at:7.2f} s  {e.records_sent:>7} sent {e.records_done:>7} reported"
            print(f"  {when}  {e.what}", file=out)
    header = ("PARTITION", "START", "END", "SENT", "ACKED", "FAILED", "READ", "LOST", "DUPLICATED", "OUT-OF-ORDER",
              "UNACKED-PRESENT", "OTHER")  # fmt: skip
    rows = [header]
    for r in (*report.partitions, report.totals):
        rows.append(
            (
                "total" if r.partition is None else str(r.partition),
                "" if r.start_offset is None else str(r.start_offset),
                "" if r.end_offset is None else str(r.end_offset),
                *(str(v) for v in (r.sent, r.acked, r.failed, r.read, r.lost, r.duplicated, r.out_of_order)),
                str(r.unacked_present),
                str(r.other),
            )
        )
    for line in _table(rows):
        print(line.rstrip(), file=out)
    for r in report.partitions:
        if r.lost_sample:
            more = f" and {r.lost - len(r.lost_sample)} more" if r.lost > len(r.lost_sample) else ""
            print(f"lost in {s.topic}-{r.partition}: sequence {', '.join(map(str, r.lost_sample))}{more}", file=out)
    for problem in report.problems:
        print(f"note: {problem}", file=out)
    if tl.happened:
        moved = f"{tl.leader_before} → {tl.leader_after}" if tl.leader_changed else "did not change"
        print(f"leader of {s.topic}-{s.partition}: {moved}", file=out)
    print(f"verdict: {report.verdict_text}", file=out)
