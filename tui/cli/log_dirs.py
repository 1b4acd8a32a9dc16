"""`kafkatop log-dirs`: the brokers' log directories, as `kafka-log-dirs.sh --describe` asks them (one DescribeLogDirs
per broker, backends/kafka/cluster/log_dirs.py): a table by default, the tool's own lines with --json."""

from __future__ import annotations

import argparse

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.log_dirs import describe_log_dirs
from kafkatop.backends.model.cluster import Broker
from kafkatop.backends.model.columns import aligned_lines
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.log_dirs import ERROR_CLASSES, LogDir, LogDirsSnapshot, tool_lines
from kafkatop.backends.model.text import printable
from kafkatop.backends.protocol.wire import error_name
from kafkatop.tui.cli.common import connection
from kafkatop.tui.cli.exits import DONE, UsageError
from kafkatop.tui.format import data_size


def cmd_log_dirs(args: argparse.Namespace) -> int:
    kafka = connection(args)
    brokers = cluster_brokers(kafka, args.timeout)
    known = {b.id for b in brokers}
    unknown = [i for i in args.broker_list if i not in known]
    if unknown:
        raise UsageError(
            f"no broker {', '.join(map(str, unknown))} in the cluster (its brokers: "
            f"{', '.join(str(b.id) for b in brokers) or 'none'}): give ids of --broker-list from those"
        )
    # The brokers in the order given (else the metadata's): the tool's HashSet keeps it among ids of one bucket.
    by_id = {b.id: b for b in brokers}
    asked = [by_id[i] for i in args.broker_list] if args.broker_list else list(brokers)
    snapshot = describe_log_dirs(kafka, asked, args.timeout)
    lines = tool_lines(snapshot, args.topic_list) if args.json else table(snapshot.filtered(args.topic_list), args.top)
    print("\n".join(lines))
    return DONE


def cluster_brokers(connection: KafkaConnection, timeout_s: float) -> tuple[Broker, ...]:
    """The cluster's live brokers, from one Metadata request (as the tool's describeCluster)."""
    source = AdminSource(connection, timeout_s=timeout_s)
    try:
        return tuple(b for b in source.poll(topics_only=True).brokers if b.alive)
    finally:
        source.close()


def _bytes(n: int | None) -> str:
    return "-" if n is None else data_size(n)


def _error(d: LogDir) -> str:
    if not d.error_code:
        return "-"
    return f"{error_name(d.error_code)} ({ERROR_CLASSES.get(d.error_code, ERROR_CLASSES[-1]).rsplit('.', 1)[-1]})"


def table(snapshot: LogDirsSnapshot, top: int) -> list[str]:
    """Each directory: its broker, path, the size of its partitions, its disk's total and usable bytes, how many
    partitions, its error; then the `top` biggest partitions."""
    rows = [["BROKER", "LOG DIR", "SIZE", "DISK TOTAL", "DISK USABLE", "PARTITIONS", "ERROR"]]
    rows += [
        [
            str(b.broker),
            printable(d.path),
            data_size(d.size),
            _bytes(d.total_bytes),
            _bytes(d.usable_bytes),
            str(len(d.replicas)),
            _error(d),
        ]  # fmt: skip
        for b in snapshot.brokers
        for d in b.log_dirs
    ]
    lines = aligned_lines(rows)
    biggest = snapshot.biggest(top)
    if biggest:
        lines += ["", f"The biggest partitions ({len(biggest)}):"]
        lines += aligned_lines(
            [["BROKER", "PARTITION", "SIZE", "OFFSET LAG", "FUTURE", "LOG DIR"]]
            + [
                [
                    str(broker),
                    printable(r.name),
                    data_size(r.size),
                    str(r.offset_lag),
                    "yes" if r.is_future else "no",
                    printable(d.path),
                ]  # fmt: skip
                for broker, d, r in biggest
            ]
        )
    return lines
