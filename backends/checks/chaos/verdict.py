"""How a chaos run decides, apart from the clients and the cluster: the choice of each step, the comparison of
kafkatop's view with the settled cluster, the orphan check and the verdict.

Everything here is pure: plain data in, frozen dataclasses out, tested without a cluster. The run itself (the
producer, the consumer, the view poller, the steps) is `ChaosRun` in run.py.

"Converged within N polls": once the cluster has settled after a step (a fresh AdminSource saw the same brokers,
leaders and ISRs twice in a row, with the brokers expected up alive and the others gone or fenced), N counts kafkatop's
own polls, started after the cluster reached that state, up to the first one that shows it. Measured from the
settled state, not from the action: how long Kafka takes to fence a killed broker is the cluster's time, not
kafkatop's.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from kafkatop.backends.checks.durability.verdict import replicated_topic
from kafkatop.backends.insight.changes import partition_views, view_changes
from kafkatop.backends.model.chaos import (
    ACTIONS,
    CONVERGED_WITHIN,
    TRANSITIONS,
    Action,
    ChaosRefused,
    ChaosStep,
    ClusterState,
    PlannedStep,
    RecordedNode,
    TargetNode,
    Verdict,
    ViewPoll,
)
from kafkatop.backends.model.cluster import NO_LEADER, ClusterSnapshot, PartitionView, Topic
from kafkatop.backends.model.durability import PartitionResult, ReadRecord
from kafkatop.backends.model.nodes import NodesSnapshot, NodeState, ProcessRole
from kafkatop.backends.model.topic_partition import TopicPartition

_BROKER_ROLES = (ProcessRole.BROKER, ProcessRole.COMBINED)


_VOTER_ROLES = (ProcessRole.CONTROLLER, ProcessRole.COMBINED)


def targets_of(nodes: NodesSnapshot) -> tuple[TargetNode, ...]:
    """The broker nodes, by name. ZooKeeper and dedicated KRaft controllers are left alone: without them the
    cluster has no metadata, which is another experiment."""
    found = (TargetNode(n.name, n.node_id, n.state) for n in nodes.nodes if n.role in _BROKER_ROLES)
    return tuple(sorted(found, key=lambda t: t.name))


def choose_step(
    rng: random.Random, targets: Sequence[TargetNode], actions: Iterable[Action], max_down: int
) -> PlannedStep | None:
    """One step drawn from those valid now: kill, stop and restart take an up node, and only while fewer than
    `max_down` nodes are down or on their way (a restart takes its node down for a while); start takes a down node.
    The candidates are listed in a fixed order, so a seed gives the same run on the same cluster. None: nothing to do
    (every node is starting or stopping)."""
    allowed = set(actions)
    ordered = sorted(targets, key=lambda t: t.name)
    down = sum(1 for t in ordered if t.down or t.state in TRANSITIONS)
    candidates: list[PlannedStep] = []
    for action in ACTIONS:
        if action not in allowed:
            continue
        for t in ordered:
            if action == "start":
                if t.down:
                    candidates.append(PlannedStep(action, t.name))
            elif t.state is NodeState.UP and down + 1 <= max_down:
                candidates.append(PlannedStep(action, t.name))
    if not candidates:
        down_nodes = [t for t in ordered if t.down]
        if not down_nodes:
            return None
        return PlannedStep("start", rng.choice(down_nodes).name, forced=True)
    return rng.choice(candidates)


def expected_alive(nodes: NodesSnapshot) -> frozenset[int] | None:
    """The broker ids that should be registered with the cluster now: the broker nodes that are up. None while one
    is starting or stopping: there is nothing to expect yet."""
    alive: set[int] = set()
    for t in targets_of(nodes):
        if t.state in TRANSITIONS:
            return None
        if t.state is NodeState.UP and t.node_id is not None:
            alive.add(t.node_id)
    return frozenset(alive)


def safe_max_down(rf: int, min_insync_replicas: int | None, nodes: NodesSnapshot) -> tuple[int, str]:
    """How many broker nodes may be down at once with the topic still writable (acks=all) and the KRaft quorum
    still there, and why."""
    min_isr = 1 if min_insync_replicas is None else min_insync_replicas
    limit = max(0, rf - min_isr)
    known = "" if min_insync_replicas is not None else " (not readable here: Kafka's default 1 assumed)"
    reasons = [f"RF {rf} − min.insync.replicas {min_isr}{known} = {limit}"]
    voters = [n for n in nodes.nodes if n.role in _VOTER_ROLES]
    if any(n.role is ProcessRole.COMBINED for n in voters):
        tolerated = (len(voters) - 1) // 2
        reasons.append(f"a KRaft quorum of {len(voters)} voters stays up with {tolerated} down")
        limit = min(limit, tolerated)
    return limit, "; ".join(reasons)


# --- the topic ------------------------------------------------------------------------------------------------------
def check_chaos_topic(snapshot: ClusterSnapshot, name: str) -> Topic:
    """The topic, or ChaosRefused when it is missing or not replicated."""
    return replicated_topic(snapshot, name, "a chaos run", ChaosRefused)


def _node_states(nodes: NodesSnapshot | None) -> tuple[tuple[str, str], ...]:
    return () if nodes is None else tuple((n.name, n.state.value) for n in nodes.nodes)


def cluster_state(
    snapshot: ClusterSnapshot | None, nodes: NodesSnapshot | None, reason: str | None = None
) -> ClusterState:
    """The state in `snapshot` (None: unavailable, for `reason`) with the node panes' states."""
    if snapshot is None:
        return ClusterState(False, nodes=_node_states(nodes), reason=reason)
    views = partition_views(snapshot)
    return ClusterState(
        available=True,
        brokers_alive=tuple(sorted(b.id for b in snapshot.brokers_alive)),
        partitions=tuple((tp, replace(views[tp], epoch=None)) for tp in sorted(views)),
        nodes=_node_states(nodes),
    )


