"""What a chaos run is made of, apart from the clients and the cluster: its settings, the choice of each step, the
comparison of kafkatop's view with the settled cluster, the orphan check and the report.

Everything here is pure: plain data in, frozen dataclasses out, tested without a cluster. The run itself (the
producer, the consumer, the view poller, the steps) is `ChaosRun` in backends/chaos.py, which re-exports all of this.

"Converged within N polls": once the cluster has settled after a step (a fresh AdminSource saw the same brokers,
leaders and ISRs twice in a row, with the brokers expected up alive and the others gone or fenced), N counts kafkatop's
own polls, started after the cluster reached that state, up to the first one that shows it. Measured from the
settled state, not from the action: how long Kafka takes to fence a killed broker is the cluster's time, not
kafkatop's.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from kafkatop.backends.control import NodesSnapshot
from kafkatop.backends.durability_model import PartitionResult, ReadRecord, acked_ends, replicated_topic, total
from kafkatop.backends.errors import KafkatopError
from kafkatop.backends.model import NO_LEADER, ClusterSnapshot, ProcessRole, Topic
from kafkatop.backends.supervisor import NodeState

Action = Literal["kill", "stop", "restart", "start"]
Verdict = Literal["passed", "failed", "incomplete"]

ACTIONS: tuple[Action, ...] = get_args(Action)
MAX_STEPS = 50
MAX_RATE = 100_000.0
CONVERGED_WITHIN = 2  # polls: a step whose view took more failed to keep up
DEFAULT_GROUP = "kafkatop-chaos"
DOWN_STATES = frozenset({NodeState.DOWN, NodeState.KILLED, NodeState.FAILED})
TRANSITIONS = frozenset({NodeState.STARTING, NodeState.STOPPING})
_BROKER_ROLES = (ProcessRole.BROKER, ProcessRole.COMBINED)
_VOTER_ROLES = (ProcessRole.CONTROLLER, ProcessRole.COMBINED)


class ChaosError(KafkatopError):
    """The run could not go on (a client could not be made, the cluster stopped answering at the start)."""


class ChaosRefused(ChaosError):
    """Refused before any node was touched: bad settings, or a topic or cluster a chaos run cannot use."""


# --- settings -------------------------------------------------------------------------------------------------------
def parse_actions(text: str) -> tuple[Action, ...]:
    """`kill,stop,restart` → the actions, in Kafka's order of severity; ChaosRefused names a wrong one."""
    wanted = [a.strip().lower() for a in text.split(",") if a.strip()]
    wrong = [a for a in wanted if a not in ACTIONS]
    if wrong:
        raise ChaosRefused(f"unknown action {wrong[0]!r}: choose from {', '.join(ACTIONS)} (comma-separated)")
    return tuple(a for a in ACTIONS if a in wanted)


@dataclass(frozen=True, slots=True)
class ChaosSettings:
    """One run's settings, checked when built (ChaosRefused says what is wrong).

    `max_down`: at most this many broker nodes down at once (a restart counts while it lasts). 1 by default; the
    run works out what the topic and the KRaft quorum can take (`safe_max_down`) and says it in the report. A
    `start` that is not among `actions` still brings a node back when no other step is possible, and at the end.
    """

    topic: str
    steps: int = 5
    seed: int | None = None  # None: one is drawn, and reported so the run can be repeated
    actions: tuple[Action, ...] = ACTIONS
    max_down: int = 1
    rate: float = 100.0  # records per second, spread over the partitions
    step_timeout_s: float = 60.0  # for the cluster to settle after a step (a killed KRaft broker is fenced after 9 s)
    hold_s: float = 5.0  # each step's state is kept this long once the view showed it, so the clients live in it
    poll_interval_s: float = 1.0  # of kafkatop's view, as the app's --interval
    view_timeout_s: float = 2.0  # per view poll, as the app's --timeout
    total_timeout_s: float = 1800.0  # no new step after this long; the ending has its own bounds
    group: str = DEFAULT_GROUP
    delivery_timeout_s: float = 120.0  # message.timeout.ms: a record not acknowledged by then counts as failed
    isr_timeout_s: float = 60.0  # at the end, for every replica to be back in sync
    read_timeout_s: float = 60.0  # at the end, for the consumer to reach the end of every partition

    def __post_init__(self) -> None:
        if not self.topic.strip():
            raise ChaosRefused("give the topic to produce to (a replicated one: --replication-factor 3)")
        if not 1 <= self.steps <= MAX_STEPS:
            raise ChaosRefused(f"steps must be between 1 and {MAX_STEPS}, not {self.steps}")
        unknown = [a for a in self.actions if a not in ACTIONS]
        if unknown:
            raise ChaosRefused(f"unknown action {unknown[0]!r}: choose from {', '.join(ACTIONS)}")
        if not set(self.actions) & {"kill", "stop", "restart"}:
            raise ChaosRefused("give at least one of kill, stop, restart: starting nodes alone changes nothing")
        if self.max_down < 1:
            raise ChaosRefused(f"max-down must be 1 or more, not {self.max_down}")
        if not 0 < self.rate <= MAX_RATE:
            raise ChaosRefused(f"the rate must be between 0 and {MAX_RATE:g} records per second, not {self.rate:g}")
        if not 0 <= self.hold_s <= 3600:
            raise ChaosRefused(f"the hold must be between 0 and 3600 s, not {self.hold_s:g}")
        for name, value in (
            ("step timeout", self.step_timeout_s),
            ("poll interval", self.poll_interval_s),
            ("view timeout", self.view_timeout_s),
            ("time limit", self.total_timeout_s),
            ("delivery timeout", self.delivery_timeout_s),
            ("ISR timeout", self.isr_timeout_s),
            ("read timeout", self.read_timeout_s),
        ):
            if not 0 < value <= 86_400:
                raise ChaosRefused(f"the {name} must be a positive number of seconds (up to a day), not {value:g}")
        if not self.group.strip():
            raise ChaosRefused("the consumer group id must not be empty")


