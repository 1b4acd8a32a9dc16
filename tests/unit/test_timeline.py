"""The failover timeline, fed with frozen snapshots and ZooKeeper events built by hand: no clock, no network."""

from __future__ import annotations

import threading

import pytest

from kafkatop.backends.insight.timeline.client_errors import FOLD_CLIENT_ERRORS_S, fold_key
from kafkatop.backends.insight.timeline.incidents import MAX_INCIDENT_STEPS, MAX_INCIDENTS
from kafkatop.backends.insight.timeline.log import MAX_EVENTS
from kafkatop.backends.insight.timeline.model import EventKind, Incident, TimelineEvent, Trigger
from kafkatop.backends.insight.timeline.timeline import Timeline
from kafkatop.backends.model.cluster import NO_LEADER, Broker, ClusterMode, ClusterSnapshot, Partition, Topic
from kafkatop.backends.model.consoles import ConsoleActivity, ConsumerView, Delivery
from kafkatop.backends.model.nodes import NodesSnapshot, NodeState, NodeView, ProcessRole
from kafkatop.backends.model.operations import OperationKind, OperationPhase, OperationStep
from kafkatop.backends.model.quorum import QuorumReplica, QuorumSnapshot
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.model.zookeeper import (
    BrokerDeregistered,
    BrokerRegistered,
    ControllerChanged,
    PartitionState,
    PartitionStateChanged,
)

T0 = 1_700_000_000.0
P0 = TopicPartition("purchases", 0)
P1 = TopicPartition("purchases", 1)
UP = {1: NodeState.UP, 2: NodeState.UP, 3: NodeState.UP}


# --- builders -----------------------------------------------------------------------------------------------------
def nodes(at: float, states: dict[int, NodeState] = UP, pids: dict[int, int] | None = None) -> NodesSnapshot:
    pids = pids or {b: 4100 + b for b in states}
    views = tuple(
        NodeView(
            f"broker-{b}", ProcessRole.BROKER, b, state, pids[b] if state is NodeState.UP else None, (9091 + b,),
            None, None, 10.0 if state is NodeState.UP else None, None,
        )
        for b, state in states.items()
    )  # fmt: skip
    return NodesSnapshot(at, "lab", "lab", views, True)


def part(p: int, leader: int, isr: tuple[int, ...], epoch: int | None = None, hw: int | None = None) -> Partition:
    return Partition("purchases", p, leader, (1, 2, 3), isr, high_watermark=hw, leader_epoch=epoch)


HEALTHY = (part(0, 2, (1, 2, 3), 4), part(1, 1, (1, 2, 3), 7))


def cluster(
    at: float,
    partitions: tuple[Partition, ...] = HEALTHY,
    alive: tuple[int, ...] = (1, 2, 3),
    controller: int | None = 2,
    mode: ClusterMode = "zk",
    source: str = "admin",
) -> ClusterSnapshot:
    brokers = tuple(Broker(b, "127.0.0.1", 9091 + b, alive=b in alive) for b in (1, 2, 3))
    return ClusterSnapshot(source, at, "c", mode, controller, brokers, (Topic("purchases", partitions),))


def state_change(
    at: float, p: int, before: tuple[int, tuple[int, ...], int], after: tuple[int, tuple[int, ...], int]
) -> PartitionStateChanged:
    previous = PartitionState(before[0], before[1], before[2], 1)
    return PartitionStateChanged(at, "purchases", p, previous, PartitionState(after[0], after[1], after[2], 2))


def baseline(timeline: Timeline, at: float = T0) -> None:
    timeline.observe_nodes(nodes(at))
    timeline.observe_cluster(cluster(at))


def kinds(events: tuple[TimelineEvent, ...] | list[TimelineEvent]) -> list[EventKind]:
    return [e.kind for e in events]


def steps(incident: Incident) -> list[tuple[EventKind, float, float]]:
    return [(s.event.kind, round(s.since_start_s, 3), round(s.since_previous_s, 3)) for s in incident.steps]


def kill_9_in_zookeeper_mode(timeline: Timeline) -> None:
    """kill -9 of broker 2 (controller, leader of purchases-0): its ZooKeeper session outlives it by 18 s, and only
    then does the controller (moving to broker 1) elect a new leader and shrink the ISRs."""
    timeline.record_action("kill", "broker-2", T0 + 1)
    timeline.observe_nodes(nodes(T0 + 1.2, {1: NodeState.UP, 2: NodeState.KILLED, 3: NodeState.UP}))
    timeline.observe_cluster(cluster(T0 + 2))  # still registered: the metadata has not changed
    timeline.observe_zookeeper(BrokerDeregistered(T0 + 19.0, 2))
    timeline.observe_zookeeper(ControllerChanged(T0 + 19.1, 2, None, 8))
    timeline.observe_zookeeper(ControllerChanged(T0 + 19.2, None, 1, 9))
    timeline.observe_zookeeper(state_change(T0 + 19.3, 0, (2, (2, 1, 3), 4), (3, (1, 3), 5)))
    timeline.observe_zookeeper(state_change(T0 + 19.4, 1, (1, (1, 2, 3), 7), (1, (1, 3), 7)))
    # The next metadata poll shows all of it again.
    after = (part(0, 3, (3, 1), 5), part(1, 1, (1, 3), 7))
    timeline.observe_cluster(cluster(T0 + 20, after, alive=(1, 3), controller=1))


