"""The Kafka, ZooKeeper and Kafka Connect JVMs on this host of a cluster kafkatop did not start: shown in the node
panes, and killed or stopped by signal — the labs' `kill -9 $(ps … | grep server-1.properties)`, made precise.
Starting is left to whoever started them: kafkatop does not know how (environment, user, working directory). A
Connect worker is the cluster's when its bootstrap.servers name one of the cluster's brokers on this host."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from kafkatop.backends.lab.identity import NoAnswer, NotThisCluster, check_broker_process, is_local
from kafkatop.backends.lab.local import signal_local
from kafkatop.backends.lab.processes import ProcessSource
from kafkatop.backends.lab.properties import read_properties, split_list
from kafkatop.backends.lab.runner import STOP_TIMEOUT_S
from kafkatop.backends.model.cluster import Broker, ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError, PropertiesError
from kafkatop.backends.model.nodes import (
    ControlError,
    KafkaProcess,
    NodesSnapshot,
    NodeState,
    NodeView,
    ProcessRole,
    ProcessStatus,
)

NOT_OURS = "not started by kafkatop"


# --- a cluster started by someone else: its JVMs on this host --------------------------------------------------------
_ROLE_ORDER = {ProcessRole.ZOOKEEPER: 0, ProcessRole.CONTROLLER: 1, ProcessRole.COMBINED: 2, ProcessRole.BROKER: 3,
               ProcessRole.CONNECT: 4}  # fmt: skip


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
    script = {ProcessRole.ZOOKEEPER: "zookeeper-server-start.sh", ProcessRole.CONNECT: "connect-distributed.sh"}.get(
        process.role, "kafka-server-start.sh"
    )
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

    Only this cluster's: a JVM listening on the port of one of the cluster's brokers whose host is this machine, and
    which answers there with the cluster's id and that broker's id (asked once per process: a pid and its start
    time), plus the ZooKeeper and controllers their properties point to. Never a stranger's JVM, even on the same
    port number: a cluster with no broker on this host shows none, and one that has not answered yet shows none
    yet. Nodes can be killed and stopped by signal; starting is left to whoever started them, as kafkatop does not
    know how they were started (environment, user, working directory).
    """

    def __init__(
        self,
        connection: KafkaConnection,
        cluster: Callable[[], ClusterSnapshot | None] | None = None,
        *,
        stop_timeout_s: float = STOP_TIMEOUT_S,
    ) -> None:
        self.connection = connection
        self._cluster = cluster
        self.stop_timeout_s = stop_timeout_s
        self._source = ProcessSource()  # long-lived, for CPU %
        self._cluster_id: str | None = None
        self._local_brokers: dict[int, Broker] = {}  # port -> the broker on this host that the cluster gives it to
        self._checked: dict[tuple[int, float, int], bool] = {}  # (pid, start time, port) -> the cluster's broker?
        self._linked_ports: dict[str, set[int]] = {}  # per broker properties file: its ZooKeeper/controller ports
        self._bootstrap_ports: dict[str, set[int]] = {}  # per Connect worker properties file: its local brokers' ports
        self._seen: dict[tuple[object, ...], _Seen] = {}
        self._lock = threading.Lock()

    @property
    def bootstrap_servers(self) -> str:
        return self.connection.bootstrap_servers

    # --- discovery ---------------------------------------------------------------------------------------------
    def _refresh_brokers(self) -> None:
        """The cluster's id and its brokers on this host, from the cluster itself; the last known are kept while
        it does not answer (its brokers killed)."""
        if self._cluster is None:
            return
        try:
            snap = self._cluster()
        except KafkatopError:
            snap = None
        if snap is None or not snap.brokers:
            return
        self._cluster_id = snap.cluster_id
        local = {b.port: b for b in snap.brokers if b.port is not None and b.host is not None and is_local(b.host)}
        self._local_brokers = local

    def _is_cluster_broker(self, p: KafkaProcess) -> bool:
        for port in set(p.listening_ports) | ({p.client_port} if p.client_port is not None else set()):
            broker = self._local_brokers.get(port)
            if broker is None:
                continue
            key = (p.pid, p.started_at, port)
            if key not in self._checked:
                try:
                    check_broker_process(p, broker, self._cluster_id, self.connection.client_settings)
                    self._checked[key] = True
                except NoAnswer:
                    continue  # not listening yet: asked again at the next poll
                except NotThisCluster:
                    self._checked[key] = False
            if self._checked[key]:
                return True
        return False

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

    def _bootstraps_here(self, worker: KafkaProcess) -> bool:
        """A Connect worker of this cluster: its bootstrap.servers name a broker of the cluster on this host."""
        path = worker.properties_file
        if path is None:
            return False
        if path not in self._bootstrap_ports:
            try:
                servers = split_list(read_properties(path).get("bootstrap.servers"))
            except PropertiesError:
                servers = ()
            self._bootstrap_ports[path] = {
                int(port) for host, _, port in (s.rpartition(":") for s in servers) if port.isdigit() and is_local(host)
            }
        return bool(self._bootstrap_ports[path] & set(self._local_brokers))

    def _of_cluster(self, processes: tuple[KafkaProcess, ...]) -> list[KafkaProcess]:
        self._refresh_brokers()
        if not self._local_brokers:
            return []  # no broker of this cluster on this host (or none known yet): nothing here is its

        def listens(p: KafkaProcess, wanted: set[int]) -> bool:
            return bool((set(p.listening_ports) | {p.client_port}) & wanted)

        brokers = [p for p in processes if p.role in _BROKER_ROLES and self._is_cluster_broker(p)]
        linked: set[int] = set()
        for b in brokers:
            linked |= self._links(b)
        others = [p for p in processes if p not in brokers and linked and listens(p, linked)]
        workers = [p for p in processes if p.role is ProcessRole.CONNECT and brokers and self._bootstraps_here(p)]
        return brokers + others + workers

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
