"""The topic and partition commands' options: create-topic, describe, add-partitions, configs, reassign,
elect-leaders, features and transactions, each as Kafka's own tool takes them — standard library only, so `kafkatop
--help` answers at once."""

from __future__ import annotations

import argparse

from kafkatop.tui.cli.options import Fail, Parser
from kafkatop.tui.cli.parser_common import json_option, timeout_option
from kafkatop.tui.cli.values import COUNT, key_value, text, whole

CREATE_TOPIC: dict[str, str] = {"help": "create a topic (as kafka-topics.sh --create)"}
DESCRIBE: dict[str, str] = {"help": "partitions, leaders, replicas, ISR (as kafka-topics.sh --describe)"}


def add_create_topic(create: Parser) -> None:
    create.option("--topic", metavar="NAME", type=text("a topic name"), help="the topic to create",
                  shown="the NAME after create-topic")  # fmt: skip
    create.add_argument("topic_name", nargs="?", metavar="NAME", type=text("a topic name"), default=argparse.SUPPRESS,
                        help="the same as --topic NAME")  # fmt: skip
    create.option("--partitions", type=COUNT, required=True, metavar="P", help="partitions")
    create.option("--replication-factor", type=COUNT, required=True, metavar="R", help="replicas of each partition")
    create.option("--config", dest="config_item", action="append", type=key_value, metavar="KEY=VALUE",
                  help="topic config, repeatable", shown="the broker's")  # fmt: skip
    timeout_option(create, 30.0, "request timeout")


def settle_create_topic(args: argparse.Namespace, extras: list[str], fail: Fail) -> None:
    """The topic: --topic NAME, or the NAME after create-topic; one of them, once."""
    named = getattr(args, "topic_name", None)
    if named is not None and args.topic is not None and named != args.topic:
        fail(f"two topics: {named!r} and --topic {args.topic!r}; give one (--topic NAME)")
    args.topic = args.topic if args.topic is not None else named
    if args.topic is None:
        fail("--topic is required (or the topic's name after create-topic)")
    if hasattr(args, "topic_name"):
        delattr(args, "topic_name")


def add_describe(describe: Parser) -> None:
    describe.option("--topic", metavar="NAME", type=text("a topic name"), help="one topic", shown="all")
    describe.option("--zookeeper", metavar="HOST:PORT[/chroot]", type=text("HOST:PORT"),
                    help="read a ZooKeeper-mode cluster's znodes", shown="ask the brokers")  # fmt: skip
    json_option(describe, "the topics and partitions as JSON (the model's codec)")
    timeout_option(describe, 15.0, "request timeout")


ADD_PARTITIONS: dict[str, str] = {
    "help": "more partitions for a topic, as kafka-topics.sh --alter --partitions N",
    "description": "Raises a topic's partition count to N (the new total; Kafka never lowers it), validated by "
    "Kafka first. Keyed records map to partitions by hash(key) % partitions: most keys move to another partition, "
    "so their order across the change is lost.",
}


def add_add_partitions(add: Parser) -> None:
    add.option("--topic", required=True, metavar="NAME", type=text("a topic name"), help="the topic")
    add.option("--partitions", type=COUNT, required=True, metavar="N", help="the new total, above the current count")
    add.option("--dry-run", action="store_true", help="let Kafka validate it (validate_only), and change nothing")
    timeout_option(add, 30.0, "request timeout")


CONFIGS: dict[str, str] = {
    "help": "a topic's, a broker's or the broker defaults' configs; set or delete them (as kafka-configs.sh)",
    "description": "Describes the configs of a topic (--topic), a broker (--broker) or every broker "
    "(--broker-defaults: the cluster-wide dynamic defaults), in kafka-configs.sh --describe's layout: the values "
    "set on it, or every value with --all, each with its synonyms. --alter and --delete change them in one "
    "IncrementalAlterConfigs, checked first (unknown or read-only names, values of the wrong type, deletes of what "
    "is not set), then validated by Kafka, then made. Sensitive values are never printed.",
    "epilog": "Exit codes: 0 done; 1 Kafka could not be asked (unreachable, a cluster without DescribeConfigs); 2 bad "
    "input or refused by Kafka (its error name and message are shown; nothing was changed).",
}


