"""The requests behind kafka-transactions.sh, spoken by kafkatop itself (confluent-kafka has none of them):
ListTransactions (API key 66, v0–v2: every broker lists the transactional ids it coordinates), DescribeTransactions
(65, v0: a transactional id's current transaction, from its coordinator), DescribeProducers (61, v0: the producers a
partition's replica tracks, with where each open transaction starts) and WriteTxnMarkers (27, v1: what
Admin.abortTransaction sends a partition's leader, an ABORT marker). All flexible.

Schemas: clients/src/main/resources/common/message/{ListTransactions,DescribeTransactions,DescribeProducers,
WriteTxnMarkers}{Request,Response}.json in apache/kafka (4.1). Every decoder is bounded: truncated or foreign bytes
raise ProtocolError.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.model.transactions import PartitionProducers, ProducerState
from kafkatop.backends.protocol.wire import (
    NO_TAGGED_FIELDS,
    Api,
    encode_compact_array,
    encode_compact_string,
    error_name,
    int16,
    int32,
    int64,
    response_reader,
)

# v1: DurationFilter (KIP-994, 3.8); v2: TransactionalIdPattern (KIP-1152, 4.1)
LIST_TRANSACTIONS = Api(66, "ListTransactions", (0, 2))
DURATION_FILTER_FROM = 1
PATTERN_FROM = 2
DESCRIBE_TRANSACTIONS = Api(65, "DescribeTransactions", (0, 0))
DESCRIBE_PRODUCERS = Api(61, "DescribeProducers", (0, 0))
# v1: flexible (Kafka 2.8+), the only one Kafka 4 keeps
WRITE_TXN_MARKERS = Api(27, "WriteTxnMarkers", (1, 1), flexible_from=1)

# Errors of these requests that protocol/wire.py's table does not name, in the words of Kafka's Errors enum (one cut).
TXN_ERRORS = {
    19: ("NOT_ENOUGH_REPLICAS", "Messages are rejected since there are fewer in-sync replicas than required."),
    47: ("INVALID_PRODUCER_EPOCH", "Producer attempted to produce with an old epoch."),
    48: ("INVALID_TXN_STATE", "The producer attempted a transactional operation in an invalid state."),
    49: ("INVALID_PRODUCER_ID_MAPPING", "The producer attempted to use a producer id which is not currently assigned "
         "to its transactional id."),
    51: ("CONCURRENT_TRANSACTIONS", "The producer attempted to update a transaction while another concurrent "
         "operation on the same transaction was ongoing."),
    52: ("TRANSACTION_COORDINATOR_FENCED", "Indicates that the transaction coordinator sending a WriteTxnMarker is no "
         "longer the current coordinator for a given producer."),
    53: ("TRANSACTIONAL_ID_AUTHORIZATION_FAILED", "Transactional Id authorization failed."),
    59: ("UNKNOWN_PRODUCER_ID", "The broker could not locate the producer metadata associated with the producerId."),
    90: ("PRODUCER_FENCED", "There is a newer producer with the same transactionalId which fences the current one."),
    105: ("TRANSACTIONAL_ID_NOT_FOUND", "The transactionalId could not be found."),
    128: ("INVALID_REGULAR_EXPRESSION", "The regular expression is not valid."),
}  # fmt: skip
TRANSACTIONAL_ID_NOT_FOUND = 105


def txn_error(code: int, message: str | None = None) -> str:
    """An error code in words: its name, then the broker's message, else Kafka's own for it."""
    name, words = TXN_ERRORS.get(code, (error_name(code), None))
    said = message or words
    return f"{name}: {said}" if said else name


# --- ListTransactions ---------------------------------------------------------------------------------------------
def list_transactions_body(
    version: int,
    states: Sequence[str] = (),
    producer_ids: Sequence[int] = (),
    duration_ms: int = -1,
    pattern: str | None = None,
) -> bytes:
    """Filters: states, producer ids (empty: all), a least duration (v1+; -1: all), a transactional id regular
    expression (v2+; None: all). A filter the version cannot carry is the caller's to refuse first."""
    body = encode_compact_array([encode_compact_string(s) for s in states])
    body += encode_compact_array([int64(p) for p in producer_ids])
    if version >= DURATION_FILTER_FROM:
        body += int64(duration_ms)
    if version >= PATTERN_FROM:
        body += encode_compact_string(pattern)
    return body + NO_TAGGED_FIELDS


@dataclass(frozen=True, slots=True)
class ListedTransactions:
    error_code: int
    unknown_state_filters: tuple[str, ...]
    transactions: tuple[tuple[str, int, str], ...]  # (transactional id, producer id, state), as listed


def decode_list_transactions(payload: bytes) -> ListedTransactions:
    """One response (after the size: the flexible header first)."""
    r = response_reader(payload)
    r.int32()  # throttle time
    code = r.int16()
    unknown = tuple(r.compact_string() for _ in range(r.compact_array_length()))
    listed = []
    for _ in range(r.compact_array_length()):
        txn_id, producer_id, state = r.compact_string(), r.int64(), r.compact_string()
        r.skip_tagged_fields()
        listed.append((txn_id, producer_id, state))
    r.skip_tagged_fields()
    r.end()
    return ListedTransactions(code, unknown, tuple(listed))


