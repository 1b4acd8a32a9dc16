"""Incidents of the failover timeline: one opens at an action of kafkatop (kill -9, controlled shutdown, start,
restart) or at a loss nobody announced (a process gone, a broker leaving the cluster), collects what follows, and ends
when the cluster has recovered (every node up, every broker alive, every partition led with its full ISR) or the next
incident opens. Not thread-safe on its own: Timeline holds the lock."""

from __future__ import annotations

import bisect
import itertools
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from kafkatop.backends.insight.timeline.log import EventLog, Record
from kafkatop.backends.insight.timeline.model import (
    OPERATION_TRIGGERS,
    EventKind,
    Incident,
    IncidentStep,
    TimelineEvent,
    Trigger,
    title,
)

MAX_INCIDENTS = 20


MAX_INCIDENT_STEPS = 1_000  # a mass leader move of a large cluster; RECOVERED is always kept


# Events that show the cluster is degraded at their time: an incident that saw one can recover.
_LOSSES = frozenset(
    {
        EventKind.PROCESS_GONE,
        EventKind.BROKER_DEREGISTERED,
        EventKind.BROKER_FENCED,
        EventKind.BROKER_LEFT,
        EventKind.PARTITION_OFFLINE,
        EventKind.ISR_SHRUNK,
        EventKind.WORKER_LOST,
    }
)


# A start of the node an incident lost closes that incident when it recovers (Incidents.check_recovered).
_NODE_LOSSES = frozenset({Trigger.KILL, Trigger.STOP, Trigger.PROCESS_EXITED})
_RETURNS = frozenset({Trigger.START, Trigger.RESTART})

_NODE_KINDS = frozenset(
    {
        EventKind.ACTION,
        EventKind.PROCESS_GONE,
        EventKind.PROCESS_STARTED,
        EventKind.BROKER_DEREGISTERED,
        EventKind.BROKER_FENCED,
        EventKind.BROKER_LEFT,
        EventKind.BROKER_REGISTERED,
        EventKind.WORKER_LOST,
        EventKind.WORKER_BACK,
    }
)


@dataclass(slots=True, eq=False)
class _Incident:
    number: int
    trigger: Trigger
    announced: bool
    node: str | None
    broker_id: int | None
    started_at: float
    records: list[Record] = field(default_factory=list)
    nodes: set[str] = field(default_factory=set)  # nodes and brokers it is about: their losses are not new incidents
    brokers: set[int] = field(default_factory=set)
    degraded: bool = False  # seen unhealthy since it opened: only then can it recover
    ended_at: float | None = None
    recovered_at: float | None = None
    omitted: int = 0
    subject: str | None = None  # an operation's topic
    settle_at: float | None = None  # an operation's end: the incident ends with the first cluster view after it
    # The loss of the node this start brings back (its kill -9, its controlled shutdown): it recovers with this one.
    answers: _Incident | None = None

    def covers(self, event: TimelineEvent) -> bool:
        return (event.node is not None and event.node in self.nodes) or (
            event.broker_id is not None and event.broker_id in self.brokers
        )

    def add(self, record: Record) -> None:
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
            subject=self.subject,
        )