def add_configs(configs: Parser) -> None:
    configs.option("--topic", metavar="NAME", type=text("a topic name"), help="a topic's configs",
                   shown="one of --topic, --broker, --broker-defaults")  # fmt: skip
    configs.option("--broker", metavar="ID", type=whole(0, what="a broker id"), help="a broker's configs",
                   shown="one of --topic, --broker, --broker-defaults")  # fmt: skip
    configs.option("--broker-defaults", action="store_true",
                   help="the defaults of every broker (kafka-configs --entity-type brokers "
                   "--entity-default)")  # fmt: skip
    configs.option("--all", dest="all_configs", action="store_true",
                   help="every config, not only those set on it (kafka-configs --describe --all)")  # fmt: skip
    configs.option("--entity-type", metavar="TYPE", type=text("an entity type"), shown="none",
                   help="kafka-configs.sh's: topics (with --entity-name, as --topic) or brokers (with --entity-name, "
                   "as --broker, or --entity-default, as --broker-defaults)")  # fmt: skip
    configs.option("--entity-name", metavar="NAME", type=text("an entity name"), shown="none",
                   help="with --entity-type: the topic's name or the broker's id")  # fmt: skip
    configs.option("--entity-default", action="store_true", help="with --entity-type brokers: --broker-defaults")
    configs.option("--describe", action="store_true",
                   help="kafka-configs.sh's action: what configs does without --alter or --delete-config")  # fmt: skip
    configs.option("--alter", dest="alter", action="append", nargs="?", metavar="K=V[,K=V…]",
                   type=text("NAME=VALUE[,NAME=VALUE…]"),
                   help="set configs; repeatable; a list value in brackets: cleanup.policy=[compact,delete]; alone, "
                   "kafka-configs.sh's action, with --add-config or --delete-config", shown="none")  # fmt: skip
    configs.option("--add-config", dest="alter", action="append", metavar="K=V[,K=V…]",
                   type=text("NAME=VALUE[,NAME=VALUE…]"), help="the configs to set, as --alter K=V",
                   shown="none")  # fmt: skip
    configs.option("--add-config-file", metavar="FILE", type=text("a file"), shown="none",
                   help="with --alter: the configs to set, NAME=VALUE lines of a .properties file (a list value as "
                   "a,b); instead of --add-config")  # fmt: skip
    configs.option("--delete-config", "--delete", dest="delete_config", action="append", metavar="NAME[,NAME…]",
                   type=text("a config name"), help="remove configs set on it (back to the inherited value); "
                   "repeatable", shown="none")  # fmt: skip
    json_option(configs, "the configs as JSON (after the change, with --alter or --delete)")
    timeout_option(configs, 15.0, "for each request and the change")


REASSIGN: dict[str, str] = {
    "help": "move replicas between brokers, change replication factors (as kafka-reassign-partitions.sh)",
    "description": "Proposes where a topic's replicas go (--topic with --brokers and/or --replication-factor: "
    "balanced, rack-aware, the fewest replicas moved) or takes kafka-reassign-partitions.sh's JSON (--plan FILE, or "
    "its name --reassignment-json-file), "
    "and prints the current and proposed assignment as that tool's --generate does; --execute starts it (optionally "
    "--throttle B/s), --wait follows it to its end. --status is --verify (and clears the throttle once done), "
    "--list the reassignments in progress, --cancel reverts them.",
    "epilog": "The tool's names are taken too: --reassignment-json-file (--plan), --broker-list (--brokers), "
    "--verify (--status), --generate (the default). Exit codes: 0 done; 1 Kafka refused or could not be asked (its "
    "error name and message are shown); 2 bad input or a plan that cannot run (a dead or unknown broker, a "
    "replication factor above the brokers): nothing was sent; 130 interrupted (a reassignment started goes on: "
    "--status, --cancel).",
}


