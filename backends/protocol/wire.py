"""The Kafka wire format, as much of it as kafkatop speaks itself where confluent-kafka has no API: the request and
response headers, Kafka's primitive types, Kafka's error names, and ApiVersions (v3), which every exchange starts
with. The messages themselves live beside their adapters (kraft/wire.py: DescribeQuorum; protocol/*.py: the rest).

Schemas: clients/src/main/resources/common/message/*.json in apache/kafka. Every decoder is bounded: truncated or
foreign bytes raise ProtocolError, never IndexError.
"""

from __future__ import annotations

import base64
import struct
from dataclasses import dataclass

from kafkatop.backends.model.errors import KafkatopError

CLIENT_ID = "kafkatop"


CLIENT_SOFTWARE = ("kafkatop", "0.1.0")  # ApiVersions v3+ rejects names outside [a-zA-Z0-9.-]


API_PRODUCE = 0


API_VERSIONS = 18


API_VERSIONS_VERSION = 3  # the first flexible version (Kafka 2.4+)


@dataclass(frozen=True, slots=True)
class Api:
    """A request kafkatop speaks: Kafka's API key and name, the versions its codec reads and writes, and the first
    flexible version (header v2, compact strings, tagged fields; None for an API with none)."""

    key: int
    name: str
    versions: tuple[int, int]
    flexible_from: int | None = 0

    def flexible(self, version: int) -> bool:
        return self.flexible_from is not None and version >= self.flexible_from

    def speaks(self, version: int) -> bool:
        return self.versions[0] <= version <= self.versions[1]


