"""The command line: every option of the live view and of each command, and nothing else (standard library only, so
`kafkatop --help` answers at once)."""

from __future__ import annotations

import argparse
from typing import Any


def _lab_options(p: argparse.ArgumentParser, spec_file: bool = True) -> None:
    p.add_argument("--name", help="lab cluster name (default: lab, or [cluster] name in kafkatop.toml)")
    p.add_argument(
        "--state-dir",
        metavar="DIR",
        help="where lab clusters keep configs, data and logs, one folder per name "
        "(default: $XDG_STATE_HOME/kafkatop or ~/.local/state/kafkatop)",
    )
    if spec_file:
        p.add_argument("--config", metavar="FILE", help="cluster spec (default: ./kafkatop.toml when present)")


def _client_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bootstrap-server", metavar="HOST:PORT[,…]", help="an existing cluster (default: the lab cluster)")
    p.add_argument("--command-config", metavar="FILE", help="client properties (security settings), as Kafka's tools")


def _fraction_or_none(text: str) -> float | str:
    if text.strip().lower() == "none":
        return "none"
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction such as 0.7, or none; not {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kafkatop",
        description="Run, watch and understand a Kafka cluster. Without a command: the live view.",
        epilog="Lab cluster commands: up, down, status, kill, stop, start, restart, add-broker; topics: create-topic, "
        "describe; durability, chaos; counts (Spark). `kafkatop COMMAND --help` for each.",
    )
    p.add_argument(
        "--bootstrap-server",
        metavar="HOST:PORT[,…]",
        help="attach to this cluster (else: a lab cluster from your Kafka install, or the demo)",
    )
    p.add_argument(
        "--command-config", metavar="FILE", help="client properties (security settings), as Kafka's own tools"
    )
    p.add_argument("--include-internal", action="store_true", help="show internal topics (__consumer_offsets, …)")
    p.add_argument("--interval", type=float, default=1.0, metavar="SECONDS", help="poll interval (default 1)")
    p.add_argument("--timeout", type=float, default=2.0, metavar="SECONDS", help="per-poll timeout (default 2)")
    p.add_argument("--zookeeper", metavar="HOST:PORT", help="ZooKeeper of an attached ZooKeeper-mode cluster")
    p.add_argument("--kafka-home", metavar="DIR", help="run a lab cluster from this Kafka install")
    p.add_argument("--name", help="lab cluster name (default: lab)")
    p.add_argument("--state-dir", metavar="DIR", help="where lab clusters keep their state")
    p.add_argument("--detach", action="store_true", help="leave a lab cluster running when kafkatop exits")
    p.add_argument("--demo", action="store_true", help="the built-in demo cluster, even when Kafka is installed")
    p.add_argument("--record", metavar="FILE", help="record the session (JSON lines; .gz compresses) for --replay")
    p.add_argument("--replay", metavar="FILE", help="play a recording back, labelled REPLAY (p pause, n step)")
    p.add_argument("--speed", type=float, default=1.0, metavar="N", help="replay speed (default 1: as recorded)")
    p.add_argument(
        "--spark-master",
        default="local[*]",
        metavar="URL",
        help="Spark for the Spark tab: local[*] (default), spark://…",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    up = sub.add_parser("up", help="start (or attach to) a lab cluster from a Kafka install")
    _lab_options(up)
    up.add_argument("--kafka-home", metavar="DIR", help="Kafka install (default: $KAFKA_HOME, PATH, usual places)")
    up.add_argument(
        "--mode", choices=("zk", "kraft"), help="default: ZooKeeper on Kafka 3.x (as the labs), KRaft on 4.x"
    )
    up.add_argument("--brokers", type=int, metavar="N", help="number of brokers (default 3)")
    up.add_argument("--base-port", type=int, metavar="PORT", help="first broker port (default 9092; then 9093, …)")
    up.add_argument("--zookeeper-port", type=int, metavar="PORT", help="ZooKeeper client port (default 2181)")
    up.add_argument(
        "--controller-port", type=int, metavar="PORT", help="first KRaft controller port (default base+100)"
    )
    up.add_argument("--controllers", type=int, metavar="N", help="dedicated KRaft controllers (default 0: combined)")
    up.add_argument("--heap", metavar="SIZE", help="heap per broker JVM (default 256m)")
    up.add_argument(
        "--security",
        choices=("plaintext", "ssl", "sasl_plaintext", "sasl_ssl"),
        help="the brokers' listener (default plaintext): TLS with a CA made for this lab, SASL with SCRAM-SHA-512 "
        "users admin and client; writes client.properties (Kafka's format) into the lab's state directory, used by "
        "kafkatop for this lab and by Kafka's tools with --command-config. KRaft only; the controllers' listener "
        "stays PLAINTEXT on 127.0.0.1",
    )
    up.add_argument(
        "-p",
        "--broker-property",
        action="append",
        metavar="KEY=VALUE",
        help="extra broker setting, repeatable (min.insync.replicas=2, unclean.leader.election.enable=true, …)",
    )
    up.add_argument("--detach", action="store_true", help="return once ready and leave the cluster running")
    up.add_argument("--timeout", type=float, default=180.0, metavar="SECONDS", help="start timeout (default 180)")

    down = sub.add_parser("down", help="stop every node of a lab cluster (brokers first)")
    _lab_options(down)
    down.add_argument("--delete", action="store_true", help="also delete its state directory (configs, data, logs)")

    status = sub.add_parser("status", help="the nodes of a lab cluster: state, pid, port, CPU, memory")
    _lab_options(status)
    status.add_argument("--json", action="store_true", help="machine-readable")

    for action, what in (
        ("kill", "SIGKILL a node, as kill -9"),
        ("stop", "stop a node cleanly (SIGTERM: controlled shutdown)"),
        ("start", "start a stopped or killed node"),
        ("restart", "stop, then start a node"),
    ):
        node = sub.add_parser(action, help=what)
        _lab_options(node)
        node.add_argument("node", metavar="NODE", help="broker-2, 2, zookeeper, controller-101")
        _client_options(node)
        node.add_argument("--zookeeper", metavar="HOST:PORT[/chroot]", help="find the broker via a ZooKeeper")
        node.add_argument("--timeout", type=float, default=120.0, metavar="SECONDS", help="start timeout")

    add = sub.add_parser("add-broker", help="add one more broker to a running lab cluster")
    _lab_options(add)
    add.add_argument("--timeout", type=float, default=120.0, metavar="SECONDS", help="start timeout")

    create = sub.add_parser("create-topic", help="create a topic (as kafka-topics.sh --create)")
    _lab_options(create, spec_file=False)
    _client_options(create)
    create.add_argument("topic", metavar="NAME")
    create.add_argument("--partitions", type=int, required=True, metavar="P")
    create.add_argument("--replication-factor", type=int, required=True, metavar="R")
    create.add_argument("--config", dest="config_item", action="append", metavar="KEY=VALUE", help="topic config")
    create.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS")

    describe = sub.add_parser("describe", help="partitions, leaders, replicas, ISR (as kafka-topics.sh --describe)")
    _lab_options(describe, spec_file=False)
    _client_options(describe)
    describe.add_argument("--topic", metavar="NAME", help="one topic (default: all)")
    describe.add_argument("--zookeeper", metavar="HOST:PORT[/chroot]", help="read a ZooKeeper-mode cluster's znodes")
    describe.add_argument("--timeout", type=float, default=15.0, metavar="SECONDS")

    dur = sub.add_parser(
        "durability",
        help="write sequenced records while a partition's leader is killed; read back: lost, duplicated, reordered",
        description="Writes N sequenced records to a replicated topic, kills (or stops) the leader of a partition "
        "partway through and starts it again later, then reads the topic back and counts, per partition, the records "
        "lost (acknowledged but not in the log), duplicated, out of order, and present although unacknowledged. "
        "On a lab cluster by default, or an attached one (--bootstrap-server: its brokers on this host are killed "
        "by signal, and not started again).",
        epilog="Exit codes: 0 the log kept what the settings promise (losses that acks=1, acks=0 or "
        "min.insync.replicas=1 allow are reported, not failed); 1 records lost under settings that promise none, "
        "duplicated or reordered with idempotence, an incomplete run, or a cluster error; 2 bad input, or refused "
        "before anything was sent (missing topic, RF 1, …); 130 interrupted (a broker the check took down is "
        "started again first).",
    )
    _lab_options(dur, spec_file=False)
    _client_options(dur)
    dur.add_argument("--topic", required=True, metavar="NAME", help="a replicated topic (RF 3 for a real test)")
    dur.add_argument("--records", type=int, default=10_000, metavar="N", help="records to write (default 10000)")
    dur.add_argument("--acks", choices=("all", "1", "0"), default="all", help="producer acks (default all)")
    dur.add_argument(
        "--idempotence",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="enable.idempotence (default: on with acks=all, else off)",
    )
    dur.add_argument("--retries", type=int, metavar="N", help="producer retries (default: until the delivery timeout)")
    dur.add_argument("--delivery-timeout", type=float, default=60.0, metavar="SECONDS", help="per record (default 60)")
    dur.add_argument(
        "--fault", choices=("kill", "stop", "none"), default="kill", help="kill -9 (default), controlled stop, or none"
    )
    dur.add_argument(
        "--kill-at", type=float, default=0.3, metavar="F", help="after this share of the records (default 0.3)"
    )
    dur.add_argument(
        "--restart-at",
        type=_fraction_or_none,
        metavar="F|none",
        help="start the broker again after this share (default 0.7; none with --bootstrap-server)",
    )
    dur.add_argument("--partition", type=int, default=0, metavar="P", help="whose leader fails (default 0)")
    dur.add_argument("--rate", type=float, metavar="N", help="records per second (default: as fast as it goes)")
    dur.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS", help="per request (default 10)")
    dur.add_argument("--json", action="store_true", help="the report as JSON")

    _add_counts(sub)
    _add_chaos(sub)
    return p


def _add_counts(sub: Any) -> None:
    counts = sub.add_parser(
        "counts",
        help="per-partition counts of a topic, computed by Spark (records, bytes, offsets, timestamps, top keys)",
        description="Count a topic's records per partition with Spark (PySpark), and check each count against the "
        "partition's high − low watermark.",
    )
    _lab_options(counts, spec_file=False)
    _client_options(counts)
    counts.add_argument("--topic", required=True, metavar="NAME")
    counts.add_argument(
        "--master", default="local[*]", help="local[*] (default: this machine's cores), local[N], or spark://HOST:7077"
    )
    counts.add_argument("--top-keys", type=int, default=5, metavar="N", help="most frequent keys per partition")
    counts.add_argument(
        "--max-records-per-partition", type=int, metavar="N", help="split larger partitions into ranges for Spark"
    )
    counts.add_argument("--json", action="store_true", help="the report as JSON")
    counts.add_argument("--timeout", type=float, default=600.0, metavar="SECONDS", help="give up after (default 600)")


DEFAULT_ACTIONS = "kill,stop,restart,start"


def _add_chaos(sub: Any) -> None:
    chaos = sub.add_parser(
        "chaos",
        help="random kill/stop/restart steps on a lab cluster while producing and consuming: did kafkatop keep up, "
        "was a record lost, is a process left behind",
        description="Takes K random steps (kill, stop, restart, start) on the brokers of a lab cluster while a "
        "sequenced producer (acks=all, idempotence) writes to a replicated topic and a consumer group reads it. "
        "After each step, once the cluster has settled, it counts how many of kafkatop's own polls it took to show "
        "the brokers, leaders and ISRs (within 2 is keeping up). At the end every broker is started again, the "
        "records are verified (lost, duplicated, out of order) and no process may be left behind. Never more than "
        "--max-down brokers are down at once.",
        epilog="Exit codes: 0 kafkatop kept up, nothing lost, duplicated or reordered, no orphan process; 1 one of "
        "those failed, an incomplete run, or a cluster error; 2 bad input, or refused before any node was touched "
        "(missing topic, RF 1, a cluster kafkatop did not start); 130 interrupted (the brokers the run took down are "
        "started again first).",
    )
    _lab_options(chaos, spec_file=False)
    _client_options(chaos)
    chaos.add_argument("--topic", required=True, metavar="NAME", help="a replicated topic (RF 3 for a real test)")
    chaos.add_argument("--steps", type=int, default=5, metavar="K", help="steps to take, 1 to 50 (default 5)")
    chaos.add_argument("--seed", type=int, metavar="S", help="for the random steps (default: drawn and reported)")
    chaos.add_argument(
        "--actions",
        default=DEFAULT_ACTIONS,
        metavar="LIST",
        help=f"allowed, comma-separated (default {DEFAULT_ACTIONS}); without start a broker is started only when "
        "nothing else is possible, and at the end",
    )
    chaos.add_argument("--max-down", type=int, default=1, metavar="N", help="brokers down at once, at most (default 1)")
    chaos.add_argument(
        "--step-timeout", type=float, default=60.0, metavar="SECONDS", help="for the cluster to settle (default 60)"
    )
    chaos.add_argument(
        "--hold", type=float, default=5.0, metavar="SECONDS", help="keep each step's state this long (default 5)"
    )
    chaos.add_argument("--rate", type=float, default=100.0, metavar="N", help="records per second (default 100)")
    chaos.add_argument(
        "--interval", type=float, default=1.0, metavar="SECONDS", help="kafkatop's poll interval (default 1)"
    )
    chaos.add_argument(
        "--time-limit", type=float, default=1800.0, metavar="SECONDS", help="no new step after (default 1800)"
    )
    chaos.add_argument(
        "--group",
        default="kafkatop-chaos",
        metavar="ID",
        help="the consumer group reading the topic (default "
        "kafkatop-chaos; a new member joins at once only once the last run's consumer has left)",
    )
    chaos.add_argument("--json", action="store_true", help="the report as JSON (steps go to stderr)")
