"""Leader and ISR changes between two views of a cluster, computed in one place: the failover timeline, the partition
table's highlight (through History) and the chaos run's leader moves all read them from here. Pure: model only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kafkatop.backends.model.cluster import ClusterSnapshot, Partition, PartitionView
from kafkatop.backends.model.topic_partition import TopicPartition

PartitionViews = Mapping[TopicPartition, PartitionView]


def partition_views(snapshot: ClusterSnapshot) -> dict[TopicPartition, PartitionView]:
    return {TopicPartition(p.topic, p.id): PartitionView.of(p) for t in snapshot.topics for p in t.partitions}


@dataclass(frozen=True, slots=True)
class PartitionChange:
    partition: TopicPartition
    before: PartitionView
    after: PartitionView
    now: Partition | None = None  # the partition as the newer view has it (its ISR in the source's own order)

    @property
    def leader_changed(self) -> bool:
        return self.after.leader != self.before.leader

    @property
    def isr_changed(self) -> bool:
        return self.after.isr != self.before.isr


def partition_changes(before: PartitionViews, after: ClusterSnapshot) -> list[PartitionChange]:
    """The partitions of `after` whose leader or ISR differs from `before`. A partition new in `after` is a baseline,
    not a change; one missing from it says nothing."""
    changes = []
    for t in after.topics:
        for p in t.partitions:
            tp = TopicPartition(p.topic, p.id)
            old = before.get(tp)
            if old is None:
                continue
            new = PartitionView.of(p)
            if new.leader != old.leader or new.isr != old.isr:
                changes.append(PartitionChange(tp, old, new, p))
    return changes


def view_changes(before: PartitionViews, after: PartitionViews) -> list[PartitionChange]:
    """As partition_changes, between two sets of views."""
    return [
        PartitionChange(tp, old, new)
        for tp, new in after.items()
        if (old := before.get(tp)) is not None and (new.leader != old.leader or new.isr != old.isr)
    ]
