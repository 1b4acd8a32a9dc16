"""The failover timeline fed as the app feeds it, from the demo cluster: librdkafka's mock brokers on real sockets,
polled through AdminSource (a real Kafka client) and DemoControl (the node panes), while a partition's leader is
killed and started again.

The mock answers ISR = replicas whatever happens; the demo's controller keeps the ISR, and DemoSource shows it, so the
timeline sees the ISR shrink and expand. The mock reports no leader epochs, so duplicates cannot be told by epoch here.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kafkatop.backends.demo.cluster import start_demo_cluster
from kafkatop.backends.demo.node_control import DemoControl
from kafkatop.backends.demo.source import DemoSource
from kafkatop.backends.insight.history import History
from kafkatop.backends.insight.timeline.model import EventKind, TimelineSnapshot, Trigger
from kafkatop.backends.insight.timeline.timeline import Timeline
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.backends.model.topic_partition import TopicPartition
from tests.conftest import wait_for

TP = TopicPartition("purchases", 1)


@pytest.fixture
def demo() -> Iterator[tuple[DemoControl, DemoSource]]:
    control = DemoControl(start_demo_cluster(), rebalance_delay_s=None)
    admin = AdminSource(KafkaConnection.parse(control.bootstrap_servers), timeout_s=2.0)
    source = DemoSource(control, admin, tuple)
    try:
        yield control, source
    finally:
        source.close()
        control.close()


def test_kill_and_start_of_a_leader_on_the_demo(demo: tuple[DemoControl, DemoSource]) -> None:
    control, source = demo
    timeline, history = Timeline(), History()

    def poll() -> TimelineSnapshot:
        """One round of the app's pollers: the node panes, then the metadata."""
        timeline.observe_nodes(control.poll())
        try:
            cluster = source.poll()
        except SourceUnavailable:
            pass  # the app keeps the last view; so does the timeline
        else:
            timeline.observe_cluster(cluster)
            history.observe_cluster(cluster)
        return timeline.snapshot()

    poll()
    before = source.poll()
    partition = next(p for p in before.partitions if (p.topic, p.id) == (TP.topic, TP.partition))
    victim = partition.leader
    led = {TopicPartition(p.topic, p.id): p.leader for p in before.partitions}
    moved = {tp for tp, leader in led.items() if leader == victim}
    assert TP in moved and poll().events == ()  # baselines only

    timeline.record_action("kill", f"broker-{victim}")
    control.kill(f"broker-{victim}")

    def leaders_moved() -> TimelineSnapshot | None:
        snap = poll()
        changed = {e.partition for e in snap.events if e.kind is EventKind.LEADER_CHANGED}
        return snap if moved <= changed and EventKind.PROCESS_GONE in {e.kind for e in snap.events} else None

    snap = wait_for(leaders_moved, timeout_s=8, interval_s=0.05, what=f"leaders of broker {victim}'s partitions moved")
    (kill,) = snap.incidents
    assert (kill.trigger, kill.announced, kill.node, kill.broker_id) == (Trigger.KILL, True, f"broker-{victim}", victim)
    gone = kill.first(EventKind.PROCESS_GONE)
    assert gone is not None and gone.event.node == f"broker-{victim}" and gone.event.after == "killed"
    # The mock's metadata drops the broker at once; the demo is neither ZooKeeper nor KRaft, and says neither.
    left = kill.first(EventKind.BROKER_LEFT, broker_id=victim)
    assert left is not None and left.event.source == "metadata"
    assert left.event.text == f"broker {victim} left the cluster metadata"
    assert not {EventKind.BROKER_DEREGISTERED, EventKind.BROKER_FENCED} & {s.event.kind for s in kill.steps}
    for tp in moved:
        step = kill.first(EventKind.LEADER_CHANGED, partition=tp)
        assert step is not None, tp
        replicas = next(p.replicas for p in before.partitions if TopicPartition(p.topic, p.id) == tp)
        # Kafka's election: the first replica in assignment order that is alive and in the ISR.
        assert (step.event.before, step.event.after) == (str(victim), str(next(r for r in replicas if r != victim)))
        assert step.since_start_s >= 0
    # Every partition with a replica on the victim saw its ISR shrink, as the demo's controller decided.
    shrunk = {s.event.partition for s in kill.steps if s.event.kind is EventKind.ISR_SHRUNK}
    assert shrunk == {TopicPartition(p.topic, p.id) for p in before.partitions if victim in p.replicas}
    if before.controller_id == victim:
        controller = kill.first(EventKind.CONTROLLER_CHANGED)
        assert controller is not None and controller.event.before == str(victim)
    # Partitions led by the others did not move; nothing is duplicated; and no recovery while a broker is down.
    assert {e.partition for e in snap.events if e.kind is EventKind.LEADER_CHANGED} == moved
    assert [s.event.kind for s in kill.steps].count(EventKind.BROKER_LEFT) == 1
    assert kill.open and EventKind.RECOVERED not in {e.kind for e in snap.events}

    timeline.record_action("start", f"broker-{victim}")
    control.start(f"broker-{victim}")

    def recovered() -> TimelineSnapshot | None:
        snap = poll()
        return snap if snap.incidents[-1].recovered else None

    snap = wait_for(recovered, timeout_s=8, interval_s=0.05, what="the start's incident recovered")
    kill, start = snap.incidents
    # The start of the node the kill lost is its way back: the kill recovers with it (one recovery, in both).
    assert kill.recovered and kill.ended_at == start.ended_at and kill.steps[-1].event is start.steps[-1].event
    assert (start.trigger, start.node) == (Trigger.START, f"broker-{victim}")
    kinds = [s.event.kind for s in start.steps]
    assert kinds[0] is EventKind.ACTION and kinds[-1] is EventKind.RECOVERED
    assert {EventKind.PROCESS_STARTED, EventKind.BROKER_REGISTERED, EventKind.ISR_EXPANDED} <= set(kinds)
    assert start.recovered_after_s is not None and 0 <= start.recovered_after_s < 8
    assert start.steps[-1].event.at - start.started_at == pytest.approx(start.recovered_after_s)

    # The history saw the same polls: broker `victim` led nothing while it was down.
    assert 0.0 in history.snapshot().leaders(victim)
    assert history.snapshot().isr_size(TP)[-1] == 3.0
