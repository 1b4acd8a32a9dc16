"""The command line: every option of the live view and of each command, and nothing else (standard library only, so
`kafkatop --help` answers at once). How an option given before the command is merged: tui/cli/options.py; the value
types: tui/cli/values.py."""

from __future__ import annotations

import argparse
from typing import Any

from kafkatop.tui.cli.options import Parser, RootParser
from kafkatop.tui.cli.values import (
    COUNT,
    PORT,
    SECONDS,
    fraction,
    fraction_or_none,
    host_ports,
    key_value,
    number,
    offset,
    spark_master,
    text,
    whole,
)  # fmt: skip

# --- the options ----------------------------------------------------------------------------------------------------
NAME_HELP = "lab cluster name: its state is in STATE_DIR/NAME"
STATE_HELP = "where lab clusters keep configs, data and logs, one folder per name"
STATE_SHOWN = "$XDG_STATE_HOME/kafkatop or ~/.local/state/kafkatop"


def _lab_options(p: Parser, spec_file: bool = True) -> None:
    p.option("--name", type=text("a cluster name"), help=NAME_HELP, shown="lab, or [cluster] name in kafkatop.toml")
    p.option("--state-dir", metavar="DIR", type=text("a folder"), help=STATE_HELP, shown=STATE_SHOWN)
    if spec_file:
        p.option("--config", metavar="FILE", type=text("a file"), help="cluster spec", shown="./kafkatop.toml if any")


def _client_options(p: Parser) -> None:
    p.option(
        "--bootstrap-server", metavar="HOST:PORT[,…]", type=host_ports, help="an existing cluster",
        shown="the lab cluster",
    )  # fmt: skip
    _command_config(p)


def _command_config(p: Parser) -> None:
    p.option(
        "--command-config", metavar="FILE", type=text("a file"), shown="none",
        help="client properties (security settings), as Kafka's own tools",
    )  # fmt: skip


def _allow_remote_listeners(p: Parser) -> None:
    p.option("--allow-remote-listeners", action="store_true", help="let a listeners= broker setting bind beyond "
             "127.0.0.1 (a lab is reachable from this machine only unless this is given)")  # fmt: skip


def _timeout(p: Parser, default: float, what: str) -> None:
    p.option("--timeout", type=SECONDS, default=default, metavar="SECONDS", help=what, shown=f"{default:g}")


def _json(p: Parser, what: str = "the result as JSON (shape: README, `--json`)") -> None:
    p.option("--json", action="store_true", help=what)


