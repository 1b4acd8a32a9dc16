"""Consumer groups as a cluster's coordinators report them: their type and state, members, committed offsets and lag."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

from kafkatop.backends.model.topic_partition import TopicPartition

# ListGroups v5's GroupType: classic (JoinGroup/SyncGroup), consumer (KIP-848, Kafka ≥ 4.0), share (KIP-932), streams.
GroupType = Literal["classic", "consumer", "share", "streams", "unknown"]


class GroupState(StrEnum):
    """Group states as the coordinator reports them (classic, KIP-848; NotReady: a streams group's topics missing)."""

    UNKNOWN = "Unknown"
    PREPARING_REBALANCE = "PreparingRebalance"
    COMPLETING_REBALANCE = "CompletingRebalance"
    STABLE = "Stable"
    DEAD = "Dead"
    EMPTY = "Empty"
    ASSIGNING = "Assigning"
    RECONCILING = "Reconciling"
    NOT_READY = "NotReady"

    @property
    def inactive(self) -> bool:
        """Offsets can only be reset while no member is in the group."""
        return self in (GroupState.EMPTY, GroupState.DEAD)


@dataclass(frozen=True, slots=True)
class GroupMember:
    member_id: str
    client_id: str
    host: str
    assignment: tuple[TopicPartition, ...] = ()
    group_instance_id: str | None = None
    # KIP-848: the member's epoch, and the target the coordinator computed for it (its assignment converges to it,
    # partition by partition, each revoked before another member gets it). None: a classic member.
    member_epoch: int | None = None
    target_assignment: tuple[TopicPartition, ...] | None = None

    @property
    def reconciling(self) -> bool:
        """KIP-848: the member does not own its target yet."""
        return self.target_assignment is not None and self.target_assignment != self.assignment


@dataclass(frozen=True, slots=True)
class GroupPartitionOffset:
    topic: str
    partition: int
    committed: int | None  # None: the group never committed for this partition
    high_watermark: int | None
    member_id: str | None = None  # the member the partition is assigned to now, if any
    leader_epoch: int | None = None  # the leader epoch the commit was made in (KIP-320); None: not known

    @property
    def lag(self) -> int | None:
        if self.high_watermark is None:
            return None
        # No commit yet: a consumer starting at `earliest` would read everything, but the low watermark is not
        # known here, so lag is unknown rather than guessed.
        if self.committed is None:
            return None
        return max(0, self.high_watermark - self.committed)


@dataclass(frozen=True, slots=True)
class ConsumerGroup:
    group_id: str
    state: GroupState = GroupState.UNKNOWN
    protocol_type: str = "consumer"  # "simple": offsets committed without group membership
    group_type: GroupType = "unknown"
    assignor: str | None = None
    coordinator: int | None = None
    members: tuple[GroupMember, ...] = ()
    offsets: tuple[GroupPartitionOffset, ...] = ()
    # KIP-848 (ConsumerGroupDescribe): the group's epoch, bumped at each membership or subscription change, and the
    # epoch of the assignment the coordinator last computed; equal once the target caught up. None: a classic group.
    group_epoch: int | None = None
    assignment_epoch: int | None = None
    # Where the state and members come from when not from this poll's DescribeGroups, said as such: e.g. "members and
    # state from kafkatop's own consumers: the mock has no group APIs". None: from this poll's answers.
    note: str | None = None
    # `total_lag`, kept once worked out (the Groups tab and the topic rows read it for every group each poll), as
    # Topic keeps its summary: out of ==, hash, repr and the codec. A 1-tuple: the lag itself may be None.
    _total_lag: tuple[int | None] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def total_lag(self) -> int | None:
        kept = self._total_lag
        if kept is None:
            lags = [n for o in self.offsets if (n := o.lag) is not None]
            kept = (sum(lags) if lags else (0 if not self.offsets else None),)
            object.__setattr__(self, "_total_lag", kept)
        return kept[0]

    @property
    def topics(self) -> tuple[str, ...]:
        names = {o.topic for o in self.offsets} | {tp.topic for m in self.members for tp in m.assignment}
        return tuple(sorted(names))
