"""The pure parts of a chaos run: settings, the choice of steps, settling, convergence counting, the safe limit of
brokers down, the orphan check and the verdict. No cluster, no clock, no network."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from kafkatop.backends.checks.chaos.verdict import (
    check_chaos_topic,
    choose_step,
    cluster_state,
    expected_alive,
    judge,
    lab_orphans,
    leader_moves,
    polls_to_converge,
    records_in_range,
    safe_max_down,
    targets_of,
    unsettled_reason,
)
from kafkatop.backends.checks.durability.verdict import acked_ends
from kafkatop.backends.model.chaos import (
    ACTIONS,
    ChaosRefused,
    ChaosReport,
    ChaosSettings,
    ChaosStep,
    ClusterState,
    PlannedStep,
    RecordedNode,
    TargetNode,
    ViewPoll,
    parse_actions,
)
from kafkatop.backends.model.cluster import NO_LEADER, Broker, ClusterSnapshot, Partition, Topic
from kafkatop.backends.model.durability import PartitionResult, ReadRecord, RecordDelivery
from kafkatop.backends.model.nodes import NodesSnapshot, NodeState, NodeView, ProcessRole

UP, DOWN, KILLED, FAILED = NodeState.UP, NodeState.DOWN, NodeState.KILLED, NodeState.FAILED


# --- settings -------------------------------------------------------------------------------------------------------
def test_default_settings() -> None:
    s = ChaosSettings("t")
    assert (s.steps, s.max_down, s.actions, s.seed) == (5, 1, ("kill", "stop", "restart", "start"), None)
    assert s.poll_interval_s == 1.0 and s.view_timeout_s == 2.0  # as the app polls: --interval 1, --timeout 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"topic": " "}, "give the topic"),
        ({"steps": 0}, "steps must be between 1 and 50, not 0"),
        ({"steps": 51}, "steps must be between 1 and 50, not 51"),
        ({"actions": ("start",)}, "give at least one of kill, stop, restart"),
        ({"actions": ("kill", "pause")}, "unknown action 'pause'"),
        ({"max_down": 0}, "max-down must be 1 or more, not 0"),
        ({"rate": 0}, "the rate must be between 0 and 100000"),
        ({"step_timeout_s": 0}, "the step timeout must be a positive number of seconds"),
        ({"poll_interval_s": -1}, "the poll interval must be a positive number of seconds"),
        ({"hold_s": -1}, "the hold must be between 0 and 3600 s"),
        ({"group": ""}, "the consumer group id must not be empty"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"topic": "t", **kwargs}
    with pytest.raises(ChaosRefused) as e:
        ChaosSettings(**args)  # type: ignore[arg-type]
    assert str(e.value).startswith(message)


def test_actions_from_the_command_line() -> None:
    assert parse_actions("restart, kill") == ("kill", "restart")  # in a fixed order, whatever order given
    assert parse_actions("KILL,stop,,") == ("kill", "stop")
    with pytest.raises(ChaosRefused, match="unknown action 'boom': choose from kill, stop, restart, start"):
        parse_actions("kill,boom")


# --- the choice of steps --------------------------------------------------------------------------------------------
def three(*states: NodeState) -> list[TargetNode]:
    return [TargetNode(f"broker-{i}", i, s) for i, s in enumerate(states, start=1)]


def apply(targets: list[TargetNode], step: PlannedStep) -> list[TargetNode]:
    after = {"kill": KILLED, "stop": DOWN, "restart": UP, "start": UP}[step.action]
    return [TargetNode(t.name, t.node_id, after) if t.name == step.node else t for t in targets]


def simulate(seed: int, actions: tuple[str, ...], max_down: int, steps: int = 50) -> list[PlannedStep]:
    rng = random.Random(seed)
    targets = three(UP, UP, UP)
    taken = []
    for _ in range(steps):
        step = choose_step(rng, targets, actions, max_down)  # type: ignore[arg-type]
        assert step is not None
        node = next(t for t in targets if t.name == step.node)
        if step.action == "start":
            assert node.down, f"start of {node.name}, which is {node.state}"
        else:
            assert node.state is UP, f"{step.action} of {node.name}, which is {node.state}"
            # A restart takes its node down while it lasts: it too must fit under max_down.
            assert sum(t.down for t in targets) + 1 <= max_down
        targets = apply(targets, step)
        assert sum(t.down for t in targets) <= max_down
        taken.append(step)
    return taken


@pytest.mark.parametrize("max_down", [1, 2, 3])
def test_steps_never_take_more_than_max_down_and_start_only_down_nodes(max_down: int) -> None:
    for seed in range(20):
        simulate(seed, ACTIONS, max_down)


def test_a_seed_gives_the_same_steps() -> None:
    assert simulate(42, ACTIONS, 1) == simulate(42, ACTIONS, 1)
    assert simulate(42, ACTIONS, 1) != simulate(43, ACTIONS, 1)
    taken = simulate(7, ACTIONS, 2)
    assert {s.action for s in taken} == set(ACTIONS)  # every action comes up in 50 steps


def test_without_start_a_down_node_is_started_only_when_nothing_else_is_possible() -> None:
    taken = simulate(3, ("kill",), 1, steps=10)
    assert [s.action for s in taken] == ["kill", "start"] * 5
    assert all(s.forced for s in taken if s.action == "start")
    assert not any(s.forced for s in taken if s.action == "kill")


def test_only_valid_candidates_are_drawn() -> None:
    rng = random.Random(0)
    # One down with max_down 1: only starting it is possible.
    for _ in range(20):
        assert choose_step(rng, three(UP, KILLED, UP), ACTIONS, 1) == PlannedStep("start", "broker-2")
    # A node on its way down counts as down, and is never a candidate itself.
    stopping = three(UP, NodeState.STOPPING, UP)
    assert choose_step(rng, stopping, ("kill", "stop", "restart"), 1) is None
    assert choose_step(rng, three(NodeState.STARTING, NodeState.STOPPING, NodeState.STARTING), ACTIONS, 3) is None
    # A failed node (exited by itself) is down: started, not killed.
    picks = {choose_step(rng, three(FAILED, UP, UP), ("kill", "start"), 2) for _ in range(50)}
    assert PlannedStep("start", "broker-1") in picks
    assert PlannedStep("kill", "broker-1") not in picks


def node(name: str, role: ProcessRole, node_id: int | None, state: NodeState = UP) -> NodeView:
    return NodeView(name, role, node_id, state, None, (), None, None, None, None)


def nodes_snapshot(*views: NodeView, kind: str = "lab") -> NodesSnapshot:
    return NodesSnapshot(0.0, kind, "lab 'lab'", tuple(views), True)  # type: ignore[arg-type]


def test_targets_are_the_broker_nodes_and_what_is_expected_alive() -> None:
    nodes = nodes_snapshot(
        node("zookeeper", ProcessRole.ZOOKEEPER, None),
        node("broker-2", ProcessRole.BROKER, 2, KILLED),
        node("broker-1", ProcessRole.BROKER, 1),
        node("controller-101", ProcessRole.CONTROLLER, 101),
    )
    assert [t.name for t in targets_of(nodes)] == ["broker-1", "broker-2"]
    assert expected_alive(nodes) == {1}
    starting = nodes_snapshot(node("broker-1", ProcessRole.COMBINED, 1, NodeState.STARTING))
    assert expected_alive(starting) is None  # nothing to expect while a node is on its way


# --- the safe limit -------------------------------------------------------------------------------------------------
def test_the_safe_number_of_brokers_down() -> None:
    zk = nodes_snapshot(*(node(f"broker-{i}", ProcessRole.BROKER, i) for i in (1, 2, 3)))
    assert safe_max_down(3, 2, zk) == (1, "RF 3 − min.insync.replicas 2 = 1")
    limit, why = safe_max_down(3, None, zk)
    assert limit == 2 and "not readable here: Kafka's default 1 assumed" in why
    assert safe_max_down(2, 2, zk)[0] == 0
    combined = nodes_snapshot(*(node(f"broker-{i}", ProcessRole.COMBINED, i) for i in (1, 2, 3)))
    assert safe_max_down(3, 1, combined) == (
        1,
        "RF 3 − min.insync.replicas 1 = 2; a KRaft quorum of 3 voters stays up with 1 down",
    )
    # Dedicated controllers are never taken down: the quorum sets no limit on brokers.
    dedicated = nodes_snapshot(
        node("controller-101", ProcessRole.CONTROLLER, 101),
        *(node(f"broker-{i}", ProcessRole.BROKER, i) for i in (1, 2)),
    )
    assert safe_max_down(3, 1, dedicated)[0] == 2


# --- snapshots: settling and convergence ----------------------------------------------------------------------------
def partition(p: int, leader: int, isr: tuple[int, ...], replicas: tuple[int, ...] = (1, 2, 3)) -> Partition:
    return Partition("t", p, leader, replicas, isr)


def snapshot(alive: tuple[int, ...], *parts: Partition, all_brokers: tuple[int, ...] = (1, 2, 3)) -> ClusterSnapshot:
    brokers = tuple(Broker(b, "127.0.0.1", 9091 + b, alive=b in alive) for b in all_brokers)
    return ClusterSnapshot("test", 0.0, "c", "kraft", None, brokers, (Topic("t", parts, min_insync_replicas=2),))


def test_the_topic_must_exist_and_be_replicated() -> None:
    with pytest.raises(ChaosRefused, match="topic 'missing' does not exist: create it first"):
        check_chaos_topic(snapshot((1, 2, 3), partition(0, 1, (1, 2, 3))), "missing")
    single = snapshot((1,), Partition("t", 0, 1, (1,), (1,)))
    with pytest.raises(ChaosRefused, match=r"a chaos run needs a replicated topic: with RF 1 .*'t' has RF 1"):
        check_chaos_topic(single, "t")
    assert check_chaos_topic(snapshot((1, 2, 3), partition(0, 1, (1, 2, 3))), "t").replication_factor == 3


def test_what_a_settled_cluster_looks_like() -> None:
    full = snapshot((1, 2, 3), partition(0, 1, (1, 2, 3)), partition(1, 2, (1, 2, 3)))
    assert unsettled_reason(full, frozenset({1, 2, 3}), check_isr=True) is None
    # Broker 1 killed but not fenced yet: still registered, still leading.
    assert unsettled_reason(full, frozenset({2, 3}), check_isr=True) == "broker 1 still registered"
    fenced = snapshot((2, 3), partition(0, 1, (2, 3)), partition(1, 2, (2, 3)))
    assert unsettled_reason(fenced, frozenset({2, 3}), check_isr=True) == "t-0 still led by broker 1, which is down"
    shrinking = snapshot((2, 3), partition(0, 2, (1, 2, 3)), partition(1, 2, (2, 3)))
    assert "ISR [1, 2, 3] still lists a broker that is down" in str(
        unsettled_reason(shrinking, frozenset({2, 3}), check_isr=True)
    )
    # The mock answers ISR = replicas whatever happens: not a condition there.
    assert unsettled_reason(shrinking, frozenset({2, 3}), check_isr=False) is None
    # Started again, but not caught up yet.
    catching_up = snapshot((1, 2, 3), partition(0, 2, (2, 3)))
    assert "not full yet" in str(unsettled_reason(catching_up, frozenset({1, 2, 3}), check_isr=True))
    assert unsettled_reason(catching_up, frozenset({1, 2}), check_isr=True) == "broker 3 still registered"
    assert unsettled_reason(fenced, frozenset({1, 2, 3}), check_isr=True) == "broker 1 not registered"
    # An offline partition keeps its last in-sync replica in its ISR, as Kafka does.
    offline = snapshot((1,), partition(0, NO_LEADER, (3,)))
    assert unsettled_reason(offline, frozenset({1}), check_isr=True) is None
    # Every broker down: no metadata is the settled state.
    assert unsettled_reason(None, frozenset(), check_isr=True) is None
    assert unsettled_reason(None, frozenset({1}), check_isr=True) == "no metadata"
    assert unsettled_reason(full, None, check_isr=True) is not None


def poll(index: int, state: ClusterState, started: float | None = None) -> ViewPoll:
    at = float(index) if started is None else started
    return ViewPoll(index, at, at + 0.1, state)


def test_convergence_is_counted_in_view_polls_after_the_cluster_settled() -> None:
    before = cluster_state(snapshot((1, 2, 3), partition(0, 1, (1, 2, 3))), None)
    after = cluster_state(snapshot((2, 3), partition(0, 2, (2, 3))), None)
    stale = cluster_state(snapshot((2, 3), partition(0, 1, (2, 3))), None)  # brokers right, leader not yet
    polls = [poll(0, before), poll(1, before), poll(2, after), poll(3, after)]
    assert polls_to_converge(polls, after, since=1.5) == 1
    assert polls_to_converge(polls, after, since=0.5) == 2  # the poll at 1.0 still showed the old state
    assert polls_to_converge([poll(0, before), poll(1, stale), poll(2, stale), poll(3, after)], after, 0.5) == 3
    assert polls_to_converge(polls, after, since=3.5) is None  # nothing after it yet
    assert polls_to_converge([poll(0, before), poll(1, before)], after, since=0.0) is None
    # Polls started before the cluster settled do not count, even when they show the state.
    assert polls_to_converge([poll(5, after, started=0.9), poll(6, after, started=1.2)], after, since=1.0) == 1


def test_the_nodes_and_the_isr_are_part_of_the_state() -> None:
    snap = snapshot((1, 2, 3), partition(0, 1, (1, 2, 3)))
    up = nodes_snapshot(node("broker-1", ProcessRole.BROKER, 1))
    killed = nodes_snapshot(node("broker-1", ProcessRole.BROKER, 1, KILLED))
    assert cluster_state(snap, up) != cluster_state(snap, killed)
    assert cluster_state(snap, up) != cluster_state(snapshot((1, 2, 3), partition(0, 1, (1, 2))), up)
    # ISR order is the broker's business; the set is what is compared.
    assert cluster_state(snap, up) == cluster_state(snapshot((1, 2, 3), partition(0, 1, (3, 1, 2))), up)
    # Unavailable is unavailable, whatever words the error had.
    assert cluster_state(None, up, "timed out") == cluster_state(None, up, "transport failure")
    assert cluster_state(None, up).describe() == "unavailable"


def test_leader_moves_are_counted_between_views() -> None:
    def leaders(*ls: int) -> ClusterState:
        return cluster_state(snapshot((1, 2, 3), *(partition(p, lead, (1, 2, 3)) for p, lead in enumerate(ls))), None)

    unavailable = cluster_state(None, None)
    states = [leaders(1, 2, 3), leaders(2, 2, 3), unavailable, leaders(2, 2, 1), leaders(2, 2, 1)]
    assert leader_moves(states, "t") == 2
    assert leader_moves(states, "other") == 0
    assert leader_moves([leaders(1, 2, 3), leaders(NO_LEADER, 2, 3)], "t") == 1


# --- reading back ---------------------------------------------------------------------------------------------------
def test_a_record_read_again_after_a_rebalance_is_one_record_of_the_log() -> None:
    by_offset = {(0, 4): 0, (0, 5): 1, (0, 9): 4, (1, 7): 0, (1, 8): None, (2, 0): 0}
    assert records_in_range(by_offset, {0: 5, 1: 7}, {0: 9, 1: 9}) == [
        ReadRecord(0, 5, 1),  # offset 4 is before the run, 9 after its end; partition 2 is not read
        ReadRecord(1, 7, 0),
        ReadRecord(1, 8, None),
    ]


def test_without_end_offsets_the_last_acknowledged_ones_are_read_up_to() -> None:
    deliveries = [
        RecordDelivery(0, 0, True, offset=10),
        RecordDelivery(0, 1, True, offset=11),
        RecordDelivery(0, 2, False, error="timed out"),
        RecordDelivery(1, 0, False),
    ]
    assert acked_ends(deliveries, {0: 10, 1: 3}) == {0: 12, 1: 3}


# --- orphans --------------------------------------------------------------------------------------------------------
def test_orphans_are_recorded_pids_that_outlived_their_node_and_stray_jvms() -> None:
    state_dir = Path("/tmp/lab")
    nodes = [
        RecordedNode("broker-1", UP, 101),
        RecordedNode("broker-2", NodeState.STOPPING, 102),
        RecordedNode("broker-3", DOWN, None),
    ]
    jvms = {101: ["java", "kafka.Kafka", "/tmp/lab/config/broker-1.properties"], 102: ["java"], 999: ["java", "x"]}
    assert lab_orphans(nodes, jvms, state_dir) == (
        "broker-2: pid 102 still runs although the node is stopping",
        "pid 999 runs from /tmp/lab but is none of its nodes: java x",
    )
    assert lab_orphans(nodes[:1], {101: ["java"]}, state_dir) == ()


# --- the verdict and the report ---------------------------------------------------------------------------------------
def step(index: int, polls: int | None = 1, settled: bool = True) -> ChaosStep:
    return ChaosStep(index, "kill", f"broker-{index}", 0.0, 0.1, settled, 0.5 if settled else None, polls, 1, 0, 0)


def totals(**counts: int) -> PartitionResult:
    base = {"sent": 10, "acked": 10, "failed": 0, "read": 10, "lost": 0, "duplicated": 0, "out_of_order": 0}
    base.update(counts)
    return PartitionResult(partition=None, unacked_present=0, **base)


def test_verdicts() -> None:
    ok = {"planned": 2, "read_complete": True, "orphans": (), "view_errors": 0}
    verdict, text = judge([step(1), step(2, polls=2)], totals(), **ok)  # type: ignore[arg-type]
    assert verdict == "passed"
    assert text == (
        "kafkatop kept up: 2 of 2 steps converged within 2 polls (at most 2); 0 lost, 0 duplicated, 0 out of order; "
        "no orphan process"
    )
    assert judge([step(1, polls=3), step(2)], totals(), **ok) == (  # type: ignore[arg-type]
        "failed",
        "FAILED: step 1 took more than 2 polls to converge",
    )
    assert judge([step(1, polls=None)], totals(), **ok)[1] == (  # type: ignore[arg-type]
        "FAILED: the view never showed the settled cluster after step 1"
    )
    assert judge([step(1)], totals(lost=2, duplicated=1), **{**ok, "orphans": ("pid 9",)}) == (  # type: ignore[arg-type]
        "failed",
        "FAILED: 2 lost; 1 duplicated; 1 orphan process",
    )
    assert judge([step(1)], totals(), **{**ok, "view_errors": 3})[1] == "FAILED: kafkatop's view failed 3 times"  # type: ignore[arg-type]
    assert judge([step(1)], totals(), **{**ok, "read_complete": False})[0] == "incomplete"  # type: ignore[arg-type]
    assert judge([step(1)], totals(), **{**ok, "cancelled": True})[1] == (  # type: ignore[arg-type]
        "cancelled after 1 of 2 steps: nothing to conclude"
    )
    assert judge([], totals(), **ok) == ("incomplete", "no step was taken")  # type: ignore[arg-type]
    # A step whose cluster never settled is a problem of the cluster, said, not a failure of kafkatop.
    verdict, text = judge([step(1), step(2, polls=None, settled=False)], totals(), **{**ok, "orphans": None})  # type: ignore[arg-type]
    assert verdict == "passed" and text.endswith("1 not measured (the cluster did not settle in time)")


def test_the_report_as_json() -> None:
    steps = (step(1), step(2, polls=3), step(3, polls=None, settled=False))
    report = ChaosReport(
        settings=ChaosSettings("t", steps=3, seed=5),
        seed=5,
        run_id="abcd",
        bootstrap_servers="127.0.0.1:9092",
        cluster="lab 'lab'",
        partitions_count=3,
        replication_factor=3,
        min_insync_replicas=2,
        safe_max_down=1,
        safe_reason="RF 3 − min.insync.replicas 2 = 1",
        steps=steps,
        partitions=(PartitionResult(0, 5, 5, 0, 5, 0, 0, 0, 0), PartitionResult(1, 5, 5, 0, 5, 0, 0, 0, 0)),
        read_complete=True,
        consumed=10,
        view_polls=40,
        view_errors=0,
        orphans=(),
        orphans_note="checked",
        started_at=0.0,
        finished_at=1.0,
        cancelled=False,
        verdict="failed",
        verdict_text="FAILED: step 2 took more than 2 polls to converge",
    )
    assert report.max_polls == 3 and report.steps_over == (2,) and not report.passed
    doc = json.loads(json.dumps(report.to_dict()))
    assert doc["totals"]["sent"] == 10 and doc["totals"]["lost"] == 0
    assert doc["convergence"] == {"within": 2, "max_polls": 3, "steps_over": [2], "not_measured": [3]}
    assert [s["converged"] for s in doc["steps"]] == [True, False, False]
    assert doc["settings"]["actions"] == ["kill", "stop", "restart", "start"]