def build_parser() -> RootParser:
    p = RootParser(
        prog="kafkatop",
        description="Run, watch and understand a Kafka cluster. Without a command: the live view.",
        epilog="Lab cluster commands: up, down, status, kill, stop, start, restart, add-broker; topics: create-topic, "
        "describe, add-partitions; operations: elect-leaders, reassign, configs, groups, consume; durability, chaos; "
        "counts (Spark); install (download Apache Kafka). "
        "`kafkatop COMMAND --help` for each. A command's options may come before or after it, with the same "
        "meaning. Exit status: 0 done, 1 failed, 2 bad input, 130 interrupted.",
    )
    p.option(
        "--bootstrap-server", metavar="HOST:PORT[,…]", type=host_ports, help="attach to this cluster",
        shown="a lab cluster from your Kafka install, or the demo",
    )  # fmt: skip
    _command_config(p)
    p.option("--zookeeper", metavar="HOST:PORT", type=text("HOST:PORT"), help="ZooKeeper of an attached ZooKeeper-mode "
             "cluster", shown="the lab's, or none")  # fmt: skip
    p.option("--kafka-home", metavar="DIR", type=text("a Kafka install folder"), help="run a lab cluster from this "
             "Kafka install", shown="$KAFKA_HOME, PATH, usual places")  # fmt: skip
    _lab_options(p)
    p.option("--base-port", type=PORT, metavar="PORT", help="first broker port of a new lab cluster; then +1, …",
             shown="9092, or base_port in kafkatop.toml")  # fmt: skip
    _allow_remote_listeners(p)
    p.option("--include-internal", action="store_true", help="show internal topics (__consumer_offsets, …)")
    p.option("--interval", type=SECONDS, default=1.0, metavar="SECONDS", help="poll interval", shown="1")
    _timeout(p, 2.0, "per-poll timeout")
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
    p.live_view_dests = set(p.late_defaults)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    def command(name: str, **kwargs: Any) -> Parser:
        parser: Parser = sub.add_parser(name, **kwargs)
        p.commands[name] = parser
        return parser

    up = command("up", help="start (or attach to) a lab cluster from a Kafka install")
    _lab_options(up)
    up.option("--kafka-home", metavar="DIR", type=text("a Kafka install folder"), help="Kafka install",
              shown="$KAFKA_HOME, PATH, usual places")  # fmt: skip
    up.option("--mode", choices=("zk", "kraft"), help="ZooKeeper or KRaft", shown="zk on Kafka 3.x, kraft on 4.x")
    up.option("--brokers", type=COUNT, metavar="N", help="number of brokers", shown="3")
    up.option("--base-port", type=PORT, metavar="PORT", help="first broker port; then +1, …", shown="9092")
    up.option("--zookeeper-port", type=PORT, metavar="PORT", help="ZooKeeper client port", shown="2181")
    up.option("--controller-port", type=PORT, metavar="PORT", help="first KRaft controller port", shown="base+100")
    up.option("--controllers", type=whole(0, what="a count"), metavar="N", help="dedicated KRaft controllers",
              shown="0: combined nodes")  # fmt: skip
    up.option("--heap", metavar="SIZE", type=text("a JVM size such as 256m"), help="heap per broker JVM", shown="256m")
    up.option("-p", "--broker-property", action="append", type=key_value, metavar="KEY=VALUE",
              help="extra broker setting, repeatable (min.insync.replicas=2, unclean.leader.election.enable=true, …)",
              shown="none")  # fmt: skip
    up.option("--security", choices=("plaintext", "ssl", "sasl_plaintext", "sasl_ssl"),
              help="the brokers' listener: TLS with a CA made for this lab, SASL with SCRAM-SHA-512 users admin and "
              "client; writes client.properties (Kafka's format) into the lab's state directory, used by kafkatop for "
              "this lab and by Kafka's tools with --command-config. KRaft only; the controllers' listener stays "
              "PLAINTEXT on 127.0.0.1", shown="plaintext")  # fmt: skip
    _allow_remote_listeners(up)
    up.option("--detach", action="store_true", help="return once ready and leave the cluster running")
    up.option("--yes", action="store_true", help="with no Kafka installed (or none for --mode zk), download it "
              "without asking")  # fmt: skip
    _timeout(up, 180.0, "start timeout")

    down = command("down", help="stop every node of a lab cluster (brokers first)")
    _lab_options(down)
    down.option("--delete", action="store_true", help="also delete its state directory (configs, data, logs)")

    status = command("status", help="the nodes of a lab cluster: state, pid, port, CPU, memory")
    _lab_options(status)
    _json(status, "machine-readable: the cluster and a row per node")

    for action, what in (
        ("kill", "SIGKILL a node, as kill -9"),
        ("stop", "stop a node cleanly (SIGTERM: controlled shutdown)"),
        ("start", "start a stopped or killed node"),
        ("restart", "stop, then start a node"),
    ):
        node = command(action, help=what)
        _lab_options(node)
        node.add_argument("node", metavar="NODE", type=text("a node"), help="broker-2, 2, zookeeper, controller-101")
        _client_options(node)
        node.option("--zookeeper", metavar="HOST:PORT[/chroot]", type=text("HOST:PORT"),
                    help="find the broker via a ZooKeeper", shown="none")  # fmt: skip
        if action in ("kill", "stop"):
            node.option("--yes", action="store_true", help="signal a broker of an attached cluster (--bootstrap-server "
                        "or --zookeeper) without asking")  # fmt: skip
        _timeout(node, 120.0, "start timeout")

    add = command("add-broker", help="add one more broker to a running lab cluster")
    _lab_options(add)
    _timeout(add, 120.0, "start timeout")

    create = command("create-topic", help="create a topic (as kafka-topics.sh --create)")
    _lab_options(create, spec_file=False)
    _client_options(create)
    create.option("--topic", metavar="NAME", type=text("a topic name"), help="the topic to create",
                  shown="the NAME after create-topic")  # fmt: skip
    create.add_argument("topic_name", nargs="?", metavar="NAME", type=text("a topic name"), default=argparse.SUPPRESS,
                        help="the same as --topic NAME")  # fmt: skip
    create.option("--partitions", type=COUNT, required=True, metavar="P", help="partitions")
    create.option("--replication-factor", type=COUNT, required=True, metavar="R", help="replicas of each partition")
    create.option("--config", dest="config_item", action="append", type=key_value, metavar="KEY=VALUE",
                  help="topic config, repeatable", shown="the broker's")  # fmt: skip
    _timeout(create, 30.0, "request timeout")

    describe = command("describe", help="partitions, leaders, replicas, ISR (as kafka-topics.sh --describe)")
    _lab_options(describe, spec_file=False)
    _client_options(describe)
    describe.option("--topic", metavar="NAME", type=text("a topic name"), help="one topic", shown="all")
    describe.option("--zookeeper", metavar="HOST:PORT[/chroot]", type=text("HOST:PORT"),
                    help="read a ZooKeeper-mode cluster's znodes", shown="ask the brokers")  # fmt: skip
    _json(describe, "the topics and partitions as JSON (the model's codec)")
    _timeout(describe, 15.0, "request timeout")

    _add_install(command("install", **INSTALL))
    _add_configs(command("configs", **CONFIGS))
    _add_reassign(command("reassign", **REASSIGN))
    _add_groups(command("groups", **GROUPS))
    _add_consume(command("consume", **CONSUME))
    _add_durability(command("durability", **DURABILITY))
    _add_counts(command("counts", **COUNTS))
    _add_chaos(command("chaos", **CHAOS))
    _add_elect_leaders(command("elect-leaders", **ELECT_LEADERS))
    _add_add_partitions(command("add-partitions", **ADD_PARTITIONS))
    p.offer_command_options()
    return p