# --- the nodes a run may take down ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TargetNode:
    """A broker node (a broker, or a combined KRaft node) the run may kill, stop, restart or start."""

    name: str
    node_id: int | None
    state: NodeState

    @property
    def down(self) -> bool:
        return self.state in DOWN_STATES


def targets_of(nodes: NodesSnapshot) -> tuple[TargetNode, ...]:
    """The broker nodes, by name. ZooKeeper and dedicated KRaft controllers are left alone: without them the
    cluster has no metadata, which is another experiment."""
    found = (TargetNode(n.name, n.node_id, n.state) for n in nodes.nodes if n.role in _BROKER_ROLES)
    return tuple(sorted(found, key=lambda t: t.name))


@dataclass(frozen=True, slots=True)
class PlannedStep:
    action: Action
    node: str
    forced: bool = False  # a start not among the allowed actions: no other step was possible


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


# --- the cluster as kafkatop shows it ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ClusterState:
    """What the convergence check compares: the brokers alive, each partition's leader and ISR, each node's state.
    Unavailable (no metadata at all: every broker down) is a state too, the one kafkatop shows then."""

    available: bool
    brokers_alive: tuple[int, ...] = ()
    leaders: tuple[tuple[str, int, int], ...] = ()  # (topic, partition, leader); NO_LEADER when offline
    isrs: tuple[tuple[str, int, tuple[int, ...]], ...] = ()  # (topic, partition, ISR sorted)
    nodes: tuple[tuple[str, str], ...] = ()  # (node, state) as the node panes show them
    reason: str | None = field(default=None, compare=False)  # why unavailable, as kafkatop says it

    def leaders_of(self, topic: str) -> dict[int, int]:
        return {p: leader for t, p, leader in self.leaders if t == topic}

    def describe(self) -> str:
        if not self.available:
            return f"unavailable ({self.reason})" if self.reason else "unavailable"
        return f"brokers {list(self.brokers_alive)} alive, {len(self.leaders)} partitions"


def _node_states(nodes: NodesSnapshot | None) -> tuple[tuple[str, str], ...]:
    return () if nodes is None else tuple((n.name, n.state.value) for n in nodes.nodes)


