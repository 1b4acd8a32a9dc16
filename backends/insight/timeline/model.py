"""The failover timeline's output (pure, model only): events in order, and incidents — a kill, a stop, a start or a
loss nobody announced — each with its steps and the time between them. Timeline (timeline.py) builds it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from kafkatop.backends.model.topic_partition import TopicPartition


class EventKind(StrEnum):
    ACTION = "action"  # kafkatop did it: "kill -9 broker-2 from kafkatop"
    PROCESS_GONE = "process gone"
    PROCESS_STARTED = "process started"
    BROKER_DEREGISTERED = "broker deregistered"  # ZooKeeper mode: /brokers/ids/N removed
    BROKER_FENCED = "broker fenced"  # KRaft: the broker is no longer in the metadata
    BROKER_LEFT = "broker left the metadata"  # neither ZooKeeper nor KRaft (the demo's mock), or mode not known
    BROKER_REGISTERED = "broker registered"  # back in /brokers/ids (ZooKeeper) or in the metadata (unfenced)
    CONTROLLER_CHANGED = "controller changed"
    QUORUM_LEADER_CHANGED = "quorum leader changed"
    LEADER_CHANGED = "leader changed"
    ISR_SHRUNK = "ISR shrunk"
    ISR_EXPANDED = "ISR expanded"
    PARTITION_OFFLINE = "partition offline"
    PRODUCER_ERROR = "producer error"
    CONSUMER_ERROR = "consumer error"
    RECOVERED = "recovered"  # every node up, every broker alive, every partition led with a full ISR
    OPERATION = "operation"  # an operator's step from kafkatop: an election, a reassignment, a config change, …
    # Kafka Connect (timeline/connect.py), from its REST API polled every 2 s
    WORKER_LOST = "Connect worker lost"  # stopped answering
    WORKER_BACK = "Connect worker back"
    TASKS_WAITING = "tasks waiting"  # a lost worker's tasks, held for scheduled.rebalance.max.delay.ms
    TASK_MOVED = "task moved"  # to another worker
    TASK_STATE = "task state"  # a task RUNNING again, UNASSIGNED, FAILED, …
    CONNECTOR_CHANGED = "connector changed"  # created, deleted, its state changed
    GROUP_STATUS = "group status"  # a group's lag status changed (backends/insight/lag): OK -> STOP, …


class Trigger(StrEnum):
    """What opened an incident."""

    KILL = "kill -9"
    STOP = "controlled shutdown"
    START = "start"
    RESTART = "restart"
    PROCESS_EXITED = "process exited"  # by itself: a crash, an OOM kill, someone else's kill
    BROKER_LOST = "broker lost"  # left the cluster with no process seen going (not a local node, or not watched)
    LEADER_ELECTION = "leader election"  # from kafkatop: ends once the cluster is seen after it is done
    REASSIGNMENT = "reassignment"
    WORKER_LOST = "Connect worker lost"  # stopped answering, with no process seen going (an attached Connect)
    GROUP_BEHIND = "group"  # a group's lag status left OK for STALL, STOP, REWIND or ERR while no incident was open


@dataclass(frozen=True, slots=True)
class TimelineEvent:
    at: float  # epoch seconds: when it happened (pushed sources) or was first seen (polled sources)
    kind: EventKind
    source: str  # "processes", "zookeeper", "metadata", "quorum", "producer", "consumer", "kafkatop"
    text: str  # one human line
    node: str | None = None  # the node pane's name: "broker-2"
    broker_id: int | None = None  # the broker concerned: gone, back, new controller or new leader
    partition: TopicPartition | None = None
    before: str | None = None  # "1", "1,2,3", "up (pid 4121)"
    after: str | None = None  # "2", "2,3", "killed"
    leader_epoch: int | None = None
    confirmed_by: tuple[str, ...] = ()  # other sources that reported the same change afterwards
    count: int = 1  # client errors: repeats folded into this event


@dataclass(frozen=True, slots=True)
class IncidentStep:
    event: TimelineEvent
    since_start_s: float
    since_previous_s: float


@dataclass(frozen=True, slots=True)
class Incident:
    number: int  # 1, 2, … since this timeline began
    trigger: Trigger
    announced: bool  # opened by an action of kafkatop, rather than seen happening
    node: str | None
    broker_id: int | None
    started_at: float
    steps: tuple[IncidentStep, ...]  # the trigger first, in time order
    ended_at: float | None  # RECOVERED, or the next incident's start; None while open
    recovered_after_s: float | None
    omitted_steps: int = 0  # beyond MAX_INCIDENT_STEPS
    subject: str | None = None  # an operation's topic

    @property
    def open(self) -> bool:
        return self.ended_at is None

    @property
    def recovered(self) -> bool:
        return self.recovered_after_s is not None

    @property
    def operation(self) -> bool:
        """An election or a reassignment from kafkatop: it ends, done or not, rather than recovers."""
        return self.trigger in OPERATION_TRIGGERS

    @property
    def title(self) -> str:
        """As a UI names it: kill -9 broker-2, controlled shutdown of broker-3, broker 4 lost."""
        return title(self.trigger, self.node, self.broker_id, self.subject)

    def first(
        self, kind: EventKind, *, broker_id: int | None = None, partition: TopicPartition | None = None
    ) -> IncidentStep | None:
        """The first step of `kind` (about `broker_id` / `partition` when given): e.g. how long after a kill -9 the
        broker was deregistered, or the first partition's new leader."""
        for step in self.steps:
            e = step.event
            if e.kind is not kind:
                continue
            if broker_id is not None and e.broker_id != broker_id:
                continue
            if partition is not None and e.partition != partition:
                continue
            return step
        return None

    def after_s(self, kind: EventKind, *, broker_id: int | None = None) -> float | None:
        step = self.first(kind, broker_id=broker_id)
        return step.since_start_s if step is not None else None


@dataclass(frozen=True, slots=True)
class TimelineSnapshot:
    revision: int  # grows with every change: an unchanged revision needs no redraw
    events: tuple[TimelineEvent, ...]  # oldest first, at most MAX_EVENTS
    incidents: tuple[Incident, ...]  # oldest first, at most MAX_INCIDENTS

    @property
    def open_incident(self) -> Incident | None:
        return self.incidents[-1] if self.incidents and self.incidents[-1].open else None


OPERATION_TRIGGERS = frozenset({Trigger.LEADER_ELECTION, Trigger.REASSIGNMENT})


def title(trigger: Trigger, node: str | None, broker_id: int | None, subject: str | None = None) -> str:
    if trigger in OPERATION_TRIGGERS:
        return f"{trigger.value} on {subject}" if subject else trigger.value
    if trigger is Trigger.GROUP_BEHIND:
        return f"group {subject} behind"
    who = node or (f"broker {broker_id}" if broker_id is not None else "?")
    if trigger is Trigger.STOP:
        return f"controlled shutdown of {who}"
    if trigger is Trigger.PROCESS_EXITED:
        return f"{who} exited"
    if trigger in (Trigger.BROKER_LOST, Trigger.WORKER_LOST):
        return f"{who} lost"
    return f"{trigger.value} {who}"