# --- baselines ------------------------------------------------------------------------------------------------------
def test_the_first_view_of_each_source_is_only_a_baseline() -> None:
    timeline = Timeline()
    timeline.observe_nodes(nodes(T0, {1: NodeState.UP, 2: NodeState.KILLED, 3: NodeState.UP}))
    timeline.observe_cluster(cluster(T0, (part(0, NO_LEADER, (2,)),), alive=(1, 3)))
    timeline.observe_cluster(cluster(T0, source="zookeeper"))
    timeline.observe_quorum(QuorumSnapshot(T0, 1, 4, 100, (), ()))
    snap = timeline.snapshot()
    assert (snap.events, snap.incidents, snap.open_incident) == ((), (), None)


# --- kill -9 and controlled shutdown ----------------------------------------------------------------------------
def test_kill_9_in_zookeeper_mode_shows_the_session_timeout() -> None:
    timeline = Timeline()
    baseline(timeline)
    kill_9_in_zookeeper_mode(timeline)
    snap = timeline.snapshot()
    assert [(e.kind, e.source, e.text) for e in snap.events] == [
        (EventKind.ACTION, "kafkatop", "kill -9 broker-2 from kafkatop"),
        (EventKind.PROCESS_GONE, "processes", "broker-2 gone: killed (kill -9) (was pid 4102)"),
        (EventKind.BROKER_DEREGISTERED, "zookeeper",
         "broker 2 deregistered: /brokers/ids/2 removed (its ZooKeeper session ended)"),
        (EventKind.CONTROLLER_CHANGED, "zookeeper",
         "no controller (was broker 2): an election is under way (controller epoch 8)"),
        (EventKind.CONTROLLER_CHANGED, "zookeeper", "controller none→1 (controller epoch 9)"),
        (EventKind.LEADER_CHANGED, "zookeeper", "purchases-0: leader 2→3 (leader epoch 5)"),
        (EventKind.ISR_SHRUNK, "zookeeper", "purchases-0: ISR 2,1,3→1,3"),
        (EventKind.ISR_SHRUNK, "zookeeper", "purchases-1: ISR 1,2,3→1,3"),
    ]  # fmt: skip
    gone, deregistered = snap.events[1], snap.events[2]
    assert (gone.node, gone.broker_id, gone.before, gone.after) == ("broker-2", 2, "up (pid 4102)", "killed")
    assert (deregistered.node, deregistered.broker_id) == ("broker-2", 2)
    leader = snap.events[5]
    assert (leader.partition, leader.before, leader.after, leader.leader_epoch) == (P0, "2", "3", 5)
    assert leader.broker_id == 3  # the new leader
    # The metadata poll saw the same changes: each is kept once, as ZooKeeper pushed it, with metadata noted.
    assert [e.confirmed_by for e in snap.events] == [(), (), ("metadata",), (), ("metadata",)] + [("metadata",)] * 3

    (incident,) = snap.incidents
    assert (incident.number, incident.trigger, incident.announced) == (1, Trigger.KILL, True)
    assert incident.title == "kill -9 broker-2"
    assert (incident.node, incident.broker_id, incident.started_at) == ("broker-2", 2, T0 + 1)
    assert incident.open and not incident.recovered and incident.recovered_after_s is None
    assert steps(incident) == [
        (EventKind.ACTION, 0.0, 0.0),
        (EventKind.PROCESS_GONE, 0.2, 0.2),
        # The broker stayed registered for 18 s after its process died: ZooKeeper's session timeout.
        (EventKind.BROKER_DEREGISTERED, 18.0, 17.8),
        (EventKind.CONTROLLER_CHANGED, 18.1, 0.1),
        (EventKind.CONTROLLER_CHANGED, 18.2, 0.1),
        (EventKind.LEADER_CHANGED, 18.3, 0.1),
        (EventKind.ISR_SHRUNK, 18.3, 0.0),
        (EventKind.ISR_SHRUNK, 18.4, 0.1),
    ]
    assert incident.after_s(EventKind.BROKER_DEREGISTERED, broker_id=2) == pytest.approx(18.0)
    first_leader = incident.first(EventKind.LEADER_CHANGED, partition=P0)
    assert first_leader is not None and first_leader.event.after == "3"
    assert incident.first(EventKind.LEADER_CHANGED, partition=P1) is None
    assert snap.open_incident == incident


def controlled_shutdown(timeline: Timeline, t: float) -> None:
    """stop broker-2: it hands its leaderships over while still running, then closes its ZooKeeper session."""
    timeline.record_action("stop", "broker-2", t)
    timeline.observe_zookeeper(state_change(t + 0.4, 0, (2, (1, 2, 3), 8), (3, (1, 3), 9)))
    timeline.observe_nodes(nodes(t + 1.0, {1: NodeState.UP, 2: NodeState.STOPPING, 3: NodeState.UP}))
    timeline.observe_nodes(nodes(t + 1.5, {1: NodeState.UP, 2: NodeState.DOWN, 3: NodeState.UP}))
    timeline.observe_zookeeper(BrokerDeregistered(t + 1.6, 2))


