"""One small interface over the processes of a cluster, whoever runs them: the TUI's node panes and their keys.

Three kinds of cluster sit behind `ClusterControl`: a lab cluster that this kafkatop supervises (`LabControl`), the
local JVMs of a cluster someone else started (`AttachedControl`), and the demo's mock brokers (`DemoControl` in
backends/demo.py). A TUI worker thread calls `poll()` about once a second and the actions on a key press; every
impossible action raises a KafkatopError that says why and what to do instead.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal, Protocol

from kafkatop.backends.errors import KafkatopError, PropertiesError
from kafkatop.backends.lab_spec import HOST
from kafkatop.backends.local_nodes import signal_local
from kafkatop.backends.model import ClusterSnapshot, KafkaProcess, ProcessRole, ProcessStatus
from kafkatop.backends.processes import ProcessSource
from kafkatop.backends.properties import read_properties, split_list
from kafkatop.backends.supervisor import STOP_TIMEOUT_S, LabCluster, LabSnapshot, NodeState, NodeStatus

LOG_TAIL_LINES = 40
LOG_LINE_MAX = 300
LOG_TAIL_BYTES = 64 * 1024  # what a first read (or a jump past this much new output) reads of a log
LOCK_WAIT_S = 0.25
ACTIONS = ("kill", "stop", "start", "restart")
NOT_OURS = "not started by kafkatop"


class ControlError(KafkatopError):
    """An action on a node of a cluster that cannot be done; the message says why."""


@dataclass(frozen=True, slots=True)
class NodeView:
    """One process of a cluster as a node pane shows it."""

    name: str  # "broker-1", "zookeeper", "controller-101"; attached: "broker 1", "zookeeper (pid 123)"
    role: ProcessRole
    node_id: int | None
    state: NodeState
    pid: int | None
    ports: tuple[int, ...]
    cpu_percent: float | None
    rss_bytes: int | None
    uptime_s: float | None
    detail: str | None  # e.g. "exited with code 1", "mock broker inside kafkatop (DEMO)"
    log_tail: tuple[str, ...] = ()  # at most LOG_TAIL_LINES, newest last, each at most LOG_LINE_MAX characters
    actions: frozenset[str] = frozenset()  # which of ACTIONS make sense in this state


@dataclass(frozen=True, slots=True)
class NodesSnapshot:
    taken_at: float
    kind: Literal["lab", "attach", "demo"]
    title: str  # "lab 'lab' · KRaft · Kafka 4.1.0", "attached · 3 local processes", "DEMO · librdkafka mock, 3 brokers"
    nodes: tuple[NodeView, ...]
    can_add_broker: bool

    def node(self, name: str) -> NodeView | None:
        return next((n for n in self.nodes if n.name == name), None)


class ClusterControl(Protocol):
    """What the TUI's node panes need of a cluster. poll() is bounded (well under a second); actions may block
    (a controlled stop waits for the exit, a start until the node serves), so both run in worker threads."""

    @property
    def bootstrap_servers(self) -> str: ...

    def poll(self) -> NodesSnapshot: ...

    def kill(self, name: str) -> None: ...

    def stop(self, name: str) -> None: ...

    def start(self, name: str) -> None: ...

    def restart(self, name: str) -> None: ...

    def add_broker(self) -> str: ...

    def close(self) -> None: ...


def actions_for(state: NodeState) -> frozenset[str]:
    """The actions that make sense for a node this kafkatop can start and stop. Restart of a node that is down is
    a start; a node stopping can only be killed."""
    if state in (NodeState.UP, NodeState.STARTING):
        return frozenset({"kill", "stop", "restart"})
    if state is NodeState.STOPPING:
        return frozenset({"kill"})
    return frozenset({"start", "restart"})


def check_action(action: str, view: NodeView) -> None:
    """A ControlError unless `action` makes sense for the node now."""
    if action not in view.actions:
        raise ControlError(f"cannot {action} {view.name} now: it is {view.state.value}")


# What Kafka logs when a log dir fails (a full disk, above all), and what it means for the cluster.
_STORAGE_FAILURES = (
    ("all log dirs", "all its log dirs failed: the broker shut itself down; free disk space, then start it"),
    ("No space left on device", "its log dir is full (No space left on device): Kafka takes the dir offline and its "
     "replicas there go offline; free space or add a log dir, then restart the broker"),
    ("KafkaStorageException", "a log dir failed (KafkaStorageException): the replicas in it are offline on this "
     "broker until it restarts with the dir healthy"),
)  # fmt: skip


def storage_problem(log_tail: tuple[str, ...]) -> str | None:
    """A failed or full log dir, from the node's own log lines; None when its log says nothing of the kind."""
    for needle, meaning in _STORAGE_FAILURES:
        if any(needle in line for line in log_tail):
            return meaning
    return None


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
    """A lab cluster: nodes from the supervisor's state, CPU and memory of their JVMs, and their log tails."""

    def __init__(self, cluster: LabCluster) -> None:
        self.cluster = cluster
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
        lock = self.cluster._lock
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
            detail=status.detail or storage_problem(lines := tail.read()),
            log_tail=lines,
            actions=actions_for(status.state),
        )

    def _check(self, name: str, action: str) -> str:
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
        return self.cluster.add_broker().name

    def close(self) -> None:
        """Stops the nodes this kafkatop started, unless the cluster was released (`--detach`)."""
        self.cluster.close()