class Incidents:
    """The incidents of one timeline, at most MAX_INCIDENTS, the newest last."""

    def __init__(
        self, log: EventLog, healthy: Callable[[float], bool | None], reported: Callable[[], Iterable[float]]
    ) -> None:
        """`healthy(at)`: every node up and every cluster view healthy at `at` (None: nothing known). `reported()`:
        when each cluster view last reported."""
        self.log = log
        self._healthy = healthy
        self._reported = reported
        self.items: deque[_Incident] = deque(maxlen=MAX_INCIDENTS)
        self._numbers = itertools.count(1)

    @property
    def latest(self) -> _Incident | None:
        return self.items[-1] if self.items else None

    def frozen(self) -> tuple[Incident, ...]:
        return tuple(i.frozen() for i in self.items)

    def at(self, at: float) -> _Incident | None:
        """The incident that was open at `at`, if any."""
        for inc in reversed(self.items):
            if inc.started_at <= at:
                return inc if inc.ended_at is None or at <= inc.ended_at else None
        return None

    def place(self, record: Record, trigger: Trigger | None) -> None:
        """Into the incident open at its time; a loss nobody announced (trigger given) opens one."""
        e = record.event
        inc = self.at(e.at)
        latest = self.items[-1] if self.items else None
        is_latest_time = latest is None or e.at >= latest.started_at
        if trigger is not None and is_latest_time and (inc is None or not inc.covers(e)):
            self.open(record, trigger, announced=False)
        elif inc is not None:
            inc.add(record)

    def open(self, record: Record, trigger: Trigger, announced: bool, subject: str | None = None) -> None:
        e = record.event
        latest = self.items[-1] if self.items else None
        if latest is not None and latest.ended_at is None:
            latest.ended_at = e.at  # superseded: it did not recover before the next one began
        inc = _Incident(next(self._numbers), trigger, announced, e.node, e.broker_id, e.at, subject=subject)
        if trigger in _RETURNS and latest is not None and latest.trigger in _NODE_LOSSES and latest.node == e.node:
            inc.answers = latest  # not superseded: the start is its way back, and its recovery is that one's too
        inc.add(record)
        # A start begins from a degraded cluster (its node is down): recovery needs no further loss to be seen.
        inc.degraded = inc.degraded or self._healthy(e.at) is False
        self.items.append(inc)

    def place_lag(self, record: Record, group_id: str, ok: bool, opens: bool) -> None:
        """A group's lag status change: into the incident open at its time; opening one of its own (`opens`: the
        group left OK for STALL, STOP, REWIND or ERR) when none is open or another group's is, which recovers when
        that group is OK."""
        latest = self.items[-1] if self.items else None
        if latest is not None and latest.ended_at is not None:
            latest = None
        # Another group's incident does not take this one in: each group its own line, the older one superseded.
        other_group = latest is not None and latest.trigger is Trigger.GROUP_BEHIND and latest.subject != group_id
        if opens and (latest is None or other_group):
            self.open(record, Trigger.GROUP_BEHIND, announced=False, subject=group_id)
            return
        self.place(record, None)
        if latest is not None and ok and latest.trigger is Trigger.GROUP_BEHIND and latest.subject == group_id:
            at = record.event.at
            text = f"recovered {at - latest.started_at:.1f} s after: group {group_id} OK again"
            event = TimelineEvent(at, EventKind.RECOVERED, "kafkatop", text)
            done = self.log.add(event, "kafkatop")
            if done is not None:
                latest.add(done)
            latest.ended_at = latest.recovered_at = at

    def check_recovered(self, at: float, *, cluster_view: bool = False) -> None:
        """After a view taken at `at`; `cluster_view`: a view of brokers and partitions (metadata, ZooKeeper)."""
        inc = self.items[-1] if self.items else None
        if inc is None or inc.ended_at is not None or at < inc.started_at:
            return  # a view older than the incident says nothing of its end
        if inc.trigger is Trigger.GROUP_BEHIND:
            return  # the cluster's health says nothing of a group's: it recovers when that group is OK (place_lag)
        if inc.trigger in OPERATION_TRIGGERS:
            # An operation ends when it is done and the cluster has been seen since (its leader moves are in), not
            # when the ISRs it shrinks on its way are full again.
            if cluster_view and inc.settle_at is not None and at >= inc.settle_at:
                what = title(inc.trigger, inc.node, inc.broker_id, inc.subject)
                event = TimelineEvent(at, EventKind.OPERATION, "kafkatop", f"{what}: its end seen in the metadata, "
                                      f"{at - inc.started_at:.1f} s after it began", after="seen")  # fmt: skip
                record = self.log.add(event, "kafkatop")
                if record is not None:
                    inc.add(record)
                inc.ended_at = at
            return
        healthy = self._healthy(at)
        if healthy is None:
            return
        if not healthy:
            inc.degraded = True
            return
        if not inc.degraded:
            return  # the action's effect is not seen yet
        reported = list(self._reported())
        if reported and all(taken < inc.started_at for taken in reported):
            return  # the processes are back; the cluster's view of it is still to come
        what = title(inc.trigger, inc.node, inc.broker_id)
        lost = inc.answers
        if lost is not None:
            what += f" ({at - lost.started_at:.1f} s after {title(lost.trigger, lost.node, lost.broker_id)})"
        event = TimelineEvent(
            at,
            EventKind.RECOVERED,
            "kafkatop",
            f"recovered {at - inc.started_at:.1f} s after {what}: every node up, every broker alive, every partition "
            "led with its full ISR",
        )
        record = self.log.add(event, "kafkatop")
        for recovered in (inc,) if lost is None else (lost, inc):
            if record is not None:
                recovered.add(record)
            recovered.ended_at = recovered.recovered_at = at
