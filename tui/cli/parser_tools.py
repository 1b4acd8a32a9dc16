"""The options of the commands that answer as one of Kafka's own tools does: log-dirs (kafka-log-dirs.sh),
get-offsets (kafka-get-offsets.sh), metadata-quorum (kafka-metadata-quorum.sh), api-versions
(kafka-broker-api-versions.sh) (standard library only, so `kafkatop --help` answers at once)."""

from __future__ import annotations

import argparse

from kafkatop.tui.cli.options import Parser
from kafkatop.tui.cli.parser_common import json_option, timeout_option
from kafkatop.tui.cli.values import host_ports, text, whole

LOG_DIRS: dict[str, str] = {
    "help": "the brokers' log directories: their size, disk space and partitions, as kafka-log-dirs.sh --describe",
    "description": "Asks each broker (or those of --broker-list) for its log directories (DescribeLogDirs, one request "
    "per broker) and prints, for each directory, its size, its disk's total and usable bytes (Kafka 3.3+), its "
    "partitions and its error (an offline directory: KafkaStorageException); then the biggest partitions. With "
    "--json, kafka-log-dirs.sh --describe's own three lines, its JSON line byte for byte. --topic-list keeps those "
    "topics' partitions only.",
    "epilog": "Exit codes: 0 done; 1 a broker could not be asked or refused (its error name shown); 2 bad input "
    "(options, a broker not in the cluster), nothing sent.",
}


def broker_ids(value: str) -> tuple[int, ...]:
    """0,1,2: the tool's --broker-list (empty items ignored, as it does)."""
    items = [x.strip() for x in value.split(",") if x.strip()]
    if not all(x.isdigit() for x in items):
        raise argparse.ArgumentTypeError(f"expected broker ids such as 1,2,3; not {value!r}")
    return tuple(dict.fromkeys(int(x) for x in items))


def topic_names(value: str) -> tuple[str, ...]:
    """a,b,c: the tool's --topic-list (empty items ignored, as it does)."""
    return tuple(dict.fromkeys(x.strip() for x in value.split(",") if x.strip()))


def add_log_dirs(log_dirs: Parser) -> None:
    log_dirs.option("--describe", action="store_true", help="describe the log directories (the only action; taken "
                    "as kafka-log-dirs.sh takes it, and implied)")  # fmt: skip
    log_dirs.option("--broker-list", metavar="ID[,ID…]", type=broker_ids, default=(), shown="every broker",
                    help="only these brokers")  # fmt: skip
    log_dirs.option("--topic-list", metavar="TOPIC[,TOPIC…]", type=topic_names, default=(), shown="every topic",
                    help="only these topics' partitions")  # fmt: skip
    log_dirs.option("--top", metavar="N", type=whole(0, what="a count"), default=10,
                    help="how many of the biggest partitions to list (0: none)")  # fmt: skip
    json_option(log_dirs, "kafka-log-dirs.sh --describe's own lines: two lines of text, then its JSON")
    timeout_option(log_dirs, 10.0, "to ask the brokers")


GET_OFFSETS: dict[str, str] = {
    "help": "partitions' offsets at a time (latest, earliest, max-timestamp, a timestamp), as kafka-get-offsets.sh",
    "description": "Lists the topics (internal ones too, unless --exclude-internal-topics), keeps the partitions "
    "that --topic (a regular expression, matched whole) and --partitions, or --topic-partitions, choose, asks their "
    "leaders for the offset at --time (ListOffsets) and prints kafka-get-offsets.sh's lines, topic:partition:offset, "
    "in its order (by topic-partition as text). latest: the log end offset; earliest: the log start offset; "
    "max-timestamp: the record with the largest timestamp; a timestamp (ms since the epoch): the first record at or "
    "after it. A partition with no such offset is left out, as the tool does.",
    "epilog": "Exit codes: 0 done; 1 no partition matched, or the cluster could not be asked (a partition's own error "
    "is said on stderr, and skipped); 2 bad input (options, a --time or pattern that does not read), nothing sent.",
}


def add_get_offsets(get_offsets: Parser) -> None:
    get_offsets.option("--topic", metavar="REGEX", type=text("a topic or a pattern"), shown="every topic",
                       help="the topics: a name or a regular expression (matched whole); not with "
                       "--topic-partitions")  # fmt: skip
    get_offsets.option("--partitions", metavar="P[,P…]", type=text("partition ids"), shown="every partition",
                       help="these partitions of the topics; not with --topic-partitions")  # fmt: skip
    get_offsets.option("--topic-partitions", metavar="PATTERN[,…]", type=text("topic-partition patterns"),
                       shown="none", help="REGEX, REGEX:N, REGEX:N-M (M exclusive), REGEX:N-, REGEX:-M, :N (any "
                       "topic), comma separated: e.g. orders:0-3,pay")  # fmt: skip
    get_offsets.option("--time", metavar="TIME", default="latest", help="-1 or latest, -2 or earliest, -3 or "
                       "max-timestamp, or a timestamp in ms since the epoch")  # fmt: skip
    get_offsets.option("--exclude-internal-topics", action="store_true",
                       help="leave out the internal topics (__consumer_offsets, …)")  # fmt: skip
    timeout_option(get_offsets, 10.0, "to ask the cluster")


