"""The streams-group part of an AdminSource poll (KIP-1071, Kafka 4.1 early access): every streams group with its
members and the committed offsets of its source-topic partitions (streams_groups.py: one ListGroups per broker, then
one StreamsGroupDescribe per coordinator and an OffsetFetch per group), as a TypedGroupPoll
(groups/typed_group_poll.py) of type `streams`.
"""

from __future__ import annotations

from collections.abc import Mapping

from kafkatop.backends.kafka.groups.groups import group_state
from kafkatop.backends.kafka.groups.typed_group_poll import GroupKind, TypedGroupPoll
from kafkatop.backends.kafka.streams_groups.streams_groups import StreamsGroupReader
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.groups import ConsumerGroup, GroupMember, GroupPartitionOffset
from kafkatop.backends.model.streams_groups import StreamsGroup, StreamsGroupsUnavailable, Tasks
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.protocol.security import unsupported


def _partitions(group: StreamsGroup, tasks: Tasks) -> tuple[TopicPartition, ...]:
    """A member's tasks as the partitions they read: each task's partition of every source topic of its
    subtopology."""
    sources = dict(group.source_topics)
    return tuple(sorted({TopicPartition(t, p) for sid, ps in tasks for t in sources.get(sid, ()) for p in ps},
                        key=lambda tp: (tp.topic, tp.partition)))  # fmt: skip


def streams_group(group: StreamsGroup, high: Mapping[tuple[str, int], int | None]) -> ConsumerGroup:
    """A streams group as the Groups tab shows groups: each member (a stream thread) with the source partitions of
    its active tasks, the group's committed offsets and their lag."""
    members = tuple(
        GroupMember(
            member_id=m.member_id,
            client_id=m.client_id,
            host=m.client_host.lstrip("/"),
            assignment=_partitions(group, m.assignment.active),
            member_epoch=m.member_epoch,
            target_assignment=_partitions(group, m.target_assignment.active),
        )
        for m in group.members
    )
    owners = {(tp.topic, tp.partition): m.member_id for m in members for tp in m.assignment}
    offsets = tuple(
        GroupPartitionOffset(
            o.topic,
            o.partition,
            o.committed,
            high.get((o.topic, o.partition)),
            owners.get((o.topic, o.partition)),
            o.leader_epoch,
        )  # fmt: skip
        for o in group.offsets
    )
    return ConsumerGroup(
        group_id=group.group_id,
        state=group_state(group.state),
        protocol_type="streams",
        group_type="streams",
        coordinator=group.coordinator[0] if group.coordinator is not None else None,
        members=members,
        offsets=offsets,
        group_epoch=group.group_epoch,
        assignment_epoch=group.assignment_epoch,
        note="a streams group (Kafka Streams): each member a stream thread, its partitions those of its active tasks",
    )


STREAMS = GroupKind("streams", StreamsGroupsUnavailable, streams_group)


def streams_poll(connection: KafkaConnection) -> TypedGroupPoll[StreamsGroup]:
    """The streams groups of a poll, read by kafkatop's own requests where it can speak to the cluster."""
    reader = StreamsGroupReader(connection) if unsupported(connection.client_settings) is None else None
    return TypedGroupPoll(STREAMS, reader)
