"""`kafkatop chaos`: a bounded chaos run (backends/checks/chaos) on a lab cluster from the command line. Each step is
printed as it happens (to stderr with --json), then the report: the steps, how fast kafkatop's view followed, the
durability figures and the orphan check.

Exit codes: 0 kafkatop kept up, nothing was lost, duplicated or reordered, nothing was left running; 1 one of those
failed, the run was incomplete, or the cluster failed; 2 bad input or refused before any node was touched (missing
topic, RF 1, a cluster kafkatop cannot start nodes of); 130 interrupted (the nodes it had taken down are started
again first)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from kafkatop.backends.checks.chaos.report import format_report
from kafkatop.backends.checks.chaos.run import ChaosRun
from kafkatop.backends.checks.chaos.verdict import check_chaos_topic
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.lab.identity import is_local
from kafkatop.backends.model.chaos import ChaosEvent, ChaosRefused, ChaosReport, ChaosSettings, parse_actions
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.ports import NodeControl
from kafkatop.tui.cli.common import attached_connection, lab_in_use, open_cluster, run_check
from kafkatop.tui.cli.exits import err


def settings_from_args(args: argparse.Namespace) -> ChaosSettings:
    """The run's settings from the flags; ChaosRefused says which one is wrong."""
    return ChaosSettings(
        topic=args.topic,
        steps=args.steps,
        seed=args.seed,
        actions=parse_actions(args.actions),
        max_down=args.max_down,
        rate=args.rate,
        step_timeout_s=args.step_timeout,
        hold_s=args.hold,
        poll_interval_s=args.interval,
        total_timeout_s=args.time_limit,
        group=args.group,
    )


# --- which cluster ------------------------------------------------------------------------------------------------
@contextmanager
def _cluster(args: argparse.Namespace, topic: str) -> Iterator[tuple[KafkaConnection, NodeControl]]:
    """(the cluster, the lab cluster's control). A broker the run started again is left running, as
    `kafkatop start` leaves it."""
    lab = None
    if args.bootstrap_server:
        given = attached_connection(args)
        remote = sorted({h for h, _ in given.addresses if not is_local(h.lower())})
        if remote:
            raise ChaosRefused(
                f"{remote[0]} is not this host: a chaos run kills and starts brokers, which kafkatop can only do to "
                "a cluster it runs here; run it on a lab cluster (kafkatop up)"
            )
        # Read-only first: a missing or unreplicated topic is the more useful thing to say.
        source = AdminSource(given, timeout_s=5.0)
        try:
            check_chaos_topic(source.poll(), topic)
        finally:
            source.close()
        try:
            lab = open_cluster(args)
        except KafkatopError:
            lab = None
        ports = {p for _, p in given.addresses}
        if lab is None or not ports <= {n.port for n in lab.nodes if n.is_broker}:
            raise ChaosRefused(
                f"the cluster at {args.bootstrap_server} is local but no lab cluster of kafkatop's (--name/"
                "--state-dir) listens there: kafkatop can kill and stop brokers it did not start, but not start "
                "them again, and a chaos run must; run it on a lab cluster (kafkatop up)"
            )
    else:
        lab = open_cluster(args)  # a SupervisorError says where it looked and how to start one
    with lab_in_use(args, lab) as in_use:
        yield in_use


def _event_printer(out: TextIO) -> Callable[[ChaosEvent], None]:
    started = time.monotonic()

    def show(event: ChaosEvent) -> None:
        print(f"{time.monotonic() - started:7.1f} s  {event.text}", file=out, flush=True)

    return show


def cmd_chaos(args: argparse.Namespace) -> int:
    try:
        settings = settings_from_args(args)
    except ChaosRefused as e:
        err(str(e))
        return 2

    def run() -> ChaosReport:
        with _cluster(args, settings.topic) as (connection, control):
            out = sys.stderr if args.json else sys.stdout
            return ChaosRun(control, connection, settings, on_event=_event_printer(out)).run()

    interrupted = "interrupted: the run stopped; the brokers it had taken down were started again"
    return run_check(args, run, refused=ChaosRefused, interrupted=interrupted, text=format_report,
                     held=lambda report: report.passed)  # fmt: skip
