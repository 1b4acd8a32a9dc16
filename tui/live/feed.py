"""What each source delivers, turned into the app's messages — the same path for a live source and a replayed one.

Each delivery is recorded first (when recording), then observed by the failover timeline and the history, laid over
ZooKeeper's pushed state in ZooKeeper mode (insight/merge.py), and posted as one message. Called from worker threads:
the timeline and the history are thread-safe, and the messages are posted, never drawn, here.

SOURCES is the table of what the view polls: a new source is one row (its name, the port it reads, its interval, its
snapshot's type, its delivery here) plus its LiveView field; the app's pollers, the recording and the replay read it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from types import UnionType
from typing import Any, Generic, TypeVar, cast

from textual.message import Message

from kafkatop.backends.insight.history import History
from kafkatop.backends.insight.lag.evaluator import LagEvaluator
from kafkatop.backends.insight.merge import with_zookeeper
from kafkatop.backends.insight.scenario_marks import scenario_marks
from kafkatop.backends.insight.timeline.timeline import Timeline
from kafkatop.backends.model.acls import AclsSnapshot
from kafkatop.backends.model.audit import TIMELINE_WRITES, AuditEntry
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connect import ConnectSnapshot
from kafkatop.backends.model.consoles import ConsoleActivity
from kafkatop.backends.model.disks import BrokerDisks
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.lag import LagRules
from kafkatop.backends.model.nodes import NodesSnapshot
from kafkatop.backends.model.operations import OperationKind, OperationPhase, OperationStep
from kafkatop.backends.model.quorum import QuorumSnapshot
from kafkatop.backends.model.recording import (
    ActionDone,
    ActionTaken,
    Payload,
    Recorded,
    RecordKind,
    SourceFailed,
    ZooKeeperPush,
)
from kafkatop.backends.model.scenario_report import ScenarioState
from kafkatop.backends.model.zookeeper import ZkEvent
from kafkatop.backends.ports import EnsembleView, Recorder, ZooKeeperWatch
from kafkatop.tui.live.messages import ActionFinished, OperationRecorded, Polled, PollFailed
from kafkatop.tui.live.sources import Settings, Sources

S = TypeVar("S")

LAG_BUDGET_S = 0.015  # a poll's CPU for the lag evaluator; the groups left are evaluated first at the next
ZOOKEEPER_WAIT_S = 0.5  # how long the watch waits for events before it looks whether it should stop
ZOOKEEPER_RETRY_S = 2.0  # between attempts to connect the watches


class Feed:
    def __init__(
        self, post: Callable[[Message], object], recorder: Recorder | None = None, lag_rules: LagRules | None = None
    ) -> None:
        self._send = post
        self.muted = False  # its context is not on screen: a worker still running for it posts nothing
        self.recorder = recorder
        self.timeline = Timeline()
        self.history = History()
        self.lag = LagEvaluator(lag_rules)  # the groups' lag in time and status, from the polls themselves
        self._polled: ClusterSnapshot | None = None  # the last metadata poll, before ZooKeeper's state is laid over it
        self._pushed: ClusterSnapshot | None = None  # ZooKeeper's state, as its watches last pushed it
        self._connect: ConnectSnapshot | None = None  # the last Connect poll that a worker answered
        self._acls: AclsSnapshot | None = None  # the last ACLs read
        self._acls_recorded: AclsSnapshot | None = None  # the last recorded, its time zeroed
        self._scenario: ScenarioState | None = None  # the scenario's last state: its marks are what changed since
        self._scenario_recorded: tuple[ScenarioState | None, float] = (None, 0.0)  # the last one recorded, and when

    def _post(self, message: Message) -> None:
        if not self.muted:
            self._send(message)

    def _record(self, at: float, kind: RecordKind, payload: Payload) -> None:
        if self.recorder is not None:
            self.recorder.record(at, kind, payload)

    def _cluster_view(self) -> ClusterSnapshot | None:
        polled, pushed = self._polled, self._pushed
        if polled is not None and pushed is not None:
            return with_zookeeper(polled, pushed)
        return polled or pushed

    # --- deliveries ----------------------------------------------------------------------------------------------
    def cluster(self, polled: ClusterSnapshot, at: float | None = None) -> None:
        self._record(polled.taken_at if at is None else at, "cluster", polled)
        self._polled = polled
        self.timeline.observe_cluster(polled)
        # The poll's own groups and watermarks (ZooKeeper's pushed state has neither), in a bounded time
        lag = self.lag.observe(polled, LAG_BUDGET_S)
        self.timeline.observe_lag(lag.changes)
        snapshot = self._cluster_view()
        assert snapshot is not None
        self.history.observe_cluster(snapshot)
        self._post(Polled("cluster", summarized(snapshot), self.timeline.snapshot(), self.history.snapshot(), lag))

    def zookeeper(self, push: ZooKeeperPush, at: float | None = None) -> None:
        """ZooKeeper mode: a broker deregistering, a controller moving, a leader or ISR changing, as the watches
        pushed it — before the next poll."""
        self._record(time.time() if at is None else at, "zookeeper", push)
        for event in push.events:
            self.timeline.observe_zookeeper(event)
        self._pushed = push.snapshot
        snapshot = self._cluster_view()
        if snapshot is None:
            return  # the watches lost ZooKeeper before the first poll: nothing to show yet
        self.history.observe_changes(snapshot)
        timeline, history = self.timeline.snapshot(), self.history.snapshot()
        self._post(Polled("cluster", summarized(snapshot), timeline, history, self.lag.last))

    def nodes(self, snapshot: NodesSnapshot, at: float | None = None) -> None:
        self._record(snapshot.taken_at if at is None else at, "nodes", snapshot)
        self.timeline.observe_nodes(snapshot)
        self._post(Polled("nodes", snapshot, self.timeline.snapshot()))

    def ensemble(self, view: EnsembleView, at: float | None = None) -> None:
        self._record(view.taken_at if at is None else at, "ensemble", view)
        if isinstance(view, QuorumSnapshot):
            self.timeline.observe_quorum(view)
        self._post(Polled("ensemble", view, self.timeline.snapshot()))

    def connect(self, polled: ConnectSnapshot, at: float | None = None) -> None:
        """Kafka Connect's workers, connectors and tasks. When no worker answered, the last connectors read stay on
        screen (with their time) beside the workers' problems."""
        if self.recorder is not None:  # without each connector's REST answer, which the view never shows
            kept = tuple(replace(c, raw={}) for c in polled.connectors)
            self._record(polled.taken_at if at is None else at, "connect", replace(polled, connectors=kept))
        self.timeline.observe_connect(polled)
        shown = polled
        if polled.problem is None:
            self._connect = polled
        elif self._connect is not None:
            shown = replace(self._connect, workers=polled.workers, problem=polled.problem)
        self._post(Polled("connect", shown, self.timeline.snapshot()))

    def acls(self, polled: AclsSnapshot, at: float | None = None) -> None:
        """The ACLs and the authorizer; recorded when they changed (a poll every few seconds finds them the same).
        When they could not be read, the last bindings read stay on screen (with their time) beside why."""
        untimed = replace(polled, at=0.0)
        if self.recorder is not None and untimed != self._acls_recorded:
            self._acls_recorded = untimed
            self._record(polled.at if at is None else at, "acls", polled)
        shown = polled
        if polled.error is None:
            self._acls = polled
        elif self._acls is not None and not polled.bindings:
            shown = replace(polled, bindings=self._acls.bindings, at=self._acls.at)
        self._post(Polled("acls", shown))

    def log_dirs(self, polled: BrokerDisks, at: float | None = None) -> None:
        """The brokers' log directories (every 30 s): the Brokers tab's bytes on disk, the partitions' sizes."""
        self._record(polled.taken_at if at is None else at, "log_dirs", polled)
        self._post(Polled("log_dirs", polled))

    def consoles(self, activity: ConsoleActivity, at: float | None = None) -> None:
        at = time.time() if at is None else at
        self._record(at, "consoles", activity)
        self.timeline.observe_consoles(activity, at)
        self._post(Polled("consoles", activity, self.timeline.snapshot(), delta=True))

    def action(self, taken: ActionTaken, at: float | None = None) -> None:
        """A node action of the user's, before it runs (its effects are seen after it)."""
        at = time.time() if at is None else at
        self._record(at, "action", taken)
        self.timeline.record_action(taken.action, taken.node, at, broker_id=taken.broker_id)

    def operation(self, step: OperationStep, at: float | None = None) -> None:
        """An operator's step (an election, a reassignment, a config change, …), told when it happens: sent,
        progressing, done, failed. Callable from any thread."""
        at = time.time() if at is None else at
        self._record(at, "operation", step)
        self.timeline.record_operation(step, at)
        self._post(OperationRecorded(step, self.timeline.snapshot()))

    def write(self, entry: AuditEntry) -> None:
        """A write of the session's (the audit trail's entry, from the worker that wrote), on the Timeline when no
        other kind tells it there (an election, a config change, … are told by their own steps)."""
        if entry.action in TIMELINE_WRITES:
            phase = OperationPhase.DONE if entry.result == "ok" else OperationPhase.FAILED
            self.operation(OperationStep(OperationKind.WRITE, phase, entry.what()), entry.at)

    def scenario(self, state: ScenarioState, at: float | None = None) -> None:
        """The scenario's run moved (from its worker): recorded, its marks on the timeline, its pane redrawn."""
        at = time.time() if at is None else at
        kept, kept_at = self._scenario_recorded
        # The value being watched changes every poll: a state that differs only there is recorded every 2 s at most.
        if kept is None or replace(kept, watching=None) != replace(state, watching=None) or at - kept_at >= 2.0:
            self._record(at, "scenario", state)
            self._scenario_recorded = (state, at)
        for mark in scenario_marks(self._scenario, state):
            self.timeline.record_operation(mark, at)
        self._scenario = state
        self._post(Polled("scenario", state, self.timeline.snapshot()))

    def failed(self, source: str, reason: str, at: float) -> None:
        """A poll failed (told on the UI thread): only recorded here; the app shows it."""
        self._record(at, cast(RecordKind, f"{source}-failed"), SourceFailed(reason))

    def action_done(self, done: ActionDone, at: float) -> None:
        self._record(at, "action-finished", done)

    def follow_zookeeper(self, watch: ZooKeeperWatch, cancelled: Callable[[], bool]) -> None:
        """ZooKeeper mode, in a worker until cancelled: what the watches push, delivered as it comes."""
        while not cancelled():
            try:
                watch.start()
                break
            except KafkatopError:
                # A lab's ZooKeeper, or its first broker, may still be starting: the polls cover meanwhile. The wait
                # looks at `cancelled` often: quitting must not wait it out.
                retry_at = time.monotonic() + ZOOKEEPER_RETRY_S
                while not cancelled() and time.monotonic() < retry_at:
                    time.sleep(0.05)
        events: list[ZkEvent] = []
        connected = False
        while not cancelled():
            if watch.connected:
                # The first time round: the state the watches start from.
                self.zookeeper(ZooKeeperPush(tuple(events), watch.snapshot()))
                connected = True
            elif connected:
                self.zookeeper(ZooKeeperPush(tuple(events), None))  # lost: the polls alone tell meanwhile
                connected = False
            events = []
            while not events and not cancelled() and watch.connected == connected:
                events = watch.next_events(ZOOKEEPER_WAIT_S)

    # --- a replay: what was recorded, through the same path ----------------------------------------------------
    def replayed(self, entry: Recorded) -> None:
        p, at = entry.payload, entry.at
        if isinstance(p, ZooKeeperPush):
            self.zookeeper(p, at)
        elif isinstance(p, ActionTaken):
            self.action(p, at)
        elif isinstance(p, OperationStep):
            self.operation(p, at)
        elif isinstance(p, ActionDone):
            self._post(ActionFinished(p.what, p.error))
        elif isinstance(p, SourceFailed):
            self._post(PollFailed(entry.kind.removesuffix("-failed"), p.reason, at))
        else:
            next(s for s in SOURCES if isinstance(p, s.delivers)).deliver(self, p, at)