def restart_broker_2(timeline: Timeline, t: float) -> None:
    timeline.record_action("start", "broker-2", t)
    timeline.observe_nodes(nodes(t + 0.5, {1: NodeState.UP, 2: NodeState.STARTING, 3: NodeState.UP}))
    timeline.observe_zookeeper(BrokerRegistered(t + 3.0, Broker(2, "127.0.0.1", 9093)))
    timeline.observe_nodes(nodes(t + 3.2))
    # Registered, but not caught up: purchases-0 is not in sync yet, so not recovered.
    timeline.observe_cluster(cluster(t + 3.5, (part(0, 3, (1, 3), 7), part(1, 1, (1, 2, 3), 7)), controller=1))
    timeline.observe_cluster(cluster(t + 4.5, (part(0, 3, (1, 2, 3), 7), part(1, 1, (1, 2, 3), 7)), controller=1))


def test_kill_9_and_controlled_shutdown_side_by_side() -> None:
    timeline = Timeline()
    baseline(timeline)
    kill_9_in_zookeeper_mode(timeline)
    restart_broker_2(timeline, T0 + 30)
    # The preferred leader election gives purchases-0 back to broker 2, which is then stopped.
    timeline.observe_zookeeper(state_change(T0 + 45, 0, (3, (1, 2, 3), 7), (2, (1, 2, 3), 8)))
    controlled_shutdown(timeline, T0 + 60)
    kill, start, stop = timeline.snapshot().incidents
    assert [i.trigger for i in (kill, start, stop)] == [Trigger.KILL, Trigger.START, Trigger.STOP]
    assert [i.title for i in (kill, start, stop)] == [
        "kill -9 broker-2",
        "start broker-2",
        "controlled shutdown of broker-2",
    ]
    assert kill.after_s(EventKind.BROKER_DEREGISTERED) == pytest.approx(18.0)
    assert stop.after_s(EventKind.BROKER_DEREGISTERED) == pytest.approx(1.6)
    # kill -9: the process is gone long before a leader moves; stop: the leader moves before the process goes.
    assert kill.after_s(EventKind.PROCESS_GONE) < kill.after_s(EventKind.LEADER_CHANGED)  # type: ignore[operator]
    assert stop.after_s(EventKind.LEADER_CHANGED) < stop.after_s(EventKind.PROCESS_GONE)  # type: ignore[operator]
    assert steps(stop) == [
        (EventKind.ACTION, 0.0, 0.0),
        (EventKind.LEADER_CHANGED, 0.4, 0.4),
        (EventKind.ISR_SHRUNK, 0.4, 0.0),
        (EventKind.PROCESS_GONE, 1.5, 1.1),
        (EventKind.BROKER_DEREGISTERED, 1.6, 0.1),
    ]
    assert stop.steps[3].event.text == "broker-2 gone: stopped"
    # The start of the node a kill -9 lost is its way back: the kill recovers with it (before, it stayed "not
    # recovered", its recovery filed under the start's). The stop's node is not started again: it stays open.
    assert start.recovered and start.ended_at == T0 + 34.5
    assert kill.recovered and kill.ended_at == T0 + 34.5 and kill.recovered_after_s == pytest.approx(33.5)
    assert kill.steps[-1].event.kind is EventKind.RECOVERED
    assert stop.open


def test_recovered_once_every_node_is_up_and_every_isr_full() -> None:
    timeline = Timeline()
    baseline(timeline)
    kill_9_in_zookeeper_mode(timeline)
    restart_broker_2(timeline, T0 + 30)
    snap = timeline.snapshot()
    start = snap.incidents[1]
    assert steps(start) == [
        (EventKind.ACTION, 0.0, 0.0),
        (EventKind.PROCESS_STARTED, 0.5, 0.5),
        (EventKind.BROKER_REGISTERED, 3.0, 2.5),
        # Registered at 3.0 s and up at 3.2 s, but purchases-0 caught up only by the poll at 4.5 s.
        (EventKind.ISR_EXPANDED, 3.5, 0.5),  # purchases-1: 1,3 → 1,2,3
        (EventKind.ISR_EXPANDED, 4.5, 1.0),  # purchases-0: 1,3 → 1,2,3
        (EventKind.RECOVERED, 4.5, 0.0),
    ]
    assert [s.event.partition for s in start.steps[3:5]] == [P1, P0]
    assert start.recovered_after_s == pytest.approx(4.5)
    recovered = snap.events[-1]
    assert recovered.kind is EventKind.RECOVERED and recovered.source == "kafkatop"
    assert recovered.text.startswith(
        "recovered 4.5 s after start broker-2 (33.5 s after kill -9 broker-2): every node up"
    )
    assert snap.open_incident is None
    # Further changes after the recovery are logged, outside any incident.
    timeline.observe_cluster(cluster(T0 + 50, (part(0, 2, (1, 2, 3), 8), part(1, 1, (1, 2, 3), 7)), controller=1))
    later = timeline.snapshot()
    assert later.events[-1].kind is EventKind.LEADER_CHANGED and later.incidents == snap.incidents


