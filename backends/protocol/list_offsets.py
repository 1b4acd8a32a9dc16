"""ListOffsets (API key 2, v1–v10) on Kafka's wire format (protocol/wire.py): the request body and the decoder.

kafkatop sends it for what no client library asks: the log end offset of a replica that is not the leader. A broker
answers a follower's ListOffsets only for ReplicaId -2 (Kafka's DEBUGGING_REPLICA_ID: "read as a replica would,
without being one"), and then with its own log end offset for LATEST rather than the high watermark, because the
isolation level applies to consumers (ReplicaId -1) only (ReplicaManager.fetchOffset). That is what an unclean
leader election keeps of a partition: everything above it is lost.

Schemas: clients/src/main/resources/common/message/ListOffsets*.json in apache/kafka (v0 was removed in Kafka 4.0;
v6 is the first flexible version; v10 appends TimeoutMs). Every decoder is bounded: truncated or foreign bytes raise
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
    encode_array,
    encode_compact_array,
    encode_compact_string,
    encode_string,
    int32,
    int64,
    response_reader,
    skip_tags_at,
)

LIST_OFFSETS = Api(2, "ListOffsets", (1, 10), flexible_from=6)  # what this codec speaks


DEBUGGING_REPLICA_ID = -2  # "a replica that is not one": a follower answers it, with its log end offset


LATEST_TIMESTAMP = -1


EARLIEST_TIMESTAMP = -2


def list_offsets_body(
    version: int,
    partitions: Mapping[str, Sequence[int]],
    *,
    timestamp: int = LATEST_TIMESTAMP,
    replica_id: int = DEBUGGING_REPLICA_ID,
    timeout_ms: int = 5_000,
) -> bytes:
    """ReplicaId, IsolationLevel (v2+), Topics: [{Name, Partitions: [{PartitionIndex, CurrentLeaderEpoch (v4+),
    Timestamp}]}], TimeoutMs (v10+)."""
    if not LIST_OFFSETS.speaks(version):
        raise ProtocolError(f"ListOffsets v{version} is not one this codec speaks")
    flex = LIST_OFFSETS.flexible(version)
    topics = []
    for name, ids in partitions.items():
        parts = []
        for pid in ids:
            part = int32(pid) + (int32(-1) if version >= 4 else b"") + int64(timestamp)
            parts.append(part + (NO_TAGGED_FIELDS if flex else b""))
        if flex:
            topics.append(encode_compact_string(name) + encode_compact_array(parts) + NO_TAGGED_FIELDS)
        else:
            topics.append(encode_string(name) + encode_array(parts))
    body = int32(replica_id)
    if version >= 2:
        body += b"\x00"  # READ_UNCOMMITTED; a broker applies it to consumers only
    body += encode_compact_array(topics) if flex else encode_array(topics)
    if version >= 10:
        body += int32(timeout_ms)
    return body + (NO_TAGGED_FIELDS if flex else b"")


class PartitionOffset(NamedTuple):
    """One partition of a ListOffsets answer (a tuple: 10,000 of them per request at 10,000 partitions)."""

    topic: str
    partition: int
    error_code: int
    timestamp: int
    offset: int
    leader_epoch: int  # v4+; -1 unknown


@dataclass(frozen=True, slots=True)
class ListOffsets:
    version: int
    correlation_id: int
    throttle_time_ms: int
    partitions: tuple[PartitionOffset, ...]

    def offset(self, topic: str, partition: int) -> PartitionOffset | None:
        return next((p for p in self.partitions if (p.topic, p.partition) == (topic, partition)), None)


def decode_list_offsets(payload: bytes, version: int) -> ListOffsets:
    """A ListOffsets response (after the size): header v1 from v6 on (v0 before), then the body of `version`."""
    if not LIST_OFFSETS.speaks(version):
        raise ProtocolError(f"ListOffsets v{version} is not one this codec reads")
    flex = LIST_OFFSETS.flexible(version)
    correlation_id = Reader(payload).int32()
    r = response_reader(payload, flexible=flex)
    throttle = r.int32() if version >= 2 else 0
    if flex:
        return ListOffsets(version, correlation_id, throttle, _flexible_partitions(r))
    partitions = []
    for _ in range(_length(r, flex)):
        topic = r.compact_string() if flex else r.string()
        for _ in range(_length(r, flex)):
            index, error_code = r.int32(), r.int16()
            timestamp, offset = r.int64(), r.int64()
            epoch = r.int32() if version >= 4 else -1
            if flex:
                r.skip_tagged_fields()
            partitions.append(PartitionOffset(topic, index, error_code, timestamp, offset, epoch))
        if flex:
            r.skip_tagged_fields()
    if flex:
        r.skip_tagged_fields()
    r.end()
    return ListOffsets(version, correlation_id, throttle, tuple(partitions))


_PARTITION = struct.Struct(">ihqqi")  # PartitionIndex, ErrorCode, Timestamp, Offset, LeaderEpoch (v4+; v6+ here)


def _flexible_partitions(r: Reader) -> tuple[PartitionOffset, ...]:
    """The Topics of a v6+ answer, read straight from the bytes (10,000 partitions per answer at 10,000 partitions),
    as bounded as Reader: an overrun is a ProtocolError."""
    data, pos = r.data, r.pos
    out: list[PartitionOffset] = []
    try:
        topics, pos = compact_array_length_at(data, pos)
        for _ in range(topics):
            topic, pos = compact_string_at(data, pos)
            count, pos = compact_array_length_at(data, pos)
            for _ in range(count):
                index, error_code, timestamp, offset, epoch = _PARTITION.unpack_from(data, pos)
                pos = pos + 27 if data[pos + 26] == 0 else skip_tags_at(data, pos + 26)
                out.append(PartitionOffset(topic, index, error_code, timestamp, offset, epoch))
            pos = skip_tags_at(data, pos)
        pos = skip_tags_at(data, pos)
    except (IndexError, OverflowError, struct.error):  # OverflowError: an offset past ssize_t, on 32-bit builds
        raise ProtocolError(f"response truncated: ListOffsets partitions past byte {len(data)}") from None
    if pos != len(data):
        raise ProtocolError(f"{len(data) - pos} bytes unread or missing after the ListOffsets response")
    return tuple(out)


def _length(r: Reader, flex: bool) -> int:
    return r.compact_array_length() if flex else r.array_length()