INSTALL: dict[str, str] = {
    "help": "download Apache Kafka, check its SHA-512 and unpack it where kafkatop finds it",
    "description": "Downloads Apache Kafka's binary release from Apache's download site (the current releases), "
    "or its archive (older ones), checks it against the SHA-512 Apache publishes beside it, and unpacks it into "
    "$XDG_DATA_HOME/kafkatop/kafka/kafka_SCALA-VERSION (~/.local/share/kafkatop/kafka), where `kafkatop` and "
    "`kafkatop up` find it. An interrupted download resumes; a downloaded release is kept in "
    "$XDG_CACHE_HOME/kafkatop/downloads, so installing it again reads no network. Java is checked first (Kafka 4 "
    "brokers need Java 17).",
    "epilog": "VERSION: 4.1.0, or 4.1 / 4 for the newest of that line; 3.9 is the last line with ZooKeeper mode "
    "(`kafkatop up --mode zk`). A mirror is laid out as Apache's site: MIRROR/kafka/VERSION/kafka_SCALA-VERSION.tgz "
    "beside its .sha512; give its root or its kafka/ folder, over http(s) or as a folder (file://). Exit codes: 0 "
    "installed (or already there); 1 failed (network, checksum mismatch, disk full: said how, nothing half-made "
    "kept); 2 bad input (no such version, a bad --mirror); 130 interrupted (the download resumes next time).",
}

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


def _add_install(install: Parser) -> None:
    install.add_argument("version", nargs="?", metavar="VERSION", type=text("a Kafka version"), default=None,
                         help="the release: 4.1.0, or 4.1 for the newest 4.1.x (default: the newest 4.x)")  # fmt: skip
    install.option("--scala", choices=("2.12", "2.13"), default="2.13", help="the Scala build", shown="2.13")
    install.option("--mirror", metavar="URL", type=text("a URL or folder"),
                   help="a mirror laid out as Apache's site (its root or its kafka/ folder), http(s):// or file://",
                   shown="$KAFKATOP_KAFKA_MIRROR, else downloads.apache.org then archive.apache.org")  # fmt: skip
    install.option("--list", action="store_true", help="what is installed, and which Kafka `kafkatop up` will use")
    _timeout(install, 30.0, "give up on a download that sends nothing for this long (it resumes next time)")


