"""Converting confluent-kafka's consumer-group results into kafkatop's ConsumerGroup snapshots (no I/O)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kafkatop.backends.model.groups import ConsumerGroup, GroupMember, GroupPartitionOffset, GroupState, GroupType
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.protocol.consumer_groups import ConsumerGroupDescription, ConsumerGroupMember
from kafkatop.backends.protocol.groups import CommittedOffset, DescribedGroup, DescribedMember

# confluent-kafka's ConsumerGroupState names → the coordinator's own state names.
_STATES: dict[str, GroupState] = {
    "PREPARING_REBALANCING": GroupState.PREPARING_REBALANCE,
    "PREPARING_REBALANCE": GroupState.PREPARING_REBALANCE,
    "COMPLETING_REBALANCING": GroupState.COMPLETING_REBALANCE,
    "COMPLETING_REBALANCE": GroupState.COMPLETING_REBALANCE,
    "STABLE": GroupState.STABLE,
    "DEAD": GroupState.DEAD,
    "EMPTY": GroupState.EMPTY,
    "ASSIGNING": GroupState.ASSIGNING,
    "RECONCILING": GroupState.RECONCILING,
}


def group_state(state: Any) -> GroupState:
    """Accepts a ConsumerGroupState, its name, or the broker's string ("PreparingRebalance")."""
    name = getattr(state, "name", state)
    if not isinstance(name, str):
        return GroupState.UNKNOWN
    key = name.upper().replace(" ", "_")
    if key in _STATES:
        return _STATES[key]
    for s in GroupState:
        if s.value.lower() == name.lower():
            return s
    return GroupState.UNKNOWN


def _partitions(assignment: Any) -> tuple[TopicPartition, ...]:
    tps = getattr(assignment, "topic_partitions", None) or []
    return tuple(sorted(TopicPartition(tp.topic, tp.partition) for tp in tps))


def member_from_description(member: Any) -> GroupMember:
    return GroupMember(
        member_id=member.member_id,
        client_id=member.client_id,
        host=member.host.lstrip("/"),  # Kafka sends Java's InetAddress.toString(): "/127.0.0.1"
        assignment=_partitions(member.assignment),
        group_instance_id=member.group_instance_id,
    )


def _wire_member(
    member: DescribedMember | ConsumerGroupMember,
    group_instance_id: str | None,
    member_epoch: int | None = None,
    target_assignment: Sequence[tuple[str, int]] | None = None,
) -> GroupMember:
    """A member from kafkatop's own DescribeGroups (classic) or ConsumerGroupDescribe (KIP-848, with its epoch and
    target) answer."""
    return GroupMember(
        member_id=member.member_id,
        client_id=member.client_id,
        host=member.client_host.lstrip("/"),  # Java's InetAddress.toString(): "/127.0.0.1"
        assignment=_pairs(member.assignment),
        group_instance_id=group_instance_id,
        member_epoch=member_epoch,
        target_assignment=None if target_assignment is None else _pairs(target_assignment),
    )


def _pairs(pairs: Iterable[tuple[str, int]]) -> tuple[TopicPartition, ...]:
    return tuple(TopicPartition(t, p) for t, p in pairs)


def group_type_of(group_type: Any) -> GroupType:
    name = str(getattr(group_type, "name", group_type)).upper()
    if name == "CLASSIC":
        return "classic"
    if name == "CONSUMER":
        return "consumer"
    if name in ("SHARE", "STREAMS"):
        return "share" if name == "SHARE" else "streams"
    return "unknown"


def _kip848_state(description: Any) -> GroupState:
    """confluent-kafka 2.16 has no names for KIP-848's Assigning and Reconciling: they arrive as UNKNOWN.

    Reconciling is when some member's current assignment differs from the target the coordinator computed;
    otherwise the coordinator is still computing targets (Assigning).
    """
    for m in description.members:
        target = getattr(m, "target_assignment", None)
        if target is not None and _partitions(target) != _partitions(m.assignment):
            return GroupState.RECONCILING
    return GroupState.ASSIGNING


HighWatermarks = Mapping[tuple[str, int], int | None]  # (topic, partition): high watermark, from the same poll