def cluster_state(
    snapshot: ClusterSnapshot | None, nodes: NodesSnapshot | None, reason: str | None = None
) -> ClusterState:
    """The state in `snapshot` (None: unavailable, for `reason`) with the node panes' states."""
    if snapshot is None:
        return ClusterState(False, nodes=_node_states(nodes), reason=reason)
    parts = sorted(((p.topic, p.id), p) for t in snapshot.topics for p in t.partitions)
    return ClusterState(
        available=True,
        brokers_alive=tuple(sorted(b.id for b in snapshot.brokers_alive)),
        leaders=tuple((t, i, p.leader) for (t, i), p in parts),
        isrs=tuple((t, i, tuple(sorted(p.isr))) for (t, i), p in parts),
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


@dataclass(frozen=True, slots=True)
class ViewPoll:
    """One poll of kafkatop's view (AdminSource and the node panes), timed on time.monotonic()."""

    index: int
    started_at: float
    finished_at: float
    state: ClusterState
    error: str | None = None  # the poll itself failed in a way the app would not expect (not "unavailable")


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
    last: dict[int, int] | None = None
    for state in states:
        if not state.available:
            continue
        leaders = state.leaders_of(topic)
        if last is not None:
            moves += sum(1 for p, leader in leaders.items() if p in last and last[p] != leader)
        last = leaders
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


# --- orphans --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class RecordedNode:
    """A node as the lab cluster records it: its state and the pid it has now, if any."""

    name: str
    state: NodeState
    pid: int | None


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


# --- the steps and the report ---------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ChaosStep:
    index: int  # from 1
    action: Action
    node: str
    at: float  # time.time() when the action was issued
    action_s: float  # how long the action took (a lab start waits for the broker to serve)
    settled: bool  # the cluster settled within the step timeout
    settle_s: float | None  # from the end of the action until the cluster was first seen in its settled state
    polls_to_converge: int | None  # None: not measured (not settled), or the view never showed the settled state
    leader_moves: int  # seen by kafkatop's view during the step, on the run's topic
    producer_errors: int  # failed deliveries and client errors during the step
    consumer_errors: int
    brokers_alive: tuple[int, ...] = ()  # as settled
    forced: bool = False  # a start not among the allowed actions (no other step was possible)
    error: str | None = None  # the action failed
    note: str | None = None  # what the step meant: "every broker is down: …", "broker-2 never came back …"

    @property
    def converged(self) -> bool:
        return self.polls_to_converge is not None and self.polls_to_converge <= CONVERGED_WITHIN


@dataclass(frozen=True, slots=True)
class ChaosEvent:
    """A line of what the run is doing, for a UI or the command line, sent from the thread that runs it."""

    at: float  # time.time()
    text: str
    step: ChaosStep | None = None  # set once a step is done


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


@dataclass(frozen=True, slots=True)
class ChaosReport:
    settings: ChaosSettings
    seed: int
    run_id: str
    bootstrap_servers: str
    cluster: str  # the node panes' title: "lab 'lab' · KRaft · Kafka 4.1.0", "DEMO · …"
    partitions_count: int
    replication_factor: int
    min_insync_replicas: int | None
    safe_max_down: int
    safe_reason: str
    steps: tuple[ChaosStep, ...]
    partitions: tuple[PartitionResult, ...]  # durability, per partition
    read_complete: bool
    consumed: int  # records of the run's range read by the consumer, re-reads after a rebalance not counted
    view_polls: int
    view_errors: int
    orphans: tuple[str, ...] | None  # None: not applicable (the demo's brokers live inside this process)
    orphans_note: str
    started_at: float
    finished_at: float
    cancelled: bool
    verdict: Verdict
    verdict_text: str
    notes: tuple[str, ...] = ()  # about the plan: max-down above the safe limit, …
    problems: tuple[str, ...] = ()  # what went wrong on the way: a node that never came back, …

    @property
    def totals(self) -> PartitionResult:
        return total(self.partitions)

    @property
    def max_polls(self) -> int | None:
        return max((s.polls_to_converge for s in self.steps if s.polls_to_converge is not None), default=None)

    @property
    def steps_over(self) -> tuple[int, ...]:
        """Steps whose view took more than CONVERGED_WITHIN polls, or never showed the settled cluster."""
        return tuple(s.index for s in self.steps if s.settled and not s.converged)

    @property
    def passed(self) -> bool:
        return self.verdict == "passed"

    def to_dict(self) -> dict[str, Any]:
        doc = asdict(self)
        doc["totals"] = asdict(self.totals)
        doc["convergence"] = {
            "within": CONVERGED_WITHIN,
            "max_polls": self.max_polls,
            "steps_over": list(self.steps_over),
            "not_measured": [s.index for s in self.steps if not s.settled],
        }
        for step, data in zip(self.steps, doc["steps"], strict=True):
            data["converged"] = step.converged
        return doc


__all__ = [
    "ACTIONS",
    "CONVERGED_WITHIN",
    "DEFAULT_GROUP",
    "MAX_STEPS",
    "Action",
    "ChaosError",
    "ChaosEvent",
    "ChaosRefused",
    "ChaosReport",
    "ChaosSettings",
    "ChaosStep",
    "ClusterState",
    "PlannedStep",
    "RecordedNode",
    "TargetNode",
    "Verdict",
    "ViewPoll",
    "acked_ends",
    "check_chaos_topic",
    "choose_step",
    "cluster_state",
    "expected_alive",
    "judge",
    "lab_orphans",
    "leader_moves",
    "parse_actions",
    "polls_to_converge",
    "records_in_range",
    "safe_max_down",
    "targets_of",
    "unsettled_reason",
]
