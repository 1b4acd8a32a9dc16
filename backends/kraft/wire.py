"""DescribeQuorum (API key 55, v0–v2) on Kafka's wire format (protocol/wire.py): the request body and the decoder.

Schemas: clients/src/main/resources/common/message/DescribeQuorum*.json in apache/kafka. Every decoder is bounded:
truncated or foreign bytes raise ProtocolError, never IndexError.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from kafkatop.backends.model.quorum import METADATA_PARTITION, METADATA_TOPIC
from kafkatop.backends.protocol.wire import (
    NO_TAGGED_FIELDS,
    Api,
    ProtocolError,
    Reader,
    encode_compact_string,
    encode_uvarint,
    format_uuid,
)

# What this codec reads: v1 adds fetch times, v2 nodes and directory ids.
DESCRIBE_QUORUM = Api(55, "DescribeQuorum", (0, 2))


def describe_quorum_body(topic: str = METADATA_TOPIC, partition: int = METADATA_PARTITION) -> bytes:
    """Topics: [{TopicName, Partitions: [{PartitionIndex}]}]; identical in v0–v2."""
    return (
        encode_uvarint(2)
        + encode_compact_string(topic)
        + encode_uvarint(2)
        + struct.pack(">i", partition)
        + NO_TAGGED_FIELDS  # partition
        + NO_TAGGED_FIELDS  # topic
        + NO_TAGGED_FIELDS  # request
    )


@dataclass(frozen=True, slots=True)
class ReplicaState:
    """DescribeQuorumResponse's ReplicaState, as sent; timestamps are the leader's wall clock in ms, -1 unknown."""

    replica_id: int
    directory_id: str | None  # v2+
    log_end_offset: int
    last_fetch_timestamp: int  # v1+
    last_caught_up_timestamp: int  # v1+


@dataclass(frozen=True, slots=True)
class QuorumPartition:
    topic: str
    partition: int
    error_code: int
    error_message: str | None  # v2+
    leader_id: int
    leader_epoch: int
    high_watermark: int
    voters: tuple[ReplicaState, ...]
    observers: tuple[ReplicaState, ...]


@dataclass(frozen=True, slots=True)
class DescribeQuorum:
    """A decoded DescribeQuorum response."""

    version: int
    correlation_id: int
    error_code: int
    error_message: str | None  # v2+
    partitions: tuple[QuorumPartition, ...]
    endpoints: dict[int, tuple[str, ...]]  # v2+: voter id -> ("CONTROLLER://host:port", …)


def _replica_state(r: Reader, version: int) -> ReplicaState:
    replica_id = r.int32()
    directory_id = format_uuid(r.uuid()) if version >= 2 else None
    log_end_offset = r.int64()
    last_fetch = r.int64() if version >= 1 else -1
    last_caught_up = r.int64() if version >= 1 else -1
    r.skip_tagged_fields()
    return ReplicaState(replica_id, directory_id, log_end_offset, last_fetch, last_caught_up)


def decode_describe_quorum(payload: bytes, version: int) -> DescribeQuorum:
    """A DescribeQuorum response (after the size): header v1, then the body of `version`."""
    if not DESCRIBE_QUORUM.speaks(version):
        raise ProtocolError(f"DescribeQuorum v{version} is not one this codec reads")
    r = Reader(payload)
    correlation_id = r.int32()
    r.skip_tagged_fields()
    error_code = r.int16()
    error_message = (r.compact_nullable_string() or None) if version >= 2 else None  # "" when no error
    partitions = []
    for _ in range(r.compact_array_length()):
        topic = r.compact_string()
        for _ in range(r.compact_array_length()):
            index = r.int32()
            p_error = r.int16()
            p_message = (r.compact_nullable_string() or None) if version >= 2 else None
            leader_id, leader_epoch, high_watermark = r.int32(), r.int32(), r.int64()
            voters = tuple(_replica_state(r, version) for _ in range(r.compact_array_length()))
            observers = tuple(_replica_state(r, version) for _ in range(r.compact_array_length()))
            r.skip_tagged_fields()
            partitions.append(
                QuorumPartition(
                    topic, index, p_error, p_message, leader_id, leader_epoch, high_watermark, voters, observers
                )
            )
        r.skip_tagged_fields()
    endpoints: dict[int, tuple[str, ...]] = {}
    if version >= 2:
        for _ in range(r.compact_array_length()):
            node_id = r.int32()
            listeners = []
            for _ in range(r.compact_array_length()):
                name, host, port = r.compact_string(), r.compact_string(), r.uint16()
                r.skip_tagged_fields()
                listeners.append(f"{name}://{host}:{port}")
            r.skip_tagged_fields()
            endpoints[node_id] = tuple(listeners)
    r.skip_tagged_fields()
    r.end()
    return DescribeQuorum(version, correlation_id, error_code, error_message, tuple(partitions), endpoints)
