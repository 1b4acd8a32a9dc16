"""The nodes of a cluster — the JVMs found on this host (KafkaProcess, ProcessSnapshot) and the nodes as the node panes
show them — and what may be done to each: one model for a lab cluster kafkatop supervises, the local JVMs of a cluster
someone else started, and the demo's mock brokers.

The adapters (backends/lab/control.py, backends/lab/attached.py, backends/demo/node_control.py) produce
`NodesSnapshot`s; every impossible action raises a ControlError that says why and what to do instead. Standard
library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from kafkatop.backends.model.cluster import Problem
from kafkatop.backends.model.errors import KafkatopError

NodeAction = Literal["kill", "stop", "start", "restart"]
ACTIONS = ("kill", "stop", "start", "restart")
NodesKind = Literal["lab", "attach", "demo"]


# --- the JVMs of a cluster on this host, as the process panes show them ------------------------------------------
class ProcessRole(StrEnum):
    ZOOKEEPER = "zookeeper"
    BROKER = "broker"
    CONTROLLER = "controller"
    COMBINED = "broker+controller"  # KRaft `process.roles=broker,controller`
    CONNECT = "connect"  # a Kafka Connect worker (connect-distributed), a lab component beside the brokers
    ISSUER = "oidc-issuer"  # an OAuth lab's OIDC issuer (client credentials), whose tokens its brokers take


class ProcessStatus(StrEnum):
    RUNNING = "running"
    SLEEPING = "sleeping"
    STOPPED = "stopped"  # SIGSTOP'd
    ZOMBIE = "zombie"
    GONE = "gone"
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class KafkaProcess:
    """One JVM of a cluster on this host: ZooKeeper, a broker, a KRaft controller or a combined node."""

    pid: int
    role: ProcessRole
    node_id: int | None  # broker.id / node.id; ZooKeeper: myid when known
    status: ProcessStatus
    cpu_percent: float
    rss_bytes: int
    threads: int
    open_fds: int | None
    listening_ports: tuple[int, ...]
    started_at: float  # epoch seconds
    uptime_s: float
    properties_file: str | None
    log_dirs: tuple[str, ...] = ()
    listeners: tuple[str, ...] = ()
    client_port: int | None = None  # ZooKeeper clientPort, or the first plaintext-ish listener port of a broker
    problem: str | None = None  # e.g. the properties file could not be read

    @property
    def label(self) -> str:
        if self.role is ProcessRole.ZOOKEEPER:
            return "zookeeper"
        return f"{self.role.value} {self.node_id if self.node_id is not None else '?'}"


@dataclass(frozen=True, slots=True)
class ProcessSnapshot:
    taken_at: float
    processes: tuple[KafkaProcess, ...]
    problems: tuple[Problem, ...] = ()

    def by_pid(self, pid: int) -> KafkaProcess | None:
        return next((p for p in self.processes if p.pid == pid), None)


class ControlError(KafkatopError):
    """An action on a node of a cluster that cannot be done; the message says why."""


class NodeState(StrEnum):
    STARTING = "starting"
    UP = "up"
    STOPPING = "stopping"
    DOWN = "down"  # stopped cleanly, or never started
    KILLED = "killed"  # SIGKILL from kafkatop: the labs' kill -9
    FAILED = "failed"  # exited by itself


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
