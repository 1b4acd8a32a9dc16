"""DescribeLogDirs (API key 35), v1–v4 (v2+ flexible; v3 adds a top-level error code, v4 each directory's total and
usable bytes): a broker's log directories and the replicas in each, as `kafka-log-dirs.sh --describe` asks every
broker. confluent-kafka has no API for it, so kafkatop speaks it itself, one request per broker (each broker answers
for its own directories only).

Schemas: clients/src/main/resources/common/message/DescribeLogDirs{Request,Response}.json in apache/kafka. Decoders
are bounded: truncated or foreign bytes raise ProtocolError.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from kafkatop.backends.model.log_dirs import LogDir, ReplicaLog
from kafkatop.backends.protocol.wire import NO_TAGGED_FIELDS, Api, Reader, encode_uvarint, int32, response_reader

DESCRIBE_LOG_DIRS = Api(35, "DescribeLogDirs", (1, 4), flexible_from=2)
ERROR_CODE_FROM = 3  # the answer's top-level error code
BYTES_FROM = 4  # each directory's TotalBytes and UsableBytes (KIP-827)
# A replica's PartitionIndex, PartitionSize, OffsetLag and IsFutureKey, read at once: a broker's answer holds every
# replica it has (10,000 partitions: a poll of the live view's `log_dirs` source decodes them every 30 s).
_REPLICA = struct.Struct(">iqqb")
# The same in a flexible answer with no tagged field (a 0 after each): a topic's replicas unpacked in one call.
_FLEXIBLE_REPLICA = struct.Struct(">iqqbB")


@dataclass(frozen=True, slots=True)
class LogDirsAnswer:
    error_code: int  # 0 before v3
    log_dirs: tuple[LogDir, ...]


def request_body(version: int) -> bytes:
    """Every topic's partitions: Topics null."""
    if DESCRIBE_LOG_DIRS.flexible(version):
        return encode_uvarint(0) + NO_TAGGED_FIELDS
    return int32(-1)


def decode_response(payload: bytes, version: int) -> LogDirsAnswer:
    """A DescribeLogDirs response (after the size) of `version`."""
    flexible = DESCRIBE_LOG_DIRS.flexible(version)
    r = response_reader(payload, flexible=flexible)
    count = r.compact_array_length if flexible else r.array_length
    r.int32()  # throttle time
    error_code = r.int16() if version >= ERROR_CODE_FROM else 0
    dirs = tuple(_log_dir(r, version, flexible) for _ in range(count()))
    if flexible:
        r.skip_tagged_fields()
    r.end()
    return LogDirsAnswer(error_code, dirs)


def _log_dir(r: Reader, version: int, flexible: bool) -> LogDir:
    read_string = r.compact_string if flexible else r.string
    read_count = r.compact_array_length if flexible else r.array_length
    error_code = r.int16()
    path = read_string()
    replicas: list[ReplicaLog] = []
    for _ in range(read_count()):
        topic = read_string()
        count = read_count()
        if flexible and _untagged(r, count):  # nearly always: no replica has a tagged field
            block = r.take(count * _FLEXIBLE_REPLICA.size)
            replicas += [ReplicaLog(topic, partition, size, lag, future != 0)
                         for partition, size, lag, future, _ in _FLEXIBLE_REPLICA.iter_unpack(block)]  # fmt: skip
        else:
            for _ in range(count):
                partition, size, lag, future = _REPLICA.unpack(r.take(_REPLICA.size))
                if flexible:
                    r.skip_tagged_fields()
                replicas.append(ReplicaLog(topic, partition, size, lag, future != 0))
        if flexible:
            r.skip_tagged_fields()
    total = usable = None
    if version >= BYTES_FROM:
        total, usable = r.int64(), r.int64()
        total, usable = (None if total < 0 else total), (None if usable < 0 else usable)
    if flexible:
        r.skip_tagged_fields()
    return LogDir(path, error_code, tuple(replicas), total, usable)


def _untagged(r: Reader, count: int) -> bool:
    """Whether the next `count` flexible replicas have no tagged field: each ends in a 0 where its tags begin."""
    size = _FLEXIBLE_REPLICA.size
    end = r.pos + count * size
    return end <= len(r.data) and r.data[r.pos + size - 1 : end : size].count(0) == count