def add_reassign(r: Parser) -> None:
    r.option("--topic", metavar="NAME", type=text("a topic name"), help="the topic whose replicas to move",
             shown="none")  # fmt: skip
    r.option("--brokers", "--replicas", "--broker-list", dest="brokers", metavar="ID,ID,…",
             type=text("broker ids, e.g. 1,2,3"), help="the brokers the topic's replicas go to (the tool's "
             "--broker-list)", shown="the live brokers")  # fmt: skip
    r.option("--replication-factor", type=COUNT, metavar="N", help="replicas of each partition", shown="as now")
    r.option("--plan", "--reassignment-json-file", dest="plan", metavar="FILE", type=text("a file"),
             help="kafka-reassign-partitions.sh's JSON plan (its --reassignment-json-file)",
             shown="a proposal")  # fmt: skip
    r.option("--generate", action="store_true", help="only print the current and proposed assignments, as the "
             "tool's --generate (the default without --execute)")  # fmt: skip
    r.option("--execute", action="store_true", help="start it (without: only print the plan)")
    r.option("--throttle", type=whole(1, what="bytes per second"), metavar="B/S",
             help="limit replication traffic while it runs (removed by --status once done)", shown="none")  # fmt: skip
    r.option("--wait", action="store_true", help="follow it until every partition is done")
    r.option("--status", "--verify", dest="status", action="store_true",
             help="where each partition of the plan is; clears the throttle once all are done")  # fmt: skip
    r.option("--list", action="store_true", help="the reassignments in progress")
    r.option("--cancel", action="store_true", help="revert the reassignments in progress (of --topic or --plan)")
    json_option(r, "the current and proposed assignments as JSON")
    timeout_option(r, 30.0, "per request")


FEATURES: dict[str, str] = {
    "help": "the cluster's feature levels (metadata.version, ELR, share groups, …), as kafka-features.sh describe",
    "description": "Asks a broker for the features it supports and the levels the cluster has finalized (ApiVersions "
    "v4) and prints them in kafka-features.sh describe's lines: FinalizedVersionLevel 0 is a feature that is off "
    "(eligible.leader.replicas.version: ELR, KIP-966; share.version: share groups, KIP-932; group.version: the "
    "consumer group protocol, KIP-848).",
    "epilog": "Exit codes: 0 done; 1 no broker answered, or the cluster has no features (Kafka before 2.7, the "
    "demo's mock); 2 bad input.",
}


def add_features(features: Parser) -> None:
    json_option(features, "the features as JSON")
    timeout_option(features, 10.0, "to ask a broker")


ELECT_LEADERS: dict[str, str] = {
    "help": "elect preferred (or unclean) leaders, as kafka-leader-election.sh",
    "description": "Asks the controller to elect leaders (Kafka's ElectLeaders) and prints its answer in "
    "kafka-leader-election.sh's lines. preferred: partitions go back to their preferred leader (the first replica) "
    "where it is alive and in the ISR. unclean: a partition without a leader gets an out-of-sync replica as leader, "
    "losing what that replica never copied: kafkatop says what first (reading the replica's log end offset) and asks "
    '(--yes, or "yes" typed).',
    "epilog": "Exit codes: 0 done (or nothing to do); 1 a partition could not be elected (Kafka's reason printed), "
    "an unclean election not confirmed, or a cluster error; 2 bad input (options, an unknown topic or partition), "
    "nothing sent.",
}


def _election_type(value: str) -> str:
    return value.strip().lower()


def add_elect_leaders(elect: Parser) -> None:
    elect.option("--election-type", required=True, type=_election_type, choices=("preferred", "unclean"),
                 help="preferred: back to the first replica; unclean: a leader for a partition that has none, in "
                 "sync or not")  # fmt: skip
    elect.option("--topic", metavar="NAME", type=text("a topic name"),
                 help="this topic's partitions (kafka-leader-election.sh needs --partition too)",
                 shown="none")  # fmt: skip
    elect.option("--partition", type=whole(0, what="a partition"), metavar="P", help="with --topic: only this one",
                 shown="every partition of --topic")  # fmt: skip
    elect.option("--all-topic-partitions", action="store_true", help="every partition of the cluster")
    elect.option("--path-to-json-file", metavar="FILE", type=text("a file"),
                 help='the partitions, as kafka-leader-election.sh reads them: {"partitions": [{"topic": "t", '
                 '"partition": 0}]}', shown="none")  # fmt: skip
    elect.option("--dry-run", action="store_true", help="print what would move and what Kafka would answer; send "
                 "nothing")  # fmt: skip
    elect.option("--yes", action="store_true", help="an unclean election without asking (it can lose records)")
    elect.option("--admin.config", dest="command_config", metavar="FILE", type=text("a file"), shown="none",
                 help="kafka-leader-election.sh's name for --command-config")  # fmt: skip
    timeout_option(elect, 30.0, "request timeout, as kafka-leader-election.sh's")