def test_no_recovery_before_the_action_takes_effect() -> None:
    timeline = Timeline()
    baseline(timeline)
    timeline.record_action("kill", "broker-3", T0 + 1)
    # Polls that finished after the action but show the cluster as it was: healthy, and not yet changed.
    timeline.observe_cluster(cluster(T0 + 1.1))
    timeline.observe_nodes(nodes(T0 + 1.2))
    (incident,) = timeline.snapshot().incidents
    assert incident.open and kinds([s.event for s in incident.steps]) == [EventKind.ACTION]
    # Then the kill shows, and it stays unrecovered while broker-3 is down even though every ISR looks full.
    timeline.observe_nodes(nodes(T0 + 2.2, {1: NodeState.UP, 2: NodeState.UP, 3: NodeState.KILLED}))
    timeline.observe_cluster(cluster(T0 + 2.5))
    (incident,) = timeline.snapshot().incidents
    assert incident.open and EventKind.RECOVERED not in kinds([s.event for s in incident.steps])


def test_offline_partition_and_its_return() -> None:
    timeline = Timeline()
    timeline.observe_cluster(cluster(T0, (part(0, 3, (3,), 2),)))
    timeline.observe_cluster(cluster(T0 + 1, (part(0, NO_LEADER, (3,), 3),), alive=(1, 2)))
    timeline.observe_cluster(cluster(T0 + 9, (part(0, 3, (3,), 4),)))
    events = timeline.snapshot().events
    assert [(e.kind, e.text) for e in events] == [
        (EventKind.BROKER_DEREGISTERED, "broker 3 left the cluster metadata (deregistered)"),
        (EventKind.PARTITION_OFFLINE, "purchases-0 offline: no leader (was 3, ISR 3) (leader epoch 3)"),
        (EventKind.BROKER_REGISTERED, "broker 3 back in the metadata (registered)"),
        (EventKind.LEADER_CHANGED, "purchases-0: leader none→3 (was offline) (leader epoch 4)"),
    ]
    # Nobody announced the loss: it opened an incident of its own (no node panes: no RECOVERED until all ISR full).
    (incident,) = timeline.snapshot().incidents
    assert (incident.trigger, incident.announced, incident.broker_id, incident.title) == (
        Trigger.BROKER_LOST, False, 3, "broker 3 lost")  # fmt: skip
    assert incident.open  # purchases-0's ISR is still 3 of 1,2,3


# --- unannounced losses -------------------------------------------------------------------------------------------
def test_a_process_gone_by_itself_opens_an_incident_and_its_broker_loss_joins_it() -> None:
    timeline = Timeline()
    baseline(timeline)
    timeline.observe_nodes(nodes(T0 + 5, {1: NodeState.UP, 2: NodeState.UP, 3: NodeState.FAILED}))
    timeline.observe_cluster(cluster(T0 + 6, (part(0, 2, (1, 2), 4), part(1, 1, (1, 2), 7)), alive=(1, 2)))
    # Another broker lost meanwhile, with no process seen going: a second incident.
    timeline.observe_cluster(cluster(T0 + 7, (part(0, 2, (2,), 4), part(1, 2, (2,), 8)), alive=(2,)))
    first, second = timeline.snapshot().incidents
    assert (first.trigger, first.announced, first.title) == (Trigger.PROCESS_EXITED, False, "broker-3 exited")
    assert kinds([s.event for s in first.steps]) == [
        EventKind.PROCESS_GONE, EventKind.BROKER_DEREGISTERED, EventKind.ISR_SHRUNK, EventKind.ISR_SHRUNK
    ]  # fmt: skip
    assert first.steps[1].since_start_s == pytest.approx(1.0)
    assert (second.trigger, second.broker_id, second.node) == (Trigger.BROKER_LOST, 1, "broker-1")
    assert first.ended_at == second.started_at == T0 + 7


def test_a_restart_between_two_polls_is_seen_by_its_new_pid() -> None:
    timeline = Timeline()
    timeline.observe_nodes(nodes(T0))
    timeline.observe_nodes(nodes(T0 + 1, pids={1: 4101, 2: 5555, 3: 4103}))
    events = timeline.snapshot().events
    assert [(e.kind, e.node, e.before, e.after) for e in events] == [
        (EventKind.PROCESS_GONE, "broker-2", "up (pid 4102)", "restarted"),
        (EventKind.PROCESS_STARTED, "broker-2", None, "up (pid 5555)"),
        # Every node is up again and no cluster source says otherwise.
        (EventKind.RECOVERED, None, None, None),
    ]
    (incident,) = timeline.snapshot().incidents
    assert (incident.trigger, incident.announced, incident.recovered_after_s) == (Trigger.RESTART, False, 0.0)


def test_a_killed_node_without_an_action_is_named_by_its_state() -> None:
    timeline = Timeline()
    timeline.observe_nodes(nodes(T0))
    timeline.observe_nodes(nodes(T0 + 1, {1: NodeState.KILLED, 2: NodeState.UP, 3: NodeState.UP}))
    (incident,) = timeline.snapshot().incidents
    assert (incident.trigger, incident.announced, incident.title) == (Trigger.KILL, False, "kill -9 broker-1")


