"""What `kafkatop produce` says of a topic the cluster did not have (tui/cli/produce_topic.py): created on first use,
or refused with why and the create-topic line for the cluster the command was aimed at."""

from __future__ import annotations

import argparse

from kafkatop.backends.kafka.records.first_use import BrokerSetting, FirstUse
from kafkatop.tui.cli.produce_topic import create_line, created, not_created


def args(**given: object) -> argparse.Namespace:
    return argparse.Namespace(**{"topic": "orders", "bootstrap_server": None, "context_name": None, "name": None,
                                 "state_dir": None, "command_config": None, **given})  # fmt: skip


def test_a_topic_the_brokers_create_is_said_with_its_partitions() -> None:
    assert created(FirstUse("orders", BrokerSetting(1, True, 3, 1), 3)) == (
        "topic 'orders' does not exist: the brokers create it (auto.create.topics.enable=true) with 3 partitions"
    )
    unknown = BrokerSetting(1, None, unread="broker 1 does not answer DescribeConfigs")
    assert created(FirstUse("orders", unknown, 1)) == (
        "topic 'orders' did not exist: the brokers created it when asked for it, as Kafka's producer asks, with 1 "
        "partition (auto.create.topics.enable could not be read: broker 1 does not answer DescribeConfigs)"
    )


def test_a_refusal_says_why_and_the_line_that_creates_it() -> None:
    off = FirstUse("orders", BrokerSetting(2, False, 6, 3), answer="auto.create.topics.enable=false")
    said = not_created(args(context_name="prod"), off)
    assert said == (
        "topic 'orders' does not exist, and the brokers do not create topics on first use "
        "(auto.create.topics.enable=false on broker 2): create it with `kafkatop create-topic orders --partitions 6 "
        "--replication-factor 3 --context prod` (kafka-topics.sh --create does the same), then send again; nothing "
        "was sent"
    )
    unknown = BrokerSetting(1, None, unread="CLUSTER_AUTHORIZATION_FAILED")
    said = not_created(args(bootstrap_server="h:9", command_config="c.properties"),
                       FirstUse("orders", unknown, answer="still UNKNOWN_TOPIC_OR_PART after 5 s"))  # fmt: skip
    assert "did not create it when asked for it (still UNKNOWN_TOPIC_OR_PART after 5 s; " in said, said
    assert "auto.create.topics.enable could not be read: CLUSTER_AUTHORIZATION_FAILED)" in said, said
    assert "--partitions P --replication-factor R --bootstrap-server h:9 --command-config c.properties`" in said


def test_the_create_line_quotes_what_the_shell_would_split() -> None:
    line = create_line(args(topic="a b;rm", name="lab 2", state_dir="/s"), 1, 1)
    assert line == "kafkatop create-topic 'a b;rm' --partitions 1 --replication-factor 1 --name 'lab 2' --state-dir /s"


def test_a_name_the_brokers_refuse_is_said_without_a_line_that_would_fail_too() -> None:
    bad = FirstUse("bad name!", BrokerSetting(1, True, 1, 1), answer="TOPIC_EXCEPTION: Broker: Invalid topic",
                   invalid=True)  # fmt: skip
    said = not_created(args(topic="bad name!"), bad)
    assert said.startswith("topic 'bad name!' does not exist, and the brokers refuse the name (TOPIC_EXCEPTION: "), said
    assert "create-topic" not in said and said.endswith("nothing was sent"), said