# --- a cluster started by someone else: its JVMs on this host --------------------------------------------------------
_ROLE_ORDER = {ProcessRole.ZOOKEEPER: 0, ProcessRole.CONTROLLER: 1, ProcessRole.COMBINED: 2, ProcessRole.BROKER: 3}
_BROKER_ROLES = (ProcessRole.BROKER, ProcessRole.COMBINED)


@dataclass
class _Seen:
    """A local JVM of the cluster, running or gone since; `fate` is what kafkatop did to it, if anything."""

    process: KafkaProcess
    alive: bool = True
    fate: NodeState | None = None  # KILLED or DOWN once kafkatop signalled it
    name: str = ""
    stopping: bool = False


def _start_hint(process: KafkaProcess) -> str:
    script = "zookeeper-server-start.sh" if process.role is ProcessRole.ZOOKEEPER else "kafka-server-start.sh"
    if process.properties_file:
        return f"bin/{script} {process.properties_file}"
    return f"bin/{script} with its properties file"


def _ports_in(value: str | None) -> set[int]:
    """The ports of `host:port,host:port/chroot` (zookeeper.connect) or `id@host:port,…` (controller.quorum.voters)."""
    ports = set()
    for item in split_list(value):
        port = item.split("@", 1)[-1].split("/", 1)[0].rpartition(":")[2]
        if port.isdigit():
            ports.add(int(port))
    return ports


