"""`kafkatop metadata-quorum describe --status | --replication`: the KRaft quorum in kafka-metadata-quorum.sh's lines,
through a broker (--bootstrap-server, which forwards DescribeQuorum to the active controller) or a controller
(--bootstrap-controller): backends/kraft/quorum_tool.py."""

from __future__ import annotations

import argparse

from kafkatop.backends.kraft.quorum_tool import describe_metadata_quorum, replication_lines, status_lines
from kafkatop.tui.cli.common import connection
from kafkatop.tui.cli.exits import DONE, UsageError


def cmd_metadata_quorum(args: argparse.Namespace) -> int:
    if args.status == args.replication:
        raise UsageError("give one of --status or --replication")
    if args.human_readable and not args.replication:
        raise UsageError("--human-readable goes with --replication")
    if args.bootstrap_controller:
        if args.bootstrap_server:
            raise UsageError("give --bootstrap-server or --bootstrap-controller, not both")
        args.bootstrap_server = args.bootstrap_controller
    described = describe_metadata_quorum(connection(args), args.timeout)
    lines = status_lines(described) if args.status else replication_lines(described, args.human_readable)
    print("\n".join(lines))
    return DONE
