"""The ports: what the app and the commands need of the world, as Protocols over the model's types.

Adapters (backends/kafka, kraft, zookeeper, lab, demo, checks, and kafkatop.spark's client) satisfy them
structurally; the composition root (tui/cli/compose.py) builds adapters and hands them over as these. Code that
depends on a port can be given a recording, a replay or a test double instead. No library type appears here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from kafkatop.backends.model.acls import AclBinding, AclBindingFilter, AclsSnapshot
from kafkatop.backends.model.audit import AuditEntry
from kafkatop.backends.model.cluster import Broker, ClusterSnapshot
from kafkatop.backends.model.configs import ConfigResource, ResourceConfigs
from kafkatop.backends.model.connect import (
    ConnectorOffset,
    ConnectorPlugin,
    ConnectSnapshot,
    Validation,
)
from kafkatop.backends.model.consoles import ConsoleActivity, ProducerSettings
from kafkatop.backends.model.disks import BrokerDisks
from kafkatop.backends.model.elections import ElectionResults, ElectionType
from kafkatop.backends.model.formats import (
    Decoded,
    RecordField,
    RegisteredSchema,
    SchemasSnapshot,
    SchemaType,
    TopicFormat,
)
from kafkatop.backends.model.messages import Isolation, Page, SearchProgress, SearchRequest, Seek
from kafkatop.backends.model.nodes import NodesSnapshot
from kafkatop.backends.model.quorum import QuorumSnapshot
from kafkatop.backends.model.reassignment import Ongoing, ReassignmentPlan, TopicPartitionKey
from kafkatop.backends.model.recording import Payload, RecordKind
from kafkatop.backends.model.resets import ResetPlan, ResetTarget
from kafkatop.backends.model.spark import JobProgress, SparkStatus, TopicCounts
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.model.transactions import OpenTransactions
from kafkatop.backends.model.zookeeper import EnsembleSnapshot, ZkEvent

EnsembleView = EnsembleSnapshot | QuorumSnapshot  # ZooKeeper's servers, or the KRaft quorum


class ClusterSource(Protocol):
    """Brokers, topics, partitions and groups, one snapshot per poll. poll() is bounded by its own timeout and raises
    SourceUnavailable when not even metadata could be read."""

    def poll(self) -> ClusterSnapshot: ...

    def close(self) -> None: ...


class NodeControl(Protocol):
    """The processes of a cluster, whoever runs them (a lab, local JVMs of an attached cluster, the demo's mock
    brokers). poll() is bounded (well under a second); the actions may block (a controlled stop waits for the exit, a
    start until the node serves), so both run in worker threads. An impossible action raises ControlError."""

    @property
    def bootstrap_servers(self) -> str: ...

    def poll(self) -> NodesSnapshot: ...

    def kill(self, name: str) -> None: ...

    def stop(self, name: str) -> None: ...

    def start(self, name: str) -> None: ...

    def restart(self, name: str) -> None: ...

    def add_broker(self) -> str: ...

    def close(self) -> None: ...


class EnsembleSource(Protocol):
    """ZooKeeper's servers (four-letter words) or the KRaft quorum (DescribeQuorum), one view per poll."""

    def poll(self) -> EnsembleView: ...


class ZooKeeperWatch(Protocol):
    """Kafka's znodes, mirrored and kept current by ZooKeeper's watches: changes are pushed, not polled."""

    def start(self) -> None: ...

    def next_events(self, timeout_s: float) -> list[ZkEvent]:
        """The events since the last call, waiting up to `timeout_s` for the first."""
        ...

    def snapshot(self) -> ClusterSnapshot:
        """The mirror now (no I/O)."""
        ...

    @property
    def connected(self) -> bool: ...

    def close(self) -> None: ...


class TopicAdmin(Protocol):
    """Creating and deleting topics; Kafka's refusal comes back as TopicError."""

    def create_topic(
        self, name: str, partitions: int, replication_factor: int, configs: dict[str, str] | None = None
    ) -> None: ...

    def delete_topic(self, name: str) -> None: ...

    def add_partitions(self, name: str, total: int, *, validate_only: bool = False) -> None:
        """To `total` partitions; validated by Kafka first, so a refusal changes nothing."""
        ...

    def close(self) -> None: ...


class LeaderElections(Protocol):
    """Preferred and unclean leader elections (Kafka's ElectLeaders): Kafka's answer for each partition comes back as
    a result; a refusal of the whole request raises ElectionError."""

    @property
    def note(self) -> str | None:
        """Who elects, when not Kafka's own controller (the demo's): said wherever an election is shown."""
        ...

    def elect(self, election_type: ElectionType, partitions: Sequence[TopicPartition] | None) -> ElectionResults: ...

    def log_ends(
        self, snapshot: ClusterSnapshot, replicas: Mapping[TopicPartition, int]
    ) -> tuple[dict[TopicPartition, int], list[str]]:
        """Each partition's given replica's log end offset (partition -> broker id), and why any was not read."""
        ...

    def close(self) -> None: ...


