"""`kafkatop get-offsets`: partitions' offsets at a time (latest, earliest, max-timestamp, a timestamp), as
`kafka-get-offsets.sh` prints them, `topic:partition:offset`, line for line."""

from __future__ import annotations

import argparse

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.get_offsets import OffsetsAdmin
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.get_offsets import (
    chosen,
    offset_lines,
    parse_time,
    topic_and_partitions,
    topic_partition_rules,
)
from kafkatop.backends.model.text import printable
from kafkatop.tui.cli.common import connection
from kafkatop.tui.cli.exits import DONE, FAILED, UsageError, err


def topic_listing(connection: KafkaConnection, timeout_s: float) -> list[tuple[str, bool, tuple[int, ...]]]:
    """Every topic the principal may describe (internal ones too): its name, whether internal, its partitions; from
    one Metadata request."""
    source = AdminSource(connection, timeout_s=timeout_s, include_internal=True)
    try:
        snapshot = source.poll(topics_only=True)
    finally:
        source.close()
    return [(t.name, t.internal, tuple(p.id for p in t.partitions)) for t in snapshot.topics]


def cmd_get_offsets(args: argparse.Namespace) -> int:
    if args.topic_partitions is not None and (args.topic is not None or args.partitions is not None):
        raise UsageError("--topic-partitions cannot be used with --topic or --partitions")
    time_ms = parse_time(args.time)
    rules = (
        topic_partition_rules(args.topic_partitions)
        if args.topic_partitions is not None
        else topic_and_partitions(args.topic, args.partitions)
    )
    kafka = connection(args)
    partitions = chosen(topic_listing(kafka, args.timeout), rules, args.exclude_internal_topics)
    if not partitions:
        err("Could not match any topic-partitions with the specified filters")
        return FAILED
    with OffsetsAdmin(kafka, args.timeout) as admin:
        answers = admin.offsets_at(partitions, time_ms)
    for (topic, partition), answer in answers.items():
        if isinstance(answer, str):
            err(f"Skip getting offsets for topic-partition {printable(topic)}-{partition} due to error: {answer}")
    for line in offset_lines({tp: a for tp, a in answers.items() if isinstance(a, int)}):
        print(line)
    return DONE
