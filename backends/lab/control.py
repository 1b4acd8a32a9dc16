"""The node panes of a lab cluster that this kafkatop supervises: nodes from the supervisor's state (brokers,
controllers, ZooKeeper, Kafka Connect workers), CPU and memory of their JVMs, and their log tails, read cheaply once a
second; the keys act through the supervisor."""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from dataclasses import replace
from pathlib import Path

from kafkatop.backends.lab.cluster import LabCluster
from kafkatop.backends.lab.processes import ProcessSource
from kafkatop.backends.lab.spec import HOST
from kafkatop.backends.lab.state import LabSnapshot, NodeStatus
from kafkatop.backends.model.nodes import (
    ControlError,
    KafkaProcess,
    NodesSnapshot,
    NodeView,
    actions_for,
    storage_problem,
)

LOG_TAIL_LINES = 40


LOG_LINE_MAX = 300


LOG_TAIL_BYTES = 64 * 1024  # what a first read (or a jump past this much new output) reads of a log


LOCK_WAIT_S = 0.25


def _cap(line: str) -> str:
    line = line.rstrip("\r")
    return line if len(line) <= LOG_LINE_MAX else line[: LOG_LINE_MAX - 1] + "…"


class LogTail:
    """The last lines of a log that only grows, read cheaply once a second: a file that did not change is not read;
    one that grew is read from where the last read stopped; one that shrank or was replaced is read afresh."""

    def __init__(self, path: Path, lines: int = LOG_TAIL_LINES) -> None:
        self.path = path
        self._lines: deque[str] = deque(maxlen=lines)
        self._partial = b""  # an unfinished last line, completed by the next read
        self._identity: tuple[int, int] | None = None  # (device, inode) of the file read
        self._offset = 0
        self._cached: tuple[str, ...] = ()

    def read(self) -> tuple[str, ...]:
        try:
            st = os.stat(self.path)
        except OSError:
            self._reset(None)
            return ()
        identity = (st.st_dev, st.st_ino)
        if identity == self._identity and st.st_size == self._offset:
            return self._cached
        if identity != self._identity or st.st_size < self._offset:
            self._reset(identity)  # rotated, recreated or truncated
        start = self._offset
        skip_first = False
        if st.st_size - start > LOG_TAIL_BYTES:
            start = st.st_size - LOG_TAIL_BYTES  # far behind: only the end matters, and it starts mid-line
            self._lines.clear()
            self._partial = b""
            skip_first = start > 0
        try:
            with open(self.path, "rb") as f:
                f.seek(start)
                data = f.read(st.st_size - start)
        except OSError:
            return self._cached
        self._offset = start + len(data)
        pieces = (self._partial + data).split(b"\n")
        self._partial = pieces.pop()[: 4 * LOG_LINE_MAX]  # only its start is shown: never hold a runaway line
        if skip_first and pieces:
            pieces = pieces[1:]
        self._lines.extend(_cap(p.decode("utf-8", errors="replace")) for p in pieces)
        tail = list(self._lines)
        if self._partial:
            tail = [*tail, _cap(self._partial.decode("utf-8", errors="replace"))][-(self._lines.maxlen or 1) :]
        self._cached = tuple(tail)
        return self._cached

    def _reset(self, identity: tuple[int, int] | None) -> None:
        self._identity = identity
        self._offset = 0
        self._partial = b""
        self._lines.clear()
        self._cached = ()