# --- duplicates -----------------------------------------------------------------------------------------------------
def test_a_change_seen_twice_is_kept_once_and_the_right_election_is_matched() -> None:
    timeline = Timeline()
    timeline.observe_cluster(cluster(T0, (part(0, 2, (1, 2, 3), 4),)))
    # ZooKeeper pushes three elections; the next metadata poll only sees where they ended (leader 3, epoch 7).
    timeline.observe_zookeeper(state_change(T0 + 1, 0, (2, (1, 2, 3), 4), (3, (1, 2, 3), 5)))
    timeline.observe_zookeeper(state_change(T0 + 2, 0, (3, (1, 2, 3), 5), (2, (1, 2, 3), 6)))
    timeline.observe_zookeeper(state_change(T0 + 3, 0, (2, (1, 2, 3), 6), (3, (1, 2, 3), 7)))
    timeline.observe_cluster(cluster(T0 + 3.5, (part(0, 3, (1, 2, 3), 7),)))
    events = timeline.snapshot().events
    assert [(e.after, e.leader_epoch, e.confirmed_by) for e in events] == [
        ("3", 5, ()),
        ("2", 6, ()),
        ("3", 7, ("metadata",)),
    ]
    # A lagging source's view of an older election (epoch 6 after 7 was seen) is dropped.
    timeline.observe_cluster(cluster(T0 + 4, (part(0, 2, (1, 2, 3), 6),), source="lagging"))
    timeline.observe_cluster(cluster(T0 + 4.5, (part(0, 1, (1, 2, 3), 5),), source="lagging"))
    assert len(timeline.snapshot().events) == 3


def test_two_sources_without_epochs_agree_on_one_event() -> None:
    """The admin poll and ZooKeeper's mirror both see broker 3 go; neither knows an epoch for it."""
    timeline = Timeline()
    timeline.observe_cluster(cluster(T0, source="admin"))
    timeline.observe_cluster(cluster(T0, source="zookeeper"))
    timeline.observe_cluster(cluster(T0 + 1, alive=(1, 2), source="zookeeper"))
    timeline.observe_cluster(cluster(T0 + 1.5, alive=(1, 2), source="admin"))
    events = timeline.snapshot().events
    assert [(e.kind, e.source, e.confirmed_by) for e in events] == [
        (EventKind.BROKER_DEREGISTERED, "zookeeper", ("metadata",))
    ]


def test_a_mass_leader_move_seen_by_two_sources() -> None:
    count = 900  # 1,800 events: within MAX_EVENTS
    before = tuple(Partition("orders", p, 1, (1, 2), (1, 2), leader_epoch=3) for p in range(count))
    after = tuple(Partition("orders", p, 2, (1, 2), (2,), leader_epoch=4) for p in range(count))

    def orders(at: float, parts: tuple[Partition, ...], source: str) -> ClusterSnapshot:
        return ClusterSnapshot(
            source, at, "c", "zk", 2, (Broker(1, "h", 1), Broker(2, "h", 2)), (Topic("orders", parts),)
        )

    timeline = Timeline()
    timeline.observe_cluster(orders(T0, before, "zookeeper"))
    timeline.observe_cluster(orders(T0, before, "admin"))
    timeline.observe_cluster(orders(T0 + 1, after, "zookeeper"))
    timeline.observe_cluster(orders(T0 + 2, after, "admin"))
    events = timeline.snapshot().events
    assert len(events) == 2 * count  # a leader change and an ISR shrink each, once
    assert {e.confirmed_by for e in events} == {("metadata",)}
    assert {e.source for e in events} == {"zookeeper"}


def test_one_source_flapping_is_every_change() -> None:
    timeline = Timeline()
    timeline.observe_cluster(cluster(T0))
    for i, alive in enumerate([(1, 2), (1, 2, 3), (1, 2), (1, 2, 3)], start=1):
        timeline.observe_cluster(cluster(T0 + i, alive=alive))
    snap = timeline.snapshot()
    assert kinds(snap.events) == [
        EventKind.BROKER_DEREGISTERED, EventKind.BROKER_REGISTERED, EventKind.RECOVERED,
        EventKind.BROKER_DEREGISTERED, EventKind.BROKER_REGISTERED, EventKind.RECOVERED,
    ]  # fmt: skip
    assert [(i.trigger, i.recovered_after_s) for i in snap.incidents] == [(Trigger.BROKER_LOST, 1.0)] * 2


def test_a_poll_that_finishes_late_is_ignored() -> None:
    timeline = Timeline()
    timeline.observe_cluster(cluster(T0 + 5))
    timeline.observe_cluster(cluster(T0 + 4, alive=(1, 2)))
    assert timeline.snapshot().events == ()


# --- KRaft ------------------------------------------------------------------------------------------------------
def quorum(at: float, leader: int, epoch: int) -> QuorumSnapshot:
    return QuorumSnapshot(at, leader, epoch, 100, tuple(QuorumReplica(v, 100, 0, 1, 1) for v in (1, 2, 3)), ())


