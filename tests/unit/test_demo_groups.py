"""The demo's pure pieces: Kafka's replica placement, and a group as kafkatop's own consumers know it."""

from __future__ import annotations

import pytest

from kafkatop.backends.demo.assignment import assign_replicas, placement
from kafkatop.backends.demo.groups import GROUP_NOTE, own_group
from kafkatop.backends.model.consoles import ConsumerState, ConsumerView
from kafkatop.backends.model.groups import ConsumerGroup, GroupPartitionOffset, GroupState
from kafkatop.backends.model.topic_partition import TopicPartition


def test_replicas_as_kafkas_adminutils_places_them() -> None:
    """The example in Kafka's AdminUtils (5 brokers, 10 partitions, start index 0, shift 0)."""
    assert assign_replicas(10, 3, [0, 1, 2, 3, 4], 0, 0) == (
        (0, 1, 2), (1, 2, 3), (2, 3, 4), (3, 4, 0), (4, 0, 1),
        (0, 2, 3), (1, 3, 4), (2, 4, 0), (3, 0, 1), (4, 1, 2),
    )  # fmt: skip


def test_the_demos_topics_are_spread() -> None:
    for topic, partitions in (("purchases", 3), ("orders", 6)):
        placed = assign_replicas(partitions, 3, [1, 2, 3], *placement(topic, [1, 2, 3]))
        # Each broker is the preferred leader of as many partitions as the others, and replicas differ.
        assert sorted(r[0] for r in placed) == sorted([1, 2, 3] * (partitions // 3))
        assert len(set(placed)) == partitions
        assert all(sorted(r) == [1, 2, 3] for r in placed)
    assert placement("orders", [1, 2, 3]) == placement("orders", [1, 2, 3])  # the same every run
    with pytest.raises(ValueError, match="replication factor 4 with 3 brokers"):
        assign_replicas(1, 4, [1, 2, 3], 0, 0)


def view(name: str, state: ConsumerState, *partitions: int, group: str = "billing") -> ConsumerView:
    tps = tuple(TopicPartition("orders", p) for p in partitions)
    return ConsumerView(name, group, ("orders",), state, tps, 0, None)


POLLED = ConsumerGroup(
    "billing", offsets=(GroupPartitionOffset("orders", 0, 3, 10), GroupPartitionOffset("orders", 1, 4, 10))
)
HIGH = {TopicPartition("orders", p): 10 for p in range(3)}


def test_a_group_of_kafkatops_consumers() -> None:
    consumers = (view("c1", "consuming", 0, 1), view("c2", "consuming", 2), view("c9", "consuming", 0, group="other"))
    group = own_group("billing", POLLED, consumers, 2, HIGH)
    assert (group.state, group.coordinator, group.group_type, group.note) == (
        GroupState.STABLE, 2, "classic", GROUP_NOTE
    )  # fmt: skip
    assert [(m.member_id, m.client_id, [tp.partition for tp in m.assignment]) for m in group.members] == [
        ("c1", "kafkatop-c1", [0, 1]), ("c2", "kafkatop-c2", [2])
    ]  # fmt: skip
    # Committed offsets from Kafka; partition 2 assigned but never committed: no lag claimed for it.
    assert [(o.partition, o.committed, o.lag, o.member_id) for o in group.offsets] == [
        (0, 3, 7, "c1"), (1, 4, 6, "c1"), (2, None, None, "c2")
    ]  # fmt: skip
    assert group.total_lag == 13


@pytest.mark.parametrize(
    ("consumers", "state"),
    [
        ((view("c1", "consuming", 0), view("c2", "joining")), GroupState.PREPARING_REBALANCE),
        ((view("c1", "stopped"), view("c2", "failed")), GroupState.EMPTY),
        ((), GroupState.EMPTY),
    ],
)
def test_group_state_from_its_members(consumers: tuple[ConsumerView, ...], state: GroupState) -> None:
    group = own_group("billing", POLLED, consumers, None, HIGH)
    assert group.state is state
    assert group.members == () or state is GroupState.PREPARING_REBALANCE


def test_a_group_with_neither_members_nor_offsets_is_dead() -> None:
    assert own_group("g1", None, (view("c1", "stopped", group="g1"),), 1, HIGH).state is GroupState.DEAD
