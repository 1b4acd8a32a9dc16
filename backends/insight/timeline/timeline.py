"""A failover timeline: what happened to a cluster, in order, from every source kafkatop watches.

The app's pollers feed it: the node panes' processes, metadata polls (ClusterSnapshot), ZooKeeper's pushed events,
the KRaft quorum, the consoles' client errors, Kafka Connect's workers and tasks (connect.py), and kafkatop's own
actions. Each source is diffed against its own previous view, whose first one is only a baseline. A change that two
sources report (ZooKeeper pushes a leader election, the next metadata poll shows it) is kept once, as first reported,
with the other source in `confirmed_by`.

An incident opens at an action of kafkatop (kill -9, controlled shutdown, start, restart) or at a loss nobody
announced (a process gone, a broker leaving the cluster). It collects what follows until the cluster has recovered
(every node up, every broker alive, every partition led and its ISR full) or the next incident opens, and gives each
step its delay since the trigger and since the step before: a kill -9 and a controlled shutdown side by side. After a
kill -9 in ZooKeeper mode the broker stays registered until its ZooKeeper session times out; the deregistration step
shows that delay.

Plain, thread-safe, bounded: pollers call the observe_* methods from their worker threads; the UI reads snapshot().
"""

from __future__ import annotations

import threading
import time
from collections.abc import Hashable, Iterable

from kafkatop.backends.insight.timeline.client_errors import ClientErrors, ClientSource
from kafkatop.backends.insight.timeline.cluster_views import ClusterViews
from kafkatop.backends.insight.timeline.connect import ConnectViews
from kafkatop.backends.insight.timeline.events import (
    action_event,
    broker_id_of,
    process_gone_event,
    process_started_event,
    quorum_event,
)
from kafkatop.backends.insight.timeline.incidents import Incidents
from kafkatop.backends.insight.timeline.log import EventLog, Record
from kafkatop.backends.insight.timeline.model import EventKind, TimelineEvent, TimelineSnapshot, Trigger
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connect import ConnectSnapshot, worker_host_port
from kafkatop.backends.model.consoles import ConsoleActivity
from kafkatop.backends.model.lag import LagStatus, StatusChange
from kafkatop.backends.model.nodes import NodesSnapshot, NodeState, NodeView, ProcessRole
from kafkatop.backends.model.operations import OperationKind, OperationPhase, OperationStep
from kafkatop.backends.model.quorum import QuorumSnapshot
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.model.zookeeper import ZkEvent

# Lag statuses that open an incident of their own: a group no longer consuming, or reading what it should not.
BEHIND = frozenset({LagStatus.STALL, LagStatus.STOP, LagStatus.REWIND, LagStatus.ERR})

# A cluster source silent for this long (it failed, or is no longer polled) no longer decides recovery.
STALE_SOURCE_S = 30.0


_RUNNING = (NodeState.STARTING, NodeState.UP, NodeState.STOPPING)


_ACTION_TRIGGERS: dict[str, Trigger] = {
    "kill": Trigger.KILL,
    "stop": Trigger.STOP,
    "start": Trigger.START,
    "restart": Trigger.RESTART,
}


# Operations whose effects (leaders, ISRs, replicas moving) are told as the steps of an incident.
_OPERATION_TRIGGERS = {
    OperationKind.LEADER_ELECTION: Trigger.LEADER_ELECTION,
    OperationKind.REASSIGNMENT: Trigger.REASSIGNMENT,
}
# A node found in this state without an action of ours: what most likely happened to it.
_GONE_TRIGGERS = {
    NodeState.KILLED: Trigger.KILL,
    NodeState.DOWN: Trigger.STOP,
    NodeState.FAILED: Trigger.PROCESS_EXITED,
}