TRANSACTIONS_ACTIONS = ("list", "describe", "describe-producers", "find-hanging", "abort")

TRANSACTIONS: dict[str, str] = {
    "help": "list, describe, find and abort transactions (as kafka-transactions.sh)",
    "description": "list: every transactional id the coordinators know, with its producer id and state. describe "
    "--transactional-id ID: its current transaction (its partitions, when it started). describe-producers --topic T "
    "--partition P: the producers the partition's leader (or --broker-id's replica) tracks, and where each one's "
    "open transaction starts. find-hanging (--broker-id N | --topic T [--partition P]): open transactions idle "
    "longer than --max-transaction-timeout that no coordinator will end; each holds back the partition's last "
    "stable offset, and every read_committed consumer with it. abort --topic T --partition P (--start-offset O | "
    "--producer-id --producer-epoch --coordinator-epoch): writes an ABORT marker for that transaction on the "
    'partition (asks first: --yes, or "yes" typed). Tables in kafka-transactions.sh\'s layout, line for line.',
    "epilog": "Exit codes: 0 done; 1 Kafka refused or could not be asked (its error name shown), or the cluster does "
    "not serve these requests (before Kafka 3.0, the librdkafka mock); 2 bad input (options, an unknown topic, "
    "partition or transactional id, no transaction starting at --start-offset), nothing sent.",
}


def add_transactions(t: Parser) -> None:
    t.add_argument("transactions_command", choices=TRANSACTIONS_ACTIONS, metavar="ACTION",
                   help=f"one of {', '.join(TRANSACTIONS_ACTIONS)} (as kafka-transactions.sh's commands)")  # fmt: skip
    t.option("--transactional-id", metavar="ID", type=text("a transactional id"),
             help="describe: the transactional id", shown="none")  # fmt: skip
    t.option("--duration-filter", type=whole(0, what="milliseconds"), metavar="MS",
             help="list: only transactions running longer than MS", shown="all")  # fmt: skip
    t.option("--transactional-id-pattern", metavar="REGEX", type=text("a regular expression"),
             help="list: only transactional ids matching REGEX (Kafka 4.1+)", shown="all")  # fmt: skip
    t.option("--topic", metavar="NAME", type=text("a topic name"),
             help="find-hanging: this topic's partitions; abort, describe-producers: the partition's topic",
             shown="none")  # fmt: skip
    t.option("--partition", type=whole(0, what="a partition"), metavar="P",
             help="with --topic: this partition only", shown="every partition of --topic")  # fmt: skip
    t.option("--broker-id", type=whole(0, what="a broker id"), metavar="N",
             help="find-hanging: the partitions with a replica on broker N, asked of N; describe-producers: ask N's "
             "replica", shown="each partition's leader")  # fmt: skip
    t.option("--max-transaction-timeout", type=whole(0, what="minutes"), metavar="MIN", default=15,
             help="find-hanging: open transactions idle longer than MIN minutes (the longest a transaction may last: "
             "transaction.max.timeout.ms)")  # fmt: skip
    t.option("--start-offset", type=whole(0, what="an offset"), metavar="O",
             help="abort: the transaction that starts at offset O (find-hanging's StartOffset)",
             shown="none")  # fmt: skip
    t.option("--producer-id", type=whole(0, what="a producer id"), metavar="ID",
             help="abort, without --start-offset: the producer id", shown="none")  # fmt: skip
    t.option("--producer-epoch", type=whole(0, 32767, what="a producer epoch"), metavar="E",
             help="abort, with --producer-id: its epoch", shown="none")  # fmt: skip
    t.option("--coordinator-epoch", type=whole(-1, what="a coordinator epoch"), metavar="C",
             help="abort, with --producer-id: the coordinator epoch (-1 is sent as 0, as Kafka's tool does)",
             shown="none")  # fmt: skip
    t.option("--yes", action="store_true", help="abort without asking")
    json_option(t, "the table as a JSON list of objects, one key per column")
    timeout_option(t, 30.0, "for all the requests of the command")
