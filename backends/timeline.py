"""A failover timeline: what happened to a cluster, in order, from every source kafkatop watches.

The app's pollers feed it: the node panes' processes, metadata polls (ClusterSnapshot), ZooKeeper's pushed events,
the KRaft quorum, the consoles' client errors, and kafkatop's own actions. Each source is diffed against its own
previous view, whose first one is only a baseline. A change that two sources report (ZooKeeper pushes a leader
election, the next metadata poll shows it) is kept once, as first reported, with the other source in `confirmed_by`.

An incident opens at an action of kafkatop (kill -9, controlled shutdown, start, restart) or at a loss nobody
announced (a process gone, a broker leaving the cluster). It collects what follows until the cluster has recovered
(every node up, every broker alive, every partition led and its ISR full) or the next incident opens, and gives each
step its delay since the trigger and since the step before: a kill -9 and a controlled shutdown side by side. After a
kill -9 in ZooKeeper mode the broker stays registered until its ZooKeeper session times out; the deregistration step
shows that delay.

Plain, thread-safe, bounded: pollers call the observe_* methods from their worker threads; the UI reads snapshot().
"""

from __future__ import annotations

import bisect
import itertools
import threading
import time
from collections import deque
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Literal

from kafkatop.backends.consoles import ConsoleActivity
from kafkatop.backends.control import NodesSnapshot, NodeView
from kafkatop.backends.model import NO_LEADER, ClusterSnapshot, Partition, ProcessRole, TopicPartition
from kafkatop.backends.quorum import METADATA_PARTITION, METADATA_TOPIC, QuorumSnapshot
from kafkatop.backends.supervisor import NodeState
from kafkatop.backends.zookeeper import (
    BrokerDeregistered,
    BrokerRegistered,
    ControllerChanged,
    PartitionStateChanged,
    ZkEvent,
)

MAX_EVENTS = 2_000
MAX_INCIDENTS = 20
MAX_INCIDENT_STEPS = 1_000  # a mass leader move of a large cluster; RECOVERED is always kept
# Two sources' reports of one change: a ZooKeeper push and the metadata poll seconds later.
DUPLICATE_WINDOW_S = 30.0
# The same client error again within this time is counted on the first event: a producer on a dead leader fails
# every message, and must not push the failover itself out of the bounded log.
FOLD_CLIENT_ERRORS_S = 10.0
# A cluster source silent for this long (it failed, or is no longer polled) no longer decides recovery.
STALE_SOURCE_S = 30.0
_RECENT_PER_SUBJECT = 8
_RECENT_SUBJECTS = 64  # subjects with recent records before the old ones are looked for

ClientSource = Literal["producer", "consumer"]
_RUNNING = (NodeState.STARTING, NodeState.UP, NodeState.STOPPING)
_BROKER_ROLES = (ProcessRole.BROKER, ProcessRole.COMBINED)
METADATA_LOG = TopicPartition(METADATA_TOPIC, METADATA_PARTITION)


class EventKind(StrEnum):
    ACTION = "action"  # kafkatop did it: "kill -9 broker-2 from kafkatop"
    PROCESS_GONE = "process gone"
    PROCESS_STARTED = "process started"
    BROKER_DEREGISTERED = "broker deregistered"  # ZooKeeper mode: /brokers/ids/N removed
    BROKER_FENCED = "broker fenced"  # KRaft: the broker is no longer in the metadata
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


class Trigger(StrEnum):
    """What opened an incident."""

    KILL = "kill -9"
    STOP = "controlled shutdown"
    START = "start"
    RESTART = "restart"
    PROCESS_EXITED = "process exited"  # by itself: a crash, an OOM kill, someone else's kill
    BROKER_LOST = "broker lost"  # left the cluster with no process seen going (not a local node, or not watched)


