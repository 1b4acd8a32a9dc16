"""Kafka Connect as its REST API describes it: the workers asked, each connector with its tasks and the worker each
runs on, the plugins a worker has, a config's validation per field, and a connector's offsets (KIP-875).
Standard library only; the adapter is backends/connect/.

A snapshot keeps the REST API's own answer beside the parsed view (`Connector.raw`) so that `kafkatop connect
list --json` can print exactly what the workers said — but for the secrets of a connector's config, which neither
holds: the adapter hides them (HIDDEN) as it reads the answer (backends/connect/masking.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from kafkatop.backends.model.errors import BadInput, KafkatopError

# Connect's state names (org.apache.kafka.connect.runtime.AbstractStatus.State, and TargetState STOPPED).
ConnectState = Literal["RUNNING", "PAUSED", "STOPPED", "FAILED", "UNASSIGNED", "RESTARTING", "DESTROYED"]
CONNECT_STATES = ("RUNNING", "PAUSED", "STOPPED", "FAILED", "UNASSIGNED", "RESTARTING", "DESTROYED")
ConnectorType = Literal["source", "sink", "unknown"]


class ConnectError(KafkatopError):
    """A Connect worker could not be reached, or answered with an error it explained: exit 1."""


class ConnectRefused(BadInput):
    """A request Connect refused as bad input (400, 404, 409: an unknown connector, a config it rejects, a connector
    that must be stopped first): exit 2. The message is the worker's own."""


def worker_host_port(worker_id: str) -> tuple[str, int] | None:
    """A worker id (`127.0.0.1:8083`, Connect's advertised host:port) as host and port; None when it is not one."""
    host, sep, port = worker_id.rpartition(":")
    return (host, int(port)) if sep and host and port.isdigit() else None


@dataclass(frozen=True, slots=True)
class ConnectTask:
    connector: str
    task: int
    state: str  # one of CONNECT_STATES, as the worker said it
    worker_id: str  # "127.0.0.1:8083": the worker running it ("" when unassigned)
    trace: str | None = None  # a FAILED task's Java stack trace


@dataclass(frozen=True, slots=True)
class Connector:
    """One connector, from `GET /connectors?expand=status&expand=info`."""

    name: str
    type: ConnectorType
    class_name: str  # connector.class as configured (may be a short alias: "FileStreamSource")
    state: str
    worker_id: str  # the worker running the connector itself (its tasks may run elsewhere)
    tasks: tuple[ConnectTask, ...]
    config: tuple[tuple[str, str], ...]  # each secret's value HIDDEN ("[hidden]")
    trace: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)  # the REST answer, secrets hidden
    # A FileStreamSource's `file` that does not exist on this host, its workers being local (a lab's): its task
    # logs a warning and tries again until the file appears, RUNNING all along (backends/connect/local_files.py).
    waiting_for: str | None = None

    @property
    def waiting(self) -> str | None:
        """What it waits for, in words (the path as it is: shown as text, its control characters escaped)."""
        return None if self.waiting_for is None else f"waiting for {self.waiting_for}: it does not exist yet"

    @property
    def running(self) -> int:
        return sum(1 for t in self.tasks if t.state == "RUNNING")

    @property
    def failed(self) -> int:
        return sum(1 for t in self.tasks if t.state == "FAILED")

    @property
    def topics(self) -> tuple[str, ...]:
        """The topics its config names (a sink's `topics`, a source's `topic`; a `topics.regex` as itself)."""
        conf = dict(self.config)
        names = conf.get("topics") or conf.get("topic") or conf.get("topics.regex") or ""
        return tuple(t.strip() for t in names.split(",") if t.strip())


@dataclass(frozen=True, slots=True)
class ConnectWorker:
    """One worker URL asked: what `GET /` said, or why it did not answer."""

    url: str
    version: str | None = None
    commit: str | None = None
    kafka_cluster_id: str | None = None
    problem: str | None = None  # "127.0.0.1:8083 did not answer (connection refused)"

    @property
    def reachable(self) -> bool:
        return self.problem is None


@dataclass(frozen=True, slots=True)
class ConnectSnapshot:
    taken_at: float
    workers: tuple[ConnectWorker, ...]
    connectors: tuple[Connector, ...]  # sorted by name
    problem: str | None = None  # no worker answered: why

    def connector(self, name: str) -> Connector | None:
        return next((c for c in self.connectors if c.name == name), None)

    def foreign(self, cluster_id: str | None) -> tuple[ConnectWorker, ...]:
        """The workers that answer as Kafka Connect of another Kafka cluster than `cluster_id` (a stranger's Connect
        on a lab's ports): never acted on; none when the cluster's id is not known."""
        return tuple(w for w in self.workers if cluster_id and w.kafka_cluster_id and w.kafka_cluster_id != cluster_id)

    def tasks_on(self, worker_id: str) -> int:
        """How many tasks run on the worker `host:port`."""
        return sum(1 for c in self.connectors for t in c.tasks if t.worker_id == worker_id and t.state == "RUNNING")


@dataclass(frozen=True, slots=True)
class ConnectorPlugin:
    class_name: str
    type: str  # "source", "sink", "converter", "transformation", "predicate", …
    version: str


@dataclass(frozen=True, slots=True)
class FieldProblem:
    """One config key the worker's validation refused, with its own words."""

    name: str
    errors: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Validation:
    """`PUT /connector-plugins/{class}/config/validate`: how many errors, and each field's."""

    class_name: str
    error_count: int
    problems: tuple[FieldProblem, ...]
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class ConnectorOffset:
    """One entry of `GET /connectors/{name}/offsets`: a source's partition and offset maps (any JSON), a sink's
    topic, partition and offset."""

    partition: Mapping[str, Any]
    offset: Mapping[str, Any] | None