# --- a lab cluster that this kafkatop supervises -------------------------------------------------------------------
class LabControl:
    """A lab cluster: nodes from the supervisor's state, CPU and memory of their JVMs, and their log tails.
    `read_only_reason`: why nothing may be done here (a read-only context), said by every action, which does nothing;
    `not_running`: said of each node that does not run (in read-only, who may start it)."""

    def __init__(
        self, cluster: LabCluster, *, read_only_reason: str | None = None, not_running: str | None = None
    ) -> None:
        self.cluster = cluster
        self._read_only_reason, self._not_running = read_only_reason, not_running
        self._pids: frozenset[int] = frozenset()
        self._configs: frozenset[str] = frozenset()
        # One long-lived source: CPU % is measured between its consecutive readings of the same process.
        self._source = ProcessSource(selector=self._selected)
        self._tails: dict[str, LogTail] = {}
        self._last: NodesSnapshot | None = None
        self._lock = threading.Lock()

    def _selected(self, process: KafkaProcess) -> bool:
        # By pid, or by the generated config should a wrapper script run the JVM as its child.
        return process.pid in self._pids or process.properties_file in self._configs

    @property
    def bootstrap_servers(self) -> str:
        return ",".join(f"{HOST}:{n.port}" for n in self.cluster.nodes if n.is_broker)

    def _lab_snapshot(self) -> LabSnapshot | None:
        """The supervisor's view; None when it is busy: it holds its lock while it formats a new KRaft node's storage
        (a JVM, seconds), and the poll must stay short."""
        lock = self.cluster.lock
        if not lock.acquire(timeout=LOCK_WAIT_S):
            if self._last is not None:
                return None
            lock.acquire()  # nothing shown yet: wait for a first view
        try:
            return self.cluster.refresh()
        finally:
            lock.release()

    def poll(self) -> NodesSnapshot:
        with self._lock:
            now = time.time()
            snap = self._lab_snapshot()
            if snap is None and self._last is not None:
                return replace(self._last, taken_at=now)
            assert snap is not None
            running = [n for n in snap.nodes if n.pid is not None]
            self._pids = frozenset(n.pid for n in running if n.pid is not None)
            self._configs = frozenset(str(n.config_path) for n in running)
            processes = self._source.poll().processes if running else ()
            by_pid = {p.pid: p for p in processes}
            by_config = {p.properties_file: p for p in processes}
            views = []
            for status in snap.nodes:
                proc = None
                if status.pid is not None:
                    proc = by_pid.get(status.pid) or by_config.get(str(status.config_path))
                views.append(self._view(status, proc, now))
            mode = "KRaft" if snap.mode == "kraft" else "ZooKeeper"
            self._last = NodesSnapshot(
                taken_at=now,
                kind="lab",
                title=f"lab {snap.name!r} · {mode} · Kafka {snap.kafka_version}",
                nodes=tuple(views),
                can_add_broker=True,
            )
            return self._last

    def _view(self, status: NodeStatus, proc: KafkaProcess | None, now: float) -> NodeView:
        tail = self._tails.get(status.name)
        if tail is None or tail.path != status.log_path:
            tail = self._tails[status.name] = LogTail(status.log_path)
        lines = tail.read()
        uptime = proc.uptime_s if proc is not None else None
        if uptime is None and status.started_at is not None:
            uptime = max(0.0, now - status.started_at)
        return NodeView(
            name=status.name,
            role=status.node.role,
            node_id=status.node.node_id,
            state=status.state,
            pid=status.pid,
            ports=status.node.ports,
            cpu_percent=proc.cpu_percent if proc is not None else None,
            rss_bytes=proc.rss_bytes if proc is not None else None,
            uptime_s=uptime,
            detail=self._detail(status, lines),
            log_tail=lines,
            actions=actions_for(status.state),
        )

    def _detail(self, status: NodeStatus, lines: tuple[str, ...]) -> str | None:
        found = status.detail or storage_problem(lines)
        if status.pid is not None or self._not_running is None:
            return found
        return f"{found}; {self._not_running}" if found else self._not_running

    def _refuse(self, what: str) -> None:
        if self._read_only_reason is not None:
            raise ControlError(f"{self._read_only_reason}: {what} writes to the cluster; nothing was done")

    def _check(self, name: str, action: str) -> str:
        self._refuse(f"{action} {name}")
        node = self.cluster.node(name)  # a SupervisorError names the cluster's nodes
        state = self.cluster.refresh().node(node.name).state
        if action not in actions_for(state):
            raise ControlError(f"cannot {action} {node.name} now: it is {state.value}")
        return node.name

    def kill(self, name: str) -> None:
        self.cluster.kill(self._check(name, "kill"))

    def stop(self, name: str) -> None:
        self.cluster.stop(self._check(name, "stop"))

    def start(self, name: str) -> None:
        self.cluster.start(self._check(name, "start"))

    def restart(self, name: str) -> None:
        self.cluster.restart(self._check(name, "restart"))

    def add_broker(self) -> str:
        self._refuse("adding a broker")
        return self.cluster.add_broker().name

    def add_connect(self) -> str:
        """One more Kafka Connect worker (LabCluster.add_connect); its name."""
        self._refuse("adding a Kafka Connect worker")
        return self.cluster.add_connect().name

    def close(self) -> None:
        """Stops the nodes this kafkatop started, unless the cluster was released (`--detach`)."""
        self.cluster.close()
