"""OffsetFetch (API key 9, v6–v8) and DescribeGroups (15, v5) on Kafka's wire format: many groups per request.

kafkatop sends them itself because confluent-kafka asks one group per call: OffsetFetch v8 (KIP-709, Kafka 3.0+)
takes every group of one coordinator in one request, and DescribeGroups always took a list. v6–v7 (Kafka 2.4–2.8, the
librdkafka mock) take one group per request. A consumer group's member assignment is decoded from its
ConsumerProtocolAssignment bytes, as Kafka's own tools do.

Schemas: clients/src/main/resources/common/message/{OffsetFetch,DescribeGroups}{Request,Response}.json and
ConsumerProtocolAssignment.json in apache/kafka. Every decoder is bounded: truncated or foreign bytes raise
ProtocolError, never IndexError.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

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
    skip_tags_at,
    uvarint_at,
)

OFFSET_FETCH = Api(9, "OffsetFetch", (6, 8), flexible_from=6)  # v8: many groups per request (KIP-709)
OFFSET_FETCH_BATCHED_FROM = 8
DESCRIBE_GROUPS = Api(15, "DescribeGroups", (5, 5), flexible_from=5)  # Kafka 2.4+
CONSUMER_PROTOCOL = "consumer"  # the classic protocol type of consumers (as against "connect", …)


class CommittedOffset(NamedTuple):
    """One partition of an OffsetFetch answer (a tuple: 100,000 of them a poll at 1,000 groups)."""

    topic: str
    partition: int
    offset: int  # -1: no commit
    leader_epoch: int  # -1: unknown
    error_code: int


@dataclass(frozen=True, slots=True)
class GroupOffsets:
    """One group's answer: its committed offsets, or the group's error (NOT_COORDINATOR, …)."""

    group_id: str
    error_code: int
    offsets: tuple[CommittedOffset, ...]


def _topics(partitions: Mapping[str, Sequence[int]] | None) -> bytes:
    """A nullable compact array of topics: null asks for every partition the group committed on."""
    if partitions is None:
        return b"\x00"
    topics = [
        encode_compact_string(name) + encode_compact_array([int32(p) for p in ids]) + NO_TAGGED_FIELDS
        for name, ids in partitions.items()
    ]
    return encode_compact_array(topics)


def offset_fetch_body(version: int, groups: Mapping[str, Mapping[str, Sequence[int]] | None]) -> bytes:
    """v8: every group in one request; v6–v7: exactly one. A group's partitions, or None for all it committed."""
    if version >= OFFSET_FETCH_BATCHED_FROM:
        items = [encode_compact_string(g) + _topics(parts) + NO_TAGGED_FIELDS for g, parts in groups.items()]
        return encode_compact_array(items) + b"\x00" + NO_TAGGED_FIELDS  # RequireStable false: as it stands
    if len(groups) != 1:
        raise ProtocolError(f"OffsetFetch v{version} takes one group, not {len(groups)}")
    ((group, parts),) = groups.items()
    body = encode_compact_string(group) + _topics(parts)
    if version >= 7:
        body += b"\x00"  # RequireStable
    return body + NO_TAGGED_FIELDS


_PARTITION = struct.Struct(">iqi")  # PartitionIndex, CommittedOffset, CommittedLeaderEpoch
_ERROR = struct.Struct(">h")


def _read_offsets(r: Reader) -> list[CommittedOffset]:
    """The Topics of an OffsetFetch v6+ answer, read straight from the bytes: at 1,000 groups an answer holds 100,000
    partitions, and a Reader call per field would cost most of a second. Bounded as Reader is: an overrun is a
    ProtocolError."""
    data, pos = r.data, r.pos
    out: list[CommittedOffset] = []
    try:
        topics, pos = compact_array_length_at(data, pos)
        for _ in range(topics):
            topic, pos = compact_string_at(data, pos)
            partitions, pos = compact_array_length_at(data, pos)
            for _ in range(partitions):
                partition, offset, epoch = _PARTITION.unpack_from(data, pos)
                size = data[pos + 16]  # the commit's metadata (not read): its length + 1, one byte when short
                if size & 0x80:
                    size, pos = uvarint_at(data, pos + 16)
                else:
                    pos += 17
                pos += max(size - 1, 0)
                (code,) = _ERROR.unpack_from(data, pos)
                pos = pos + 3 if data[pos + 2] == 0 else skip_tags_at(data, pos + 2)  # no tagged fields, as a rule
                out.append(CommittedOffset(topic, partition, offset, epoch, code))
            pos = skip_tags_at(data, pos)
    except (IndexError, OverflowError, struct.error):  # OverflowError: an offset past ssize_t, on 32-bit builds
        raise ProtocolError(f"response truncated: OffsetFetch partitions past byte {len(data)}") from None
    if pos > len(data):
        raise ProtocolError(f"response truncated: OffsetFetch partitions past byte {len(data)}")
    r.pos = pos
    return out


