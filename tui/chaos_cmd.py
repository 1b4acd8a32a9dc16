"""`kafkatop chaos`: a bounded chaos run (backends/chaos.py) on a lab cluster from the command line. Each step is
printed as it happens (to stderr with --json), then the report: the steps, how fast kafkatop's view followed, the
durability figures and the orphan check.

Exit codes: 0 kafkatop kept up, nothing was lost, duplicated or reordered, nothing was left running; 1 one of those
failed, the run was incomplete, or the cluster failed; 2 bad input or refused before any node was touched (missing
topic, RF 1, a cluster kafkatop cannot start nodes of); 130 interrupted (the nodes it had taken down are started
again first).

Imported when the parser is built: only the standard library at module level, so `kafkatop --help` stays quick."""

from __future__ import annotations

import argparse
import ipaddress
import json
import socket
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

from kafkatop.backends.errors import KafkatopError

if TYPE_CHECKING:
    from kafkatop.backends.chaos import ChaosEvent, ChaosReport, ChaosSettings
    from kafkatop.backends.control import ClusterControl

DEFAULT_ACTIONS = "kill,stop,restart,start"


def add_parser(sub: Any, lab_options: Any, client_options: Any) -> None:
    chaos = sub.add_parser(
        "chaos",
        help="random kill/stop/restart steps on a lab cluster while producing and consuming: did kafkatop keep up, "
        "was a record lost, is a process left behind",
        description="Takes K random steps (kill, stop, restart, start) on the brokers of a lab cluster while a "
        "sequenced producer (acks=all, idempotence) writes to a replicated topic and a consumer group reads it. "
        "After each step, once the cluster has settled, it counts how many of kafkatop's own polls it took to show "
        "the brokers, leaders and ISRs (within 2 is keeping up). At the end every broker is started again, the "
        "records are verified (lost, duplicated, out of order) and no process may be left behind. Never more than "
        "--max-down brokers are down at once.",
        epilog="Exit codes: 0 kafkatop kept up, nothing lost, duplicated or reordered, no orphan process; 1 one of "
        "those failed, an incomplete run, or a cluster error; 2 bad input, or refused before any node was touched "
        "(missing topic, RF 1, a cluster kafkatop did not start); 130 interrupted (the brokers the run took down are "
        "started again first).",
    )
    lab_options(chaos, spec_file=False)
    client_options(chaos)
    chaos.add_argument("--topic", required=True, metavar="NAME", help="a replicated topic (RF 3 for a real test)")
    chaos.add_argument("--steps", type=int, default=5, metavar="K", help="steps to take, 1 to 50 (default 5)")
    chaos.add_argument("--seed", type=int, metavar="S", help="for the random steps (default: drawn and reported)")
    chaos.add_argument(
        "--actions",
        default=DEFAULT_ACTIONS,
        metavar="LIST",
        help=f"allowed, comma-separated (default {DEFAULT_ACTIONS}); without start a broker is started only when "
        "nothing else is possible, and at the end",
    )
    chaos.add_argument("--max-down", type=int, default=1, metavar="N", help="brokers down at once, at most (default 1)")
    chaos.add_argument(
        "--step-timeout", type=float, default=60.0, metavar="SECONDS", help="for the cluster to settle (default 60)"
    )
    chaos.add_argument(
        "--hold", type=float, default=5.0, metavar="SECONDS", help="keep each step's state this long (default 5)"
    )
    chaos.add_argument("--rate", type=float, default=100.0, metavar="N", help="records per second (default 100)")
    chaos.add_argument(
        "--interval", type=float, default=1.0, metavar="SECONDS", help="kafkatop's poll interval (default 1)"
    )
    chaos.add_argument(
        "--time-limit", type=float, default=1800.0, metavar="SECONDS", help="no new step after (default 1800)"
    )
    chaos.add_argument(
        "--group",
        default="kafkatop-chaos",
        metavar="ID",
        help="the consumer group reading the topic (default "
        "kafkatop-chaos; a new member joins at once only once the last run's consumer has left)",
    )
    chaos.add_argument("--json", action="store_true", help="the report as JSON (steps go to stderr)")


def settings_from_args(args: argparse.Namespace) -> ChaosSettings:
    """The run's settings from the flags; ChaosRefused says which one is wrong."""
    from kafkatop.backends.chaos import ChaosSettings, parse_actions

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
def _hosts_ports(bootstrap: str) -> list[tuple[str, int | None]]:
    out = []
    for item in bootstrap.split(","):
        host, _, port = item.strip().rpartition(":")
        out.append((host.strip("[]").lower(), int(port) if port.isdigit() else None))
    return out


def is_local(host: str) -> bool:
    """Loopback, localhost or this host's own name: where kafkatop can signal and start processes."""
    if host in ("localhost", socket.gethostname().lower()):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@contextmanager