def unsettled_reason(
    snapshot: ClusterSnapshot | None, expected: frozenset[int] | None, *, check_isr: bool
) -> str | None:
    """Why the cluster has not settled into what the node states say (None: it has, as far as one read tells).

    Expected: the brokers that are up registered, the others gone or fenced; every leader on a live broker (or none,
    for a partition whose last in-sync replica is down); and, where Kafka reports a real ISR, no down broker in
    any ISR and a full ISR where every replica is up. The librdkafka mock answers ISR = replicas whatever happens,
    so `check_isr` is off for the demo."""
    if expected is None:
        return "a node is starting or stopping (or the node states could not be read)"
    if snapshot is None:
        return None if not expected else "no metadata"
    alive = {b.id for b in snapshot.brokers_alive}
    if alive != expected:
        missing, extra = sorted(expected - alive), sorted(alive - expected)
        parts = ([f"broker {', '.join(map(str, missing))} not registered"] if missing else []) + (
            [f"broker {', '.join(map(str, extra))} still registered"] if extra else []
        )
        return "; ".join(parts)
    for p in snapshot.partitions:
        if p.leader != NO_LEADER and p.leader not in alive:
            return f"{p.topic}-{p.id} still led by broker {p.leader}, which is down"
        if not check_isr or p.leader == NO_LEADER:
            continue  # an offline partition keeps its last in-sync replica in the ISR
        if set(p.isr) - alive:
            return f"{p.topic}-{p.id} ISR {list(p.isr)} still lists a broker that is down"
        if set(p.replicas) <= alive and set(p.isr) != set(p.replicas):
            return f"{p.topic}-{p.id} ISR {list(p.isr)} not full yet (replicas {list(p.replicas)})"
    return None


def polls_to_converge(polls: Iterable[ViewPoll], truth: ClusterState, since: float) -> int | None:
    """How many view polls started at or after `since` it took to show `truth` (1: the first did); None: none did."""
    n = 0
    for poll in sorted(polls, key=lambda p: p.index):
        if poll.started_at < since:
            continue
        n += 1
        if poll.state == truth:
            return n
    return None


def leader_moves(states: Iterable[ClusterState], topic: str) -> int:
    """Leader changes of `topic`'s partitions between consecutive views that had metadata (to and from offline too)."""
    moves = 0
    last: dict[TopicPartition, PartitionView] | None = None
    for state in states:
        if not state.available:
            continue
        views = state.views_of(topic)
        if last is not None:
            moves += sum(1 for change in view_changes(last, views) if change.leader_changed)
        last = views
    return moves


