"""The demo tells what it teaches (issue 13): the librdkafka mock on real sockets, read through a real Kafka client,
with the demo's controller, consoles and topic admin wired as `kafkatop --demo` wires them (tui/cli/compose.py).

Each test is one repro of the issue, and fails on the demo as it was: ISR always full and no under-replicated
partition after a kill; every partition on replicas 1,2,3; topics that cannot be created; groups without members;
offset resets refused after the consumers stopped; a group stuck joining after its coordinator's kill and start.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

import pytest

from kafkatop.backends.demo.cluster import DEMO_GROUP, DEMO_TOPICS, DemoCluster, start_demo_cluster
from kafkatop.backends.demo.consoles import DemoConsoles
from kafkatop.backends.demo.groups import GROUP_NOTE
from kafkatop.backends.demo.node_control import DemoControl
from kafkatop.backends.demo.source import DemoSource
from kafkatop.backends.demo.topics import DemoTopicAdmin
from kafkatop.backends.insight.timeline.model import EventKind, TimelineSnapshot
from kafkatop.backends.insight.timeline.timeline import Timeline
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.consoles import ClientError
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.backends.model.groups import ConsumerGroup, GroupState
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.model.topics import TopicError
from kafkatop.tui.live.widgets.status_bar import status_text
from tests.conftest import wait_for

PARTITIONS = sum(DEMO_TOPICS.values())


@dataclass
class Demo:
    cluster: DemoCluster
    control: DemoControl
    consoles: DemoConsoles
    source: DemoSource

    def poll(self) -> ClusterSnapshot:
        return self.source.poll()

    def group(self, group_id: str) -> ConsumerGroup:
        snap = self.poll()
        return next(g for g in snap.groups if g.group_id == group_id)


@contextmanager
def _demo(rebalance_delay_s: float | None) -> Iterator[Demo]:
    cluster = start_demo_cluster(messages_per_partition=5)
    control = DemoControl(cluster, rebalance_delay_s=rebalance_delay_s)
    consoles = DemoConsoles(cluster.connection, control)
    admin = AdminSource(cluster.connection, timeout_s=2.0, watch_groups=cluster.groups)
    try:
        yield Demo(cluster, control, consoles, DemoSource(control, admin, consoles.consumer_views, cluster.groups))
    finally:
        consoles.close()
        admin.close()
        control.close()
        cluster.close()


@pytest.fixture
def demo() -> Iterator[Demo]:
    with _demo(None) as made:
        yield made


# --- ISR, under-replicated partitions, the status bar ---------------------------------------------------------------
def test_a_kill_shrinks_the_isr_and_a_start_brings_it_back(demo: Demo) -> None:
    before = demo.poll()
    assert before.mode == "demo" and not before.under_replicated
    status = status_text(before, None, None).plain
    assert "demo (librdkafka mock)" in status and "mode unknown" not in status

    demo.control.kill("broker-2")
    snap = wait_for(lambda: (s := demo.poll()) and not s.broker(2).alive and s, what="broker 2 gone")  # type: ignore[union-attr]
    # RF 3 on 3 brokers: every partition had a replica on broker 2, and has lost it from its ISR.
    assert len(snap.under_replicated) == PARTITIONS
    for p in snap.partitions:
        assert 2 in p.replicas and 2 not in p.isr and len(p.isr) == 2 and p.offline_replicas == (2,)
        assert p.leader in p.isr
    assert f"under-replicated {PARTITIONS}" in status_text(snap, None, None).plain

    demo.control.start("broker-2")
    snap = wait_for(lambda: (s := demo.poll()) and not s.under_replicated and s, what="ISRs full again")
    assert all(sorted(p.isr) == sorted(p.replicas) for p in snap.partitions)
    assert "under-replicated 0" in status_text(snap, None, None).plain


# --- replica placement and preferred leaders -----------------------------------------------------------------------
def test_replicas_are_placed_as_kafka_places_them() -> None:
    with _demo(rebalance_delay_s=0.5) as demo:
        snap = demo.poll()
        orders = snap.topic("orders")
        assert orders is not None
        # Round-robin first replicas, followers shifted: six partitions, six different replica orders.
        assert len({p.replicas for p in orders.partitions}) == 6
        assert [p.replicas[0] for p in orders.partitions] == [1, 2, 3, 1, 2, 3]
        assert all(p.leader_is_preferred for p in snap.partitions)
        assert snap.leaders_by_broker == {1: 3, 2: 3, 3: 3}

        demo.control.kill("broker-1")
        demo.control.start("broker-1")
        moved = demo.poll()
        # Broker 1's partitions are led elsewhere for now: the skew is seen, not "0 %".
        assert 1 not in moved.leaders_by_broker and moved.leader_skew[1] == 1.0

        def balanced() -> ClusterSnapshot | None:
            s = demo.poll()
            return s if all(p.leader_is_preferred for p in s.partitions) else None

        back = wait_for(balanced, timeout_s=10, interval_s=0.1, what="preferred leaders back")
        assert back.leaders_by_broker == {1: 3, 2: 3, 3: 3} and set(back.leader_skew.values()) == {0.0}


def test_a_topic_made_behind_the_controllers_back_is_placed_and_rebalanced() -> None:
    """A topic created in the mock directly (as a producer's auto-creation does) keeps the leaders the mock chose at
    first, then its preferred leaders take over, as Kafka's leader-imbalance check would make them."""
    with _demo(rebalance_delay_s=0.5) as demo:
        demo.cluster.cluster.create_topic("auto", 6, 3)
        first = demo.poll().topic("auto")
        assert first is not None and len({p.replicas for p in first.partitions}) == 6
        assert any("auto: preferred leaders in 0.5 s" in line for line in demo.control.poll().nodes[0].log_tail) == (
            not all(p.leader_is_preferred for p in first.partitions)
        )
        balanced = wait_for(
            lambda: (t := demo.poll().topic("auto")) and all(p.leader_is_preferred for p in t.partitions) and t,
            timeout_s=10, interval_s=0.1, what="auto's preferred leaders",
        )  # fmt: skip
        assert sorted(p.leader for p in balanced.partitions) == [1, 1, 2, 2, 3, 3]


# --- topics -------------------------------------------------------------------------------------------------------
def test_topics_are_created_and_deleted(demo: Demo) -> None:
    admin = DemoTopicAdmin(demo.control)
    admin.create_topic("events", 4, 2)
    snap = wait_for(lambda: (s := demo.poll()) and s.topic("events") is not None and s, what="events in the metadata")
    events = snap.topic("events")
    assert events is not None and events.replication_factor == 2 and len(events.partitions) == 4
    assert [p.replicas[0] for p in events.partitions] == [p.leader for p in events.partitions]
    assert len({p.replicas for p in events.partitions}) == 4

    # The new topic serves: a record sent to it is delivered by its leader.
    demo.consoles.send("events", "hello")
    delivered = wait_for(lambda: (a := demo.consoles.drain()) and a.deliveries, what="a delivery report")
    assert delivered[0].error is None and delivered[0].topic == "events"

    with pytest.raises(TopicError, match="Topic 'events' already exists") as exists:
        admin.create_topic("events", 1, 1)
    assert exists.value.code == "TOPIC_ALREADY_EXISTS"
    with pytest.raises(TopicError, match="Replication factor: 4 larger than available brokers: 3"):
        admin.create_topic("wide", 1, 4)
    with pytest.raises(TopicError, match="keeps no topic configs"):
        admin.create_topic("compacted", 1, 1, {"cleanup.policy": "compact"})

    admin.delete_topic("events")
    wait_for(lambda: (s := demo.poll()) and s.topic("events") is None, what="events gone")
    with pytest.raises(TopicError, match="does not exist"):
        admin.delete_topic("events")
    # Created again at once, with another layout: the new one is shown, not the one deleted.
    admin.create_topic("events", 2, 3)
    again = wait_for(lambda: demo.poll().topic("events"), what="events again")
    assert (len(again.partitions), again.replication_factor) == (2, 3)

    # With a broker down, Kafka places a new topic's replicas on the live brokers only.
    demo.control.kill("broker-3")
    with pytest.raises(TopicError, match="Replication factor: 3 larger than available brokers: 2"):
        admin.create_topic("late", 2, 3)
    admin.create_topic("late", 2, 2)
    late = wait_for(lambda: demo.poll().topic("late"), what="late in the metadata")
    assert all(set(p.replicas) == {1, 2} and not p.under_replicated for p in late.partitions)


# --- consumer groups ---------------------------------------------------------------------------------------------
def consuming(demo: Demo, group_id: str, members: int) -> ConsumerGroup | None:
    group = demo.group(group_id)
    return group if group.state is GroupState.STABLE and len(group.members) == members else None


def test_the_apps_own_consumers_are_the_groups_members(demo: Demo) -> None:
    idle = demo.group(DEMO_GROUP)
    # Committed offsets are Kafka's own answer (OffsetFetch); with no consumer of ours in the group, it is Empty.
    assert idle.state is GroupState.EMPTY and idle.note == GROUP_NOTE and not idle.members
    assert {o.partition: o.committed for o in idle.offsets} == dict.fromkeys(range(6), 2)
    assert idle.total_lag == sum(5 + 5 * p - 2 for p in range(6))
    assert not [p for p in demo.poll().problems if p.what in ("ListGroups", "DescribeGroups")]

    names = [demo.consoles.start_consumer(["orders"], DEMO_GROUP, False) for _ in range(2)]
    group = wait_for(lambda: consuming(demo, DEMO_GROUP, 2), timeout_s=20, interval_s=0.2, what="billing Stable")
    assert sorted(m.member_id for m in group.members) == sorted(names)
    assigned = sorted(tp for m in group.members for tp in m.assignment)
    assert assigned == [TopicPartition("orders", p) for p in range(6)]
    assert {o.member_id for o in group.offsets} == set(names)
    assert group.coordinator == demo.control.coordinators[DEMO_GROUP]

    # Kafka refuses a reset while the group has members; so does the demo, naming them: in the preview, and when
    # executed.
    early = demo.consoles.plan_reset(DEMO_GROUP, ["orders"], "earliest", None)
    assert early.refused is not None and "stop its consumers first" in early.refused
    with pytest.raises(ClientError, match="stop its consumers first"):
        demo.consoles.execute_reset(early)
    for name in names:
        demo.consoles.stop_consumer(name)
    # Once they are gone, the reset goes through (the mock alone would refuse it: UNKNOWN_MEMBER_ID).
    plan = demo.consoles.plan_reset(DEMO_GROUP, ["orders"], "earliest", None)
    assert plan.refused is None
    assert demo.consoles.execute_reset(plan) is plan
    assert {m.partition: m.target for m in plan.moves} == dict.fromkeys(range(6), 0)
    reset = wait_for(
        lambda: (g := demo.group(DEMO_GROUP)) and all(o.committed == 0 for o in g.offsets) and g,
        what="the reset offsets read back",
    )
    assert reset.state is GroupState.EMPTY and reset.total_lag == sum(5 + 5 * p for p in range(6))


def test_a_group_consumes_again_after_its_coordinator_is_killed_and_started(demo: Demo) -> None:
    """A group of the console's own (not one of the demo's): the mock would keep it on its coordinator, dead or not,
    and its consumers joining until the broker returned, and for a rebalance of session.timeout.ms after."""
    timeline = Timeline()
    received: list[str] = []

    def observe() -> TimelineSnapshot:
        """One round of the app's pollers: the node panes, the cluster, the consoles."""
        timeline.observe_nodes(demo.control.poll())
        try:
            timeline.observe_cluster(demo.poll())
        except SourceUnavailable:
            pass
        activity = demo.consoles.drain()
        if activity is not None:
            timeline.observe_consoles(activity)
            received.extend(r.value for r in activity.received)
        return timeline.snapshot()

    def consumes(text: str) -> None:
        demo.consoles.send_many("purchases", [text] * 12)
        wait_for(lambda: observe() and received.count(text) == 12, timeout_s=30, interval_s=0.2,
                 what=f"the records sent {text} received by g1")  # fmt: skip

    for _ in range(3):
        demo.consoles.start_consumer(["purchases"], "g1", False)
    wait_for(lambda: consuming(demo, "g1", 3), timeout_s=30, interval_s=0.2, what="g1 Stable")
    observe()
    coordinator = demo.control.coordinators["g1"]
    timeline.record_action("kill", f"broker-{coordinator}")
    demo.control.kill(f"broker-{coordinator}")
    assert demo.control.coordinators["g1"] != coordinator  # moved off the dead broker, as Kafka's would
    consumes("after the kill")

    timeline.record_action("start", f"broker-{coordinator}")
    demo.control.start(f"broker-{coordinator}")
    consumes("after the start")
    wait_for(lambda: consuming(demo, "g1", 3), timeout_s=20, interval_s=0.2, what="g1 Stable again")
    snap = wait_for(lambda: (s := observe()) and s.incidents[-1].recovered and s, timeout_s=20, what="recovered")
    assert snap.incidents[-1].title == f"start broker-{coordinator}"
    # The consumers' reports of the dead coordinator, whichever connection saw it, are one line each at most.
    errors = [e for e in snap.events if e.kind is EventKind.CONSUMER_ERROR and "Connection refused" in e.text]
    assert len(errors) <= 1, [e.text for e in errors]


# --- the whole app, wired as `kafkatop --demo` wires it -----------------------------------------------------------
async def test_kafkatop_demo_shows_the_controllers_truth() -> None:
    """compose_app builds the demo's source, consoles and topic admin: the app shows mode demo, under-replicated
    partitions after `k` and none after `s`, creates a topic from the dialog, and lists the demo's group."""
    from kafkatop.tui.cli.compose import compose_app
    from kafkatop.tui.cli.parser import build_parser
    from kafkatop.tui.live.widgets.nodes import NodeTable
    from kafkatop.tui.live.widgets.status_bar import StatusBar
    from tests.conftest import pilot_until

    args = build_parser().parse_args(["--demo", "--interval", "0.3"])
    with ExitStack() as stack:
        app = compose_app(args, stack, terminal=False)
        async with app.run_test(size=(140, 45)) as pilot:
            bar = app.query_one(StatusBar)
            await pilot_until(pilot, lambda: app.snapshot is not None and "demo (librdkafka mock)" in bar.text.plain,
                              "the first poll in the status bar")  # fmt: skip
            assert "mode unknown" not in bar.text.plain and "under-replicated 0" in bar.text.plain
            billing = next(g for g in app.snapshot.groups if g.group_id == DEMO_GROUP)
            assert billing.note == GROUP_NOTE and billing.state is GroupState.EMPTY

            table = app.query_one(NodeTable)
            await pilot_until(pilot, lambda: table.row_count == 3, "the node panes")
            table.focus()
            table.move_cursor(row=table.get_row_index("broker-2"))
            await pilot.press("K", "y")  # kill -9, confirmed
            await pilot_until(pilot, lambda: f"under-replicated {PARTITIONS}" in bar.text.plain,
                              "every partition under-replicated in the status bar")  # fmt: skip
            assert all(2 not in p.isr for p in app.snapshot.partitions)
            await pilot.press("s")
            await pilot_until(pilot, lambda: "under-replicated 0" in bar.text.plain and "down" not in bar.text.plain,
                              "the ISRs full again")  # fmt: skip

            await pilot.press("c")
            await pilot.pause()
            await pilot.press(*"new-topic", "enter")  # the dialog's defaults: 3 partitions, RF 3
            await pilot_until(pilot, lambda: app.last_action is not None and app.last_action.what.startswith("topic"),
                              "the create action to finish")  # fmt: skip
            assert app.last_action.what == "topic new-topic created" and app.last_action.error is None
            await pilot_until(pilot, lambda: app.snapshot.topic("new-topic") is not None, "new-topic shown")