DELETE_RECORDS: dict[str, str] = {
    "help": "delete partitions' records below an offset, as kafka-delete-records.sh",
    "description": 'Reads the tool\'s --offset-json-file ({"partitions": [{"topic": "t", "partition": 0, '
    '"offset": 5}], "version": 1}; an offset of -1: every record), asks first at a terminal (on a cluster not '
    "kafkatop's own: its name typed; --yes does not ask), sends one DeleteRecords to each partition's leader and "
    "prints the tool's lines: each partition's new low watermark (its log start), or its error. The records are gone "
    "for good; a consumer group whose committed offset falls under the new log start is ERR in `kafkatop lag`.",
    "epilog": "Exit codes: 0 done; 1 a partition's deletion failed (said on its line), not confirmed, or the cluster "
    "could not be asked; 2 bad input (a file that does not read, or is not the tool's JSON), nothing sent.",
}


def add_delete_records(d: Parser) -> None:
    d.option("--offset-json-file", metavar="FILE", type=text("a file"), required=True,
             help="the partitions and offsets, in kafka-delete-records.sh's JSON")  # fmt: skip
    d.option("--yes", action="store_true", help="delete without asking")
    timeout_option(d, 30.0, "for the deletion")


METADATA_QUORUM: dict[str, str] = {
    "help": "the KRaft quorum: its leader, voters and observers, as kafka-metadata-quorum.sh describe",
    "description": "Asks the quorum (DescribeQuorum, as the Quorum tab does: through a broker, which forwards it to "
    "the active controller, or through a controller with --bootstrap-controller) and prints "
    "kafka-metadata-quorum.sh describe's lines: --status the cluster id, the leader, its epoch, the high watermark, "
    "the furthest-behind voter's lag, the voters and the observers; --replication each replica's log end offset, "
    "lag and last fetch and caught-up times (ms since the epoch; --human-readable: ms ago).",
    "epilog": "Exit codes: 0 done; 1 no node answered, the quorum has no leader now, or the cluster is not KRaft; 2 "
    "bad input.",
}


def add_metadata_quorum(quorum: Parser) -> None:
    quorum.add_argument("quorum_command", choices=("describe",), metavar="describe",
                        help="describe (kafka-metadata-quorum.sh's command)")  # fmt: skip
    quorum.option("--bootstrap-controller", metavar="HOST:PORT[,…]", type=host_ports, shown="none",
                  help="a controller listener of the cluster (instead of --bootstrap-server)")  # fmt: skip
    quorum.option("--status", action="store_true", help="the quorum's status")
    quorum.option("--replication", action="store_true", help="each replica's replication")
    quorum.option("--human-readable", action="store_true", help="with --replication: times as ms ago")
    timeout_option(quorum, 10.0, "to ask each address")


API_VERSIONS: dict[str, str] = {
    "help": "the API versions each broker serves, as kafka-broker-api-versions.sh",
    "description": "Lists the brokers (DescribeCluster; with --bootstrap-controller, the controllers), asks each its "
    "ApiVersions and prints kafka-broker-api-versions.sh's lines: each node, then every API key it offers with its "
    "versions and the one Kafka 4.1's client would use ([usable: N], or unusable: node too old or too new), and "
    "the client APIs it does not offer (UNSUPPORTED).",
    "epilog": "Exit codes: 0 done; 1 no node answered, or a node could not be asked (its line says ERROR and why); 2 "
    "bad input.",
}


def add_api_versions(versions: Parser) -> None:
    versions.option("--bootstrap-controller", metavar="HOST:PORT[,…]", type=host_ports, shown="none",
                    help="a controller listener: the controllers' versions instead of the brokers' (kafkatop's own: "
                    "Kafka 4.1's tool has none)")  # fmt: skip
    timeout_option(versions, 10.0, "to ask the nodes")


CLIENT_METRICS: dict[str, str] = {
    "help": "list, describe, create, change and delete client-metrics resources (KIP-714), as kafka-client-metrics.sh",
    "description": "Lists the client-metrics resources (--list: ListConfigResources), describes them (--describe, "
    "every one or --resource N: their metrics, interval.ms and match), creates or changes one (--alter --resource N "
    "or --generate-name, with --metrics m1,m2 (metric name prefixes), --interval MS and --match k=v,… (an empty value "
    "resets that config)) or deletes one (--delete --resource N: asks first unless --yes), in the tool's lines. "
    "The tool's --name is --resource here: every command's --name names the lab cluster.",
    "epilog": "Match selectors: client_id, client_instance_id, client_software_name, client_software_version, "
    "client_source_address, client_source_port. Exit codes: 0 done; 1 Kafka could not be asked or refused the "
    "change (its error name and message are shown); 2 bad input (options that do not go together).",
}


def add_client_metrics(c: Parser) -> None:
    c.option("--list", action="store_true", help="the client-metrics resources' names")
    c.option("--describe", action="store_true", help="their configs (every resource, or --resource)")
    c.option("--alter", action="store_true", help="create or change the --resource (or --generate-name)")
    c.option("--delete", action="store_true", help="delete the --resource (asks first)")
    # kafka-client-metrics.sh's --name: every command's --name names the lab cluster
    c.option("--resource", type=text("a client-metrics resource name"), help="the resource (the tool's --name)",
             shown="none")  # fmt: skip
    c.option("--generate-name", action="store_true", help="with --alter: a new resource named by a random UUID")
    c.option("--metrics", metavar="M1,M2", help="with --alter: metric name prefixes ('' resets)", shown="unchanged")
    c.option("--interval", metavar="MS", help="with --alter: the push interval in ms ('' resets)", shown="unchanged")
    c.option("--match", metavar="K=V,…", help="with --alter: which clients ('' resets)", shown="unchanged")
    c.option("--yes", action="store_true", help="delete without asking")
    json_option(c, "the result as JSON")
    timeout_option(c, 30.0, "to read or change the resources")
