"""The command line: every option of the live view, and the table of commands whose options the sibling modules
define — parser_lab.py (the lab cluster, install), parser_topics.py (topics, partitions, configs, reassignments,
elections), parser_clients.py (groups, consume, counts), parser_checks.py (durability, chaos), parser_connect.py (Kafka
Connect); the options they share:
parser_common.py. Standard library only, so `kafkatop --help` answers at once. How an option given before the command
is merged: tui/cli/options.py; the value types: tui/cli/values.py."""

from __future__ import annotations

from typing import Any

from kafkatop.tui.cli.options import Parser, RootParser
from kafkatop.tui.cli.parser_acls import ACLS, add_acls
from kafkatop.tui.cli.parser_checks import CHAOS, DURABILITY, add_chaos, add_durability
from kafkatop.tui.cli.parser_clients import (
    CONSUME,
    COUNTS,
    GROUPS,
    PRODUCE,
    SHARE_GROUPS,
    add_consume,
    add_counts,
    add_groups,
    add_produce,
    add_share_groups,
)
from kafkatop.tui.cli.parser_common import (
    CONTEXTS,
    add_contexts,
    allow_remote_listeners,
    command_config,
    control_chars,
    lab_options,
    registry_options,
    timeout_option,
)
from kafkatop.tui.cli.parser_connect import CONNECT, add_connect
from kafkatop.tui.cli.parser_lab import (
    ADD_BROKER,
    ADD_CONNECT,
    DOWN,
    INSTALL,
    NODE_ACTIONS,
    STATUS,
    UP,
    add_add_broker,
    add_add_connect,
    add_down,
    add_install,
    add_node,
    add_status,
    add_up,
)
from kafkatop.tui.cli.parser_topics import (
    ADD_PARTITIONS,
    CONFIGS,
    CREATE_TOPIC,
    DESCRIBE,
    ELECT_LEADERS,
    FEATURES,
    REASSIGN,
    TRANSACTIONS,
    add_add_partitions,
    add_configs,
    add_create_topic,
    add_describe,
    add_elect_leaders,
    add_features,
    add_reassign,
    add_transactions,
)
from kafkatop.tui.cli.parser_users import USERS, add_users
from kafkatop.tui.cli.values import PORT, SECONDS, host_ports, number, spark_master, text


def build_parser() -> RootParser:
    p = RootParser(
        prog="kafkatop",
        description="Run, watch and understand a Kafka cluster. Without a command: the live view.",
        epilog="Lab cluster commands: up, down, status, kill, stop, start, restart, add-broker, add-connect; topics: "
        "create-topic, describe, add-partitions; operations: elect-leaders, reassign, configs, groups, share-groups, "
        "consume, produce; acls (as kafka-acls.sh), users (SCRAM users, quotas); durability, chaos; counts (Spark); "
        "features; transactions; connect "
        "(Kafka Connect); install "
        "(download Apache Kafka); contexts (named clusters, --context NAME). "
        "`kafkatop COMMAND --help` for each. A command's options may come before or after it, with the same "
        "meaning. Exit status: 0 done, 1 failed, 2 bad input, 130 interrupted.",
    )
    p.option(
        "--bootstrap-server", metavar="HOST:PORT[,…]", type=host_ports, help="attach to this cluster",
        shown="a lab cluster from your Kafka install, or the demo",
    )  # fmt: skip
    command_config(p)
    p.option("--zookeeper", metavar="HOST:PORT", type=text("HOST:PORT"), help="ZooKeeper of an attached ZooKeeper-mode "
             "cluster", shown="the lab's, or none")  # fmt: skip
    p.option("--kafka-home", metavar="DIR", type=text("a Kafka install folder"), help="run a lab cluster from this "
             "Kafka install", shown="$KAFKA_HOME, PATH, usual places")  # fmt: skip
    lab_options(p)
    p.option("--base-port", type=PORT, metavar="PORT", help="first broker port of a new lab cluster; then +1, …",
             shown="9092, or base_port in kafkatop.toml")  # fmt: skip
    allow_remote_listeners(p)
    p.option("--include-internal", action="store_true", help="show internal topics (__consumer_offsets, …)")
    p.option("--interval", type=SECONDS, default=1.0, metavar="SECONDS", help="poll interval", shown="1")
    timeout_option(p, 2.0, "per-poll timeout")
    p.option("--detach", action="store_true", help="leave a lab cluster running when kafkatop exits")
    p.option("--demo", action="store_true", help="the built-in demo cluster, even when Kafka is installed")
    p.option("--yes", action="store_true", help="with no Kafka installed, download it without asking "
             "(`kafkatop install`)")  # fmt: skip
    p.option("--record", metavar="FILE", type=text("a file name"), help="record the session (JSON lines; .gz "
             "compresses) for --replay", shown="no recording")  # fmt: skip
    p.option("--replay", metavar="FILE", type=text("a recording"), help="play a recording back, labelled REPLAY "
             "(p pause, n step)", shown="live")  # fmt: skip
    p.option("--speed", type=number(what="times as fast"), default=1.0, metavar="N", help="replay speed",
             shown="1: as recorded")  # fmt: skip
    p.option("--spark-master", type=spark_master, default="local[*]", metavar="URL",
             help="Spark for the Spark tab: local[*], local[N], spark://HOST:7077")  # fmt: skip
    registry_options(p)
    p.live_view_dests = set(p.late_defaults)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    def command(name: str, **kwargs: Any) -> Parser:
        parser: Parser = sub.add_parser(name, **kwargs)
        p.commands[name] = parser
        return parser

    # The order is the help's: lab cluster, topics, then the rest as they came.
    add_up(command("up", **UP))
    add_down(command("down", **DOWN))
    add_status(command("status", **STATUS))
    for action, what in NODE_ACTIONS:
        add_node(command(action, help=what), action)
    add_add_broker(command("add-broker", **ADD_BROKER))
    add_add_connect(command("add-connect", **ADD_CONNECT))
    add_create_topic(command("create-topic", **CREATE_TOPIC))
    add_describe(command("describe", **DESCRIBE))
    add_install(command("install", **INSTALL))
    add_configs(command("configs", **CONFIGS))
    add_reassign(command("reassign", **REASSIGN))
    add_groups(command("groups", **GROUPS))
    add_share_groups(command("share-groups", **SHARE_GROUPS))
    add_consume(command("consume", **CONSUME))
    add_produce(command("produce", **PRODUCE))
    add_durability(command("durability", **DURABILITY))
    add_counts(command("counts", **COUNTS))
    add_chaos(command("chaos", **CHAOS))
    add_elect_leaders(command("elect-leaders", **ELECT_LEADERS))
    add_add_partitions(command("add-partitions", **ADD_PARTITIONS))
    add_features(command("features", **FEATURES))
    add_transactions(command("transactions", **TRANSACTIONS))
    add_contexts(command("contexts", **CONTEXTS))
    add_connect(command("connect", **CONNECT))
    add_users(command("users", **USERS))
    add_acls(command("acls", **ACLS))
    for parser in p.commands.values():
        control_chars(parser)
    p.offer_command_options()
    return p
