"""ConsumerGroupDescribe (API key 69, v0–v1; Kafka 3.7+, KIP-848) and ListGroups (16, v3–v5) on Kafka's wire format.

A KIP-848 group (group type `consumer`) is described by ConsumerGroupDescribe, not DescribeGroups: many groups per
request, with the group's epoch and assignment epoch, and each member's epoch, its current assignment and the target
the coordinator computed for it. kafkatop asks each coordinator once per poll for all its such groups, where one
librdkafka call per group cost 1,000 calls a poll at 1,000 groups. ListGroups v5 says each group's type (classic,
consumer, share, streams), as kafka-groups.sh --list prints it.

Schemas: clients/src/main/resources/common/message/{ConsumerGroupDescribe,ListGroups}{Request,Response}.json in
apache/kafka 4.1. Every decoder is bounded: truncated or foreign bytes raise ProtocolError, never IndexError.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from kafkatop.backends.protocol.wire import (
    NO_TAGGED_FIELDS,
    Api,
    Reader,
    encode_compact_array,
    encode_compact_string,
)

# v1 adds each member's type (KIP-1099): classic or consumer
CONSUMER_GROUP_DESCRIBE = Api(69, "ConsumerGroupDescribe", (0, 1))
LIST_GROUPS = Api(16, "ListGroups", (3, 5), flexible_from=3)  # v4: GroupState; v5: GroupType (KIP-848)
LIST_GROUPS_BY_TYPE = Api(16, "ListGroups", (5, 5), flexible_from=3)  # the types filter: share groups (Kafka 4.0+)
MEMBER_TYPES = {0: "classic", 1: "consumer"}  # KIP-1099: a classic member of a consumer group, during a migration


@dataclass(frozen=True, slots=True)
class ConsumerGroupMember:
    member_id: str
    instance_id: str | None
    rack_id: str | None
    member_epoch: int
    client_id: str
    client_host: str
    subscribed_topics: tuple[str, ...]
    subscribed_regex: str | None
    assignment: tuple[tuple[str, int], ...]  # (topic, partition), sorted: what the member owns now
    target_assignment: tuple[tuple[str, int], ...]  # what the coordinator wants it to own
    member_type: str | None  # "classic" or "consumer" (v1); None before v1


@dataclass(frozen=True, slots=True)
class ConsumerGroupDescription:
    group_id: str
    error_code: int
    error_message: str | None
    state: str  # Empty, Assigning, Reconciling, Stable, Dead
    group_epoch: int
    assignment_epoch: int
    assignor: str
    members: tuple[ConsumerGroupMember, ...]


def consumer_group_describe_body(group_ids: Sequence[str]) -> bytes:
    """v0 and v1 alike: the groups, IncludeAuthorizedOperations false."""
    return encode_compact_array([encode_compact_string(g) for g in group_ids]) + b"\x00" + NO_TAGGED_FIELDS


def read_assignment(r: Reader) -> tuple[tuple[str, int], ...]:
    """KIP-848's Assignment struct, which ShareGroupDescribe sends too: TopicPartitions [{TopicId, TopicName,
    Partitions}], as sorted (topic, partition) pairs."""
    out: list[tuple[str, int]] = []
    for _ in range(r.compact_array_length()):
        r.uuid()  # the topic id: its name follows
        topic = r.compact_string()
        out.extend((topic, r.int32()) for _ in range(r.compact_array_length()))
        r.skip_tagged_fields()
    r.skip_tagged_fields()
    return tuple(sorted(out))


def _member(r: Reader, version: int) -> ConsumerGroupMember:
    member_id, instance, rack = r.compact_string(), r.compact_nullable_string(), r.compact_nullable_string()
    epoch, client_id, host = r.int32(), r.compact_string(), r.compact_string()
    topics = tuple(r.compact_string() for _ in range(r.compact_array_length()))
    regex = r.compact_nullable_string()
    assignment, target = read_assignment(r), read_assignment(r)
    member_type = MEMBER_TYPES.get(r.int8(), None) if version >= 1 else None
    r.skip_tagged_fields()
    return ConsumerGroupMember(
        member_id, instance, rack, epoch, client_id, host, topics, regex, assignment, target, member_type
    )


def decode_consumer_group_describe(r: Reader, version: int) -> list[ConsumerGroupDescription]:
    """After the response header (v1, flexible)."""
    return read_described_groups(r, lambda r: _member(r, version), ConsumerGroupDescription)


Member = TypeVar("Member")
Group = TypeVar("Group")


def read_described_groups(
    r: Reader,
    member: Callable[[Reader], Member],
    group: Callable[[str, int, str | None, str, int, int, str, tuple[Member, ...]], Group],
) -> list[Group]:
    """The body of a ConsumerGroupDescribe or ShareGroupDescribe response, to its end: each group's head and
    members, made by `group(group id, error code, error message, state, group epoch, assignment epoch, assignor,
    members)`; each member read by `member`."""
    r.int32()  # throttle time
    groups = []
    for _ in range(r.compact_array_length()):
        code, message, gid = r.int16(), r.compact_nullable_string(), r.compact_string()
        state, group_epoch, assignment_epoch, assignor = r.compact_string(), r.int32(), r.int32(), r.compact_string()
        members = tuple(member(r) for _ in range(r.compact_array_length()))
        r.int32()  # authorized operations (not asked for)
        r.skip_tagged_fields()
        groups.append(group(gid, code, message, state, group_epoch, assignment_epoch, assignor, members))
    r.skip_tagged_fields()
    r.end()
    return groups


@dataclass(frozen=True, slots=True)
class ListedGroup:
    group_id: str
    protocol_type: str  # "consumer", "connect", "share", "" (a group that only commits offsets)
    state: str | None  # v4+
    group_type: str | None  # v5+: "classic", "consumer", "share", "streams"; None before


def list_groups_body(version: int, types: Sequence[str] = (), states: Sequence[str] = ()) -> bytes:
    """The filters on states (v4+) and on types (v5+); an empty filter lists every state, every type."""
    body = b""
    if version >= 4:
        body += encode_compact_array([encode_compact_string(s) for s in states])
    if version >= 5:
        body += encode_compact_array([encode_compact_string(t) for t in types])
    return body + NO_TAGGED_FIELDS


def decode_list_groups(r: Reader, version: int) -> tuple[int, list[ListedGroup]]:
    """(the broker's error code, its groups), after the response header (v1, flexible from v3)."""
    r.int32()  # throttle time
    code = r.int16()
    groups = []
    for _ in range(r.compact_array_length()):
        gid, protocol_type = r.compact_string(), r.compact_string()
        state = r.compact_string() if version >= 4 else None
        group_type = r.compact_string() if version >= 5 else None
        r.skip_tagged_fields()
        groups.append(ListedGroup(gid, protocol_type, state, group_type))
    r.skip_tagged_fields()
    r.end()
    return code, groups