@dataclass(frozen=True, slots=True)
class LiveSource(Generic[S]):
    """A source the live view polls: a row of SOURCES, which the app's pollers, the recording and the replay iterate."""

    name: str  # its poller (`poll-<name>`), its record kind (and `<name>-failed`), the LiveView field it fills
    reads: Callable[[Sources], Callable[[], S | None] | None]  # the port's call (None: nothing new); None: no such port
    interval_s: Callable[[Settings], float]
    delivers: type | UnionType  # its snapshot's type: a recorded payload of this type is replayed to it
    deliver: Callable[[Feed, S, float | None], None]  # the Feed's: recorded, observed, posted as one Polled
    problem: str | None = None  # the LiveView field saying why its last poll failed; None: its pane keeps its own
    after_actions: bool = False  # polled again as soon as a user's action ends
    history: bool = False  # its delivery carries the history and the lag (the cluster's): the view takes them


def _port(port: Callable[[Sources], object | None], call: str) -> Callable[[Sources], Any]:
    """The bound `call` of the port `port` reads from the view's Sources, where it has one."""
    return lambda sources: getattr(found, call) if (found := port(sources)) is not None else None


# fmt: off
SOURCES: tuple[LiveSource[Any], ...] = (
    LiveSource("cluster", lambda s: s.poll_cluster, lambda s: s.poll_interval_s, ClusterSnapshot, Feed.cluster,
               problem="failure", after_actions=True, history=True),
    LiveSource("nodes", _port(lambda s: s.control, "poll"), lambda s: s.poll_interval_s, NodesSnapshot, Feed.nodes,
               after_actions=True),
    LiveSource("ensemble", lambda s: s.poll_ensemble, lambda s: s.ensemble_interval_s, EnsembleView, Feed.ensemble,
               problem="ensemble_problem"),
    LiveSource("consoles", _port(lambda s: s.consoles, "drain"), lambda s: s.drain_interval_s, ConsoleActivity,
               Feed.consoles),
    LiveSource("connect", _port(lambda s: s.connect, "poll"), lambda s: s.connect_interval_s, ConnectSnapshot,
               Feed.connect, problem="connect_problem", after_actions=True),
    LiveSource("acls", _port(lambda s: s.acls, "poll"), lambda s: s.acls_interval_s, AclsSnapshot, Feed.acls,
               problem="acls_problem", after_actions=True),
    LiveSource("log_dirs", _port(lambda s: s.log_dirs, "poll"), lambda s: s.log_dirs_interval_s, BrokerDisks,
               Feed.log_dirs, problem="log_dirs_problem"),
    # Pushed by the scenario's worker as its run moves (scenario_desk.py), never polled: a row for the recording,
    # the replay and the view's field.
    LiveSource("scenario", lambda s: None, lambda s: s.poll_interval_s, ScenarioState, Feed.scenario),
)
# fmt: on


def source(name: str) -> LiveSource[Any]:
    """The row of SOURCES named `name` (a poller's, a failure's)."""
    return next(s for s in SOURCES if s.name == name)


def summarized(snapshot: ClusterSnapshot) -> ClusterSnapshot:
    """The snapshot, each topic's summary worked out here, in the poll's worker: the panes read every topic's faults
    on the UI thread, and the partition table sizes its columns by their extents (10,000 new partitions after a broker
    died: ~10 ms). A summary is kept on its topic, the same object poll after poll while it does not change. So are the
    snapshot's totals, its lag by topic and each group's lag (the status bar, the topic rows, the Groups tab)."""
    snapshot.totals  # noqa: B018 - worked out (each topic's summary with it) and kept on the snapshot
    snapshot.lag_by_topic  # noqa: B018 - kept on the snapshot
    for g in snapshot.groups:
        g.total_lag  # noqa: B018 - kept on the group
    return snapshot
