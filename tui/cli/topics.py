"""`kafkatop create-topic` and `kafkatop describe`, as kafka-topics.sh --create / --describe, line for line."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from kafkatop.backends.insight.describe import describe_json, format_describe
from kafkatop.backends.insight.grants import Refused
from kafkatop.backends.insight.topic_health import HealthFilter
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.topics import TopicAdmin
from kafkatop.backends.kafka.reach import unreachable
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.topics import parse_config_assignments, validate_new_topic
from kafkatop.backends.zookeeper.watch import ZooKeeperSource
from kafkatop.tui.cli.common import connection
from kafkatop.tui.cli.exits import BAD_INPUT, err
from kafkatop.tui.cli.grant_lines import error_line


def cmd_create_topic(args: argparse.Namespace) -> int:
    problems = validate_new_topic(args.topic, args.partitions, args.replication_factor)
    if problems:
        for p in problems:
            err(p)
        return BAD_INPUT
    configs = parse_config_assignments(args.config_item or ())
    with TopicAdmin(connection(args), timeout_s=args.timeout) as admin:
        admin.create_topic(args.topic, args.partitions, args.replication_factor, configs)
    print(f"Created topic {args.topic}.")  # kafka-topics' own words
    return 0


def _poll(cluster: KafkaConnection, timeout_s: float) -> ClusterSnapshot:
    source = AdminSource(cluster, timeout_s=timeout_s, include_internal=True)
    try:
        return source.poll()
    finally:
        source.close()


def cmd_describe(args: argparse.Namespace) -> int:
    if args.zookeeper:
        with ZooKeeperSource(args.zookeeper, timeout_s=args.timeout) as zookeeper:
            snapshot = zookeeper.snapshot()
        if args.json:
            print(json.dumps(describe_json(snapshot, args.topic, sort_by_name=True), indent=2))
            return 0
        text = format_describe(snapshot, args.topic, sort_by_name=True)  # as the ZooKeeper-era tool listed them
        notes: list[str] = []
    else:
        if args.json:  # the whole poll (watermarks too), within --timeout
            print(json.dumps(describe_json(_poll(connection(args), args.timeout), args.topic), indent=2))
            return 0
        text, notes = describe_lines(args)
    show_describe(text, notes)
    return 0


def show_describe(text: str, notes: list[str]) -> None:
    if text:  # no topics: nothing, as kafka-topics prints
        print(text, end="" if text.endswith("\n") else "\n")
    for note in notes:  # stdout stays kafka-topics' lines; what kafkatop could not confirm goes beside them
        err(f"note: {note}")


def describe_lines(
    args: argparse.Namespace,
    pick: Callable[[ClusterSnapshot], list[str]] | None = None,
    health: HealthFilter | None = None,
) -> tuple[str, list[str]]:
    """The lines from one Metadata request (nothing that waits on a partition's leader), then the configs and ids
    within --timeout; notes name what was not read and the brokers in the metadata that are not there. `pick`: the
    topics to describe, chosen from the metadata (`kafkatop topics --describe`'s --topic REGEX); `health`: only the
    lines kafka-topics' health filters print."""
    cluster = connection(args)
    # One deadline for the whole command, its interpreter's start and exit included (a second, on a busy machine).
    end = time.monotonic() + max(1.0, args.timeout - 1.0)
    source = AdminSource(cluster, timeout_s=args.timeout, include_internal=True)
    try:
        snapshot = source.poll(topics_only=True)
    finally:
        source.close()
    only = pick(snapshot) if pick is not None else None
    left = max(0.5, end - time.monotonic())
    with ThreadPoolExecutor(1, thread_name_prefix="kafkatop-reach") as pool:
        gone = pool.submit(unreachable, snapshot.brokers, min(left, 1.0))
        unread: list[str | Refused] = []
        with TopicAdmin(cluster, timeout_s=left) as admin:
            text = admin.describe(snapshot, None if only is not None else args.topic, unread=unread, only=only,
                                  health=health)  # fmt: skip
        missing = gone.result()
    notes = [
        error_line(what, args) if isinstance(what, Refused) else f"not read within --timeout {args.timeout:g} s: {what}"
        for what in unread
    ]
    shown = set(only) if only is not None else {t.name for t in snapshot.topics} if not args.topic else {args.topic}
    for broker_id, reason in sorted(missing.items()):
        leads = sum(1 for t in snapshot.topics if t.name in shown for p in t.partitions if p.leader == broker_id)
        notes.append(
            f"broker {broker_id} is in the metadata but does not answer ({reason}): it was probably stopped moments "
            f"ago and is not fenced yet; the {leads} partition(s) it leads above will get a new leader once it is "
            "(KRaft: broker.session.timeout.ms, 9 s by default)"
        )
    return text, notes