_ACTION_TRIGGERS: dict[str, Trigger] = {
    "kill": Trigger.KILL,
    "stop": Trigger.STOP,
    "start": Trigger.START,
    "restart": Trigger.RESTART,
}
# A node found in this state without an action of ours: what most likely happened to it.
_GONE_TRIGGERS = {
    NodeState.KILLED: Trigger.KILL,
    NodeState.DOWN: Trigger.STOP,
    NodeState.FAILED: Trigger.PROCESS_EXITED,
}
# Events that show the cluster is degraded at their time: an incident that saw one can recover.
_LOSSES = frozenset(
    {
        EventKind.PROCESS_GONE,
        EventKind.BROKER_DEREGISTERED,
        EventKind.BROKER_FENCED,
        EventKind.PARTITION_OFFLINE,
        EventKind.ISR_SHRUNK,
    }
)
_NODE_KINDS = frozenset(
    {
        EventKind.ACTION,
        EventKind.PROCESS_GONE,
        EventKind.PROCESS_STARTED,
        EventKind.BROKER_DEREGISTERED,
        EventKind.BROKER_FENCED,
        EventKind.BROKER_REGISTERED,
    }
)


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

    @property
    def open(self) -> bool:
        return self.ended_at is None

    @property
    def recovered(self) -> bool:
        return self.recovered_after_s is not None

    @property
    def title(self) -> str:
        """As a UI names it: kill -9 broker-2, controlled shutdown of broker-3, broker 4 lost."""
        return _title(self.trigger, self.node, self.broker_id)

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


# --- internal state ---------------------------------------------------------------------------------------------
@dataclass(slots=True, eq=False)
class _Record:
    """One event as kept: shared by the log and an incident, so a confirmation updates both."""

    event: TimelineEvent
    value: Hashable  # what two reports of the same change agree on (a leader, an ISR, "gone")
    channels: set[str]  # the report channels folded into it, the first included


@dataclass(slots=True, eq=False)
class _Incident:
    number: int
    trigger: Trigger
    announced: bool
    node: str | None
    broker_id: int | None
    started_at: float
    records: list[_Record] = field(default_factory=list)
    nodes: set[str] = field(default_factory=set)  # nodes and brokers it is about: their losses are not new incidents
    brokers: set[int] = field(default_factory=set)
    degraded: bool = False  # seen unhealthy since it opened: only then can it recover
    ended_at: float | None = None
    recovered_at: float | None = None
    omitted: int = 0

    def covers(self, event: TimelineEvent) -> bool:
        return (event.node is not None and event.node in self.nodes) or (
            event.broker_id is not None and event.broker_id in self.brokers
        )

    def add(self, record: _Record) -> None:
        e = record.event
        if e.kind in _NODE_KINDS:
            if e.node is not None:
                self.nodes.add(e.node)
            if e.broker_id is not None:
                self.brokers.add(e.broker_id)
        if e.kind in _LOSSES:
            self.degraded = True
        if len(self.records) >= MAX_INCIDENT_STEPS - 1 and e.kind is not EventKind.RECOVERED:
            self.omitted += 1
            return
        bisect.insort_right(self.records, record, key=lambda r: r.event.at)

    def frozen(self) -> Incident:
        steps = []
        previous = self.started_at
        for r in self.records:
            at = r.event.at
            steps.append(IncidentStep(r.event, max(0.0, at - self.started_at), max(0.0, at - previous)))
            previous = at
        return Incident(
            number=self.number,
            trigger=self.trigger,
            announced=self.announced,
            node=self.node,
            broker_id=self.broker_id,
            started_at=self.started_at,
            steps=tuple(steps),
            ended_at=self.ended_at,
            recovered_after_s=None if self.recovered_at is None else self.recovered_at - self.started_at,
            omitted_steps=self.omitted,
        )


@dataclass(frozen=True, slots=True)
class _PartitionView:
    leader: int
    isr: tuple[int, ...]  # sorted: sources list the ISR in different orders
    epoch: int | None


def _title(trigger: Trigger, node: str | None, broker_id: int | None) -> str:
    who = node or (f"broker {broker_id}" if broker_id is not None else "?")
    if trigger is Trigger.STOP:
        return f"controlled shutdown of {who}"
    if trigger is Trigger.PROCESS_EXITED:
        return f"{who} exited"
    if trigger is Trigger.BROKER_LOST:
        return f"{who} lost"
    return f"{trigger.value} {who}"