def _cluster(args: argparse.Namespace, topic: str) -> Iterator[tuple[str, ClusterControl]]:
    """(bootstrap servers, the lab cluster's control). A broker the run started again is left running, as
    `kafkatop start` leaves it."""
    from kafkatop.backends.chaos import ChaosRefused
    from kafkatop.backends.control import LabControl
    from kafkatop.tui.commands import _client_config, open_cluster

    lab = None
    if args.bootstrap_server:
        remote = sorted({h for h, _ in _hosts_ports(args.bootstrap_server) if not is_local(h)})
        if remote:
            raise ChaosRefused(
                f"{remote[0]} is not this host: a chaos run kills and starts brokers, which kafkatop can only do to "
                "a cluster it runs here; run it on a lab cluster (kafkatop up)"
            )
        from kafkatop.backends.admin import AdminSource
        from kafkatop.backends.chaos import check_chaos_topic

        # Read-only first: a missing or unreplicated topic is the more useful thing to say.
        source = AdminSource(args.bootstrap_server, client_config=_client_config(args), timeout_s=5.0)
        try:
            check_chaos_topic(source.poll(), topic)
        finally:
            source.close()
        try:
            lab = open_cluster(args)
        except KafkatopError:
            lab = None
        ports = {p for _, p in _hosts_ports(args.bootstrap_server)}
        if lab is None or not ports <= {n.port for n in lab.nodes if n.is_broker}:
            raise ChaosRefused(
                f"the cluster at {args.bootstrap_server} is local but no lab cluster of kafkatop's (--name/"
                "--state-dir) listens there: kafkatop can kill and stop brokers it did not start, but not start "
                "them again, and a chaos run must; run it on a lab cluster (kafkatop up)"
            )
    else:
        lab = open_cluster(args)  # a SupervisorError says where it looked and how to start one
    try:
        control = LabControl(lab)
        yield control.bootstrap_servers, control
    finally:
        lab.release()


def _event_printer(out: TextIO) -> Callable[[ChaosEvent], None]:
    started = time.monotonic()

    def show(event: ChaosEvent) -> None:
        print(f"{time.monotonic() - started:7.1f} s  {event.text}", file=out, flush=True)

    return show


def cmd_chaos(args: argparse.Namespace) -> int:
    from kafkatop.backends.chaos import ChaosRefused, ChaosRun
    from kafkatop.tui.commands import INTERRUPTED, _client_config, _err, interrupt_on_termination

    try:
        settings = settings_from_args(args)
    except ChaosRefused as e:
        _err(str(e))
        return 2
    with interrupt_on_termination():
        try:
            with _cluster(args, settings.topic) as (bootstrap, control):
                run = ChaosRun(
                    control,
                    bootstrap,
                    settings,
                    client_config=_client_config(args),
                    on_event=_event_printer(sys.stderr if args.json else sys.stdout),
                )
                report = run.run()
        except ChaosRefused as e:
            _err(str(e))
            return 2
        except KeyboardInterrupt:
            _err("interrupted: the run stopped; the brokers it had taken down were started again")
            return INTERRUPTED
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print_report(report)
    return 0 if report.passed else 1


# --- printing -------------------------------------------------------------------------------------------------------
def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def print_report(report: ChaosReport, out: TextIO = sys.stdout) -> None:
    s = report.settings
    print(f"chaos run {report.run_id} on {report.cluster} ({report.bootstrap_servers}) · seed {report.seed}", file=out)
    min_isr = "unknown" if report.min_insync_replicas is None else str(report.min_insync_replicas)
    print(
        f"topic '{s.topic}': {report.partitions_count} partitions, RF {report.replication_factor}, "
        f"min.insync.replicas {min_isr}; {s.rate:g} records/s; max-down {s.max_down} "
        f"(safe: {report.safe_max_down}: {report.safe_reason})",
        file=out,
    )
    for note in report.notes:
        print(f"note: {note}", file=out)
    rows = [("STEP", "ACTION", "NODE", "SETTLED", "POLLS", "LEADER-MOVES", "PRODUCER-ERR", "CONSUMER-ERR")]
    for step in report.steps:
        rows.append(
            (
                str(step.index),
                step.action + (" *" if step.forced else ""),
                step.node,
                "no" if step.settle_s is None else f"{step.settle_s:.1f} s",
                "-" if step.polls_to_converge is None else str(step.polls_to_converge),
                str(step.leader_moves),
                str(step.producer_errors),
                str(step.consumer_errors),
            )
        )
    for line in _table(rows):
        print(line, file=out)
    if any(step.forced for step in report.steps):
        print("  * a start not among --actions: no other step was possible", file=out)
    for step in report.steps:
        if step.note:
            print(f"  step {step.index}: {step.note}", file=out)
    over, unmeasured = report.steps_over, [st.index for st in report.steps if not st.settled]
    convergence = (
        f"every settled step within 2 polls (at most {report.max_polls})"
        if not over
        else f"step {', '.join(map(str, over))} over 2 polls (at most {report.max_polls})"
    )
    if unmeasured:
        convergence += f"; step {', '.join(map(str, unmeasured))} not measured (did not settle)"
    print(f"kafkatop's view: {report.view_polls} polls, {report.view_errors} failed; {convergence}", file=out)
    t = report.totals
    print(
        f"records: {t.sent} sent, {t.acked} acked, {t.failed} failed, {report.consumed} read by the group; "
        f"{t.lost} lost, {t.duplicated} duplicated, {t.out_of_order} out of order, {t.unacked_present} "
        "unacked but present",
        file=out,
    )
    for r in report.partitions:
        if r.lost_sample:
            print(f"  lost in {s.topic}-{r.partition}: sequence {', '.join(map(str, r.lost_sample))}", file=out)
    if report.orphans is None:
        print(f"orphans: {report.orphans_note}", file=out)
    elif not report.orphans:
        print(f"orphans: none ({report.orphans_note})", file=out)
    else:
        for orphan in report.orphans:
            print(f"orphan: {orphan}", file=out)
    for problem in report.problems:
        print(f"problem: {problem}", file=out)
    print(f"verdict: {report.verdict_text}", file=out)