# --- reading back ---------------------------------------------------------------------------------------------------
def records_in_range(
    by_offset: Mapping[tuple[int, int], int | None], starts: Mapping[int, int], ends: Mapping[int, int]
) -> list[ReadRecord]:
    """The records read within the run's range of each partition, one per offset: a record a consumer read twice
    (again after a rebalance) is one record of the log, not a duplicate."""
    return [
        ReadRecord(p, offset, seq)
        for (p, offset), seq in sorted(by_offset.items())
        if p in ends and starts.get(p, 0) <= offset < ends[p]
    ]


def lab_orphans(nodes: Iterable[RecordedNode], jvms: Mapping[int, Sequence[str]], state_dir: Path) -> tuple[str, ...]:
    """Processes left behind: a recorded pid that runs although its node is not up, and a JVM running from the
    cluster's state directory (`jvms`: pid → command line) that is none of its nodes."""
    found: list[str] = []
    live: set[int] = set()
    for n in nodes:
        if n.pid is None:
            continue
        if n.state in (NodeState.UP, NodeState.STARTING):
            live.add(n.pid)
        else:
            found.append(f"{n.name}: pid {n.pid} still runs although the node is {n.state.value}")
            live.add(n.pid)  # said once, not again as a stray JVM
    for pid, cmdline in sorted(jvms.items()):
        if pid in live:
            continue
        text = " ".join(cmdline)
        shown = text if len(text) <= 120 else text[:119] + "…"
        found.append(f"pid {pid} runs from {state_dir} but is none of its nodes: {shown}")
    return tuple(found)


def judge(
    steps: Sequence[ChaosStep],
    totals: PartitionResult,
    *,
    planned: int,
    read_complete: bool,
    orphans: Sequence[str] | None,
    view_errors: int,
    cancelled: bool = False,
    halted: str | None = None,
) -> tuple[Verdict, str]:
    """The verdict and one line that says it. Failed: kafkatop's view fell behind or broke, a record was lost,
    duplicated or reordered (acks=all with idempotence promises none of that), or a process was left behind."""
    failures: list[str] = []
    over = [s.index for s in steps if s.polls_to_converge is not None and s.polls_to_converge > CONVERGED_WITHIN]
    never = [s.index for s in steps if s.settled and s.polls_to_converge is None]
    if view_errors:
        failures.append(f"kafkatop's view failed {view_errors} time{'s' if view_errors != 1 else ''}")
    if over:
        failures.append(f"step {', '.join(map(str, over))} took more than {CONVERGED_WITHIN} polls to converge")
    if never:
        failures.append(f"the view never showed the settled cluster after step {', '.join(map(str, never))}")
    if totals.lost:
        failures.append(f"{totals.lost} lost")
    if totals.duplicated:
        failures.append(f"{totals.duplicated} duplicated")
    if totals.out_of_order:
        failures.append(f"{totals.out_of_order} out of order")
    if orphans:
        failures.append(f"{len(orphans)} orphan process{'es' if len(orphans) != 1 else ''}")
    if failures:
        return "failed", "FAILED: " + "; ".join(failures)
    if cancelled:
        return "incomplete", f"cancelled after {len(steps)} of {planned} steps: nothing to conclude"
    if halted is not None:
        return "incomplete", f"{halted}: the records sent are counted, the run is not complete"
    if not steps:
        return "incomplete", "no step was taken"
    if not read_complete:
        return "incomplete", "the read-back did not reach the end of every partition: the lost count is not reliable"
    measured = [s.polls_to_converge for s in steps if s.polls_to_converge is not None]
    text = (
        f"kafkatop kept up: {len(measured)} of {len(steps)} steps converged within {CONVERGED_WITHIN} polls "
        f"(at most {max(measured, default=0)}); {totals.lost} lost, {totals.duplicated} duplicated, "
        f"{totals.out_of_order} out of order"
    )
    if len(measured) < len(steps):
        text += f"; {len(steps) - len(measured)} not measured (the cluster did not settle in time)"
    return "passed", text + ("; no orphan process" if orphans is not None else "")