def test_kraft_quorum_leader_and_fenced_broker() -> None:
    timeline = Timeline()
    timeline.observe_quorum(quorum(T0, 1, 4))
    timeline.observe_cluster(cluster(T0, controller=None, mode="kraft"))
    timeline.record_action("kill", "broker-1", T0 + 1, broker_id=1)
    timeline.observe_quorum(quorum(T0 + 2, -1, 5))
    timeline.observe_quorum(quorum(T0 + 2.5, 2, 5))
    timeline.observe_quorum(quorum(T0 + 2.6, 1, 4))  # an answer from before the election, arriving late
    timeline.observe_cluster(cluster(T0 + 8, (part(0, 2, (2, 3), 5), part(1, 2, (2, 3), 8)), alive=(2, 3),
                                     controller=None, mode="kraft"))  # fmt: skip
    timeline.observe_quorum(quorum(T0 + 9, 2, 6))
    events = timeline.snapshot().events
    assert [(e.kind, e.text) for e in events[:4]] == [
        (EventKind.ACTION, "kill -9 broker-1 from kafkatop"),
        (EventKind.QUORUM_LEADER_CHANGED, "no quorum leader (was 1): a controller election is under way"),
        (EventKind.QUORUM_LEADER_CHANGED, "quorum leader (active controller) none→2 (epoch 5)"),
        (EventKind.BROKER_FENCED, "broker 1 fenced: no longer in the metadata"),
    ]
    assert events[2].partition == TopicPartition("__cluster_metadata", 0) and events[2].leader_epoch == 5
    assert (events[-1].kind, events[-1].text) == (
        EventKind.QUORUM_LEADER_CHANGED,
        "quorum leader 2 re-elected (epoch 5→6)",
    )
    assert EventKind.CONTROLLER_CHANGED not in kinds(events)  # KRaft metadata names no controller: nothing to diff
    (incident,) = timeline.snapshot().incidents
    assert incident.first(EventKind.BROKER_FENCED, broker_id=1) is not None


@pytest.mark.parametrize("mode", ["demo", "unknown"])
def test_a_broker_leaving_a_cluster_neither_zookeeper_nor_kraft(mode: ClusterMode) -> None:
    """The demo's mock (or a cluster whose mode is not known) has no /brokers/ids and no fencing: said as it is."""
    timeline = Timeline()
    timeline.observe_cluster(cluster(T0, mode=mode))
    timeline.observe_cluster(cluster(T0 + 1, alive=(1, 2), mode=mode))
    timeline.observe_cluster(cluster(T0 + 2, mode=mode))
    assert [(e.kind, e.text) for e in timeline.snapshot().events] == [
        (EventKind.BROKER_LEFT, "broker 3 left the cluster metadata"),
        (EventKind.BROKER_REGISTERED, "broker 3 back in the metadata"),
        (EventKind.RECOVERED, "recovered 1.0 s after broker 3 lost: every node up, every broker alive, every "
         "partition led with its full ISR"),
    ]  # fmt: skip
    assert all("ZooKeeper" not in e.text and "deregistered" not in e.text for e in timeline.snapshot().events)


# --- clients ------------------------------------------------------------------------------------------------------
def test_client_errors_fold_repeats() -> None:
    timeline = Timeline()
    for i in range(5):
        timeline.record_client_error("producer", "NOT_LEADER_OR_FOLLOWER", T0 + i)
    timeline.record_client_error("consumer", "NOT_LEADER_OR_FOLLOWER", T0 + 5)
    timeline.record_client_error("producer", "NOT_LEADER_OR_FOLLOWER", T0 + 4 + FOLD_CLIENT_ERRORS_S + 1)
    events = timeline.snapshot().events
    assert [(e.kind, e.count, e.text) for e in events] == [
        (EventKind.PRODUCER_ERROR, 5, "producer: NOT_LEADER_OR_FOLLOWER"),
        (EventKind.CONSUMER_ERROR, 1, "consumer: NOT_LEADER_OR_FOLLOWER"),
        (EventKind.PRODUCER_ERROR, 1, "producer: NOT_LEADER_OR_FOLLOWER"),
    ]


def test_client_errors_do_not_fold_across_an_incident_start() -> None:
    timeline = Timeline()
    baseline(timeline)
    timeline.record_client_error("producer", "_MSG_TIMED_OUT", T0 + 0.5)
    timeline.record_action("kill", "broker-2", T0 + 1)
    timeline.record_client_error("producer", "_MSG_TIMED_OUT", T0 + 2)
    timeline.record_client_error("producer", "_MSG_TIMED_OUT", T0 + 3)
    snap = timeline.snapshot()
    assert [(e.kind, e.count) for e in snap.events] == [
        (EventKind.PRODUCER_ERROR, 1), (EventKind.ACTION, 1), (EventKind.PRODUCER_ERROR, 2)
    ]  # fmt: skip
    assert [(s.event.kind, s.event.count) for s in snap.incidents[0].steps] == [
        (EventKind.ACTION, 1), (EventKind.PRODUCER_ERROR, 2)
    ]  # fmt: skip