def _add_configs(configs: Parser) -> None:
    _lab_options(configs, spec_file=False)
    _client_options(configs)
    configs.option("--topic", metavar="NAME", type=text("a topic name"), help="a topic's configs",
                   shown="one of --topic, --broker, --broker-defaults")  # fmt: skip
    configs.option("--broker", metavar="ID", type=whole(0, what="a broker id"), help="a broker's configs",
                   shown="one of --topic, --broker, --broker-defaults")  # fmt: skip
    configs.option("--broker-defaults", action="store_true",
                   help="the defaults of every broker (kafka-configs --entity-type brokers "
                   "--entity-default)")  # fmt: skip
    configs.option("--all", dest="all_configs", action="store_true",
                   help="every config, not only those set on it (kafka-configs --describe --all)")  # fmt: skip
    configs.option("--alter", "--add-config", dest="alter", action="append", metavar="K=V[,K=V…]",
                   type=text("NAME=VALUE[,NAME=VALUE…]"),
                   help="set configs; repeatable; a list value in brackets: cleanup.policy=[compact,delete]",
                   shown="none")  # fmt: skip
    configs.option("--delete-config", "--delete", dest="delete_config", action="append", metavar="NAME[,NAME…]",
                   type=text("a config name"), help="remove configs set on it (back to the inherited value); "
                   "repeatable", shown="none")  # fmt: skip
    _json(configs, "the configs as JSON (after the change, with --alter or --delete)")
    _timeout(configs, 15.0, "for each request and the change")


REASSIGN: dict[str, str] = {
    "help": "move replicas between brokers, change replication factors (as kafka-reassign-partitions.sh)",
    "description": "Proposes where a topic's replicas go (--topic with --brokers and/or --replication-factor: "
    "balanced, rack-aware, the fewest replicas moved) or takes kafka-reassign-partitions.sh's JSON (--plan FILE), "
    "and prints the current and proposed assignment as that tool's --generate does; --execute starts it (optionally "
    "--throttle B/s), --wait follows it to its end. --status is --verify (and clears the throttle once done), "
    "--list the reassignments in progress, --cancel reverts them.",
    "epilog": "Exit codes: 0 done; 1 Kafka refused or could not be asked (its error name and message are shown); "
    "2 bad input or a plan that cannot run (a dead or unknown broker, a replication factor above the brokers): "
    "nothing was sent; 130 interrupted (a reassignment started goes on: --status, --cancel).",
}


def _add_reassign(r: Parser) -> None:
    _lab_options(r, spec_file=False)
    _client_options(r)
    r.option("--topic", metavar="NAME", type=text("a topic name"), help="the topic whose replicas to move",
             shown="none")  # fmt: skip
    r.option("--brokers", "--replicas", dest="brokers", metavar="ID,ID,…", type=text("broker ids, e.g. 1,2,3"),
             help="the brokers the topic's replicas go to", shown="the live brokers")  # fmt: skip
    r.option("--replication-factor", type=COUNT, metavar="N", help="replicas of each partition", shown="as now")
    r.option("--plan", metavar="FILE", type=text("a file"), help="kafka-reassign-partitions.sh's JSON plan "
             "(--reassignment-json-file)", shown="a proposal")  # fmt: skip
    r.option("--execute", action="store_true", help="start it (without: only print the plan)")
    r.option("--throttle", type=whole(1, what="bytes per second"), metavar="B/S",
             help="limit replication traffic while it runs (removed by --status once done)", shown="none")  # fmt: skip
    r.option("--wait", action="store_true", help="follow it until every partition is done")
    r.option("--status", "--verify", dest="status", action="store_true",
             help="where each partition of the plan is; clears the throttle once all are done")  # fmt: skip
    r.option("--list", action="store_true", help="the reassignments in progress")
    r.option("--cancel", action="store_true", help="revert the reassignments in progress (of --topic or --plan)")
    _json(r, "the current and proposed assignments as JSON")
    _timeout(r, 30.0, "per request")