class AttachedControl:
    """The Kafka and ZooKeeper JVMs on this host of a cluster kafkatop did not start.

    Without `cluster`, every such JVM this user can see is shown. With it, only the brokers listening on a port of
    the cluster's brokers (the last ports it answered with are kept while it is down), plus the ZooKeeper and
    controllers their properties point to. Nodes can be killed and stopped by signal; starting is left to whoever
    started them, as kafkatop does not know how they were started (environment, user, working directory).
    """

    def __init__(
        self,
        bootstrap_servers: str,
        cluster: Callable[[], ClusterSnapshot | None] | None = None,
        *,
        stop_timeout_s: float = STOP_TIMEOUT_S,
    ) -> None:
        self._bootstrap_servers = bootstrap_servers
        self._cluster = cluster
        self.stop_timeout_s = stop_timeout_s
        self._source = ProcessSource()  # long-lived, for CPU %
        self._broker_ports: frozenset[int] = frozenset()
        self._linked_ports: dict[str, set[int]] = {}  # per broker properties file: its ZooKeeper/controller ports
        self._seen: dict[tuple[object, ...], _Seen] = {}
        self._lock = threading.Lock()

    @property
    def bootstrap_servers(self) -> str:
        return self._bootstrap_servers

    # --- discovery ---------------------------------------------------------------------------------------------
    def _cluster_ports(self) -> frozenset[int]:
        if self._cluster is not None:
            try:
                snap = self._cluster()
            except KafkatopError:
                snap = None  # unreachable now: the last ports known are used
            ports = frozenset(b.port for b in snap.brokers if b.port is not None) if snap is not None else frozenset()
            if ports:
                self._broker_ports = ports
        return self._broker_ports

    def _links(self, broker: KafkaProcess) -> set[int]:
        """The ports of the ZooKeeper ensemble or KRaft quorum a broker's properties name."""
        path = broker.properties_file
        if path is None:
            return set()
        if path not in self._linked_ports:
            try:
                props = read_properties(path)
            except PropertiesError:
                props = {}
            self._linked_ports[path] = (
                _ports_in(props.get("zookeeper.connect"))
                | _ports_in(props.get("controller.quorum.voters"))
                | _ports_in(props.get("controller.quorum.bootstrap.servers"))
            )
        return self._linked_ports[path]

    def _of_cluster(self, processes: tuple[KafkaProcess, ...]) -> list[KafkaProcess]:
        ports = self._cluster_ports()
        if not ports:
            return list(processes)

        def listens(p: KafkaProcess, wanted: set[int] | frozenset[int]) -> bool:
            return bool((set(p.listening_ports) | {p.client_port}) & wanted)

        brokers = [p for p in processes if p.role in _BROKER_ROLES and listens(p, ports)]
        linked: set[int] = set()
        for b in brokers:
            linked |= self._links(b)
        others = [p for p in processes if p not in brokers and linked and listens(p, linked)]
        return brokers + others

    @staticmethod
    def _key(p: KafkaProcess) -> tuple[object, ...]:
        # The same node across a restart by hand: same role, id and properties file (a new pid).
        return (p.role, p.node_id, p.properties_file) if p.properties_file else (p.role, p.node_id, p.pid)

    def poll(self) -> NodesSnapshot:
        with self._lock:
            found = self._of_cluster(self._source.poll().processes)
            live = {self._key(p): p for p in found}
            for key, p in live.items():
                seen = self._seen.get(key)
                if seen is None or not seen.alive or seen.process.pid != p.pid:
                    self._seen[key] = _Seen(p)
                else:
                    seen.process = p
            for key, seen in self._seen.items():
                if key not in live:
                    seen.alive = False
            self._name_nodes()
            ordered = sorted(
                self._seen.values(),
                key=lambda s: (_ROLE_ORDER.get(s.process.role, 9), s.process.node_id or 0, s.process.pid),
            )
            count = len(live)
            return NodesSnapshot(
                taken_at=time.time(),
                kind="attach",
                title=f"attached · {count} local process{'' if count == 1 else 'es'}",
                nodes=tuple(self._view(s) for s in ordered),
                can_add_broker=False,
            )

    def _name_nodes(self) -> None:
        base: dict[int, str] = {}
        for seen in self._seen.values():
            p = seen.process
            label = p.label
            if p.role is ProcessRole.ZOOKEEPER or p.node_id is None:
                label = f"{label.removesuffix(' ?')} (pid {p.pid})"
            base[id(seen)] = label
        counts: dict[str, int] = {}
        for label in base.values():
            counts[label] = counts.get(label, 0) + 1
        for seen in self._seen.values():
            label = base[id(seen)]
            # Two clusters on one host, unfiltered: two "broker 1"s, told apart by pid.
            seen.name = label if counts[label] == 1 or "(pid" in label else f"{label} (pid {seen.process.pid})"

    def _view(self, seen: _Seen) -> NodeView:
        p = seen.process
        if not seen.alive:
            if seen.fate is NodeState.KILLED:
                what = f"killed by kafkatop (was pid {p.pid})"
            elif seen.fate is NodeState.DOWN:
                what = f"stopped by kafkatop (was pid {p.pid})"
            else:
                what = f"exited, or stopped outside kafkatop (was pid {p.pid})"
            return NodeView(
                name=seen.name,
                role=p.role,
                node_id=p.node_id,
                state=seen.fate or NodeState.DOWN,
                pid=None,
                ports=(),
                cpu_percent=None,
                rss_bytes=None,
                uptime_s=None,
                detail=f"{what}; {NOT_OURS}: start it as it was started ({_start_hint(p)})",
            )
        state = NodeState.UP
        if seen.stopping:
            state = NodeState.STOPPING
        elif p.client_port is not None and p.client_port not in p.listening_ports and p.problem is None:
            state = NodeState.STARTING  # running, not yet listening on its client port
        notes = [NOT_OURS]
        if p.status is ProcessStatus.STOPPED:
            notes.append("paused (SIGSTOP): kill -CONT it to resume")
        if p.problem:
            notes.append(p.problem)
        return NodeView(
            name=seen.name,
            role=p.role,
            node_id=p.node_id,
            state=state,
            pid=p.pid,
            ports=p.listening_ports,
            cpu_percent=p.cpu_percent,
            rss_bytes=p.rss_bytes,
            uptime_s=p.uptime_s,
            detail="; ".join(notes),
            actions=frozenset({"kill"}) if seen.stopping else frozenset({"kill", "stop"}),
        )

    # --- actions -------------------------------------------------------------------------------------------------
    def _find(self, name: str) -> _Seen:
        with self._lock:
            found = next((s for s in self._seen.values() if s.name == name), None)
            if found is None:
                names = ", ".join(s.name for s in self._seen.values()) or "none seen yet"
                raise ControlError(f"no node {name!r} among the local processes of this cluster: {names}")
            return found

    def _signal(self, name: str, kill: bool) -> None:
        seen = self._find(name)
        if not seen.alive:
            raise ControlError(
                f"{name} is not running; {NOT_OURS}: start it as it was started ({_start_hint(seen.process)})"
            )
        if seen.stopping and not kill:
            raise ControlError(f"{name} is stopping already; kill it if it hangs")
        seen.stopping = seen.stopping or not kill
        try:
            timeout = 10.0 if kill else self.stop_timeout_s
            if not signal_local(seen.process, kill=kill, timeout_s=timeout):
                if kill:
                    raise ControlError(f"{name} (pid {seen.process.pid}) did not exit within {timeout:g} s of SIGKILL")
                raise ControlError(
                    f"{name} (pid {seen.process.pid}) did not exit within {timeout:g} s of SIGTERM: its controlled "
                    "shutdown may wait for a controller or ZooKeeper that is gone; kill it (kill -9) instead"
                )
            with self._lock:
                seen.alive = False
                seen.fate = NodeState.KILLED if kill else NodeState.DOWN
        finally:
            seen.stopping = False

    def kill(self, name: str) -> None:
        """SIGKILL: no controlled shutdown, as `kill -9` in the labs."""
        self._signal(name, kill=True)

    def stop(self, name: str) -> None:
        """SIGTERM: the node's controlled shutdown (leaders move away first); waits for its exit."""
        self._signal(name, kill=False)

    def start(self, name: str) -> None:
        seen = self._find(name)
        running = f" and runs now (pid {seen.process.pid})" if seen.alive else ""
        raise ControlError(f"{name} was {NOT_OURS}{running}: start it as it was started ({_start_hint(seen.process)})")

    def restart(self, name: str) -> None:
        seen = self._find(name)  # never stopped first: kafkatop could not start it again
        raise ControlError(
            f"{name} was {NOT_OURS}, so kafkatop cannot restart it: stop it, then start it as it was started "
            f"({_start_hint(seen.process)})"
        )

    def add_broker(self) -> str:
        raise ControlError(
            f"this cluster was {NOT_OURS}, so it cannot add a broker: start one as the others were started "
            "(bin/kafka-server-start.sh with a copy of a broker's properties: a new broker.id/node.id, port and "
            "log.dirs), or run a lab cluster (kafkatop up)"
        )

    def close(self) -> None:
        """Nothing to stop: these processes are not kafkatop's."""
