"""DescribeTopicPartitions (API key 75), v0 (flexible; Kafka 3.8+, KIP-966): what Kafka 4's kafka-topics.sh
--describe reads, and the only answer that holds a partition's eligible leader replicas (ELR) and last known ELR.
confluent-kafka does not send it, so kafkatop does, paging with the cursor the broker hands back.

Schemas: clients/src/main/resources/common/message/DescribeTopicPartitions{Request,Response}.json in apache/kafka.
A nullable struct (the cursor) is one int8, -1 for null, 1 before the struct. Decoders are bounded: truncated or
foreign bytes raise ProtocolError.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from kafkatop.backends.protocol.wire import (
    NO_TAGGED_FIELDS,
    Api,
    ProtocolError,
    Reader,
    compact_array_length_at,
    compact_string_at,
    encode_compact_array,
    encode_compact_string,
    int32,
    response_reader,
    skip_tags_at,
    uvarint_at,
)

DESCRIBE_TOPIC_PARTITIONS = Api(75, "DescribeTopicPartitions", (0, 0))
PARTITION_LIMIT = 2000  # per response, as kafka-topics.sh asks (--partition-size-limit-per-response)


@dataclass(frozen=True, slots=True)
class Cursor:
    topic: str
    partition: int


@dataclass(frozen=True, slots=True)
class DescribedPartition:
    topic: str
    partition: int
    error_code: int
    leader: int
    leader_epoch: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    elr: tuple[int, ...] | None  # None: the broker sent null (kafka-topics.sh then prints "N/A")
    last_known_elr: tuple[int, ...] | None


@dataclass(frozen=True, slots=True)
class DescribedPage:
    partitions: tuple[DescribedPartition, ...]
    topic_errors: tuple[tuple[str, int], ...]  # (topic, error code) of the topics that could not be described
    next_cursor: Cursor | None


def request_body(topics: Sequence[str], cursor: Cursor | None, limit: int = PARTITION_LIMIT) -> bytes:
    at = b"\xff" if cursor is None else b"\x01" + encode_compact_string(cursor.topic) + int32(cursor.partition)
    if cursor is not None:
        at += NO_TAGGED_FIELDS
    return _topics_array(tuple(topics)) + int32(limit) + at + NO_TAGGED_FIELDS


@lru_cache(maxsize=4)
def _topics_array(topics: tuple[str, ...]) -> bytes:
    """Every page's request names every topic again: at 9,000 topics, encoded once for the 20 pages of a read."""
    return encode_compact_array([encode_compact_string(t) + NO_TAGGED_FIELDS for t in topics])


def _int32s(r: Reader) -> tuple[int, ...]:
    return tuple(r.int32() for _ in range(r.compact_array_length()))


def _nullable_int32s(r: Reader) -> tuple[int, ...] | None:
    n = r.compact_nullable_array_length()
    return None if n is None else tuple(r.int32() for _ in range(n))


def decode_page(payload: bytes) -> DescribedPage:
    """One response (after the size: the flexible header first)."""
    r = response_reader(payload)
    r.int32()  # throttle time
    partitions: list[DescribedPartition] = []
    errors: list[tuple[str, int]] = []
    for _ in range(r.compact_array_length()):
        error_code = r.int16()
        name = r.compact_nullable_string() or ""
        r.uuid()
        r.boolean()  # internal
        for _ in range(r.compact_array_length()):
            p_error, index, leader, epoch = r.int16(), r.int32(), r.int32(), r.int32()
            replicas, isr = _int32s(r), _int32s(r)
            elr, last_known = _nullable_int32s(r), _nullable_int32s(r)
            _int32s(r)  # offline replicas
            r.skip_tagged_fields()
            partitions.append(DescribedPartition(name, index, p_error, leader, epoch, replicas, isr, elr, last_known))
        r.int32()  # authorized operations
        r.skip_tagged_fields()
        if error_code:
            errors.append((name, error_code))
    cursor = None
    if r.int8() != -1:
        cursor = Cursor(r.compact_string(), r.int32())
        r.skip_tagged_fields()
    r.skip_tagged_fields()
    r.end()
    return DescribedPage(tuple(partitions), tuple(errors), cursor)


