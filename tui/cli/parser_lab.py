"""The lab cluster commands' options: up, down, status, kill, stop, start, restart, add-broker, add-connect, and install
(download Apache Kafka) — standard library only, so `kafkatop --help` answers at once."""

from __future__ import annotations

import argparse

from kafkatop.tui.cli.options import Parser
from kafkatop.tui.cli.parser_common import (
    allow_remote_listeners,
    client_options,
    json_option,
    timeout_option,
)
from kafkatop.tui.cli.values import COUNT, PORT, key_value, text, whole

UP: dict[str, str] = {"help": "start (or attach to) a lab cluster from a Kafka install"}
DOWN: dict[str, str] = {"help": "stop every node of a lab cluster (brokers first)"}
STATUS: dict[str, str] = {"help": "the nodes of a lab cluster: state, pid, port, CPU, memory"}
KILL: dict[str, str] = {"help": "SIGKILL a node, as kill -9"}
STOP: dict[str, str] = {"help": "stop a node cleanly (SIGTERM: controlled shutdown)"}
START: dict[str, str] = {"help": "start a stopped or killed node"}
RESTART: dict[str, str] = {"help": "stop, then start a node"}
ADD_BROKER: dict[str, str] = {"help": "add one more broker to a running lab cluster"}
ADD_CONNECT: dict[str, str] = {"help": "add one more Kafka Connect worker to a running lab cluster"}


def add_up(up: Parser) -> None:
    up.option("--kafka-home", metavar="DIR", type=text("a Kafka install folder"), help="Kafka install",
              shown="$KAFKA_HOME, PATH, usual places")  # fmt: skip
    up.option("--mode", choices=("zk", "kraft"), help="ZooKeeper or KRaft", shown="zk on Kafka 3.x, kraft on 4.x")
    up.option("--brokers", type=COUNT, metavar="N", help="number of brokers", shown="3")
    up.option("--base-port", type=PORT, metavar="PORT", help="first broker port; then +1, …", shown="9092")
    up.option("--zookeeper-port", type=PORT, metavar="PORT", help="ZooKeeper client port", shown="2181")
    up.option("--controller-port", type=PORT, metavar="PORT", help="first KRaft controller port", shown="base+100")
    up.option("--controllers", type=whole(0, what="a count"), metavar="N", help="dedicated KRaft controllers",
              shown="0: combined nodes")  # fmt: skip
    up.option(
        "--connect",
        type=whole(0, what="a count"),
        metavar="N",
        help="Kafka Connect workers (connect-distributed, in one group), started after the brokers",
        shown="0",
    )
    up.option(
        "--connect-port",
        type=PORT,
        metavar="PORT",
        help="first Connect worker's REST port; then +1, …",
        shown="base+200",
    )
    up.option("--issuer-port", type=PORT, metavar="PORT", help="--security sasl_oauthbearer: the lab's OIDC issuer",
              shown="base+300")  # fmt: skip
    up.option("--heap", metavar="SIZE", type=text("a JVM size such as 256m"), help="heap per broker JVM", shown="256m")
    up.option("-p", "--broker-property", action="append", type=key_value, metavar="KEY=VALUE",
              help="extra broker setting, repeatable (min.insync.replicas=2, unclean.leader.election.enable=true, …)",
              shown="none")  # fmt: skip
    up.option("--security", choices=("plaintext", "ssl", "sasl_plaintext", "sasl_ssl", "sasl_oauthbearer"),
              help="the brokers' listener: TLS with a CA made for this lab, SASL with SCRAM-SHA-512 users admin and "
              "client, or SASL/OAUTHBEARER with tokens from an OIDC issuer started with the lab (node `issuer`, "
              "clients admin and client, its URLs allowed in the nodes' KAFKA_OPTS); writes client.properties "
              "(Kafka's format) into the lab's state directory, used by kafkatop for "
              "this lab and by Kafka's tools with --command-config. KRaft only. On SASL the controllers' listener "
              "takes SASL PLAIN, user admin (controller-admin.properties, for --bootstrap-controller); on any secured "
              "lab the Connect workers' REST API asks for user admin (connect-admin.properties, connect.netrc)",
              shown="plaintext")  # fmt: skip
    up.option("--authorizer", action="store_true", help="KRaft's StandardAuthorizer on every node: no "
              "ACL, no access (allow.everyone.if.no.acl.found=false), user admin a super user. SASL only (--security "
              "sasl_ssl, sasl_plaintext or sasl_oauthbearer); kafkatop then uses admin.properties for this "
              "lab")  # fmt: skip
    up.option("--elr", action=argparse.BooleanOptionalAction, help="eligible leader replicas (KIP-966): "
              "--elr / --no-elr format the storage with eligible.leader.replicas.version=1 / 0 (a lab formatted "
              "before: changed once it serves, as kafka-features.sh does). KRaft only",
              shown="Kafka's: on from 4.1")  # fmt: skip
    up.option("--share-groups", action="store_true", help="share groups (KIP-932): format the storage with "
              "share.version=1 (a lab formatted before: changed once it serves). KRaft, Kafka 4.1+")  # fmt: skip
    allow_remote_listeners(up)
    up.option("--detach", action="store_true", help="return once ready and leave the cluster running")
    up.option("--yes", action="store_true", help="with no Kafka installed (or none for --mode zk), download it "
              "without asking")  # fmt: skip
    timeout_option(up, 180.0, "start timeout")


def add_down(down: Parser) -> None:
    down.option("--delete", action="store_true", help="also delete its state directory (configs, data, logs)")


def add_status(status: Parser) -> None:
    json_option(status, "machine-readable: the cluster and a row per node")


def add_node(node: Parser, *, signals: bool) -> None:
    """kill, stop, start or restart, after the lab's options; kill and stop (`signals`) may signal a broker of an
    attached cluster."""
    node.add_argument("node", metavar="NODE", type=text("a node"),
                      help="broker-2, 2, zookeeper, controller-101, connect-1")  # fmt: skip
    client_options(node)
    node.option("--zookeeper", metavar="HOST:PORT[/chroot]", type=text("HOST:PORT"),
                help="find the broker via a ZooKeeper", shown="none")  # fmt: skip
    if signals:
        node.option("--yes", action="store_true", help="signal a broker of an attached cluster (--bootstrap-server "
                    "or --zookeeper) without asking")  # fmt: skip
    start_timeout(node)


def start_timeout(p: Parser) -> None:
    timeout_option(p, 120.0, "start timeout")


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


def add_install(install: Parser) -> None:
    install.add_argument("version", nargs="?", metavar="VERSION", type=text("a Kafka version"), default=None,
                         help="the release: 4.1.0, or 4.1 for the newest 4.1.x (default: the newest 4.x)")  # fmt: skip
    install.option("--scala", choices=("2.12", "2.13"), default="2.13", help="the Scala build", shown="2.13")
    install.option("--mirror", metavar="URL", type=text("a URL or folder"),
                   help="a mirror laid out as Apache's site (its root or its kafka/ folder), http(s):// or file://",
                   shown="$KAFKATOP_KAFKA_MIRROR, else downloads.apache.org then archive.apache.org")  # fmt: skip
    install.option("--list", action="store_true", help="what is installed, and which Kafka `kafkatop up` will use")
    timeout_option(install, 30.0, "give up on a download that sends nothing for this long (it resumes next time)")
