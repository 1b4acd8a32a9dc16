"""AlterPartitionReassignments (API key 45) and ListPartitionReassignments (46), v0 of each (flexible; Kafka 2.4+,
KIP-455): what kafka-reassign-partitions.sh sends, spoken here because confluent-kafka has neither.

v0 is all kafkatop needs: AlterPartitionReassignments v1 (Kafka 4.1) only adds AllowReplicationFactorChange, whose
default (true) is v0's behaviour. Schemas: clients/src/main/resources/common/message/*PartitionReassignments*.json in
apache/kafka. Decoders are bounded: truncated or foreign bytes raise ProtocolError.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from kafkatop.backends.protocol.wire import (
    NO_TAGGED_FIELDS,
    Api,
    Reader,
    encode_compact_array,
    encode_compact_string,
    encode_uvarint,
    int32,
)

T = TypeVar("T")

ALTER_PARTITION_REASSIGNMENTS = Api(45, "AlterPartitionReassignments", (0, 0))
LIST_PARTITION_REASSIGNMENTS = Api(46, "ListPartitionReassignments", (0, 0))


def _int32_array(values: Sequence[int]) -> bytes:
    return encode_compact_array([int32(v) for v in values])


def alter_body(targets: Mapping[tuple[str, int], Sequence[int] | None], timeout_ms: int) -> bytes:
    """`targets`: (topic, partition) -> the new replicas in order, or None to cancel that partition's reassignment."""
    by_topic: dict[str, list[tuple[int, Sequence[int] | None]]] = {}
    for (topic, partition), replicas in sorted(targets.items()):
        by_topic.setdefault(topic, []).append((partition, replicas))
    topics = []
    for topic, partitions in by_topic.items():
        encoded = [
            int32(p) + (b"\x00" if replicas is None else _int32_array(replicas)) + NO_TAGGED_FIELDS
            for p, replicas in partitions
        ]
        topics.append(encode_compact_string(topic) + encode_compact_array(encoded) + NO_TAGGED_FIELDS)
    return int32(timeout_ms) + encode_compact_array(topics) + NO_TAGGED_FIELDS


def list_body(partitions: Mapping[str, Sequence[int]] | None, timeout_ms: int) -> bytes:
    """`partitions`: topic -> partition indexes, or None for every reassignment in progress."""
    if partitions is None:
        topics = encode_uvarint(0)  # null: all of them
    else:
        topics = encode_compact_array(
            [encode_compact_string(t) + _int32_array(ps) + NO_TAGGED_FIELDS for t, ps in sorted(partitions.items())]
        )
    return int32(timeout_ms) + topics + NO_TAGGED_FIELDS


@dataclass(frozen=True, slots=True)
class PartitionResult:
    topic: str
    partition: int
    error_code: int
    error_message: str | None


@dataclass(frozen=True, slots=True)
class AlterResponse:
    error_code: int  # the whole request's (e.g. NOT_CONTROLLER, CLUSTER_AUTHORIZATION_FAILED)
    error_message: str | None
    partitions: tuple[PartitionResult, ...]


@dataclass(frozen=True, slots=True)
class OngoingReassignment:
    topic: str
    partition: int
    replicas: tuple[int, ...]  # the union of the old and the new replicas while it runs
    adding: tuple[int, ...]
    removing: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ListResponse:
    error_code: int
    error_message: str | None
    reassignments: tuple[OngoingReassignment, ...]


def _ints(r: Reader) -> tuple[int, ...]:
    return tuple(r.int32() for _ in range(r.compact_array_length()))


def _by_partition(r: Reader, entry: Callable[[str, int], T]) -> tuple[T, ...]:
    """The topics of a response, each with its partitions: `entry` reads a partition's fields after its index."""
    read: list[T] = []
    for _ in range(r.compact_array_length()):
        topic = r.compact_string()
        for _ in range(r.compact_array_length()):
            read.append(entry(topic, r.int32()))
            r.skip_tagged_fields()
        r.skip_tagged_fields()
    return tuple(read)


def decode_alter(r: Reader) -> AlterResponse:
    """After the response header (v1)."""
    r.int32()  # throttle time
    error_code, error_message = r.int16(), r.compact_nullable_string()
    results = _by_partition(r, lambda topic, p: PartitionResult(topic, p, r.int16(), r.compact_nullable_string()))
    r.skip_tagged_fields()
    r.end()
    return AlterResponse(error_code, error_message, results)


def decode_list(r: Reader) -> ListResponse:
    """After the response header (v1)."""
    r.int32()  # throttle time
    error_code, error_message = r.int16(), r.compact_nullable_string()
    ongoing = _by_partition(r, lambda topic, p: OngoingReassignment(topic, p, _ints(r), _ints(r), _ints(r)))
    r.skip_tagged_fields()
    r.end()
    return ListResponse(error_code, error_message, ongoing)
