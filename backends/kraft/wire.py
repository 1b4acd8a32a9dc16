"""The Kafka wire format, as much of it as kafkatop speaks itself where confluent-kafka has no API: the request
header, Kafka's primitive types, and the ApiVersions (v3) and DescribeQuorum (v0–v2) messages.

Schemas: clients/src/main/resources/common/message/*.json in apache/kafka. Every decoder is bounded: truncated or
foreign bytes raise ProtocolError, never IndexError.
"""

from __future__ import annotations

import base64
import struct
from dataclasses import dataclass

from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.quorum import METADATA_PARTITION, METADATA_TOPIC

CLIENT_ID = "kafkatop"


CLIENT_SOFTWARE = ("kafkatop", "0.1.0")  # ApiVersions v3+ rejects names outside [a-zA-Z0-9.-]


API_PRODUCE = 0


API_VERSIONS = 18


API_DESCRIBE_QUORUM = 55


API_VERSIONS_VERSION = 3  # the first flexible version (Kafka 2.4+)


DESCRIBE_QUORUM_VERSIONS = (0, 2)  # what this codec reads: v1 adds fetch times, v2 nodes and directory ids


# Kafka's error codes (org.apache.kafka.common.protocol.Errors) that these two requests can plausibly return.
ERROR_NAMES = {
    -1: "UNKNOWN_SERVER_ERROR",
    3: "UNKNOWN_TOPIC_OR_PARTITION",
    5: "LEADER_NOT_AVAILABLE",
    6: "NOT_LEADER_OR_FOLLOWER",
    7: "REQUEST_TIMED_OUT",
    8: "BROKER_NOT_AVAILABLE",
    13: "NETWORK_EXCEPTION",
    15: "COORDINATOR_NOT_AVAILABLE",
    31: "CLUSTER_AUTHORIZATION_FAILED",
    34: "ILLEGAL_SASL_STATE",
    35: "UNSUPPORTED_VERSION",
    41: "NOT_CONTROLLER",
    42: "INVALID_REQUEST",
    56: "KAFKA_STORAGE_ERROR",
    104: "INCONSISTENT_CLUSTER_ID",
}


def error_name(code: int) -> str:
    return ERROR_NAMES.get(code, f"error code {code}")


class ProtocolError(KafkatopError):
    """Bytes that do not decode as the expected Kafka response."""


# --- the codec: Kafka's primitive types -----------------------------------------------------------------------------
def encode_uvarint(value: int) -> bytes:
    """Unsigned LEB128, as Kafka's compact lengths and tagged-field headers use."""
    if value < 0:
        raise ValueError(f"uvarint of a negative number: {value}")
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def encode_compact_string(value: str | None) -> bytes:
    """Length + 1 as a uvarint (0 = null), then UTF-8."""
    if value is None:
        return b"\x00"
    data = value.encode("utf-8")
    return encode_uvarint(len(data) + 1) + data


def encode_nullable_string(value: str | None) -> bytes:
    """int16 length (-1 = null), then UTF-8: the request header's client id, even in flexible versions."""
    if value is None:
        return struct.pack(">h", -1)
    data = value.encode("utf-8")
    return struct.pack(">h", len(data)) + data


NO_TAGGED_FIELDS = b"\x00"


def format_uuid(raw: bytes) -> str | None:
    """Kafka's Uuid.toString(): URL-safe base64 without padding; the all-zero uuid (ZERO_UUID) is None."""
    if raw == bytes(16):
        return None
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


class Reader:
    """Reads Kafka's primitive types from one response; any overrun is a ProtocolError, never an IndexError."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise ProtocolError(f"response truncated: wanted {n} bytes at offset {self.pos} of {len(self.data)}")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def _unpack(self, fmt: str, size: int) -> int:
        value: int = struct.unpack(fmt, self.take(size))[0]
        return value

    def int16(self) -> int:
        return self._unpack(">h", 2)

    def uint16(self) -> int:
        return self._unpack(">H", 2)

    def int32(self) -> int:
        return self._unpack(">i", 4)

    def int64(self) -> int:
        return self._unpack(">q", 8)

    def uuid(self) -> bytes:
        return self.take(16)

    def uvarint(self) -> int:
        value = shift = 0
        while True:
            byte = self.take(1)[0]
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return value
            shift += 7
            if shift > 63:
                raise ProtocolError(f"varint longer than 10 bytes at offset {self.pos}")

    def compact_nullable_string(self) -> str | None:
        n = self.uvarint()
        if n == 0:
            return None
        return self.take(n - 1).decode("utf-8", errors="replace")

    def compact_string(self) -> str:
        value = self.compact_nullable_string()
        if value is None:
            raise ProtocolError(f"null where a string is required at offset {self.pos}")
        return value

    def compact_array_length(self) -> int:
        """Length + 1 as a uvarint; null (0) reads as empty, since no field read here is nullable."""
        return max(self.uvarint() - 1, 0)

    def array_length(self) -> int:
        """int32 length of a non-flexible array (-1 = null, read as empty)."""
        return max(self.int32(), 0)

    def skip_tagged_fields(self) -> None:
        """Skip a tagged-field section: none of the tags of these messages is needed, known or not."""
        for _ in range(self.uvarint()):
            self.uvarint()  # the tag
            self.take(self.uvarint())

    def end(self) -> None:
        if self.pos != len(self.data):
            raise ProtocolError(f"{len(self.data) - self.pos} unread bytes after the response")


# --- the two requests -----------------------------------------------------------------------------------------------
def encode_request(
    api_key: int, api_version: int, correlation_id: int, body: bytes, client_id: str = CLIENT_ID
) -> bytes:
    """Size-prefixed request with header v2 (flexible), which every request version sent here uses."""
    header = struct.pack(">hhi", api_key, api_version, correlation_id) + encode_nullable_string(client_id)
    frame = header + NO_TAGGED_FIELDS + body
    return struct.pack(">i", len(frame)) + frame


def api_versions_body() -> bytes:
    name, version = CLIENT_SOFTWARE
    return encode_compact_string(name) + encode_compact_string(version) + NO_TAGGED_FIELDS


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
class ApiVersions:
    correlation_id: int
    error_code: int
    versions: dict[int, tuple[int, int]]  # api key -> (min, max)


def decode_api_versions(payload: bytes) -> ApiVersions:
    """An ApiVersions response (after the size). Its header is v0 even for v3: the client cannot know yet."""
    r = Reader(payload)
    correlation_id = r.int32()
    error_code = r.int16()
    versions: dict[int, tuple[int, int]] = {}
    if error_code == 35:
        # UNSUPPORTED_VERSION comes as a v0 body, so an old broker can still say what it supports.
        for _ in range(r.array_length()):
            key, lo, hi = r.int16(), r.int16(), r.int16()
            versions[key] = (lo, hi)
        return ApiVersions(correlation_id, error_code, versions)
    for _ in range(r.compact_array_length()):
        key, lo, hi = r.int16(), r.int16(), r.int16()
        r.skip_tagged_fields()
        versions[key] = (lo, hi)
    r.int32()  # throttle time
    r.skip_tagged_fields()  # supported and finalized features
    r.end()
    return ApiVersions(correlation_id, error_code, versions)


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
    if not DESCRIBE_QUORUM_VERSIONS[0] <= version <= DESCRIBE_QUORUM_VERSIONS[1]:
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