def _group_offsets(
    members: tuple[GroupMember, ...],
    committed: Iterable[Any] | None,
    high_watermarks: HighWatermarks,
) -> tuple[GroupPartitionOffset, ...]:
    """The group's partitions: those it committed on (`committed`: anything with topic, partition and offset;
    negative offsets mean "no commit") and those assigned to its members now. Keyed by plain tuples: a poll builds
    100,000 of these at 1,000 groups, and a tuple hashes and sorts in C."""
    owner = {(tp.topic, tp.partition): m.member_id for m in members for tp in m.assignment}
    commits: dict[tuple[str, int], int | None] = {}
    epochs: dict[tuple[str, int], int] = {}
    for tp in committed or ():
        commits[(tp.topic, tp.partition)] = tp.offset if tp.offset >= 0 else None
        epoch = getattr(tp, "leader_epoch", None)
        if epoch is not None and epoch >= 0 and tp.offset >= 0:
            epochs[(tp.topic, tp.partition)] = epoch
    # Assigned partitions without a commit yet still belong in the table: they are being consumed.
    for key in owner:
        commits.setdefault(key, None)
    return tuple(
        GroupPartitionOffset(
            topic=key[0],
            partition=key[1],
            committed=commits[key],
            high_watermark=high_watermarks.get(key),
            member_id=owner.get(key),
            leader_epoch=epochs.get(key),
        )
        for key in sorted(commits)
        # A partition named only to read offsets (see AdminSource) and never committed is not the group's.
        if commits[key] is not None or key in owner
    )


def build_group(
    group_id: str,
    description: Any | None,
    committed: Iterable[Any] | None,
    high_watermarks: HighWatermarks,
    listed_state: Any = None,
) -> ConsumerGroup:
    """One ConsumerGroup from a ConsumerGroupDescription (or None when it could not be described), the group's
    committed offsets (confluent-kafka TopicPartitions; negative offsets mean "no commit"), and the partitions'
    high watermarks from the same poll."""
    members = tuple(member_from_description(m) for m in description.members) if description is not None else ()
    offsets = _group_offsets(members, committed, high_watermarks)
    if description is not None:
        coordinator = getattr(description.coordinator, "id", None)
        kind = group_type_of(getattr(description, "type", None))
        state = group_state(description.state)
        if state is GroupState.UNKNOWN and kind == "consumer" and description.members:
            state = _kip848_state(description)
        return ConsumerGroup(
            group_id=group_id,
            state=state,
            protocol_type="consumer" if not description.is_simple_consumer_group else "simple",
            group_type=kind,
            assignor=description.partition_assignor or None,
            coordinator=coordinator if coordinator is not None and coordinator >= 0 else None,
            members=members,
            offsets=offsets,
        )
    return ConsumerGroup(group_id=group_id, state=group_state(listed_state), offsets=offsets)


def build_described_group(
    group_id: str,
    described: DescribedGroup | None,
    coordinator: int | None,
    committed: Iterable[CommittedOffset] | None,
    high_watermarks: HighWatermarks,
    listed_state: Any = None,
    note: str | None = None,
) -> ConsumerGroup:
    """One ConsumerGroup from kafkatop's own DescribeGroups and OffsetFetch answers (group_batch.py). `listed_state`,
    from this poll's ListGroups, wins over the description's, which may be older (an idle group's: see GroupPoll)."""
    if described is None or described.error_code:
        return ConsumerGroup(
            group_id=group_id,
            state=group_state(listed_state),
            coordinator=coordinator,
            offsets=_group_offsets((), committed, high_watermarks),
            note=note,
        )
    members = tuple(_wire_member(m, m.group_instance_id) for m in described.members)
    return ConsumerGroup(
        group_id=group_id,
        state=group_state(listed_state if listed_state is not None else described.state),
        # Kafka's protocol type: "consumer"; "" for a group that only commits offsets (confluent-kafka's "simple").
        protocol_type=described.protocol_type or "simple",
        group_type="classic",  # DescribeGroups describes classic groups (KIP-848's answer ConsumerGroupDescribe)
        assignor=described.protocol_data or None,
        coordinator=coordinator,
        members=members,
        offsets=_group_offsets(members, committed, high_watermarks),
        note=note,
    )


def build_consumer_group(
    group_id: str,
    described: ConsumerGroupDescription,
    coordinator: int | None,
    committed: Iterable[CommittedOffset] | None,
    high_watermarks: HighWatermarks,
    listed_state: Any = None,
) -> ConsumerGroup:
    """One KIP-848 ConsumerGroup from kafkatop's own ConsumerGroupDescribe and OffsetFetch answers: its epochs, and
    each member's epoch, assignment and target."""
    members = tuple(_wire_member(m, m.instance_id, m.member_epoch, m.target_assignment) for m in described.members)
    return ConsumerGroup(
        group_id=group_id,
        # ConsumerGroupDescribe's state is this very poll's; ListGroups' (librdkafka's names) only when it has none.
        state=group_state(described.state or listed_state),
        protocol_type="consumer",
        group_type="consumer",
        assignor=described.assignor or None,
        coordinator=coordinator,
        members=members,
        offsets=_group_offsets(members, committed, high_watermarks),
        group_epoch=described.group_epoch,
        assignment_epoch=described.assignment_epoch,
    )
