"""`kafkatop transactions list | describe | describe-producers | find-hanging | abort`: Kafka's transactions, in
kafka-transactions.sh's tables line for line (or --json), through kafkatop's own requests
(backends/kafka/transactions.py). `abort` writes an ABORT marker, and asks first (--yes, or "yes" typed)."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence

from kafkatop.backends.kafka.transactions.hanging_transactions import find_hanging
from kafkatop.backends.kafka.transactions.transactions import (
    abort_spec_at,
    abort_transaction,
    describe_producers,
    describe_transaction,
    list_transactions,
    read_metadata,
)
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.model.transactions import (
    DESCRIBE_HEADERS,
    HANGING_HEADERS,
    LIST_HEADERS,
    PRODUCERS_HEADERS,
    AbortSpec,
    Row,
    describe_rows,
    hanging_rows,
    list_rows,
    producers_rows,
    table_json,
    table_lines,
)
from kafkatop.backends.protocol.connection import Unsupported
from kafkatop.tui.cli.common import confirmed, connection, typed_name
from kafkatop.tui.cli.exits import DONE, FAILED, UsageError, err

# Each action's own options; any other one given is refused (it would be ignored otherwise).
TAKES: dict[str, frozenset[str]] = {
    "list": frozenset({"duration_filter", "transactional_id_pattern"}),
    "describe": frozenset({"transactional_id"}),
    "describe-producers": frozenset({"topic", "partition", "broker_id"}),
    "find-hanging": frozenset({"topic", "partition", "broker_id", "max_transaction_timeout"}),
    "abort": frozenset(
        {"topic", "partition", "start_offset", "producer_id", "producer_epoch", "coordinator_epoch", "yes"}
    ),
}
DEFAULTS: dict[str, object] = {"max_transaction_timeout": 15, "yes": False}
NOT_SHOWN = {
    "list": "no transactions listed",
    "describe": "no transaction described",
    "describe-producers": "no producers described",
    "find-hanging": "no hanging transactions searched for",
    "abort": "nothing aborted",
}


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def check_options(args: argparse.Namespace) -> None:
    """Options of another action, and combinations the action cannot take, refused before anything is sent."""
    action: str = args.transactions_command
    for dest in sorted(frozenset().union(*TAKES.values()) - TAKES[action]):
        if getattr(args, dest, None) not in (None, DEFAULTS.get(dest)):
            takers = sorted(a for a, dests in TAKES.items() if dest in dests)
            raise UsageError(f"{_flag(dest)} is not an option of `transactions {action}` (it is of "
                             f"{', '.join(takers)})")  # fmt: skip
    if action == "describe" and args.transactional_id is None:
        raise UsageError("`transactions describe` needs --transactional-id ID")
    if action in ("describe-producers", "abort") and (args.topic is None or args.partition is None):
        raise UsageError(f"`transactions {action}` needs --topic and --partition")
    if action == "find-hanging":
        if args.topic is None and args.broker_id is None:
            raise UsageError("The `find-hanging` command requires either --topic or --broker-id to limit the scope of "
                             "the search")  # fmt: skip
        if args.partition is not None and args.topic is None:
            raise UsageError("The --partition argument requires --topic to be provided")
    if action == "abort":
        _check_abort(args)


def _check_abort(args: argparse.Namespace) -> None:
    by_producer = (args.producer_id, args.producer_epoch, args.coordinator_epoch)
    if args.start_offset is None and args.producer_id is None:
        raise UsageError("The transaction to abort must be identified either with --start-offset (for brokers on 3.0 "
                         "or above) or with --producer-id, --producer-epoch, and --coordinator-epoch (for older "
                         "brokers)")  # fmt: skip
    if args.start_offset is not None and any(v is not None for v in by_producer):
        raise UsageError("give --start-offset, or --producer-id with --producer-epoch and --coordinator-epoch: not "
                         "both")  # fmt: skip
    if args.start_offset is None:
        for dest in ("producer_epoch", "coordinator_epoch"):
            if getattr(args, dest) is None:
                raise UsageError(f"Missing required argument {_flag(dest)}")


def _print_table(args: argparse.Namespace, headers: Sequence[str], rows: list[Row]) -> None:
    if args.json:
        print(json.dumps(table_json(headers, rows), indent=2))
    else:
        for line in table_lines(headers, rows):
            print(line)


def _now_ms() -> int:
    return int(time.time() * 1000)


def cmd_transactions(args: argparse.Namespace) -> int:
    check_options(args)
    action: str = args.transactions_command
    cluster = connection(args)
    try:
        if action == "list":
            snapshot = read_metadata(cluster, args.timeout)
            duration = -1 if args.duration_filter is None else args.duration_filter
            listed = list_transactions(cluster, snapshot.brokers_alive, args.timeout, duration_ms=duration,
                                       pattern=args.transactional_id_pattern)  # fmt: skip
            _print_table(args, LIST_HEADERS, list_rows(listed))
        elif action == "describe":
            described = describe_transaction(cluster, args.transactional_id, args.timeout)
            _print_table(args, DESCRIBE_HEADERS, describe_rows(described, _now_ms()))
        elif action == "describe-producers":
            tp = TopicPartition(args.topic, args.partition)
            snapshot = read_metadata(cluster, args.timeout)
            producers = describe_producers(cluster, snapshot, [tp], args.timeout, args.broker_id)[tp]
            _print_table(args, PRODUCERS_HEADERS, producers_rows(producers))
        elif action == "find-hanging":
            snapshot = read_metadata(cluster, args.timeout)
            found = find_hanging(cluster, snapshot, args.timeout, broker_id=args.broker_id, topic=args.topic,
                                 partition=args.partition, max_timeout_min=args.max_transaction_timeout)  # fmt: skip
            _print_table(args, HANGING_HEADERS, hanging_rows(found, _now_ms()))
        else:
            return _abort(args, cluster)
    except Unsupported as e:
        err(f"{NOT_SHOWN[action]}: {e}")
        return FAILED
    return DONE


def _abort(args: argparse.Namespace, cluster: KafkaConnection) -> int:
    tp = TopicPartition(args.topic, args.partition)
    snapshot = read_metadata(cluster, args.timeout)
    if args.start_offset is not None:
        spec = abort_spec_at(cluster, snapshot, tp, args.start_offset, args.timeout)
    else:
        # A transaction that hung before its producer's first commit or abort has no coordinator epoch (-1): 0 is
        # at most any epoch the partition has seen, as Kafka's tool sends it.
        epoch = max(args.coordinator_epoch, 0)
        spec = AbortSpec(tp.topic, tp.partition, args.producer_id, args.producer_epoch, epoch)
    question = (f"write an ABORT marker on {tp} for producer {spec.producer_id} (epoch {spec.producer_epoch}, "
                f"coordinator epoch {spec.coordinator_epoch})? Its open transaction's records are then skipped by "
                "read_committed consumers.")  # fmt: skip
    if not confirmed(question, yes=args.yes, typed=typed_name(args),
                     unasked="nothing was sent: an abort needs a confirmation; add --yes to go ahead"):  # fmt: skip
        err("not confirmed: nothing was sent")
        return FAILED
    abort_transaction(cluster, snapshot, spec, args.timeout)
    err(f"aborted: wrote an ABORT marker on {tp} for producer {spec.producer_id} (epoch {spec.producer_epoch})")
    if args.json:
        print(json.dumps([{"topic": spec.topic, "partition": spec.partition, "producer_id": spec.producer_id,
                           "producer_epoch": spec.producer_epoch, "coordinator_epoch": spec.coordinator_epoch}],
                         indent=2))  # fmt: skip
    return DONE