# --- DescribeTransactions -----------------------------------------------------------------------------------------
def describe_transactions_body(transactional_ids: Sequence[str]) -> bytes:
    return encode_compact_array([encode_compact_string(t) for t in transactional_ids]) + NO_TAGGED_FIELDS


@dataclass(frozen=True, slots=True)
class DescribedTransaction:
    error_code: int
    transactional_id: str
    state: str
    timeout_ms: int
    start_time_ms: int  # -1: none under way
    producer_id: int
    producer_epoch: int
    partitions: tuple[TopicPartition, ...]  # in the response's order


def decode_describe_transactions(payload: bytes) -> list[DescribedTransaction]:
    r = response_reader(payload)
    r.int32()  # throttle time
    out = []
    for _ in range(r.compact_array_length()):
        code, txn_id, state = r.int16(), r.compact_string(), r.compact_string()
        timeout, start, producer_id, epoch = r.int32(), r.int64(), r.int64(), r.int16()
        partitions: list[TopicPartition] = []
        for _ in range(r.compact_array_length()):
            topic = r.compact_string()
            partitions.extend(TopicPartition(topic, r.int32()) for _ in range(r.compact_array_length()))
            r.skip_tagged_fields()
        r.skip_tagged_fields()
        out.append(DescribedTransaction(code, txn_id, state, timeout, start, producer_id, epoch, tuple(partitions)))
    r.skip_tagged_fields()
    r.end()
    return out


# --- DescribeProducers --------------------------------------------------------------------------------------------
def describe_producers_body(partitions: Mapping[str, Sequence[int]]) -> bytes:
    topics = [
        encode_compact_string(topic) + encode_compact_array([int32(p) for p in ps]) + NO_TAGGED_FIELDS
        for topic, ps in partitions.items()
    ]
    return encode_compact_array(topics) + NO_TAGGED_FIELDS


@dataclass(frozen=True, slots=True)
class ProducersAnswer:
    """One partition's answer: its producers, or its error (NOT_LEADER_OR_FOLLOWER, …)."""

    error_code: int
    error_message: str | None
    producers: PartitionProducers


def decode_describe_producers(payload: bytes) -> list[ProducersAnswer]:
    r = response_reader(payload)
    r.int32()  # throttle time
    out = []
    for _ in range(r.compact_array_length()):
        topic = r.compact_string()
        for _ in range(r.compact_array_length()):
            index, code, message = r.int32(), r.int16(), r.compact_nullable_string()
            producers = []
            for _ in range(r.compact_array_length()):
                producer_id, epoch, sequence = r.int64(), r.int32(), r.int32()
                last_timestamp, coordinator_epoch, start = r.int64(), r.int32(), r.int64()
                r.skip_tagged_fields()
                producers.append(
                    ProducerState(
                        producer_id, epoch, sequence, last_timestamp,
                        coordinator_epoch if coordinator_epoch >= 0 else None, start if start >= 0 else None,
                    )
                )  # fmt: skip
            r.skip_tagged_fields()
            out.append(ProducersAnswer(code, message, PartitionProducers(topic, index, tuple(producers))))
        r.skip_tagged_fields()
    r.skip_tagged_fields()
    r.end()
    return out


# --- WriteTxnMarkers ----------------------------------------------------------------------------------------------
def write_txn_markers_body(
    producer_id: int, producer_epoch: int, coordinator_epoch: int, partitions: Mapping[str, Sequence[int]],
    *, commit: bool = False,
) -> bytes:  # fmt: skip
    """One marker (ABORT unless `commit`) for one producer on these partitions."""
    topics = [
        encode_compact_string(topic) + encode_compact_array([int32(p) for p in ps]) + NO_TAGGED_FIELDS
        for topic, ps in partitions.items()
    ]
    marker = int64(producer_id) + int16(producer_epoch) + (b"\x01" if commit else b"\x00")
    marker += encode_compact_array(topics) + int32(coordinator_epoch) + NO_TAGGED_FIELDS
    return encode_compact_array([marker]) + NO_TAGGED_FIELDS


def decode_write_txn_markers(payload: bytes) -> list[tuple[int, TopicPartition, int]]:
    """(producer id, partition, error code) for each partition of each marker."""
    r = response_reader(payload)
    out = []
    for _ in range(r.compact_array_length()):
        producer_id = r.int64()
        for _ in range(r.compact_array_length()):
            topic = r.compact_string()
            for _ in range(r.compact_array_length()):
                index, code = r.int32(), r.int16()
                r.skip_tagged_fields()
                out.append((producer_id, TopicPartition(topic, index), code))
            r.skip_tagged_fields()
        r.skip_tagged_fields()
    r.skip_tagged_fields()
    r.end()
    return out
