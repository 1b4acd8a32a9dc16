"""Kafka Connect on the failover timeline: a worker that stops answering and comes back, its tasks waiting, moving to
another worker and RUNNING again there, connectors created, deleted or changing state — from successive
ConnectSnapshots (the Connect tab's poll, every 2 s).

After a kill -9 the status Connect reports keeps the dead worker's tasks RUNNING on it (the worker writes its own
statuses): they are seen again when another worker starts them. Until then the group waits: first for the worker's
session to time out (`session.timeout.ms`, 10 s), then, with incremental cooperative rebalancing, for it to come back
(`scheduled.rebalance.max.delay.ms`) before its tasks go to the others — unless the lost worker was the group's
leader, whose successor knows nothing to wait for (seen on Kafka 4.1: 10 s then, 32 s otherwise, in a lab's 20 s).
That wait is told once per loss, when the tasks are seen waiting. Not thread-safe on its own: Timeline holds the lock.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

from kafkatop.backends.insight.timeline.incidents import Incidents
from kafkatop.backends.insight.timeline.log import EventLog
from kafkatop.backends.insight.timeline.model import EventKind, TimelineEvent, Trigger
from kafkatop.backends.model.connect import ConnectSnapshot, ConnectTask, ConnectWorker

SOURCE = "connect"
# What the tasks of a lost worker wait for, said once per loss.
WAIT_TEXT = (
    "{tasks} of {worker} wait: the group notices a worker gone when its session times out (session.timeout.ms, 10 s); "
    "its leader then holds the worker's tasks for scheduled.rebalance.max.delay.ms in case it comes back (a kafkatop "
    "lab sets 20 s; Kafka's default is 5 min), unless the lost worker led the group: a new leader hands them out now"
)
MAX_NAMED = 6  # tasks named in one line; beyond, counted


def worker_key(url: str) -> str:
    """A worker's URL as Connect names the worker in a task's status: `host:port`."""
    parts = urlsplit(url if "//" in url else f"//{url}")
    return parts.netloc.rpartition("@")[2] or url


def task_name(task: ConnectTask) -> str:
    return f"{task.connector}/{task.task}"


def named(tasks: list[ConnectTask]) -> str:
    shown = ", ".join(task_name(t) for t in tasks[:MAX_NAMED])
    more = f" and {len(tasks) - MAX_NAMED} more" if len(tasks) > MAX_NAMED else ""
    return f"{len(tasks)} task(s) ({shown}{more})"


def _first_line(trace: str | None) -> str:
    return trace.strip().splitlines()[0] if trace and trace.strip() else ""


def _tasks(snapshot: ConnectSnapshot) -> dict[tuple[str, int], ConnectTask]:
    return {(t.connector, t.task): t for c in snapshot.connectors for t in c.tasks}


class ConnectViews:
    """The last Connect view and what its changes are told as. `node_of(worker)` names the process pane of a worker
    (`host:port`), so that its process and its REST API are one story."""

    def __init__(self, log: EventLog, incidents: Incidents, node_of: Callable[[str], str | None]) -> None:
        self._log = log
        self._incidents = incidents
        self._node_of = node_of
        self._workers: dict[str, ConnectWorker] | None = None  # the last poll's, by key
        self._last: ConnectSnapshot | None = None  # the last poll that read the connectors
        self._lost: dict[str, float] = {}  # worker → when it was seen lost, until it answers again
        self._waiting: set[str] = set()  # lost workers whose tasks' wait has been told
        self.health: tuple[float, bool] | None = None  # the last poll's time, and whether nothing waited or failed

    def observe(self, snapshot: ConnectSnapshot) -> None:
        at = snapshot.taken_at
        if self._last is not None and at < self._last.taken_at:
            return  # an older poll that finished late
        workers = {worker_key(w.url): w for w in snapshot.workers}
        before = self._last
        if self._workers is not None:
            self._workers_changed(self._workers, workers, at)
        self._workers = workers
        if snapshot.problem is None:
            if before is not None:
                self._connectors_changed(before, snapshot, at)
            self._last = snapshot
        self._tell_waiting(at)
        lost = {k for k, w in workers.items() if not w.reachable}
        stuck = any(
            t.state == "UNASSIGNED" or t.worker_id in lost for c in (self._last or snapshot).connectors for t in c.tasks
        )
        self.health = (at, snapshot.problem is None and not lost and not stuck)

    # --- workers --------------------------------------------------------------------------------------------------
    def _workers_changed(self, before: dict[str, ConnectWorker], now: dict[str, ConnectWorker], at: float) -> None:
        for key, worker in now.items():
            was = before.get(key)
            if was is None:
                continue
            if was.reachable and not worker.reachable:
                self._lost[key] = at
                on = self._tasks_on(key)
                ran = f"; it ran {named(on)}" if on else "; it ran no task"
                text = f"Connect worker {key} {worker.problem}{ran}"
                self._add(TimelineEvent(at, EventKind.WORKER_LOST, SOURCE, text, node=self._node_of(key) or key,
                                        before="answering", after="lost"), Trigger.WORKER_LOST)  # fmt: skip
            elif worker.reachable and not was.reachable:
                lost_at = self._lost.pop(key, None)
                self._waiting.discard(key)
                after = f", {at - lost_at:.1f} s after it was lost" if lost_at is not None else ""
                version = f" (Kafka Connect {worker.version})" if worker.version else ""
                text = f"Connect worker {key} answers again{version}{after}"
                self._add(TimelineEvent(at, EventKind.WORKER_BACK, SOURCE, text, node=self._node_of(key) or key,
                                        before="lost", after="answering"))  # fmt: skip

    def _tasks_on(self, key: str) -> list[ConnectTask]:
        last = self._last
        return [t for c in last.connectors for t in c.tasks if t.worker_id == key] if last is not None else []

    def _tell_waiting(self, at: float) -> None:
        """Once per loss, at the first poll after it: the lost worker's tasks not yet running elsewhere, and why."""
        for key, lost_at in self._lost.items():
            if key in self._waiting or at <= lost_at:
                continue
            waiting = self._tasks_on(key)
            if self._last is not None:
                waiting += [t for c in self._last.connectors for t in c.tasks
                            if t.state == "UNASSIGNED" and t.worker_id != key]  # fmt: skip
            self._waiting.add(key)
            if waiting:
                text = WAIT_TEXT.format(tasks=named(waiting), worker=key)
                self._add(TimelineEvent(at, EventKind.TASKS_WAITING, SOURCE, text, node=self._node_of(key)))

    # --- connectors and tasks ---------------------------------------------------------------------------------------
    def _connectors_changed(self, before: ConnectSnapshot, now: ConnectSnapshot, at: float) -> None:
        old = {c.name: c for c in before.connectors}
        new = {c.name: c for c in now.connectors}
        for name, c in new.items():
            was = old.get(name)
            if was is None:
                short = c.class_name.rpartition(".")[2]
                on = f" on {c.worker_id}" if c.worker_id else ""
                text = f"connector {name} created ({c.type}, {short}){on}: {c.state}"
                self._add(TimelineEvent(at, EventKind.CONNECTOR_CHANGED, SOURCE, text, after=c.state))
            elif was.state != c.state:
                why = f": {_first_line(c.trace)}" if c.state == "FAILED" and c.trace else ""
                text = f"connector {name} {was.state}→{c.state}{why}"
                self._add(TimelineEvent(at, EventKind.CONNECTOR_CHANGED, SOURCE, text, before=was.state,
                                        after=c.state))  # fmt: skip
        for name in old.keys() - new.keys():
            self._add(TimelineEvent(at, EventKind.CONNECTOR_CHANGED, SOURCE, f"connector {name} deleted",
                                    before=old[name].state, after="deleted"))  # fmt: skip
        previous = _tasks(before)
        for key, task in _tasks(now).items():
            was_task = previous.get(key)
            if was_task is not None:
                self._task_changed(was_task, task, at)
            elif key[0] in old:  # a task of a connector already there (not one just created): said as it starts
                self._task_changed(ConnectTask(task.connector, task.task, "UNASSIGNED", ""), task, at)

    def _task_changed(self, was: ConnectTask, task: ConnectTask, at: float) -> None:
        name = task_name(task)
        moved = task.worker_id and was.worker_id and task.worker_id != was.worker_id
        if moved:
            lost_at = self._lost.get(was.worker_id)
            if task.state == "RUNNING" and lost_at is not None:
                text = f"{name} RUNNING again on {task.worker_id}, {at - lost_at:.1f} s after {was.worker_id} was lost"
            else:
                text = f"{name} moved {was.worker_id}→{task.worker_id}: {task.state}"
            self._add(TimelineEvent(at, EventKind.TASK_MOVED, SOURCE, text, node=self._node_of(task.worker_id),
                                    before=was.worker_id, after=task.worker_id))  # fmt: skip
        elif was.state != task.state:
            on = f" on {task.worker_id}" if task.worker_id else ""
            why = f": {_first_line(task.trace)}" if task.state == "FAILED" else ""
            text = f"{name} {was.state}→{task.state}{on}{why}"
            self._add(TimelineEvent(at, EventKind.TASK_STATE, SOURCE, text, before=was.state, after=task.state))

    def _add(self, event: TimelineEvent, trigger: Trigger | None = None) -> None:
        record = self._log.add(event, SOURCE)
        if record is not None:
            self._incidents.place(record, trigger)