GROUPS: dict[str, str] = {
    "help": "list, describe and delete consumer groups (as kafka-consumer-groups.sh)",
    "description": "Lists the consumer groups (--list, or no --group), describes them in kafka-consumer-groups.sh "
    "--describe's layouts (committed offsets, log end and lag per partition by default; --members; --state), or "
    "deletes them (--delete: Kafka refuses a group that has members, and says so).",
    "epilog": "Exit codes: 0 done; 1 Kafka could not be asked, or refused a deletion (its error name and message are "
    "shown); 2 bad input (an unknown group).",
}


def _add_groups(g: Parser) -> None:
    _lab_options(g, spec_file=False)
    _client_options(g)
    g.option("--group", action="append", metavar="GROUP", type=text("a group id"), help="a group; repeatable",
             shown="all, with --all-groups")  # fmt: skip
    g.option("--all-groups", action="store_true", help="every group")
    g.option("--list", action="store_true", help="the groups' names")
    g.option("--describe", action="store_true", help="describe them (the default with --group)")
    g.option("--offsets", action="store_true", help="committed offsets, log end and lag per partition (the default)")
    g.option("--members", action="store_true", help="the members and how many partitions each has")
    g.option("--state", action="store_true", help="coordinator, assignment strategy, state, members")
    g.option("--delete", action="store_true", help="delete the --group(s): refused by Kafka while one has members")
    g.option("--delete-offsets", action="store_true",
             help="delete the --group's committed offsets of --topic: refused while the group consumes it")  # fmt: skip
    g.option("--topic", action="append", metavar="TOPIC[:P,P…]", type=text("a topic, or TOPIC:PARTITIONS"),
             help="with --delete-offsets: a topic (all its partitions) or some of its partitions; repeatable",
             shown="none")  # fmt: skip
    _timeout(g, 15.0, "to read or delete the groups")


CONSUME: dict[str, str] = {
    "help": "print a topic's records from an offset, a time or the beginning to the end, then exit (as kcat -C -e)",
    "description": "Reads each partition of --topic (or one, --partition) from the start you give — an offset "
    "(negative: that many before the end, as kcat -o -N), the first record at or after a time, or the beginning "
    "(the default) — to its end as it was when reached, then exits. It joins no consumer group: no offsets are "
    "committed, no group sees it. Values print one per line as kafka-console-consumer.sh prints them (null for "
    "none); --format takes kcat's tokens; --json prints kcat -J's fields. Records of one partition come in "
    "order; partitions interleave.",
    "epilog": "Format tokens: %t topic, %p partition, %o offset, %k key, %v or %s value, %K key length, %S value "
    "length, %T timestamp (ms), %h headers, %e leader epoch, %% a %; \\n \\t escapes. A newline ends each record "
    "unless the format ends with one. Exit codes: 0 done (the count on stderr); 1 Kafka could not be read; 2 bad "
    "input (an unknown topic or partition, a bad offset, time or format).",
}


def _add_consume(c: Parser) -> None:
    _lab_options(c, spec_file=False)
    _client_options(c)
    c.option("--topic", required=True, metavar="TOPIC", type=text("a topic name"), help="the topic to read")
    c.option("--partition", type=whole(0, what="a partition number"), metavar="P", help="one partition",
             shown="all")  # fmt: skip
    c.option("--offset", type=offset, metavar="N",
             help="start at offset N of each partition; -N: N records before its end",
             shown="the beginning")  # fmt: skip
    c.option("--timestamp", metavar="TIME", type=text("a time"),
             help="start at each partition's first record at or after TIME: ISO 8601 (local time unless a zone is "
             "given), HH:MM today, an age (15m ago) or ms since the epoch", shown="the beginning")  # fmt: skip
    c.option("--from-beginning", action="store_true", help="start at the beginning, as kafka-console-consumer.sh",
             shown="on, without --offset or --timestamp")  # fmt: skip
    c.option("--max-messages", type=COUNT, metavar="N", help="stop after N records", shown="all to the end")
    c.option("--format", metavar="FMT", type=str, help="kcat-style output format, e.g. '%%p %%o %%k %%v'",
             shown="the value")  # fmt: skip
    _json(c, "one JSON object per record (kcat -J's fields)")
    c.option("--isolation-level", choices=("read_uncommitted", "read_committed"), default="read_uncommitted",
             help="read_committed skips aborted transactions' records and stops at the last stable offset",
             shown="read_uncommitted")  # fmt: skip
    _timeout(c, 10.0, "with nothing read")


