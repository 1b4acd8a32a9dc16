"""`kafkatop durability --connect`: the Connect pipeline check (backends/checks/pipeline) on a lab with Connect
workers — file → FileStreamSource → topic → FileStreamSink → file, the worker running the source task killed midway.
Progress goes to stderr; the report (or its JSON) to stdout.

Exit codes: 0 every line arrived, in order (duplicates are at-least-once's and reported); 1 a line lost or reordered,
an incomplete run, or Connect or Kafka failed; 2 bad input or refused before anything was created; 130 interrupted
(a worker the run took down is started again first)."""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Callable

from kafkatop.backends.checks.pipeline.report import format_report
from kafkatop.backends.checks.pipeline.run import PipelineCheck
from kafkatop.backends.connect.client import ConnectClient
from kafkatop.backends.lab.control import LabControl
from kafkatop.backends.lab.properties import read_properties
from kafkatop.backends.model.errors import BadInput, KafkatopError
from kafkatop.backends.model.nodes import ProcessRole
from kafkatop.backends.model.pipeline import DEFAULT_RATE, PipelineRefused, PipelineSettings
from kafkatop.tui.cli.common import interrupt_on_termination, lab_connection, open_cluster, report_exit
from kafkatop.tui.cli.connect_workers import lab_auth
from kafkatop.tui.cli.exits import INTERRUPTED, err


def settings_from_args(args: argparse.Namespace) -> PipelineSettings:
    refused = [
        flag
        for flag, given in (
            ("--bootstrap-server", args.bootstrap_server),
            ("--transactional", args.transactional),
            ("--topic", args.topic),
        )
        if given
    ]
    if refused:
        raise PipelineRefused(
            f"{', '.join(refused)}: not with --connect, which makes its own topic on a lab's Connect workers "
            "(`kafkatop up --connect 2`)"
        )
    return PipelineSettings(
        lines=args.records,
        rate=DEFAULT_RATE if args.rate is None else args.rate,
        kill_at=None if args.fault == "none" else args.kill_at,
        fault="stop" if args.fault == "stop" else "kill",
        restart="never" if args.restart_at == "none" else "after-failover",
        keep=bool(args.keep),
    ).validate()


def _progress(started: float) -> Callable[[str], None]:
    shown: list[str] = []

    def show(text: str) -> None:
        if shown and shown[-1] == text:
            return  # the sink's count alone, unchanged: one line per change, not one per tick
        shown.append(text)
        print(f"{time.monotonic() - started:6.1f} s  {text}", file=sys.stderr, flush=True)

    return show


def cmd_pipeline(args: argparse.Namespace) -> int:
    try:
        settings = settings_from_args(args)
        cluster = open_cluster(args)
        rest = lab_auth(cluster.snapshot().connect_admin_properties)  # a secured lab's workers ask for its admin
    except KafkatopError as e:
        err(str(e))
        return 2
    workers = [n for n in cluster.nodes if n.role is ProcessRole.CONNECT]
    if not workers:
        err(
            f"lab {cluster.spec.name!r} has no Connect workers: add them with `kafkatop add-connect` (twice, to see a "
            "task move), or start a lab with `kafkatop up --connect 2`"
        )
        return 2
    connect = ConnectClient(cluster.connect_urls, user_info=rest.user_info)
    started = time.monotonic()
    try:
        with interrupt_on_termination():
            if cluster.cluster_id is not None:
                connect.check_cluster(cluster.cluster_id, f"lab {cluster.spec.name!r}")
            check = PipelineCheck(
                lab_connection(args, cluster.snapshot()),
                connect,
                LabControl(cluster),
                settings,
                cluster.state_dir / "pipeline",
                worker_config=read_properties(cluster.config_path(workers[0])),
                on_progress=_progress(started),
                lab_flags="".join(
                    f" {flag} {shlex.quote(str(value))}"
                    for flag, value in (("--name", args.name), ("--state-dir", args.state_dir))
                    if value
                ),  # fmt: skip
            )
            report = check.run()
    except BadInput as e:  # PipelineRefused, and a stranger's Connect on the lab's ports
        err(str(e))
        return 2
    except KeyboardInterrupt:
        err("interrupted: the check stopped (a worker it had taken down was started again)")
        return INTERRUPTED
    except KafkatopError as e:
        err(str(e))
        return 1
    finally:
        connect.close()
        cluster.release()
    return report_exit(args, report, format_report, report.as_expected)
