"""`kafkatop create-topic` and `kafkatop describe`, as kafka-topics.sh --create / --describe, line for line."""

from __future__ import annotations

import argparse
import json

from kafkatop.backends.insight.describe import describe_json, format_describe
from kafkatop.backends.kafka.admin import AdminSource
from kafkatop.backends.kafka.topics import TopicAdmin
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.topics import parse_config_assignments, validate_new_topic
from kafkatop.backends.zookeeper.watch import ZooKeeperSource
from kafkatop.tui.cli.common import connection
from kafkatop.tui.cli.exits import BAD_INPUT, err


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
    else:
        cluster = connection(args)
        snapshot = _poll(cluster, args.timeout)
        if args.json:
            print(json.dumps(describe_json(snapshot, args.topic), indent=2))
            return 0
        with TopicAdmin(cluster, timeout_s=args.timeout) as admin:
            text = admin.describe(snapshot, args.topic)
    if text:  # no topics: nothing, as kafka-topics prints
        print(text, end="" if text.endswith("\n") else "\n")
    return 0
