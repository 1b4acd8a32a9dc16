"""The command line: every option of the live view, and a subparser for each row of tui/cli/command_table.py (its
options come from the sibling modules: parser_lab.py, the lab cluster and install; parser_topics.py, topics,
partitions, configs, reassignments, elections, features, transactions; parser_clients.py, groups, share groups,
consume, produce, counts; parser_checks.py, durability and chaos; parser_connect.py, Kafka Connect; parser_users.py,
SCRAM users; parser_acls.py, ACLs; the options they share, and contexts: parser_common.py). Standard library only, so
`kafkatop --help` answers at once. How an option given before the command is merged: tui/cli/options.py; the value
types: tui/cli/values.py."""

from __future__ import annotations

from kafkatop.tui.cli import command_table
from kafkatop.tui.cli.options import Parser, RootParser
from kafkatop.tui.cli.parser_common import (
    allow_remote_listeners,
    command_config,
    control_chars,
    lab_options,
    registry_options,
    timeout_option,
)
from kafkatop.tui.cli.values import PORT, SECONDS, host_ports, number, spark_master, text


def build_parser() -> RootParser:
    p = RootParser(
        prog="kafkatop",
        description="Run, watch and understand a Kafka cluster. Without a command: the live view.",
        epilog=f"{command_table.overview()}. `kafkatop COMMAND --help` for each. A command's options may come before "
        "or after it, with the same meaning. Exit status: 0 done, 1 failed, 2 bad input, 130 interrupted.",
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
    p.option("--no-confirm", action="store_true", help="stop, kill -9, restart and delete at once, without the y/n "
             "question (an attached cluster still asks for its name before a delete or reset)")  # fmt: skip
    p.option("--bell", action="store_true", help="ring the terminal's bell when a group's lag status turns STOP or "
             "ERR")  # fmt: skip
    p.option("--record", metavar="FILE", type=text("a file name"), help="record the session (JSON lines; .gz "
             "compresses) for --replay", shown="no recording")  # fmt: skip
    p.option("--replay", metavar="FILE", type=text("a recording"), help="play a recording back, labelled REPLAY "
             "(p pause, n step)", shown="live")  # fmt: skip
    p.option("--speed", type=number(what="times as fast"), default=1.0, metavar="N", help="replay speed",
             shown="1: as recorded")  # fmt: skip
    p.option("--spark-master", type=spark_master, default="local[*]", metavar="URL",
             help="Spark for the Spark tab: local[*], local[N], spark://HOST:7077")  # fmt: skip
    registry_options(p)
    p.option("--scenario", metavar="NAME|FILE", type=text("a scenario"), help="open the live view with this scenario "
             "in a pane (space: next step, A: run all), on a lab of its shape or --demo; `kafkatop scenario NAME` "
             "says the same", shown="none")  # fmt: skip
    p.live_view_dests = set(p.late_defaults)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for c in command_table.COMMANDS:
        parser: Parser = sub.add_parser(
            c.name, help=c.texts["help"], description=c.texts.get("description"), epilog=c.texts.get("epilog")
        )
        p.commands[c.name] = parser
        parser.settle = c.settle
        for add in c.options:
            add(parser)
        control_chars(parser)
    p.offer_command_options()
    return p