def _ids(ids: Iterable[int]) -> str:
    return ",".join(map(str, ids)) or "none"


def _leader(leader: int | None) -> str:
    return "none" if leader is None or leader == NO_LEADER else str(leader)


def _broker_id(view: NodeView) -> int | None:
    return view.node_id if view.role in _BROKER_ROLES else None


def _cluster_source(snapshot: ClusterSnapshot) -> str:
    return "zookeeper" if snapshot.source == "zookeeper" else "metadata"


def _cluster_healthy(snapshot: ClusterSnapshot) -> bool:
    return not (snapshot.brokers_down or snapshot.offline or snapshot.under_replicated)


class Timeline:
    """The failover timeline of one cluster. Every method may be called from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._revision = 0
        self._events: list[_Record] = []  # in time order
        self._incidents: deque[_Incident] = deque(maxlen=MAX_INCIDENTS)
        self._numbers = itertools.count(1)
        # Recent records per changing thing ("leader", tp), ("broker", id)…: where duplicates are looked for.
        self._recent: dict[tuple[Hashable, ...], deque[_Record]] = {}
        self._recent_limit = _RECENT_SUBJECTS
        self._folds: dict[tuple[str, str], tuple[_Record, float]] = {}  # client error → its event, last repeat
        # Baselines, one per source.
        self._nodes: NodesSnapshot | None = None
        self._partitions: dict[str, dict[TopicPartition, _PartitionView]] = {}  # per cluster source
        self._alive: dict[str, set[int]] = {}
        self._controllers: dict[str, int | None] = {}
        self._quorum: QuorumSnapshot | None = None
        self._consumer_errors: dict[str, str | None] = {}
        # What decides recovery: the latest health of each view, with its time.
        self._cluster_health: dict[str, tuple[float, bool]] = {}

    # --- reading ---------------------------------------------------------------------------------------------------
    def snapshot(self) -> TimelineSnapshot:
        with self._lock:
            return TimelineSnapshot(
                revision=self._revision,
                events=tuple(r.event for r in self._events),
                incidents=tuple(i.frozen() for i in self._incidents),
            )

    # --- kafkatop's actions ----------------------------------------------------------------------------------------
    def record_action(self, action: str, node: str, at: float | None = None, *, broker_id: int | None = None) -> None:
        """Call before acting (the action's effects are seen after it): `action` is one of control.ACTIONS."""
        trigger = _ACTION_TRIGGERS.get(action)
        if trigger is None:
            raise ValueError(f"unknown action {action!r}: one of {', '.join(_ACTION_TRIGGERS)}")
        at = time.time() if at is None else at
        with self._lock:
            if broker_id is None and self._nodes is not None and (view := self._nodes.node(node)) is not None:
                broker_id = _broker_id(view)
            what = {
                "kill": f"kill -9 {node}",
                "stop": f"stop {node} (controlled shutdown)",
                "start": f"start {node}",
                "restart": f"restart {node} (controlled shutdown, then start)",
            }[action]
            event = TimelineEvent(
                at, EventKind.ACTION, "kafkatop", f"{what} from kafkatop", node=node, broker_id=broker_id, after=action
            )
            record = self._add(event, "kafkatop")
            if record is not None:
                self._open(record, trigger, announced=True)

    # --- processes ----------------------------------------------------------------------------------------------
    def observe_nodes(self, snapshot: NodesSnapshot) -> None:
        """The node panes' processes: a process gone or started, from each node's state and pid."""
        with self._lock:
            previous, self._nodes = self._nodes, snapshot
            if previous is not None:
                at = snapshot.taken_at
                for view in snapshot.nodes:
                    before = previous.node(view.name)
                    # A node that vanishes from the panes says nothing about its process: no event for it.
                    if before is not None:
                        self._node_changed(before, view, at)
                    elif view.state in _RUNNING:
                        self._process_started(view, at, None)
            self._check_recovered(snapshot.taken_at)

    def _node_changed(self, before: NodeView, view: NodeView, at: float) -> None:
        was, now = before.state in _RUNNING, view.state in _RUNNING
        if was and not now:
            self._process_gone(before, view, at)
        elif now and not was:
            self._process_started(view, at, before)
        elif was and now and self._restarted(before, view):
            # Restarted between two polls: both halves, so the incident sees the loss.
            self._process_gone(before, view, at, restarted=True)
            self._process_started(view, at, None)

    @staticmethod
    def _restarted(before: NodeView, view: NodeView) -> bool:
        if before.pid is not None and view.pid is not None:
            return before.pid != view.pid
        # No pid (the demo's mock brokers): a process only gets younger by starting again.
        return before.uptime_s is not None and view.uptime_s is not None and view.uptime_s < before.uptime_s

    def _process_gone(self, before: NodeView, view: NodeView, at: float, restarted: bool = False) -> None:
        how = {
            NodeState.KILLED: "killed (kill -9)",
            NodeState.DOWN: "stopped",
            NodeState.FAILED: "exited by itself",
        }.get(view.state, view.state.value)
        if restarted:
            how = "restarted between two polls"
        was = f"was pid {before.pid}" if before.pid is not None else None
        detail = "; ".join(x for x in (was, view.detail if view.state is NodeState.FAILED else None) if x)
        event = TimelineEvent(
            at,
            EventKind.PROCESS_GONE,
            "processes",
            f"{view.name} gone: {how}" + (f" ({detail})" if detail else ""),
            node=view.name,
            broker_id=_broker_id(view),
            before=before.state.value + (f" (pid {before.pid})" if before.pid is not None else ""),
            after="restarted" if restarted else view.state.value,
        )
        record = self._add(event, "processes")
        if record is not None:
            trigger = Trigger.RESTART if restarted else _GONE_TRIGGERS.get(view.state, Trigger.PROCESS_EXITED)
            self._place(record, trigger)

    def _process_started(self, view: NodeView, at: float, before: NodeView | None) -> None:
        pid = f" (pid {view.pid})" if view.pid is not None else ""
        event = TimelineEvent(
            at,
            EventKind.PROCESS_STARTED,
            "processes",
            f"{view.name} started{pid}",
            node=view.name,
            broker_id=_broker_id(view),
            before=before.state.value if before is not None else None,
            after=view.state.value + pid,
        )
        record = self._add(event, "processes")
        if record is not None:
            self._place(record, None)

    # --- cluster snapshots (metadata, or ZooKeeper's mirror) ----------------------------------------------------------
    def observe_cluster(self, snapshot: ClusterSnapshot) -> None:
        """A polled view of the cluster, diffed against the previous one of the same source (snapshot.source)."""
        with self._lock:
            key = snapshot.source
            channel = f"cluster:{key}"
            source = _cluster_source(snapshot)
            at = snapshot.taken_at
            last = self._cluster_health.get(key)
            if last is not None and at < last[0]:
                return  # an older poll finishing late: its view is superseded
            self._cluster_health[key] = (at, _cluster_healthy(snapshot))
            parts = {
                TopicPartition(p.topic, p.id): _PartitionView(p.leader, tuple(sorted(p.isr)), p.leader_epoch)
                for p in snapshot.partitions
            }
            alive = {b.id for b in snapshot.brokers_alive}
            if key in self._partitions:
                self._diff_brokers(snapshot, self._alive[key], alive, channel, source)
                self._diff_controller(snapshot, key, channel, source)
                before = self._partitions[key]
                for p in snapshot.partitions:
                    tp = TopicPartition(p.topic, p.id)
                    old = before.get(tp)
                    if old is not None:  # a new partition is a baseline; a missing one says nothing
                        self._diff_partition(tp, old, p, parts[tp], at, channel, source)
            self._partitions[key] = parts
            self._alive[key] = alive
            if snapshot.controller_id is not None or key not in self._controllers:
                self._controllers[key] = snapshot.controller_id
            self._check_recovered(at)

    def _diff_brokers(
        self, snapshot: ClusterSnapshot, was: set[int], alive: set[int], channel: str, source: str
    ) -> None:
        at = snapshot.taken_at
        kraft = snapshot.mode == "kraft"
        for bid in sorted(was - alive):
            if kraft:
                kind, text = EventKind.BROKER_FENCED, f"broker {bid} fenced: no longer in the metadata"
            else:
                kind, text = EventKind.BROKER_DEREGISTERED, f"broker {bid} left the cluster metadata (deregistered)"
            self._broker_event(at, kind, source, text, bid, channel, "alive", "gone")
        for bid in sorted(alive - was):
            text = f"broker {bid} back in the metadata" + (" (unfenced)" if kraft else " (registered)")
            self._broker_event(at, EventKind.BROKER_REGISTERED, source, text, bid, channel, "gone", "alive")

    def _broker_event(
        self, at: float, kind: EventKind, source: str, text: str, bid: int, channel: str, before: str, after: str
    ) -> None:
        event = TimelineEvent(
            at, kind, source, text, node=self._node_of(bid), broker_id=bid, before=before, after=after
        )
        record = self._add(event, channel, ("broker", bid), after)
        if record is not None:
            self._place(record, Trigger.BROKER_LOST if kind is not EventKind.BROKER_REGISTERED else None)

    def _node_of(self, broker_id: int) -> str | None:
        """The node pane of a broker, so that its process and its registration are one story."""
        if self._nodes is None:
            return None
        return next((n.name for n in self._nodes.nodes if _broker_id(n) == broker_id), None)

    def _diff_controller(self, snapshot: ClusterSnapshot, key: str, channel: str, source: str) -> None:
        # None from a poll is "not known" (KRaft hides it; a failed DescribeCluster): only a new id is a change.
        old, new = self._controllers.get(key), snapshot.controller_id
        if new is None or new == old:
            return
        self._controller_event(snapshot.taken_at, old, new, None, channel, source)

    def _controller_event(
        self, at: float, old: int | None, new: int | None, epoch: int | None, channel: str, source: str
    ) -> None:
        with_epoch = f" (controller epoch {epoch})" if epoch is not None else ""
        text = f"controller {_leader(old)}→{_leader(new)}{with_epoch}"
        if new is None:
            text = f"no controller (was broker {_leader(old)}): an election is under way{with_epoch}"
        event = TimelineEvent(
            at, EventKind.CONTROLLER_CHANGED, source, text, broker_id=new, before=_leader(old), after=_leader(new)
        )
        self._add_placed(event, channel, ("controller",), new)

    def _diff_partition(
        self, tp: TopicPartition, old: _PartitionView, p: Partition, new: _PartitionView, at: float, channel: str,
        source: str,
    ) -> None:  # fmt: skip
        if new.leader != old.leader:
            self._leader_event(tp, old.leader, new.leader, p.isr, new.epoch, at, channel, source)
        if new.isr != old.isr:
            self._isr_event(tp, old.isr, p.isr, new.epoch, at, channel, source)

    def _leader_event(
        self, tp: TopicPartition, old: int, new: int, isr: tuple[int, ...], epoch: int | None, at: float,
        channel: str, source: str,
    ) -> None:  # fmt: skip
        with_epoch = f" (leader epoch {epoch})" if epoch is not None else ""
        if new == NO_LEADER:
            kind = EventKind.PARTITION_OFFLINE
            text = f"{tp} offline: no leader (was {_leader(old)}, ISR {_ids(isr)}){with_epoch}"
        else:
            kind = EventKind.LEADER_CHANGED
            was_offline = " (was offline)" if old == NO_LEADER else ""
            text = f"{tp}: leader {_leader(old)}→{new}{was_offline}{with_epoch}"
        event = TimelineEvent(
            at,
            kind,
            source,
            text,
            broker_id=None if new == NO_LEADER else new,
            partition=tp,
            before=_leader(old),
            after=_leader(new),
            leader_epoch=epoch,
        )
        self._add_placed(event, channel, ("leader", tp), new)

    def _isr_event(
        self, tp: TopicPartition, old: tuple[int, ...], new: tuple[int, ...], epoch: int | None, at: float,
        channel: str, source: str,
    ) -> None:  # fmt: skip
        removed = set(old) - set(new)
        kind = EventKind.ISR_SHRUNK if removed else EventKind.ISR_EXPANDED
        event = TimelineEvent(
            at,
            kind,
            source,
            f"{tp}: ISR {_ids(old)}→{_ids(new)}",
            partition=tp,
            before=_ids(old),
            after=_ids(new),
            leader_epoch=epoch,
        )
        self._add_placed(event, channel, ("isr", tp), tuple(sorted(new)))

    # --- ZooKeeper's pushed events -------------------------------------------------------------------------------
    def observe_zookeeper(self, event: ZkEvent) -> None:
        """One event of ZooKeeperSource.events: exact in time, so it is kept over a poll's later report."""
        with self._lock:
            channel, source = "zookeeper-watch", "zookeeper"
            if isinstance(event, BrokerDeregistered):
                bid = event.broker_id
                text = f"broker {bid} deregistered: /brokers/ids/{bid} removed (its ZooKeeper session ended)"
                self._broker_event(event.at, EventKind.BROKER_DEREGISTERED, source, text, bid, channel, "alive", "gone")
            elif isinstance(event, BrokerRegistered):
                bid = event.broker.id
                text = f"broker {bid} registered: /brokers/ids/{bid} created"
                self._broker_event(event.at, EventKind.BROKER_REGISTERED, source, text, bid, channel, "gone", "alive")
            elif isinstance(event, ControllerChanged):
                self._controller_event(event.at, event.previous, event.controller, event.epoch, channel, source)
            elif isinstance(event, PartitionStateChanged):
                # No previous state: a topic being created; no state: a topic deleted. Neither is a failover.
                if event.previous is None or event.state is None:
                    return
                tp = TopicPartition(event.topic, event.partition)
                old, new = event.previous, event.state
                if event.leader_changed:
                    self._leader_event(tp, old.leader, new.leader, new.isr, new.leader_epoch, event.at, channel, source)
                if event.isr_changed:
                    self._isr_event(tp, old.isr, new.isr, new.leader_epoch, event.at, channel, source)
            # TopicsChanged and ConnectionChanged are not failover steps.

    # --- the KRaft quorum ------------------------------------------------------------------------------------------
    def observe_quorum(self, snapshot: QuorumSnapshot) -> None:
        """A DescribeQuorum poll: a new quorum leader (active controller), or a new election won by the same one."""
        with self._lock:
            previous = self._quorum
            if previous is not None and (
                snapshot.taken_at < previous.taken_at or snapshot.leader_epoch < previous.leader_epoch
            ):
                return  # an older view arriving late
            self._quorum = snapshot
            new = (snapshot.leader_id, snapshot.leader_epoch)
            if previous is not None and new != (previous.leader_id, previous.leader_epoch):
                leader = None if snapshot.leader_id < 0 else snapshot.leader_id
                if leader is None:
                    text = f"no quorum leader (was {_leader(previous.leader_id)}): a controller election is under way"
                elif snapshot.leader_id == previous.leader_id:
                    text = f"quorum leader {leader} re-elected (epoch {previous.leader_epoch}→{snapshot.leader_epoch})"
                else:
                    text = (
                        f"quorum leader (active controller) {_leader(previous.leader_id)}→{leader} "
                        f"(epoch {snapshot.leader_epoch})"
                    )
                event = TimelineEvent(
                    snapshot.taken_at,
                    EventKind.QUORUM_LEADER_CHANGED,
                    "quorum",
                    text,
                    partition=METADATA_LOG,
                    before=_leader(previous.leader_id),
                    after=_leader(snapshot.leader_id),
                    leader_epoch=snapshot.leader_epoch,
                )
                self._add_placed(event, "quorum", ("quorum",), new)
            self._check_recovered(snapshot.taken_at)

    # --- clients ----------------------------------------------------------------------------------------------------
    def record_client_error(
        self, source: ClientSource, text: str, at: float | None = None, *, partition: TopicPartition | None = None
    ) -> None:
        """A producer delivery error or a consumer error; repeats within FOLD_CLIENT_ERRORS_S are counted."""
        at = time.time() if at is None else at
        kind = EventKind.PRODUCER_ERROR if source == "producer" else EventKind.CONSUMER_ERROR
        with self._lock:
            key = (source, text)
            fold = self._folds.get(key)
            latest_start = self._incidents[-1].started_at if self._incidents else None
            if fold is not None:
                record, last = fold
                # Never across an incident's start: the errors after it belong to the incident.
                if at - last <= FOLD_CLIENT_ERRORS_S and (latest_start is None or record.event.at >= latest_start):
                    record.event = replace(record.event, count=record.event.count + 1)
                    self._folds[key] = (record, max(last, at))
                    self._revision += 1
                    return
            for k in [k for k, (_, last) in self._folds.items() if at - last > FOLD_CLIENT_ERRORS_S]:
                del self._folds[k]
            event = TimelineEvent(at, kind, source, f"{source}: {text}", partition=partition)
            new = self._add_placed(event, source)
            if new is not None:
                self._folds[key] = (new, at)

    def observe_consoles(self, activity: ConsoleActivity, at: float | None = None) -> None:
        """The consoles' drained batch: failed deliveries, and consumers that report a new problem."""
        at = time.time() if at is None else at
        for d in activity.deliveries:
            if d.error is not None:
                tp = TopicPartition(d.topic, d.partition) if d.partition is not None and d.partition >= 0 else None
                self.record_client_error("producer", f"delivery to {d.topic} failed: {d.error}", at, partition=tp)
        for c in activity.consumers:
            with self._lock:
                previous = self._consumer_errors.get(c.name)
                self._consumer_errors[c.name] = c.error
            if c.error is not None and c.error != previous:
                self.record_client_error("consumer", f"{c.name} (group {c.group}): {c.error}", at)
        for change in activity.changes:
            if change.kind == "lost":
                parts = ", ".join(map(str, change.partitions))
                text = f"{change.consumer} (group {change.group}) lost its partitions {parts}"
                self.record_client_error("consumer", text, change.at)
        with self._lock:
            names = {c.name for c in activity.consumers}
            for name in [n for n in self._consumer_errors if n not in names]:
                del self._consumer_errors[name]  # stopped consumers: no state kept

    # --- recording, duplicates, incidents -----------------------------------------------------------------------
    def _add_placed(
        self, event: TimelineEvent, channel: str, subject: tuple[Hashable, ...] | None = None, value: Hashable = None
    ) -> _Record | None:
        record = self._add(event, channel, subject, value)
        if record is not None:
            self._place(record, None)
        return record

    def _add(
        self, event: TimelineEvent, channel: str, subject: tuple[Hashable, ...] | None = None, value: Hashable = None
    ) -> _Record | None:
        """Logs `event`, unless it is another source's report of a change already logged (then that one is marked
        confirmed) or an older view than one logged (a lower leader epoch). Returns the new record, if any."""
        self._forget_old(event.at)
        recent = self._recent.get(subject) if subject is not None else None
        if recent:
            # Other channels only: a topic deleted and created again restarts its epochs in every source.
            known = [
                r.event.leader_epoch
                for r in recent
                if r.event.leader_epoch is not None
                and channel not in r.channels
                and abs(r.event.at - event.at) <= DUPLICATE_WINDOW_S
            ]
            if event.leader_epoch is not None and known and event.leader_epoch < max(known):
                return None  # a lagging source's view of an election already superseded
            same = self._same_change(recent, event, channel, value)
            if same is not None:
                same.channels.add(channel)
                if event.source != same.event.source and event.source not in same.event.confirmed_by:
                    same.event = replace(same.event, confirmed_by=(*same.event.confirmed_by, event.source))
                self._revision += 1
                return None
        record = _Record(event, value, {channel})
        bisect.insort_right(self._events, record, key=lambda r: r.event.at)
        if len(self._events) > MAX_EVENTS:
            del self._events[: len(self._events) - MAX_EVENTS]
        if subject is not None:
            self._recent.setdefault(subject, deque(maxlen=_RECENT_PER_SUBJECT)).append(record)
        self._revision += 1
        return record

    @staticmethod
    def _same_change(recent: Iterable[_Record], event: TimelineEvent, channel: str, value: Hashable) -> _Record | None:
        """A record of the same change from another channel: same kind and outcome, compatible leader epochs, close in
        time, and not already matched by this channel (a channel's own reports are each a change)."""
        for r in reversed(list(recent)):
            e = r.event
            if channel in r.channels or e.kind is not event.kind or r.value != value:
                continue
            if abs(e.at - event.at) > DUPLICATE_WINDOW_S:
                continue
            if e.leader_epoch is not None and event.leader_epoch is not None and e.leader_epoch != event.leader_epoch:
                continue
            return r
        return None

    def _forget_old(self, now: float) -> None:
        # Pruned each time the subjects doubled: a mass leader move of a large cluster stays linear.
        if len(self._recent) <= self._recent_limit:
            return
        for subject in [s for s, rs in self._recent.items() if now - rs[-1].event.at > DUPLICATE_WINDOW_S]:
            del self._recent[subject]
        self._recent_limit = max(_RECENT_SUBJECTS, 2 * len(self._recent))

    def _incident_at(self, at: float) -> _Incident | None:
        """The incident that was open at `at`, if any."""
        for inc in reversed(self._incidents):
            if inc.started_at <= at:
                return inc if inc.ended_at is None or at <= inc.ended_at else None
        return None

    def _place(self, record: _Record, trigger: Trigger | None) -> None:
        """Into the incident open at its time; a loss nobody announced (trigger given) opens one."""
        e = record.event
        inc = self._incident_at(e.at)
        latest = self._incidents[-1] if self._incidents else None
        is_latest_time = latest is None or e.at >= latest.started_at
        if trigger is not None and is_latest_time and (inc is None or not inc.covers(e)):
            self._open(record, trigger, announced=False)
        elif inc is not None:
            inc.add(record)

    def _open(self, record: _Record, trigger: Trigger, announced: bool) -> None:
        e = record.event
        latest = self._incidents[-1] if self._incidents else None
        if latest is not None and latest.ended_at is None:
            latest.ended_at = e.at  # superseded: it did not recover before the next one began
        inc = _Incident(next(self._numbers), trigger, announced, e.node, e.broker_id, e.at)
        inc.add(record)
        # A start begins from a degraded cluster (its node is down): recovery needs no further loss to be seen.
        inc.degraded = inc.degraded or self._healthy(e.at) is False
        self._incidents.append(inc)

    def _healthy(self, at: float) -> bool | None:
        """Every node up, and every cluster source still polled sees every broker alive and every partition led with
        a full ISR; None when nothing is known."""
        views: list[bool] = []
        if self._nodes is not None and self._nodes.nodes:
            views.append(all(n.state is NodeState.UP for n in self._nodes.nodes))
        fresh = [ok for taken, ok in self._cluster_health.values() if at - taken <= STALE_SOURCE_S]
        views.extend(fresh)
        if self._quorum is not None and at - self._quorum.taken_at <= STALE_SOURCE_S:
            views.append(self._quorum.leader_id >= 0)
        return all(views) if views else None

    def _check_recovered(self, at: float) -> None:
        inc = self._incidents[-1] if self._incidents else None
        if inc is None or inc.ended_at is not None or at < inc.started_at:
            return  # a view older than the incident says nothing of its end
        healthy = self._healthy(at)
        if healthy is None:
            return
        if not healthy:
            inc.degraded = True
            return
        if not inc.degraded:
            return  # the action's effect is not seen yet
        if self._cluster_health and all(taken < inc.started_at for taken, _ in self._cluster_health.values()):
            return  # the processes are back; the cluster's view of it is still to come
        title = _title(inc.trigger, inc.node, inc.broker_id)
        event = TimelineEvent(
            at,
            EventKind.RECOVERED,
            "kafkatop",
            f"recovered {at - inc.started_at:.1f} s after {title}: every node up, every broker alive, every partition "
            "led with its full ISR",
        )
        record = self._add(event, "kafkatop")
        if record is not None:
            inc.add(record)
        inc.ended_at = inc.recovered_at = at