class Reassignments(Protocol):
    """Partition reassignments (AlterPartitionReassignments, ListPartitionReassignments) and their replication
    throttle; each call bounded by its own timeout. Kafka's refusal is a ReassignmentError."""

    def execute(
        self, plan: ReassignmentPlan, throttle_bytes: int | None = None, *, every: bool = False
    ) -> tuple[str, ...]: ...

    def ongoing(self, topics: Mapping[str, Sequence[int]] | None = None) -> dict[TopicPartitionKey, Ongoing]: ...

    def cancel(self, keys: Sequence[TopicPartitionKey]) -> tuple[str, ...]: ...

    def clear_throttle(self, topics: Sequence[str], brokers: Sequence[int]) -> list[str]: ...

    def close(self) -> None: ...


class GroupTools(Protocol):
    """Deleting consumer groups and a group's committed offsets; Kafka's answer per group or partition is None (done)
    or its error name and message. KafkatopError when Kafka could not be asked."""

    def delete_groups(self, group_ids: Sequence[str]) -> dict[str, str | None]: ...

    def delete_offsets(
        self, group: str, partitions: Mapping[str, Sequence[int]]
    ) -> dict[tuple[str, int], str | None]: ...

    def close(self) -> None: ...


class MessageBrowser(Protocol):
    """Pages of one partition's records and searches over a range, read with assign() and no group. Each call
    blocks (a worker's); a refused request raises BrowseRefused, an unreachable partition ClientError."""

    def page(self, topic: str, partition: int, seek: Seek, isolation: Isolation = ..., size: int = ...) -> Page: ...

    def previous(self, page: Page, size: int = ...) -> Page: ...

    def next(self, page: Page, size: int = ...) -> Page: ...

    def search(
        self, request: SearchRequest, on_progress: Callable[[SearchProgress], None], cancelled: Callable[[], bool]
    ) -> SearchProgress: ...

    def first_timestamps(
        self, starts: dict[tuple[str, int], int], ends: dict[tuple[str, int], int]
    ) -> dict[tuple[str, int], int]: ...

    def close(self) -> None: ...


class ConfigAdmin(Protocol):
    """The configs of a topic, a broker or the broker defaults, read and changed; each call bounded by its own timeout.
    Failures are ConfigError; ConfigRefused when the change was wrong (kafkatop's checks, or Kafka's): nothing
    changed."""

    def describe(
        self, resource: ConfigResource, expect: tuple[Mapping[str, str], Sequence[str]] | None = None
    ) -> ResourceConfigs:
        """Every entry, by name; `expect` (set, deleted): a change just made, waited for until it shows."""
        ...

    def alter(self, resource: ConfigResource, to_set: Mapping[str, str], to_delete: Sequence[str]) -> None:
        """Checked, validated by Kafka (validate_only), then made: all of it, or nothing."""
        ...

    def close(self) -> None: ...


class Consoles(Protocol):
    """The producer and consumer consoles and the offset resets of one cluster; every failure is a ClientError.
    drain() never waits on the network."""

    def configure_producer(self, settings: ProducerSettings) -> None: ...

    def send(self, topic: str, line: str) -> int: ...

    def send_many(self, topic: str, lines: Sequence[str]) -> int: ...

    def send_record(
        self, topic: str, key: bytes | None, value: bytes | None, headers: Sequence[tuple[str, bytes]] = ()
    ) -> int:
        """Queue one record as it goes on the wire (its key and value encoded by the caller: a RecordCodec's
        business), with its headers; its sequence number, which its delivery report carries."""
        ...

    def send_test_messages(self, topic: str, count: int) -> int: ...

    def start_consumer(self, topics: Sequence[str], group: str | None, from_beginning: bool) -> str: ...

    def stop_consumer(self, name: str) -> None: ...

    def pause_consumer(self, name: str, paused: bool) -> None:
        """Stop fetching (paused) or fetch again; the consumer stays in its group and keeps its partitions."""
        ...

    def plan_reset(self, group: str, topics: Sequence[str], to: ResetTarget, value: int | None) -> ResetPlan:
        """What resetting the group's offsets on `topics` would do (kafka-consumer-groups --dry-run): no change."""
        ...

    def execute_reset(self, plan: ResetPlan) -> ResetPlan:
        """Commit exactly the plan's offsets (--execute); refused (ClientError) while the group has members."""
        ...

    def drain(self) -> ConsoleActivity | None: ...

    def close(self) -> None: ...


class SparkCounts(Protocol):
    """Per-partition counts of a topic, computed by Spark in a process of its own. `watch` calls `on_status` at once
    and then on every change of what Spark is doing (from any thread); `warm_up` launches Spark without waiting for
    it. Every other call blocks; failures are SparkServiceError or SparkJobError."""

    def watch(self, on_status: Callable[[SparkStatus], None]) -> None: ...

    def warm_up(self) -> None: ...

    def counts(self, topic: str, on_progress: Callable[[JobProgress], None] | None = None) -> TopicCounts: ...

    def start_stream(
        self, topic: str, on_update: Callable[[TopicCounts], None], on_end: Callable[[str | None], None]
    ) -> str: ...

    def stop(self, request_id: str) -> None: ...

    def close(self) -> None: ...