# What librdkafka reports when a consumer's group coordinator and fetch broker are killed: the same refusal through
# two connections, with times and suppression counts that change from one report to the next.
REFUSED = "Connect to ipv4#127.0.0.1:35495 failed: Connection refused"
REPORTS = (
    f"_TRANSPORT: GroupCoordinator: 127.0.0.1:35495: {REFUSED} (after 0ms in state CONNECT)",
    f"_TRANSPORT: 127.0.0.1:35495/2: {REFUSED} (after 1ms in state CONNECT, 4 identical error(s) suppressed)",
    f"_TRANSPORT: GroupCoordinator/2: {REFUSED} (after 0ms in state CONNECT, 12 identical error(s) suppressed)",
    f"_TRANSPORT: 127.0.0.1:35495/bootstrap: {REFUSED} (after 2ms in state CONNECT)",
    f"_TRANSPORT: GroupCoordinator: {REFUSED} (after 0ms in state CONNECT)",  # the coordinator, its address left out
)


def test_fold_key_leaves_out_librdkafkas_changing_details() -> None:
    assert {fold_key(r) for r in REPORTS} == {f"_TRANSPORT: {REFUSED}"}
    assert fold_key("delivery to orders failed: NOT_LEADER_OR_FOLLOWER") == (
        "delivery to orders failed: NOT_LEADER_OR_FOLLOWER"
    )
    # Another broker's refusal is another error.
    assert fold_key(REPORTS[0].replace("35495", "35496")) != fold_key(REPORTS[0])


def test_one_repeated_consumer_error_is_one_line_with_a_count() -> None:
    """Three consumers of a group, each reporting the dead coordinator again and again in changing words: one line,
    naming them, counted — not a timeline drowned in "Connection refused"."""
    timeline = Timeline()
    for i in range(12):
        views = tuple(
            ConsumerView(f"c{n}", "billing", ("orders",), "consuming", (), 0, REPORTS[(i + n) % len(REPORTS)])
            for n in (1, 2, 3)
        )
        timeline.observe_consoles(ConsoleActivity((), (), (), 0, views), T0 + 2 * i)
    (event,) = timeline.snapshot().events
    assert event.kind is EventKind.CONSUMER_ERROR and event.count == 36
    assert event.text == f"consumer: c1, c2, c3 (group billing): {REPORTS[1]}"


def test_console_activity_becomes_client_errors() -> None:
    timeline = Timeline()
    ok = Delivery(1, "purchases", 0, 41, None, "a", None, 3.0)
    failed = Delivery(
        2, "purchases", 1, None, None, "b", "NOT_ENOUGH_REPLICAS: Broker: Not enough in-sync replicas", None
    )
    consumer = ConsumerView("c1", "billing", ("purchases",), "consuming", (P0,), 10, "UNKNOWN_TOPIC_OR_PART")
    timeline.observe_consoles(ConsoleActivity((ok, failed, failed), (), (), 0, (consumer,)), T0)
    timeline.observe_consoles(ConsoleActivity((), (), (), 0, (consumer,)), T0 + 1)  # the same problem, still shown
    events = timeline.snapshot().events
    assert [(e.kind, e.count, e.partition, e.text) for e in events] == [
        (EventKind.PRODUCER_ERROR, 2, P1,
         "producer: delivery to purchases failed: NOT_ENOUGH_REPLICAS: Broker: Not enough in-sync replicas"),
        (EventKind.CONSUMER_ERROR, 1, None, "consumer: c1 (group billing): UNKNOWN_TOPIC_OR_PART"),
    ]  # fmt: skip


# --- bounds and threads -----------------------------------------------------------------------------------------
def test_the_event_log_and_incidents_are_bounded() -> None:
    timeline = Timeline()
    for i in range(MAX_EVENTS + 50):
        timeline.record_client_error("producer", f"error {i}", T0 + i)
    events = timeline.snapshot().events
    assert len(events) == MAX_EVENTS
    assert events[0].text == "producer: error 50" and events[-1].text == f"producer: error {MAX_EVENTS + 49}"

    for i in range(MAX_INCIDENTS + 5):
        timeline.record_action("restart", "broker-1", T0 + 10_000 + i)
    incidents = timeline.snapshot().incidents
    assert len(incidents) == MAX_INCIDENTS
    assert [i.number for i in incidents] == list(range(6, MAX_INCIDENTS + 6))


def test_an_incident_keeps_its_first_steps_and_its_recovery() -> None:
    timeline = Timeline()
    baseline(timeline)
    timeline.record_action("stop", "broker-3", T0 + 1)
    timeline.observe_nodes(nodes(T0 + 1.5, {1: NodeState.UP, 2: NodeState.UP, 3: NodeState.DOWN}))
    for i in range(MAX_INCIDENT_STEPS + 10):
        timeline.record_client_error("producer", f"error {i}", T0 + 2 + i / 1000)
    timeline.observe_nodes(nodes(T0 + 20))
    timeline.observe_cluster(cluster(T0 + 21))
    (incident,) = timeline.snapshot().incidents
    assert len(incident.steps) == MAX_INCIDENT_STEPS
    # 1,013 steps before the recovery (action, gone, 1,010 errors, started): the first MAX - 1 are kept.
    assert incident.omitted_steps == 1_013 - (MAX_INCIDENT_STEPS - 1)
    # The processes were back at +19 s, but only the cluster poll at +20 s confirmed it.
    assert incident.steps[-1].event.kind is EventKind.RECOVERED and incident.recovered_after_s == pytest.approx(20.0)