def decode_offset_fetch(r: Reader, version: int, group_id: str | None = None) -> list[GroupOffsets]:
    """After the response header (v1). v6–v7 answer for the one group asked (`group_id`)."""
    r.int32()  # throttle time
    groups = []
    if version >= OFFSET_FETCH_BATCHED_FROM:
        for _ in range(r.compact_array_length()):
            gid = r.compact_string()
            offsets = _read_offsets(r)
            code = r.int16()
            r.skip_tagged_fields()
            groups.append(GroupOffsets(gid, code, tuple(offsets)))
    else:
        if group_id is None:
            raise ProtocolError(f"OffsetFetch v{version} answers one group: name it")
        offsets = _read_offsets(r)
        groups.append(GroupOffsets(group_id, r.int16(), tuple(offsets)))
    r.skip_tagged_fields()
    r.end()
    return groups


def describe_groups_body(group_ids: Sequence[str]) -> bytes:
    """v5: the groups, IncludeAuthorizedOperations false."""
    return encode_compact_array([encode_compact_string(g) for g in group_ids]) + b"\x00" + NO_TAGGED_FIELDS


@dataclass(frozen=True, slots=True)
class DescribedMember:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    assignment: tuple[tuple[str, int], ...]  # (topic, partition), from a consumer's assignment bytes


@dataclass(frozen=True, slots=True)
class DescribedGroup:
    group_id: str
    error_code: int
    state: str  # the coordinator's name: Stable, Empty, PreparingRebalance, …
    protocol_type: str  # "consumer", "connect", "" for a group that only commits offsets
    protocol_data: str  # the assignor of a consumer group ("range", "cooperative-sticky")
    members: tuple[DescribedMember, ...]


def _compact_bytes(r: Reader) -> bytes:
    n = r.uvarint()
    return r.take(n - 1) if n else b""


def decode_consumer_assignment(data: bytes) -> tuple[tuple[str, int], ...]:
    """ConsumerProtocolAssignment (v0–v3, not flexible): Version, [Topic, [Partition]], UserData. Empty bytes (a
    member not assigned yet) give no partitions."""
    if not data:
        return ()
    r = Reader(data)
    r.int16()  # the version; the fields read are the same in all of them
    out: list[tuple[str, int]] = []
    for _ in range(r.array_length()):
        topic = r.string()
        out.extend((topic, r.int32()) for _ in range(r.array_length()))
    return tuple(sorted(out))  # UserData follows: the assignor's own, not read


def decode_describe_groups(r: Reader) -> list[DescribedGroup]:
    """After the response header (v1) of a v5 response."""
    r.int32()  # throttle time
    groups = []
    for _ in range(r.compact_array_length()):
        code, gid, state = r.int16(), r.compact_string(), r.compact_string()
        protocol_type, protocol_data = r.compact_string(), r.compact_string()
        members = []
        for _ in range(r.compact_array_length()):
            member_id, instance = r.compact_string(), r.compact_nullable_string()
            client_id, host = r.compact_string(), r.compact_string()
            _compact_bytes(r)  # the subscription: what it asked for, not what it got
            assignment = _compact_bytes(r)
            r.skip_tagged_fields()
            members.append(
                DescribedMember(
                    member_id,
                    instance,
                    client_id,
                    host,
                    decode_consumer_assignment(assignment) if protocol_type == CONSUMER_PROTOCOL else (),
                )
            )
        r.int32()  # authorized operations (not asked for)
        r.skip_tagged_fields()
        groups.append(DescribedGroup(gid, code, state, protocol_type, protocol_data, tuple(members)))
    r.skip_tagged_fields()
    r.end()
    return groups
