"""Share groups (KIP-932, Kafka 4.1+ "queues") on Kafka's wire format: ShareGroupDescribe (API key 77, v1),
DescribeShareGroupOffsets (90, v0), DeleteShareGroupOffsets (92, v0) and DeleteGroups (42, v2), which deletes a share
group as it deletes a consumer group; they are listed by ListGroups v5's type filter (protocol/consumer_groups.py).
What kafka-share-groups.sh sends; confluent-kafka has none of the share-group requests. All of them are flexible
versions (header v2, response header v1). ShareGroupDescribe, DescribeShareGroupOffsets and DeleteGroups take many
groups per request, all of one coordinator (FindCoordinator: protocol/offset_delete.py; a share group's coordinator is
the group coordinator).

Schemas: clients/src/main/resources/common/message/{ShareGroupDescribe,DescribeShareGroupOffsets,
DeleteShareGroupOffsets,DeleteGroups}{Request,Response}.json in apache/kafka (4.1). Every decoder is bounded:
truncated or foreign bytes raise ProtocolError, never IndexError.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kafkatop.backends.protocol.consumer_groups import read_assignment, read_described_groups
from kafkatop.backends.protocol.wire import (
    NO_TAGGED_FIELDS,
    Api,
    Reader,
    encode_compact_array,
    encode_compact_string,
    format_uuid,
    response_reader,
)

DELETE_GROUPS = Api(42, "DeleteGroups", (2, 2), flexible_from=2)  # Kafka 2.4+
# v1: Kafka 4.1 (v0 was the 4.0 preview's, removed)
SHARE_GROUP_DESCRIBE = Api(77, "ShareGroupDescribe", (1, 1))
DESCRIBE_SHARE_GROUP_OFFSETS = Api(90, "DescribeShareGroupOffsets", (0, 0))
DELETE_SHARE_GROUP_OFFSETS = Api(92, "DeleteShareGroupOffsets", (0, 0))
SHARE_TYPE = "share"


def _strings(values: Sequence[str]) -> bytes:
    return encode_compact_array([encode_compact_string(v) for v in values])


def _read_strings(r: Reader) -> tuple[str, ...]:
    return tuple(r.compact_string() for _ in range(r.compact_array_length()))


# --- ShareGroupDescribe v1 --------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class DescribedShareMember:
    member_id: str
    rack_id: str | None
    member_epoch: int
    client_id: str
    client_host: str
    subscribed_topics: tuple[str, ...]
    assignment: tuple[tuple[str, int], ...]  # (topic, partition), sorted


@dataclass(frozen=True, slots=True)
class DescribedShareGroup:
    group_id: str
    error_code: int  # GROUP_ID_NOT_FOUND (69) for a group the coordinator does not know, …
    error_message: str | None
    state: str  # Empty, Stable, Dead, Unknown: the coordinator's name ("" with an error)
    group_epoch: int
    assignment_epoch: int
    assignor: str
    members: tuple[DescribedShareMember, ...]


def share_group_describe_body(group_ids: Sequence[str]) -> bytes:
    """v1: GroupIds, IncludeAuthorizedOperations false."""
    return _strings(group_ids) + b"\x00" + NO_TAGGED_FIELDS


def _member(r: Reader) -> DescribedShareMember:
    member_id, rack = r.compact_string(), r.compact_nullable_string()
    epoch, client_id, host = r.int32(), r.compact_string(), r.compact_string()
    subscribed = _read_strings(r)
    assignment = read_assignment(r)
    r.skip_tagged_fields()
    return DescribedShareMember(member_id, rack, epoch, client_id, host, subscribed, assignment)


def decode_share_group_describe(payload: bytes) -> list[DescribedShareGroup]:
    """A v1 response (after the size)."""
    return read_described_groups(response_reader(payload), _member, DescribedShareGroup)


# --- DescribeShareGroupOffsets v0 -------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ShareOffset:
    """One share-partition: where its share-partition start offset (SPSO) stands."""

    topic: str
    topic_id: str | None
    partition: int
    start_offset: int  # -1: no state yet (Kafka's tool prints "-")
    leader_epoch: int  # -1: unknown
    error_code: int
    error_message: str | None


@dataclass(frozen=True, slots=True)
class GroupShareOffsets:
    group_id: str
    error_code: int  # the group's: GROUP_ID_NOT_FOUND, NOT_COORDINATOR, …
    error_message: str | None
    offsets: tuple[ShareOffset, ...]


def describe_share_group_offsets_body(group_ids: Sequence[str]) -> bytes:
    """v0: each group with Topics null: every topic-partition it has state for."""
    return encode_compact_array([encode_compact_string(g) + b"\x00" + NO_TAGGED_FIELDS for g in group_ids]) + (
        NO_TAGGED_FIELDS
    )


def decode_describe_share_group_offsets(payload: bytes) -> list[GroupShareOffsets]:
    """A v0 response (after the size)."""
    r = response_reader(payload)
    r.int32()  # throttle time
    groups = []
    for _ in range(r.compact_array_length()):
        gid = r.compact_string()
        offsets: list[ShareOffset] = []
        for _ in range(r.compact_array_length()):
            topic, topic_id = r.compact_string(), format_uuid(r.uuid())
            for _ in range(r.compact_array_length()):
                partition, start, epoch = r.int32(), r.int64(), r.int32()
                code, message = r.int16(), r.compact_nullable_string()
                r.skip_tagged_fields()
                offsets.append(ShareOffset(topic, topic_id, partition, start, epoch, code, message))
            r.skip_tagged_fields()
        code, message = r.int16(), r.compact_nullable_string()
        r.skip_tagged_fields()
        groups.append(GroupShareOffsets(gid, code, message, tuple(offsets)))
    r.skip_tagged_fields()
    r.end()
    return groups


# --- DeleteShareGroupOffsets v0 ---------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TopicOutcome:
    topic: str
    error_code: int  # UNKNOWN_TOPIC_OR_PARTITION for a topic the group has no state for, …
    error_message: str | None


@dataclass(frozen=True, slots=True)
class DeletedShareOffsets:
    error_code: int  # the whole request's: GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, NOT_COORDINATOR, …
    error_message: str | None
    topics: tuple[TopicOutcome, ...]


def delete_share_group_offsets_body(group_id: str, topics: Sequence[str]) -> bytes:
    """v0: GroupId, Topics [{TopicName}]: a share group's state of whole topics."""
    items = [encode_compact_string(t) + NO_TAGGED_FIELDS for t in topics]
    return encode_compact_string(group_id) + encode_compact_array(items) + NO_TAGGED_FIELDS


