"""A chaos run as data (standard library only): its settings (checked when built), the nodes it may take down, each
step planned and done, the cluster's settled state and kafkatop's view of it, and the report.

The run itself is backends/checks/chaos/run.py; the choice of steps, the comparisons and the verdict are
backends/checks/chaos/verdict.py.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

from kafkatop.backends.model.cluster import PartitionView
from kafkatop.backends.model.durability import PartitionResult, total
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.nodes import NodeState
from kafkatop.backends.model.topic_partition import TopicPartition

Action = Literal["kill", "stop", "restart", "start"]


Verdict = Literal["passed", "failed", "incomplete"]


ACTIONS: tuple[Action, ...] = get_args(Action)


MAX_STEPS = 50


MAX_RATE = 100_000.0


CONVERGED_WITHIN = 2  # polls: a step whose view took more failed to keep up


DEFAULT_GROUP = "kafkatop-chaos"


DOWN_STATES = frozenset({NodeState.DOWN, NodeState.KILLED, NodeState.FAILED})


TRANSITIONS = frozenset({NodeState.STARTING, NodeState.STOPPING})


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


@dataclass(frozen=True, slots=True)
class PlannedStep:
    action: Action
    node: str
    forced: bool = False  # a start not among the allowed actions: no other step was possible


# --- the cluster as kafkatop shows it ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ClusterState:
    """What the convergence check compares: the brokers alive, each partition's leader and ISR, each node's state.
    Unavailable (no metadata at all: every broker down) is a state too, the one kafkatop shows then."""

    available: bool
    brokers_alive: tuple[int, ...] = ()
    # Each partition's leader (NO_LEADER when offline) and sorted ISR, by partition; leader epochs left out: the view
    # and the settled cluster read them from different requests.
    partitions: tuple[tuple[TopicPartition, PartitionView], ...] = ()
    nodes: tuple[tuple[str, str], ...] = ()  # (node, state) as the node panes show them
    reason: str | None = field(default=None, compare=False)  # why unavailable, as kafkatop says it

    def views_of(self, topic: str) -> dict[TopicPartition, PartitionView]:
        return {tp: view for tp, view in self.partitions if tp.topic == topic}

    def describe(self) -> str:
        if not self.available:
            return f"unavailable ({self.reason})" if self.reason else "unavailable"
        return f"brokers {list(self.brokers_alive)} alive, {len(self.partitions)} partitions"


@dataclass(frozen=True, slots=True)
class ViewPoll:
    """One poll of kafkatop's view (AdminSource and the node panes), timed on time.monotonic()."""

    index: int
    started_at: float
    finished_at: float
    state: ClusterState
    error: str | None = None  # the poll itself failed in a way the app would not expect (not "unavailable")


# --- orphans --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class RecordedNode:
    """A node as the lab cluster records it: its state and the pid it has now, if any."""

    name: str
    state: NodeState
    pid: int | None


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
