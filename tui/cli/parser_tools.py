"""The options of the commands that answer as one of Kafka's own tools does: log-dirs (kafka-log-dirs.sh) (standard
library only, so `kafkatop --help` answers at once)."""

from __future__ import annotations

import argparse

from kafkatop.tui.cli.options import Parser
from kafkatop.tui.cli.parser_common import json_option, timeout_option
from kafkatop.tui.cli.values import whole

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
