"""The share-group part of an AdminSource poll (KIP-932, Kafka 4.1's queues): every share group with its members and
each partition's start offset (share_groups.py: one ListGroups per broker, then one ShareGroupDescribe and one
DescribeShareGroupOffsets per coordinator), as a TypedGroupPoll (groups/typed_group_poll.py) of type `share`.
"""

from __future__ import annotations

from collections.abc import Mapping

from kafkatop.backends.kafka.groups.groups import group_state
from kafkatop.backends.kafka.groups.typed_group_poll import GroupKind, TypedGroupPoll
from kafkatop.backends.kafka.share_groups.share_groups import ShareGroupReader
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.groups import ConsumerGroup, GroupMember, GroupPartitionOffset
from kafkatop.backends.model.share_groups import ShareGroup, ShareGroupsUnavailable
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.protocol.security import unsupported


def share_group(group: ShareGroup, high: Mapping[tuple[str, int], int | None]) -> ConsumerGroup:
    """A share group as the Groups tab shows groups: its start offsets where a consumer group has its commits (lag:
    the records from the start offset to the end, not yet acknowledged)."""
    members = tuple(
        GroupMember(
            member_id=m.member_id,
            client_id=m.client_id,
            host=m.host.lstrip("/"),
            assignment=tuple(TopicPartition(t, p) for t, p in m.assignment),
            member_epoch=m.member_epoch,
        )
        for m in group.members
    )
    owners: dict[tuple[str, int], str] = {}
    for m in group.members:  # a share partition is consumed by every member assigned it; the table names one
        for key in m.assignment:
            owners.setdefault(key, m.member_id)
    offsets = tuple(
        GroupPartitionOffset(
            topic=p.topic,
            partition=p.partition,
            committed=p.start_offset,
            high_watermark=high.get((p.topic, p.partition)),
            member_id=owners.get((p.topic, p.partition)),
            leader_epoch=p.leader_epoch,
        )
        for p in group.partitions
    )
    return ConsumerGroup(
        group_id=group.group_id,
        state=group_state(group.state),
        protocol_type="share",
        group_type="share",
        assignor=group.assignor or None,
        coordinator=group.coordinator.node_id if group.coordinator is not None else None,
        members=members,
        offsets=offsets,
        group_epoch=group.group_epoch,
        assignment_epoch=group.assignment_epoch,
        note="a share group: START-OFFSET in the committed column, its lag the records not yet acknowledged",
    )


SHARE = GroupKind("share", ShareGroupsUnavailable, share_group)


def share_poll(connection: KafkaConnection) -> TypedGroupPoll[ShareGroup]:
    """The share groups of a poll, read by kafkatop's own requests where it can speak to the cluster."""
    reader = ShareGroupReader(connection) if unsupported(connection.client_settings) is None else None
    return TypedGroupPoll(SHARE, reader)