def test_threads_feeding_at_once_lose_nothing() -> None:
    timeline = Timeline()
    per_thread = 400

    def feed(n: int) -> None:
        for i in range(per_thread):
            timeline.record_client_error("producer", f"t{n} error {i}", T0 + i)
            if i % 50 == 0:
                timeline.snapshot()

    threads = [threading.Thread(target=feed, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    events = timeline.snapshot().events
    assert len(events) == 4 * per_thread
    assert [e.at for e in events] == sorted(e.at for e in events)


def test_unknown_action_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown action 'reboot'"):
        Timeline().record_action("reboot", "broker-1")


# --- operations -----------------------------------------------------------------------------------------------------
def test_an_election_is_an_incident_whose_steps_are_the_leaders_it_moved() -> None:
    timeline = Timeline()
    moved_away = (part(0, 3, (1, 2, 3), 4), part(1, 1, (1, 2, 3), 7))  # partition 0's preferred leader is 1
    timeline.observe_nodes(nodes(T0))
    timeline.observe_cluster(cluster(T0, moved_away))
    election = OperationKind.LEADER_ELECTION
    timeline.record_operation(OperationStep(election, OperationPhase.STARTED, "elect", "purchases"), T0 + 1)
    timeline.record_operation(OperationStep(election, OperationPhase.DONE, "elected", "purchases"), T0 + 1.2)
    timeline.observe_nodes(nodes(T0 + 1.3))  # a process view says nothing of the leaders: the incident stays open
    assert timeline.snapshot().incidents[-1].open
    timeline.observe_cluster(cluster(T0 + 1.5, (part(0, 1, (1, 2, 3), 5), HEALTHY[1])))
    incident = timeline.snapshot().incidents[-1]
    assert (incident.trigger, incident.title, incident.announced) == (
        Trigger.LEADER_ELECTION, "leader election on purchases", True,
    )  # fmt: skip
    assert steps(incident) == [
        (EventKind.OPERATION, 0.0, 0.0),
        (EventKind.OPERATION, 0.2, 0.2),
        (EventKind.LEADER_CHANGED, 0.5, 0.3),
        (EventKind.OPERATION, 0.5, 0.0),  # its end, seen in the metadata
    ]
    assert incident.ended_at == T0 + 1.5 and incident.operation and not incident.recovered


def test_a_config_change_is_an_event_without_an_incident() -> None:
    timeline = Timeline()
    baseline(timeline)
    step = OperationStep(OperationKind.CONFIG_CHANGE, OperationPhase.DONE, "min.insync.replicas=2 on purchases")
    timeline.record_operation(step, T0 + 1)
    snapshot = timeline.snapshot()
    assert snapshot.incidents == ()
    assert [(e.kind, e.text, e.after) for e in snapshot.events[-1:]] == [
        (EventKind.OPERATION, "min.insync.replicas=2 on purchases", "done")
    ]


def test_a_reassignment_shrinking_isrs_on_its_way_ends_when_done_not_when_they_are_full_again() -> None:
    timeline = Timeline()
    baseline(timeline)
    move = OperationKind.REASSIGNMENT
    timeline.record_operation(OperationStep(move, OperationPhase.STARTED, "reassign", "purchases"), T0 + 1)
    timeline.observe_cluster(cluster(T0 + 2, (part(0, 2, (2, 3), 5), HEALTHY[1])))  # a replica dropped: shrunk
    timeline.observe_cluster(cluster(T0 + 3))  # full again: no "recovered" for an operation
    assert timeline.snapshot().incidents[-1].open
    timeline.record_operation(OperationStep(move, OperationPhase.DONE, "done", "purchases"), T0 + 3.5)
    timeline.observe_cluster(cluster(T0 + 4))
    incident = timeline.snapshot().incidents[-1]
    assert incident.ended_at == T0 + 4 and [
        s.event.after for s in incident.steps if s.event.kind is EventKind.OPERATION
    ] == ["started", "done", "seen"]


def test_a_controlled_shutdown_recovers_when_its_node_is_started_again() -> None:
    """Before: `t` then `s` left the shutdown "not recovered" for ever, superseded by the start that recovered."""
    timeline = Timeline()
    baseline(timeline)
    controlled_shutdown(timeline, T0 + 10)
    restart_broker_2(timeline, T0 + 20)
    stop, start = timeline.snapshot().incidents
    assert (stop.trigger, start.trigger) == (Trigger.STOP, Trigger.START)
    assert stop.recovered and stop.recovered_after_s == pytest.approx(14.5)
    assert start.recovered and start.recovered_after_s == pytest.approx(4.5)
    assert stop.steps[-1].event is start.steps[-1].event  # one recovery, said in both
    assert timeline.snapshot().open_incident is None


def test_a_start_of_another_node_does_not_recover_a_loss() -> None:
    timeline = Timeline()
    baseline(timeline)
    controlled_shutdown(timeline, T0 + 10)
    timeline.record_action("start", "broker-3", T0 + 20)  # broker-2 is still down: nothing recovers
    stop, start = timeline.snapshot().incidents
    assert stop.ended_at == T0 + 20 and not stop.recovered and start.open
