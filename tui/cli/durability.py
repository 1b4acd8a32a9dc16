"""`kafkatop durability`: the durability check (backends/checks/durability) from the command line, on a lab cluster
or an attached one. Prints a per-partition table and the verdict, or the report as JSON; progress goes to stderr.

Exit codes: 0 the log kept what the settings promise; 1 it did not (records lost under settings that promise none,
duplicated or reordered under idempotence), the run was incomplete, or the cluster failed; 2 bad input or refused
before anything was sent; 130 interrupted (a broker the run took down is started again first)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from kafkatop.backends.checks.durability.report import format_report
from kafkatop.backends.checks.durability.run import DurabilityCheck
from kafkatop.backends.checks.durability.verdict import check_topic
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.lab.attached import AttachedControl
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.durability import (
    DELIVERY_TIMEOUT_S,
    TRANSACTIONAL_DELIVERY_TIMEOUT_S,
    DurabilityProgress,
    DurabilityRefused,
    DurabilityReport,
    DurabilitySettings,
)
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.ports import NodeControl
from kafkatop.tui.cli.common import (
    attached_connection,
    confirmed,
    lab_in_use,
    open_cluster,
    run_check,
)
from kafkatop.tui.cli.exits import err

DEFAULT_RESTART_AT = 0.7


def settings_from_args(args: argparse.Namespace, *, attached: bool) -> DurabilitySettings:
    """The run's settings from the flags; DurabilityRefused says which flag is wrong."""
    no_fault = args.fault == "none"
    if no_fault:
        restart_at = None
    elif args.restart_at is None:  # not given: kafkatop can only start again a broker it started
        restart_at = None if attached else DEFAULT_RESTART_AT
    else:
        restart_at = None if args.restart_at == "none" else float(args.restart_at)
    delivery_timeout = args.delivery_timeout
    if delivery_timeout is None:
        delivery_timeout = TRANSACTIONAL_DELIVERY_TIMEOUT_S if args.transactional else DELIVERY_TIMEOUT_S
    return DurabilitySettings(
        topic=args.topic,
        records=args.records,
        acks=args.acks,
        enable_idempotence=args.acks == "all" if args.idempotence is None else args.idempotence,
        retries=args.retries,
        delivery_timeout_s=delivery_timeout,
        fault="kill" if no_fault else args.fault,
        kill_at=None if no_fault else args.kill_at,
        restart_at=restart_at,
        partition=args.partition,
        rate=args.rate,
        transactional=bool(args.transactional),
        transaction_records=args.transaction_records,
    )


@contextmanager
def _cluster(
    args: argparse.Namespace, settings: DurabilitySettings
) -> Iterator[tuple[KafkaConnection, NodeControl | None]]:
    """(the cluster, the control that performs the fault): the attached cluster's local processes, or the lab
    cluster's nodes. A lab broker started again by the run is left running, as `kafkatop start` leaves it."""
    if args.bootstrap_server:
        connection = attached_connection(args)
        if settings.kill_at is None:
            yield connection, None
            return
        source = AdminSource(connection, timeout_s=5.0)
        try:
            # Read-only first (a missing or unreplicated topic is the more useful thing to say), then asked: the
            # fault signals a local process of a cluster kafkatop did not start.
            snapshot = source.poll()
            facts = check_topic(snapshot, settings)
            what = (
                f"broker {facts.leader}, the leader of {settings.topic}-{settings.partition}, of cluster "
                f"{snapshot.cluster_id} ({args.bootstrap_server})"
            )
            signal = "kill -9" if settings.fault == "kill" else "stop (SIGTERM)"
            if not confirmed(
                f"{signal} {what} during the run?",
                yes=args.yes,
                unasked=f"nothing was run: --fault {settings.fault} on an attached cluster signals {what}, a local "
                "process kafkatop did not start, so it asks first; add --yes to go ahead, or --fault none",
            ):
                raise DurabilityRefused("not confirmed: nothing was run")
            yield connection, AttachedControl(connection, source.poll)
        finally:
            source.close()
        return
    try:
        cluster = open_cluster(args)
    except KafkatopError as e:
        raise KafkatopError(f"no cluster to check: give --bootstrap-server HOST:PORT, or start one ({e})") from None
    with lab_in_use(args, cluster) as in_use:
        yield in_use


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
    if not args.topic:
        err("durability needs --topic NAME (a replicated topic to write to), or --connect to check a Connect pipeline")
        return 2
    try:
        settings = settings_from_args(args, attached=bool(args.bootstrap_server))
    except DurabilityRefused as e:
        err(str(e))
        return 2

    def run() -> DurabilityReport:
        with _cluster(args, settings) as (connection, control):
            progress = _progress_printer(sys.stderr)
            return DurabilityCheck(connection, settings, control, on_progress=progress, timeout_s=args.timeout).run()

    interrupted = "interrupted: the check stopped (a broker it had taken down is started again if so planned)"
    return run_check(args, run, refused=DurabilityRefused, interrupted=interrupted, text=format_report,
                     held=lambda report: report.as_expected)  # fmt: skip