DURABILITY: dict[str, str] = {
    "help": "write sequenced records while a partition's leader is killed; read back: lost, duplicated, reordered",
    "description": "Writes N sequenced records to a replicated topic, kills (or stops) the leader of a partition "
    "partway through and starts it again later, then reads the topic back and counts, per partition, the records "
    "lost (acknowledged but not in the log), duplicated, out of order, and present although unacknowledged. "
    "On a lab cluster by default, or an attached one (--bootstrap-server: its brokers on this host are killed "
    "by signal, and not started again).",
    "epilog": "Exit codes: 0 the log kept what the settings promise (losses that acks=1, acks=0 or "
    "min.insync.replicas=1 allow are reported, not failed); 1 records lost under settings that promise none, "
    "duplicated or reordered with idempotence, an incomplete run, or a cluster error; 2 bad input, or refused "
    "before anything was sent (missing topic, RF 1, …); 130 interrupted (a broker the check took down is "
    "started again first).",
}


def _add_durability(dur: Parser) -> None:
    _lab_options(dur, spec_file=False)
    _client_options(dur)
    dur.option("--topic", required=True, metavar="NAME", type=text("a topic name"),
               help="a replicated topic (RF 3 for a real test)")  # fmt: skip
    dur.option("--records", type=whole(1, 10_000_000, "a count"), default=10_000, metavar="N", help="records to write")
    dur.option("--acks", choices=("all", "1", "0"), default="all", help="producer acks")
    dur.option("--idempotence", action=argparse.BooleanOptionalAction, help="enable.idempotence",
               shown="on with acks=all, else off")  # fmt: skip
    dur.option("--retries", type=whole(0, what="a count"), metavar="N", help="producer retries",
               shown="until the delivery timeout")  # fmt: skip
    dur.option("--delivery-timeout", type=SECONDS, default=60.0, metavar="SECONDS", help="per record", shown="60")
    dur.option("--fault", choices=("kill", "stop", "none"), default="kill", help="kill -9, controlled stop, or none")
    dur.option("--kill-at", type=fraction, default=0.3, metavar="F", help="after this share of the records")
    dur.option("--restart-at", type=fraction_or_none, metavar="F|none", help="start the broker again after this share",
               shown="0.7; none with --bootstrap-server")  # fmt: skip
    dur.option("--partition", type=whole(0, what="a partition"), default=0, metavar="P", help="whose leader fails")
    dur.option("--yes", action="store_true", help="on an attached cluster (--bootstrap-server), kill or stop its "
               "local broker without asking")  # fmt: skip
    dur.option("--rate", type=number(what="records per second"), metavar="N", help="records per second",
               shown="as fast as it goes")  # fmt: skip
    _timeout(dur, 10.0, "per request")
    _json(dur, "the report as JSON")


COUNTS: dict[str, str] = {
    "help": "per-partition counts of a topic, computed by Spark (records, bytes, offsets, timestamps, top keys)",
    "description": "Count a topic's records per partition with Spark (PySpark), and check each count against the "
    "partition's high − low watermark.",
}


def _add_counts(counts: Parser) -> None:
    _lab_options(counts, spec_file=False)
    _client_options(counts)
    counts.option("--topic", required=True, metavar="NAME", type=text("a topic name"), help="the topic to count")
    counts.option("--master", type=spark_master, default="local[*]", metavar="URL",
                  help="local[*] (this machine's cores), local[N], or spark://HOST:7077")  # fmt: skip
    counts.option("--top-keys", type=whole(0, what="a count"), default=5, metavar="N",
                  help="most frequent keys per partition")  # fmt: skip
    counts.option("--max-records-per-partition", type=COUNT, metavar="N",
                  help="split larger partitions into ranges for Spark", shown="no split")  # fmt: skip
    _json(counts, "the report as JSON")
    _timeout(counts, 600.0, "give up after")