def check_page(page: DescribedPage, asked: Sequence[str]) -> None:
    """A page that answers a topic nobody asked for is not an answer to this request."""
    unknown = {p.topic for p in page.partitions} - set(asked)
    if unknown:
        raise ProtocolError(f"DescribeTopicPartitions answered for topics not asked: {', '.join(sorted(unknown))}")


# --- the live poll's reading: ELR only, straight from the bytes ------------------------------------------------------
Elr = tuple[tuple[int, ...] | None, tuple[int, ...] | None]  # (ELR, last known ELR); None: the broker sent null
_INT32S = {n: struct.Struct(f">{n}i") for n in range(1, 16)}


@dataclass(frozen=True, slots=True)
class ElrPage:
    elr: dict[tuple[str, int], Elr]
    topic_errors: tuple[tuple[str, int], ...]
    next_cursor: Cursor | None


def decode_elr_page(payload: bytes) -> ElrPage:
    """decode_page, keeping only each partition's ELR and last known ELR, read straight from the bytes: a Reader's call
    per field costs most of a poll at 10,000 partitions. Bounded as decode_page: foreign bytes raise ProtocolError."""
    data = payload
    try:
        pos = skip_tags_at(data, 4) + 4  # the correlation id and the header's tags; the throttle time
        topics, pos = compact_array_length_at(data, pos)
        found: dict[tuple[str, int], Elr] = {}
        errors: list[tuple[str, int]] = []
        for _ in range(topics):
            error_code = int.from_bytes(data[pos : pos + 2], "big", signed=True)
            size, pos = uvarint_at(data, pos + 2)  # a nullable name
            name = data[pos : pos + size - 1].decode("utf-8", errors="replace") if size else ""
            partitions, pos = compact_array_length_at(data, pos + max(size - 1, 0) + 17)  # after topic id, internal
            for _ in range(partitions):
                index = int.from_bytes(data[pos + 2 : pos + 6], "big", signed=True)
                pos = _skip_int32s(data, _skip_int32s(data, pos + 14))  # error, index, leader, epoch; replicas, ISR
                elr, pos = _int32s_at(data, pos)
                last, pos = _int32s_at(data, pos)
                pos = skip_tags_at(data, _skip_int32s(data, pos))  # offline replicas
                found[(name, index)] = (elr, last)
            pos = skip_tags_at(data, pos + 4)  # authorized operations
            if error_code:
                errors.append((name, error_code))
        cursor = None
        null, pos = data[pos] == 0xFF, pos + 1  # a nullable struct: -1, or 1 before it
        if not null:
            topic, pos = compact_string_at(data, pos)
            cursor = Cursor(topic, int.from_bytes(data[pos : pos + 4], "big", signed=True))
            pos = skip_tags_at(data, pos + 4)
        pos = skip_tags_at(data, pos)
    except (IndexError, struct.error):
        raise ProtocolError(f"DescribeTopicPartitions answer truncated ({len(data)} bytes)") from None
    if pos != len(data):
        raise ProtocolError(f"DescribeTopicPartitions answer: {len(data) - pos} bytes past its end or missing")
    return ElrPage(found, tuple(errors), cursor)


def _skip_int32s(data: bytes, pos: int) -> int:
    n, pos = compact_array_length_at(data, pos)
    return pos + 4 * n


def _int32s_at(data: bytes, pos: int) -> tuple[tuple[int, ...] | None, int]:
    """A compact nullable array of int32 and the position after it: (), the common answer, without unpacking."""
    n, pos = uvarint_at(data, pos)
    if n <= 1:
        return (None if n == 0 else ()), pos
    if n - 1 > (len(data) - pos) // 4:
        raise ProtocolError(f"{n - 1} replicas announced at offset {pos}, in {len(data) - pos} bytes")
    unpack = _INT32S.get(n - 1) or struct.Struct(f">{n - 1}i")
    return unpack.unpack_from(data, pos), pos + 4 * (n - 1)
