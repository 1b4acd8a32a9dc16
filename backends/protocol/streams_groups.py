"""Streams groups (KIP-1071, Kafka 4.1 early access) on Kafka's wire format: StreamsGroupDescribe (API key 89, v0),
what kafka-streams-groups.sh sends to describe a group; confluent-kafka has no streams-group request. They are listed
by ListGroups v5's type filter (protocol/consumer_groups.py), their committed offsets read with OffsetFetch
(protocol/groups.py) and deleted with DeleteGroups (protocol/share_groups.py), as consumer and share groups are.
StreamsGroupDescribe is a flexible version (header v2, response header v1), many groups per request, all of one
coordinator.

Schema: clients/src/main/resources/common/message/StreamsGroupDescribe{Request,Response}.json in apache/kafka 4.1.
The decoder is bounded: truncated or foreign bytes raise ProtocolError, never IndexError.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kafkatop.backends.protocol.wire import (
    NO_TAGGED_FIELDS,
    Api,
    Reader,
    encode_compact_array,
    encode_compact_string,
    response_reader,
)

STREAMS_GROUP_DESCRIBE = Api(89, "StreamsGroupDescribe", (0, 0))  # Kafka 4.1: "latestVersionUnstable"
STREAMS_TYPE = "streams"


@dataclass(frozen=True, slots=True)
class Subtopology:
    subtopology_id: str
    source_topics: tuple[str, ...]
    repartition_sink_topics: tuple[str, ...]
    changelog_topics: tuple[str, ...]
    repartition_source_topics: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Tasks:
    """One kind of tasks of a member (active, standby or warm-up): (subtopology id, its partitions) in Kafka's order."""

    tasks: tuple[tuple[str, tuple[int, ...]], ...]


@dataclass(frozen=True, slots=True)
class StreamsAssignment:
    active: Tasks
    standby: Tasks
    warmup: Tasks


@dataclass(frozen=True, slots=True)
class DescribedStreamsMember:
    member_id: str
    member_epoch: int
    instance_id: str | None
    rack_id: str | None
    client_id: str
    client_host: str
    topology_epoch: int
    process_id: str
    assignment: StreamsAssignment
    target_assignment: StreamsAssignment
    is_classic: bool


@dataclass(frozen=True, slots=True)
class DescribedStreamsGroup:
    group_id: str
    error_code: int  # GROUP_ID_NOT_FOUND (69) for a group the coordinator does not know, …
    error_message: str | None
    state: str  # Empty, NotReady, Assigning, Reconciling, Stable, Dead
    group_epoch: int
    assignment_epoch: int
    topology_epoch: int | None  # None: no topology (an error, or a group not yet initialized)
    subtopologies: tuple[Subtopology, ...] | None  # None: uninitialized, or source topics missing
    members: tuple[DescribedStreamsMember, ...]


def streams_group_describe_body(group_ids: Sequence[str]) -> bytes:
    """v0: GroupIds, IncludeAuthorizedOperations false."""
    return encode_compact_array([encode_compact_string(g) for g in group_ids]) + b"\x00" + NO_TAGGED_FIELDS


def _strings(r: Reader) -> tuple[str, ...]:
    return tuple(r.compact_string() for _ in range(r.compact_array_length()))


def _skip_key_values(r: Reader) -> None:
    for _ in range(r.compact_array_length()):
        r.compact_string()
        r.compact_string()
        r.skip_tagged_fields()


def _topic_infos(r: Reader) -> tuple[str, ...]:
    """TopicInfo [{Name, Partitions, ReplicationFactor, TopicConfigs}]: the names."""
    names = []
    for _ in range(r.compact_array_length()):
        names.append(r.compact_string())
        r.int32()
        r.int16()
        _skip_key_values(r)
        r.skip_tagged_fields()
    return tuple(names)


def _subtopology(r: Reader) -> Subtopology:
    sid, sources, sinks = r.compact_string(), _strings(r), _strings(r)
    changelogs, repartition_sources = _topic_infos(r), _topic_infos(r)
    r.skip_tagged_fields()
    return Subtopology(sid, sources, sinks, changelogs, repartition_sources)


def _topology(r: Reader) -> tuple[int, tuple[Subtopology, ...] | None] | None:
    """The nullable Topology struct (a signed byte: -1 null, 1 present): its epoch and subtopologies."""
    if r.int8() < 0:
        return None
    epoch = r.int32()
    count = r.compact_nullable_array_length()
    subtopologies = None if count is None else tuple(_subtopology(r) for _ in range(count))
    r.skip_tagged_fields()
    return epoch, subtopologies


def _tasks(r: Reader) -> Tasks:
    out = []
    for _ in range(r.compact_array_length()):
        sid = r.compact_string()
        partitions = tuple(r.int32() for _ in range(r.compact_array_length()))
        r.skip_tagged_fields()
        out.append((sid, partitions))
    return Tasks(tuple(out))


def _assignment(r: Reader) -> StreamsAssignment:
    active, standby, warmup = _tasks(r), _tasks(r), _tasks(r)
    r.skip_tagged_fields()
    return StreamsAssignment(active, standby, warmup)


def _skip_task_offsets(r: Reader) -> None:
    for _ in range(r.compact_array_length()):
        r.compact_string()
        r.int32()
        r.int64()
        r.skip_tagged_fields()


def _member(r: Reader) -> DescribedStreamsMember:
    member_id, epoch = r.compact_string(), r.int32()
    instance, rack = r.compact_nullable_string(), r.compact_nullable_string()
    client_id, host, topology_epoch, process_id = r.compact_string(), r.compact_string(), r.int32(), r.compact_string()
    if r.int8() >= 0:  # UserEndpoint (nullable): Host, Port (uint16)
        r.compact_string()
        r.int16()
        r.skip_tagged_fields()
    _skip_key_values(r)  # ClientTags
    _skip_task_offsets(r)  # TaskOffsets
    _skip_task_offsets(r)  # TaskEndOffsets
    assignment, target = _assignment(r), _assignment(r)
    is_classic = r.int8() != 0
    r.skip_tagged_fields()
    return DescribedStreamsMember(
        member_id, epoch, instance, rack, client_id, host, topology_epoch, process_id, assignment, target, is_classic
    )


def decode_streams_group_describe(payload: bytes) -> list[DescribedStreamsGroup]:
    """A v0 response (after the size)."""
    r = response_reader(payload)
    r.int32()  # throttle time
    groups = []
    for _ in range(r.compact_array_length()):
        code, message, gid = r.int16(), r.compact_nullable_string(), r.compact_string()
        state, group_epoch, assignment_epoch = r.compact_string(), r.int32(), r.int32()
        topology = _topology(r)
        members = tuple(_member(r) for _ in range(r.compact_array_length()))
        r.int32()  # authorized operations (not asked for)
        r.skip_tagged_fields()
        epoch, subtopologies = topology if topology is not None else (None, None)
        groups.append(
            DescribedStreamsGroup(gid, code, message, state, group_epoch, assignment_epoch, epoch, subtopologies,
                                  members)
        )  # fmt: skip
    r.skip_tagged_fields()
    r.end()
    return groups
