"""Conversion of consumer-group results. The mock cluster cannot describe groups, so the conversion is tested here
on the very objects confluent-kafka returns, and end to end against a real Kafka in tests/integration."""

from __future__ import annotations

from confluent_kafka import ConsumerGroupState, ConsumerGroupType, Node
from confluent_kafka import TopicPartition as KTP
from confluent_kafka.admin import ConsumerGroupDescription, MemberAssignment, MemberDescription

from kafkatop.backends.kafka.groups.groups import build_group, group_state
from kafkatop.backends.model.groups import GroupState
from kafkatop.backends.model.topic_partition import TopicPartition


def describe(state: ConsumerGroupState = ConsumerGroupState.STABLE) -> ConsumerGroupDescription:
    m1 = MemberDescription("m1-uuid", "m1", "/127.0.0.1", MemberAssignment([KTP("orders", 0), KTP("orders", 2)]))
    m2 = MemberDescription("m2-uuid", "m2", "/127.0.0.1", MemberAssignment([KTP("orders", 1)]))
    return ConsumerGroupDescription("g", False, [m1, m2], "range", state, Node(2, "127.0.0.1", 9093))


def test_members_assignment_offsets_and_lag() -> None:
    committed = [KTP("orders", 0, 40), KTP("orders", 1, 10), KTP("orders", 2, -1001)]
    highs = {("orders", 0): 50, ("orders", 1): 10, ("orders", 2): 7}
    g = build_group("g", describe(), committed, highs)
    assert g.state is GroupState.STABLE and g.assignor == "range" and g.coordinator == 2
    assert [(m.client_id, m.assignment) for m in g.members] == [
        ("m1", (TopicPartition("orders", 0), TopicPartition("orders", 2))),
        ("m2", (TopicPartition("orders", 1),)),
    ]
    rows = [(o.partition, o.committed, o.lag, o.member_id) for o in g.offsets]
    # Partition 2 is assigned but never committed (-1001 = no offset): shown, lag unknown.
    assert rows == [(0, 40, 10, "m1-uuid"), (1, 10, 0, "m2-uuid"), (2, None, None, "m1-uuid")]
    assert g.total_lag == 10


def test_inactive_group_keeps_committed_offsets_only() -> None:
    desc = ConsumerGroupDescription("g", False, [], "", ConsumerGroupState.EMPTY, Node(1, "h", 1))
    committed = [KTP("orders", 0, 5), KTP("orders", 1, -1001)]
    g = build_group("g", desc, committed, {("orders", 0): 9})
    assert g.state is GroupState.EMPTY and g.state.inactive and g.assignor is None
    assert [(o.partition, o.lag) for o in g.offsets] == [(0, 4)]


def test_undescribed_group_from_listing() -> None:
    g = build_group("g", None, [KTP("t", 0, 3)], {("t", 0): 3}, listed_state=ConsumerGroupState.EMPTY)
    assert g.state is GroupState.EMPTY and g.members == () and g.total_lag == 0


def test_state_names() -> None:
    assert group_state(ConsumerGroupState.PREPARING_REBALANCING) is GroupState.PREPARING_REBALANCE
    assert group_state("CompletingRebalance") is GroupState.COMPLETING_REBALANCE
    assert group_state("Reconciling") is GroupState.RECONCILING
    assert group_state(None) is GroupState.UNKNOWN


def test_kip848_rebalance_states_are_inferred() -> None:
    """confluent-kafka 2.16 reports KIP-848's Assigning/Reconciling as UNKNOWN; the target assignment tells them."""
    moving = MemberDescription(
        "m1-uuid",
        "m1",
        "/127.0.0.1",
        MemberAssignment([KTP("orders", 0)]),
        target_assignment=MemberAssignment([KTP("orders", 0), KTP("orders", 1)]),
    )
    settled = MemberDescription(
        "m2-uuid", "m2", "/127.0.0.1", MemberAssignment([KTP("orders", 2)]), None, MemberAssignment([KTP("orders", 2)])
    )
    node = Node(1, "h", 1)
    reconciling = ConsumerGroupDescription(
        "g", False, [moving, settled], "range", ConsumerGroupState.UNKNOWN, node, type=ConsumerGroupType.CONSUMER
    )
    g = build_group("g", reconciling, [], {})
    assert (g.state, g.group_type) == (GroupState.RECONCILING, "consumer")
    assert g.members[0].host == "127.0.0.1"  # Java's "/127.0.0.1" made plain
    assigning = ConsumerGroupDescription(
        "g", False, [settled], "range", ConsumerGroupState.UNKNOWN, node, type=ConsumerGroupType.CONSUMER
    )
    assert build_group("g", assigning, [], {}).state is GroupState.ASSIGNING
    # A classic group in an unknown state stays unknown: there is nothing to infer it from.
    classic = ConsumerGroupDescription(
        "g", False, [settled], "range", ConsumerGroupState.UNKNOWN, node, type=ConsumerGroupType.CLASSIC
    )
    assert (build_group("g", classic, [], {}).state, build_group("g", classic, [], {}).group_type) == (
        GroupState.UNKNOWN,
        "classic",
    )