# Kafka's error codes (org.apache.kafka.common.protocol.Errors) that the requests kafkatop sends can return.
ERROR_NAMES = {
    -1: "UNKNOWN_SERVER_ERROR",
    3: "UNKNOWN_TOPIC_OR_PARTITION",
    5: "LEADER_NOT_AVAILABLE",
    6: "NOT_LEADER_OR_FOLLOWER",
    7: "REQUEST_TIMED_OUT",
    8: "BROKER_NOT_AVAILABLE",
    13: "NETWORK_EXCEPTION",
    14: "COORDINATOR_LOAD_IN_PROGRESS",
    15: "COORDINATOR_NOT_AVAILABLE",
    16: "NOT_COORDINATOR",
    25: "UNKNOWN_MEMBER_ID",
    29: "TOPIC_AUTHORIZATION_FAILED",
    30: "GROUP_AUTHORIZATION_FAILED",
    31: "CLUSTER_AUTHORIZATION_FAILED",
    34: "ILLEGAL_SASL_STATE",
    35: "UNSUPPORTED_VERSION",
    37: "INVALID_PARTITIONS",
    38: "INVALID_REPLICATION_FACTOR",
    39: "INVALID_REPLICA_ASSIGNMENT",
    40: "INVALID_CONFIG",
    41: "NOT_CONTROLLER",
    42: "INVALID_REQUEST",
    44: "POLICY_VIOLATION",
    56: "KAFKA_STORAGE_ERROR",
    58: "SASL_AUTHENTICATION_FAILED",
    60: "REASSIGNMENT_IN_PROGRESS",
    68: "NON_EMPTY_GROUP",
    69: "GROUP_ID_NOT_FOUND",
    73: "TOPIC_DELETION_DISABLED",
    85: "NO_REASSIGNMENT_IN_PROGRESS",
    86: "GROUP_SUBSCRIBED_TO_TOPIC",
    89: "THROTTLING_QUOTA_EXCEEDED",
    95: "INVALID_UPDATE_VERSION",
    96: "FEATURE_UPDATE_FAILED",
    100: "UNKNOWN_TOPIC_ID",
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


def encode_string(value: str) -> bytes:
    """int16 length, then UTF-8: a string of a non-flexible version."""
    return encode_nullable_string(value)


def encode_compact_array(items: list[bytes]) -> bytes:
    """Length + 1 as a uvarint, then the encoded items."""
    return encode_uvarint(len(items) + 1) + b"".join(items)


def encode_array(items: list[bytes]) -> bytes:
    """int32 length, then the encoded items: an array of a non-flexible version."""
    return struct.pack(">i", len(items)) + b"".join(items)


def int16(value: int) -> bytes:
    return struct.pack(">h", value)


def int32(value: int) -> bytes:
    return struct.pack(">i", value)


def int64(value: int) -> bytes:
    return struct.pack(">q", value)


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

    def int8(self) -> int:
        return self._unpack(">b", 1)

    def boolean(self) -> bool:
        return self.int8() != 0

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
        value, self.pos = uvarint_at(self.data, self.pos)
        return value

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

    def nullable_string(self) -> str | None:
        """int16 length (-1 = null), then UTF-8: the strings of non-flexible versions."""
        n = self.int16()
        if n < 0:
            return None
        return self.take(n).decode("utf-8", errors="replace")

    def string(self) -> str:
        value = self.nullable_string()
        if value is None:
            raise ProtocolError(f"null where a string is required at offset {self.pos}")
        return value

    def compact_array_length(self) -> int:
        """Length + 1 as a uvarint; null (0) reads as empty, since no field read here is nullable."""
        return self._count(self.uvarint() - 1)

    def compact_nullable_array_length(self) -> int | None:
        """Length + 1 as a uvarint; None for a null array (0)."""
        n = self.uvarint()
        return None if n == 0 else self._count(n - 1)

    def array_length(self) -> int:
        """int32 length of a non-flexible array (-1 = null, read as empty)."""
        return self._count(self.int32())

    def _count(self, n: int) -> int:
        """A count of items, each at least a byte: more than the bytes left is a lie, refused before any loop."""
        if n > len(self.data) - self.pos:
            raise ProtocolError(f"{n} items announced at offset {self.pos}, in {len(self.data) - self.pos} bytes")
        return max(n, 0)

    def tagged_field_count(self) -> int:
        """The count that starts a tagged-field section (a plain uvarint, not a compact array's N + 1)."""
        return self._count(self.uvarint())

    def skip_tagged_fields(self) -> None:
        """Skip a tagged-field section: none of the tags of these messages is needed, known or not."""
        n = self.uvarint()
        if n:
            for _ in range(self._count(n)):
                self.uvarint()  # the tag
                self.take(self.uvarint())

    def end(self) -> None:
        if self.pos != len(self.data):
            raise ProtocolError(f"{len(self.data) - self.pos} unread bytes after the response")


UVARINT_MAX_BYTES = 5  # Kafka reads unsigned varints as 32-bit ints (ByteUtils.readUnsignedVarint): 5 bytes at most


def uvarint_at(data: bytes, pos: int) -> tuple[int, int]:
    """A uvarint at `pos` and the position after it, as Kafka reads it: at most 5 bytes and 32 bits, so no length
    read from the wire is ever too large for an index. For decoders that read large answers straight from the
    bytes, and for Reader.uvarint."""
    start = pos
    try:
        byte = data[pos]
        if byte < 0x80:  # one byte: most of them
            return byte, pos + 1
        value, shift = byte & 0x7F, 7
        while True:
            pos += 1
            byte = data[pos]
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                break
            shift += 7
            if shift >= 7 * UVARINT_MAX_BYTES:
                raise ProtocolError(f"varint longer than {UVARINT_MAX_BYTES} bytes at offset {start}")
    except IndexError:
        raise ProtocolError(f"response truncated: a varint at offset {start} past byte {len(data)}") from None
    if value > 0xFFFF_FFFF:
        raise ProtocolError(f"varint over 32 bits at offset {start}")
    return value, pos + 1


def compact_array_length_at(data: bytes, pos: int) -> tuple[int, int]:
    """A compact array's length at `pos` (null reads as empty, as Reader.compact_array_length) and the position
    after it; a length larger than the bytes left (each item takes one at least) is a ProtocolError."""
    n, pos = uvarint_at(data, pos)
    if n - 1 > len(data) - pos:
        raise ProtocolError(f"{n - 1} items announced at offset {pos}, in {len(data) - pos} bytes")
    return max(n - 1, 0), pos


def compact_string_at(data: bytes, pos: int) -> tuple[str, int]:
    """A non-null compact string at `pos` and the position after it (as Reader.compact_string)."""
    size, pos = uvarint_at(data, pos)
    if size == 0:
        raise ProtocolError(f"null where a string is required at offset {pos}")
    end = pos + size - 1
    if end > len(data):
        raise ProtocolError(f"response truncated: a string past byte {len(data)}")
    return data[pos:end].decode("utf-8", errors="replace"), end


def skip_tags_at(data: bytes, pos: int) -> int:
    """The position after a tagged-field section at `pos` (as Reader.skip_tagged_fields)."""
    count, pos = uvarint_at(data, pos)
    for _ in range(count):  # each tag takes two bytes at least, or uvarint_at raises: bounded by the data
        _, pos = uvarint_at(data, pos)  # the tag
        size, pos = uvarint_at(data, pos)
        pos += size
        if pos > len(data):
            raise ProtocolError(f"response truncated: a tagged field past byte {len(data)}")
    return pos


# --- the header and ApiVersions ----------------------------------------------------------------------------------
def encode_request(
    api_key: int,
    api_version: int,
    correlation_id: int,
    body: bytes,
    client_id: str = CLIENT_ID,
    *,
    flexible: bool = True,
) -> bytes:
    """Size-prefixed request: header v2 for a flexible version of the API, v1 for an older one."""
    header = struct.pack(">hhi", api_key, api_version, correlation_id) + encode_nullable_string(client_id)
    frame = header + (NO_TAGGED_FIELDS if flexible else b"") + body
    return struct.pack(">i", len(frame)) + frame


def response_reader(payload: bytes, *, flexible: bool = True) -> Reader:
    """A Reader placed after the response header (v1 for a flexible version: the correlation id and tagged
    fields; v0: the correlation id only)."""
    r = Reader(payload)
    r.int32()  # the correlation id, checked by the connection
    if flexible:
        r.skip_tagged_fields()
    return r