class Timeline:
    """The failover timeline of one cluster. Every method may be called from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._log = EventLog()
        self._incidents = Incidents(self._log, self._healthy, lambda: [taken for taken, _ in self._cluster.health()])
        # Baselines, one per source: the cluster's views (metadata polls, ZooKeeper) kept by ClusterViews.
        self._nodes: NodesSnapshot | None = None
        self._cluster = ClusterViews(self._log, self._incidents, self._node_of)
        self._quorum: QuorumSnapshot | None = None
        self._clients = ClientErrors(self._log, self._incidents)
        self._connect = ConnectViews(self._log, self._incidents, self._worker_node)
        self._frozen: TimelineSnapshot | None = None  # the last snapshot, while nothing changed

    # --- reading ---------------------------------------------------------------------------------------------------
    @property
    def revision(self) -> int:
        """Grows with every change: an unchanged revision needs no new snapshot."""
        return self._log.revision

    def snapshot(self) -> TimelineSnapshot:
        with self._lock:
            if self._frozen is None or self._frozen.revision != self._log.revision:
                self._frozen = TimelineSnapshot(
                    revision=self._log.revision,
                    events=tuple(r.event for r in self._log.records),
                    incidents=self._incidents.frozen(),
                )
            return self._frozen

    # --- kafkatop's actions ----------------------------------------------------------------------------------------
    def record_action(self, action: str, node: str, at: float | None = None, *, broker_id: int | None = None) -> None:
        """Call before acting (the action's effects are seen after it): `action` is one of control.ACTIONS."""
        trigger = _ACTION_TRIGGERS.get(action)
        if trigger is None:
            raise ValueError(f"unknown action {action!r}: one of {', '.join(_ACTION_TRIGGERS)}")
        at = time.time() if at is None else at
        with self._lock:
            view = self._nodes.node(node) if self._nodes is not None else None
            if broker_id is None and view is not None:
                broker_id = broker_id_of(view)
            record = self._add(action_event(action, node, at, broker_id), "kafkatop")
            if record is not None and view is not None and view.role is ProcessRole.ISSUER:
                # An OAuth lab's issuer holds no partition: its kill changes logins, not leaders or ISRs, so it is an
                # event (a step of an incident under way), not an incident whose recovery would never come.
                self._incidents.place(record, None)
            elif record is not None:
                self._incidents.open(record, trigger, announced=True)

    def record_operation(self, step: OperationStep, at: float | None = None) -> None:
        """An operator's step (election, reassignment, config change, …). An election or a reassignment opens an
        incident when it starts, so the leader and ISR changes it causes are its steps, timed from it; it ends with
        the first cluster view after its last step."""
        at = time.time() if at is None else at
        event = TimelineEvent(at, EventKind.OPERATION, "kafkatop", step.text, before=step.kind.value,
                              after=step.phase.value)  # fmt: skip
        with self._lock:
            record = self._add(event, "kafkatop")
            if record is None:
                return
            trigger = _OPERATION_TRIGGERS.get(step.kind)
            if trigger is not None and step.phase is OperationPhase.STARTED:
                self._incidents.open(record, trigger, announced=True, subject=step.topic)
                return
            self._incidents.place(record, None)
            latest = self._incidents.latest
            if step.phase.final and latest is not None and latest.ended_at is None and latest.trigger is trigger:
                latest.settle_at = at

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
        record = self._add(process_gone_event(before, view, at, restarted), "processes")
        if record is not None:
            trigger = Trigger.RESTART if restarted else _GONE_TRIGGERS.get(view.state, Trigger.PROCESS_EXITED)
            self._incidents.place(record, None if view.role is ProcessRole.ISSUER else trigger)  # see record_action

    def _process_started(self, view: NodeView, at: float, before: NodeView | None) -> None:
        record = self._add(process_started_event(view, at, before), "processes")
        if record is not None:
            self._incidents.place(record, None)

    def _node_of(self, broker_id: int) -> str | None:
        """The node pane of a broker, so that its process and its registration are one story."""
        if self._nodes is None:
            return None
        return next((n.name for n in self._nodes.nodes if broker_id_of(n) == broker_id), None)

    # --- cluster snapshots (metadata, or ZooKeeper's mirror), and ZooKeeper's pushed events ---------------------------
    def observe_cluster(self, snapshot: ClusterSnapshot) -> None:
        """A polled view of the cluster, diffed against the previous one of the same source (snapshot.source)."""
        with self._lock:
            if self._cluster.observe(snapshot):
                self._check_recovered(snapshot.taken_at, cluster_view=True)

    def observe_zookeeper(self, event: ZkEvent) -> None:
        """One event of ZooKeeperSource.events: exact in time, so it is kept over a poll's later report."""
        with self._lock:
            self._cluster.observe_zookeeper(event)

    def _worker_node(self, worker: str) -> str | None:
        """The process pane of a Connect worker (`127.0.0.1:8083`): the connect node serving that port."""
        where = worker_host_port(worker)
        if self._nodes is None or where is None:
            return None
        return next((n.name for n in self._nodes.nodes if n.role is ProcessRole.CONNECT and where[1] in n.ports), None)

    # --- Kafka Connect -------------------------------------------------------------------------------------------
    def observe_connect(self, snapshot: ConnectSnapshot) -> None:
        """A poll of the Connect workers: a worker lost or back, tasks waiting, moving and running again."""
        with self._lock:
            self._connect.observe(snapshot)
            self._check_recovered(snapshot.taken_at)

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
                self._add_placed(quorum_event(previous, snapshot), "quorum", ("quorum",), new)
            self._check_recovered(snapshot.taken_at)

    # --- consumer groups' lag -------------------------------------------------------------------------------------
    def observe_lag(self, changes: Iterable[StatusChange]) -> None:
        """Groups whose lag status changed (a kill -9 of a broker: its groups WARN, then OK again), placed in the
        incident open then; a group that leaves OK for STALL, STOP, REWIND or ERR with none open opens its own,
        recovered once that group is OK again."""
        with self._lock:
            for c in changes:
                text = f"group {c.group_id}: {c.was} -> {c.now} ({c.why})"
                event = TimelineEvent(c.at, EventKind.GROUP_STATUS, "lag", text, before=c.was, after=c.now)
                record = self._log.add(event, "lag", ("group", c.group_id), c.now)
                if record is not None:
                    self._incidents.place_lag(record, c.group_id, c.now is LagStatus.OK, c.now in BEHIND)

    # --- clients ----------------------------------------------------------------------------------------------------
    def record_client_error(
        self,
        source: ClientSource,
        text: str,
        at: float | None = None,
        *,
        partition: TopicPartition | None = None,
        client: str | None = None,
    ) -> None:
        """A producer delivery error or a consumer error; repeats within FOLD_CLIENT_ERRORS_S of the last are counted
        on the first event, as one line. A repeat is the same error once librdkafka's changing details are left out
        (see fold_key); `client` names who reported it ("c1"): the clients reporting one error share its line."""
        at = time.time() if at is None else at
        with self._lock:
            self._clients.record(source, text, at, partition, client)

    def observe_consoles(self, activity: ConsoleActivity, at: float | None = None) -> None:
        """The consoles' drained batch: failed deliveries, and consumers that report a new problem."""
        at = time.time() if at is None else at
        for d in activity.deliveries:
            if d.error is not None:
                tp = TopicPartition(d.topic, d.partition) if d.partition is not None and d.partition >= 0 else None
                self.record_client_error("producer", f"delivery to {d.topic} failed: {d.error}", at, partition=tp)
        for c in activity.consumers:
            with self._lock:
                new_error = self._clients.consumer_error(c.name, c.error)
            if new_error:
                self.record_client_error("consumer", f"(group {c.group}): {c.error}", at, client=c.name)
        for change in activity.changes:
            if change.kind == "lost":
                parts = ", ".join(map(str, change.partitions))
                text = f"{change.consumer} (group {change.group}) lost its partitions {parts}"
                self.record_client_error("consumer", text, change.at)
        with self._lock:
            self._clients.keep_consumers({c.name for c in activity.consumers})

    # --- recovery -----------------------------------------------------------------------------------------------
    def _healthy(self, at: float) -> bool | None:
        """Every node up, every cluster source still polled sees every broker alive and every partition led with a
        full ISR, and Connect (where polled) has every worker answering; None when nothing is known."""
        views: list[bool] = []
        if self._nodes is not None and self._nodes.nodes:
            views.append(all(n.state is NodeState.UP for n in self._nodes.nodes))
        fresh = [ok for taken, ok in self._cluster.health() if at - taken <= STALE_SOURCE_S]
        views.extend(fresh)
        if self._quorum is not None and at - self._quorum.taken_at <= STALE_SOURCE_S:
            views.append(self._quorum.leader_id >= 0)
        connect = self._connect.health  # every worker answering, no task waiting for one
        if connect is not None and at - connect[0] <= STALE_SOURCE_S:
            views.append(connect[1])
        return all(views) if views else None

    # --- recording ----------------------------------------------------------------------------------------------
    def _add(
        self, event: TimelineEvent, channel: str, subject: tuple[Hashable, ...] | None = None, value: Hashable = None
    ) -> Record | None:
        return self._log.add(event, channel, subject, value)

    def _add_placed(
        self, event: TimelineEvent, channel: str, subject: tuple[Hashable, ...] | None = None, value: Hashable = None
    ) -> Record | None:
        record = self._log.add(event, channel, subject, value)
        if record is not None:
            self._incidents.place(record, None)
        return record

    def _check_recovered(self, at: float, *, cluster_view: bool = False) -> None:
        self._incidents.check_recovered(at, cluster_view=cluster_view)