class Recorder(Protocol):
    """Where the live view writes what its sources delivered and what the user did (`kafkatop --record FILE`).
    Called from worker threads; never raises for a recording it cannot keep."""

    def record(self, at: float, kind: RecordKind, payload: Payload) -> None: ...

    def close(self) -> None: ...


TopicAdminFactory = Callable[[], TopicAdmin]
LeaderElectionsFactory = Callable[[], LeaderElections]


class TransactionReader(Protocol):
    """The transactions not ended yet (the Transactions screen); each call bounded. KafkatopError when the cluster
    cannot say (no ListTransactions: the librdkafka mock, a Kafka before 3.0)."""

    def open_transactions(self, brokers: Sequence[Broker]) -> OpenTransactions: ...


class WriteLog(Protocol):
    """The writes of the view's session, as the audit trail keeps them (backends/audit/): each told as it ends."""

    def watch(self, on_write: Callable[[AuditEntry], None]) -> None:
        """The one watcher (a later call replaces it): called from the worker that wrote."""
        ...


class ConnectCluster(Protocol):
    """A Kafka Connect cluster through its workers' REST API (backends/connect/): the Connect tab's poll and its
    actions. Each call is bounded and tries the next worker when one does not answer; ConnectError names the workers
    that did not, ConnectRefused carries a worker's own refusal (an unknown connector, a config it rejects)."""

    @property
    def urls(self) -> tuple[str, ...]: ...

    def poll(self) -> ConnectSnapshot: ...

    def plugins(self) -> tuple[ConnectorPlugin, ...]: ...

    def validate(self, config: Mapping[str, str]) -> Validation: ...

    def create(self, name: str, config: Mapping[str, str]) -> None: ...

    def pause(self, name: str) -> None: ...

    def resume(self, name: str) -> None: ...

    def stop(self, name: str) -> None: ...

    def restart(self, name: str, *, include_tasks: bool = False, only_failed: bool = False) -> None: ...

    def delete(self, name: str) -> None: ...

    def offsets(self, name: str) -> tuple[ConnectorOffset, ...]: ...

    def reset_offsets(self, name: str) -> str: ...

    def close(self) -> None: ...


class LogDirsSource(Protocol):
    """The brokers' log directories (DescribeLogDirs), one request per live broker, each bounded by its own timeout;
    a broker that could not be read is named in the snapshot's `unread`, the others still shown. KafkatopError when
    not even the brokers could be listed, or the cluster speaks no DescribeLogDirs."""

    def poll(self) -> BrokerDisks: ...

    def close(self) -> None: ...


class AclAdmin(Protocol):
    """The cluster's ACLs (backends/kafka/security/acls.py: DescribeAcls, CreateAcls, DeleteAcls, and the brokers'
    authorizer configs). Each call is bounded; a refusal (no authorizer: SECURITY_DISABLED; not allowed:
    CLUSTER_AUTHORIZATION_FAILED) raises KafkatopError with Kafka's error named and what to do."""

    def poll(self) -> AclsSnapshot: ...

    def describe(self, matching: AclBindingFilter) -> tuple[AclBinding, ...]: ...

    def create(self, bindings: Sequence[AclBinding]) -> None: ...

    def delete(self, filters: Sequence[AclBindingFilter]) -> tuple[AclBinding, ...]:
        """The bindings removed."""
        ...

    def close(self) -> None: ...


class SchemaRegistry(Protocol):
    """A Schema Registry (Confluent's REST API): its subjects for the Schemas tab, a schema for a record, and a
    schema registered from the tab."""

    @property
    def url(self) -> str: ...

    def poll(self) -> SchemasSnapshot: ...

    def schema(self, subject: str, version: int | None = None) -> RegisteredSchema:
        """A version of a subject (None: its latest)."""
        ...

    def schema_by_id(self, schema_id: int) -> RegisteredSchema:
        """The schema a record's id names, with the subject and version that hold it when the registry says."""
        ...

    def register(self, subject: str, schema_type: SchemaType, schema: str) -> int:
        """Register a schema under a subject (refused by the registry when incompatible); its schema id."""
        ...

    def close(self) -> None: ...


class RecordCodec(Protocol):
    """Each topic's key and value formats, and records read and written in them (through a registry when one is
    configured). Decoding never raises: what does not decode is a Decoded saying why, with the bytes shown."""

    def format_of(self, topic: str) -> TopicFormat: ...

    def set_format(self, topic: str, fmt: TopicFormat) -> None:
        """Use (and remember) these formats for the topic; FormatError when a schema named cannot be read."""
        ...

    def decode(self, topic: str, which: RecordField, data: bytes | None) -> Decoded: ...

    def encode(self, topic: str, which: RecordField, text: str) -> bytes:
        """The text (JSON for a structured format) as the topic's bytes; FormatError saying what does not fit."""
        ...

    def close(self) -> None: ...