DEFAULT_ACTIONS = "kill,stop,restart,start"
CHAOS: dict[str, str] = {
    "help": "random kill/stop/restart steps on a lab cluster while producing and consuming: did kafkatop keep up, "
    "was a record lost, is a process left behind",
    "description": "Takes K random steps (kill, stop, restart, start) on the brokers of a lab cluster while a "
    "sequenced producer (acks=all, idempotence) writes to a replicated topic and a consumer group reads it. "
    "After each step, once the cluster has settled, it counts how many of kafkatop's own polls it took to show "
    "the brokers, leaders and ISRs (within 2 is keeping up). At the end every broker is started again, the "
    "records are verified (lost, duplicated, out of order) and no process may be left behind. Never more than "
    "--max-down brokers are down at once.",
    "epilog": "Exit codes: 0 kafkatop kept up, nothing lost, duplicated or reordered, no orphan process; 1 one of "
    "those failed, an incomplete run, or a cluster error; 2 bad input, or refused before any node was touched "
    "(missing topic, RF 1, a cluster kafkatop did not start); 130 interrupted (the brokers the run took down are "
    "started again first).",
}


def _add_chaos(chaos: Parser) -> None:
    _lab_options(chaos, spec_file=False)
    _client_options(chaos)
    chaos.option("--topic", required=True, metavar="NAME", type=text("a topic name"),
                 help="a replicated topic (RF 3 for a real test)")  # fmt: skip
    chaos.option("--steps", type=whole(1, 50, "a count"), default=5, metavar="K", help="steps to take, 1 to 50")
    chaos.option("--seed", type=whole(0, what="a seed"), metavar="S", help="for the random steps",
                 shown="drawn and reported")  # fmt: skip
    chaos.option("--actions", default=DEFAULT_ACTIONS, type=text("actions"), metavar="LIST",
                 help="allowed, comma-separated; without start a broker is started only when nothing else is "
                 "possible, and at the end")  # fmt: skip
    chaos.option("--max-down", type=COUNT, default=1, metavar="N", help="brokers down at once, at most")
    chaos.option("--step-timeout", type=SECONDS, default=60.0, metavar="SECONDS", help="for the cluster to settle")
    chaos.option("--hold", type=number(above=None, at_least=0.0), default=5.0, metavar="SECONDS",
                 help="keep each step's state this long")  # fmt: skip
    chaos.option("--rate", type=number(what="records per second"), default=100.0, metavar="N",
                 help="records per second")  # fmt: skip
    chaos.option("--interval", type=SECONDS, default=1.0, metavar="SECONDS", help="kafkatop's poll interval")
    chaos.option("--time-limit", type=SECONDS, default=1800.0, metavar="SECONDS", help="no new step after")
    chaos.option("--group", default="kafkatop-chaos", type=text("a group id"), metavar="ID",
                 help="the consumer group reading the topic (a new member joins at once only once the last run's "
                 "consumer has left)")  # fmt: skip
    _json(chaos, "the report as JSON (steps go to stderr)")


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


def _add_elect_leaders(elect: Parser) -> None:
    _lab_options(elect, spec_file=False)
    _client_options(elect)
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
    _timeout(elect, 30.0, "request timeout, as kafka-leader-election.sh's")


ADD_PARTITIONS: dict[str, str] = {
    "help": "more partitions for a topic, as kafka-topics.sh --alter --partitions N",
    "description": "Raises a topic's partition count to N (the new total; Kafka never lowers it), validated by "
    "Kafka first. Keyed records map to partitions by hash(key) % partitions: most keys move to another partition, "
    "so their order across the change is lost.",
}


def _add_add_partitions(add: Parser) -> None:
    _lab_options(add, spec_file=False)
    _client_options(add)
    add.option("--topic", required=True, metavar="NAME", type=text("a topic name"), help="the topic")
    add.option("--partitions", type=COUNT, required=True, metavar="N", help="the new total, above the current count")
    add.option("--dry-run", action="store_true", help="let Kafka validate it (validate_only), and change nothing")
    _timeout(add, 30.0, "request timeout")
