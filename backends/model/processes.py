"""The JVMs of a cluster on this host, as the process panes show them (standard library only)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from kafkatop.backends.model.cluster import Problem


class ProcessRole(StrEnum):
    ZOOKEEPER = "zookeeper"
    BROKER = "broker"
    CONTROLLER = "controller"
    COMBINED = "broker+controller"  # KRaft `process.roles=broker,controller`
    CONNECT = "connect"  # a Kafka Connect worker (connect-distributed), a lab component beside the brokers


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
