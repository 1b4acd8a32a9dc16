"""FindCoordinator (API key 10, v3–v6) and OffsetDelete (47, v0): what kafka-consumer-groups.sh --delete-offsets
sends, spoken here because confluent-kafka has no OffsetDelete. OffsetDelete goes to the group's coordinator, found
first. Schemas: clients/src/main/resources/common/message/{FindCoordinator,OffsetDelete}*.json in apache/kafka.
Decoders are bounded: truncated or foreign bytes raise ProtocolError."""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kafkatop.backends.protocol.wire import (
    NO_TAGGED_FIELDS,
    Api,
    ProtocolError,
    Reader,
    encode_array,
    encode_compact_array,
    encode_compact_string,
    encode_string,
    int32,
)

FIND_COORDINATOR = Api(10, "FindCoordinator", (3, 6), flexible_from=3)  # v4+: batched (KIP-699)
FIND_COORDINATOR_BATCHED_FROM = 4
OFFSET_DELETE = Api(47, "OffsetDelete", (0, 0), flexible_from=None)
GROUP_KEY = 0  # CoordinatorType.GROUP
TRANSACTION_KEY = 1  # CoordinatorType.TRANSACTION: the keys are transactional ids


def find_coordinator_body(groups: Sequence[str], version: int, key_type: int = GROUP_KEY) -> bytes:
    """v4+: any number of groups (or transactional ids, TRANSACTION_KEY) in one request; v3: exactly one."""
    if version >= FIND_COORDINATOR_BATCHED_FROM:
        keys = encode_compact_array([encode_compact_string(g) for g in groups])
        return struct.pack(">b", key_type) + keys + NO_TAGGED_FIELDS
    if len(groups) != 1:
        raise ProtocolError(f"FindCoordinator v{version} takes one group (or transactional id), not {len(groups)}")
    return encode_compact_string(groups[0]) + struct.pack(">b", key_type) + NO_TAGGED_FIELDS


@dataclass(frozen=True, slots=True)
class Coordinator:
    key: str  # the group
    node_id: int
    host: str
    port: int
    error_code: int
    error_message: str | None


def decode_find_coordinator(r: Reader, version: int, asked: Sequence[str]) -> list[Coordinator]:
    """After the response header (v1): one Coordinator per group asked (`asked`, in order, names v3's answer)."""
    r.int32()  # throttle time
    out = []
    if version >= FIND_COORDINATOR_BATCHED_FROM:
        for _ in range(r.compact_array_length()):
            key = r.compact_string()
            node, host, port = r.int32(), r.compact_string(), r.int32()
            code, message = r.int16(), r.compact_nullable_string()
            r.skip_tagged_fields()
            out.append(Coordinator(key, node, host, port, code, message))
    else:
        code, message = r.int16(), r.compact_nullable_string()
        node, host, port = r.int32(), r.compact_string(), r.int32()
        out.append(Coordinator(asked[0], node, host, port, code, message))
    r.skip_tagged_fields()
    r.end()
    if sorted(c.key for c in out) != sorted(asked):
        raise ProtocolError("FindCoordinator answered for other groups than those asked")
    return out


def offset_delete_body(group: str, partitions: Mapping[str, Sequence[int]]) -> bytes:
    topics = [
        encode_string(topic) + encode_array([int32(p) for p in sorted(ps)]) for topic, ps in sorted(partitions.items())
    ]
    return encode_string(group) + encode_array(topics)


@dataclass(frozen=True, slots=True)
class OffsetDeleteResponse:
    error_code: int  # the whole request's: GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, NOT_COORDINATOR, …
    partitions: tuple[tuple[str, int, int], ...]  # (topic, partition, error code)


def decode_offset_delete(r: Reader) -> OffsetDeleteResponse:
    """After the response header (v0)."""
    code = r.int16()
    r.int32()  # throttle time
    out = []
    for _ in range(r.array_length()):
        topic = r.string()
        for _ in range(r.array_length()):
            partition, error = r.int32(), r.int16()
            out.append((topic, partition, error))
    r.end()
    return OffsetDeleteResponse(code, tuple(out))