def decode_delete_share_group_offsets(payload: bytes) -> DeletedShareOffsets:
    """A v0 response (after the size)."""
    r = response_reader(payload)
    r.int32()  # throttle time
    code, message = r.int16(), r.compact_nullable_string()
    topics = []
    for _ in range(r.compact_array_length()):
        topic = r.compact_string()
        r.uuid()
        t_code, t_message = r.int16(), r.compact_nullable_string()
        r.skip_tagged_fields()
        topics.append(TopicOutcome(topic, t_code, t_message))
    r.skip_tagged_fields()
    r.end()
    return DeletedShareOffsets(code, message, tuple(topics))


# --- DeleteGroups v2 --------------------------------------------------------------------------------------------------
def delete_groups_body(group_ids: Sequence[str]) -> bytes:
    """v2: GroupsNames."""
    return _strings(group_ids) + NO_TAGGED_FIELDS


def decode_delete_groups(payload: bytes) -> list[tuple[str, int]]:
    """A v2 response (after the size): (group, error code) of each group asked."""
    r = response_reader(payload)
    r.int32()  # throttle time
    out = []
    for _ in range(r.compact_array_length()):
        gid, code = r.compact_string(), r.int16()
        r.skip_tagged_fields()
        out.append((gid, code))
    r.skip_tagged_fields()
    r.end()
    return out
