"""What a Spark counts job reports, as frozen snapshots that travel as JSON between the Spark service and its clients,
and the errors its client raises (standard library only: imported by the TUI and the CLI, never pyspark)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from kafkatop.backends.model.errors import KafkatopError

ServiceState = Literal["stopped", "starting", "ready", "failed"]  # the service process, as its client sees it
# What Spark is doing, as the Spark panel says it: the process's state, refined by the requests it is serving.
SparkPhase = Literal["not started", "starting", "ready", "counting", "streaming", "failed", "stopped"]
StartStep = Literal["launching", "jvm", "warm-up"]  # the service process; Spark's JVM; the first (warm-up) job


class SparkServiceError(KafkatopError):
    """The Spark service could not start, or died; the message says why and what to do."""


class SparkJobError(KafkatopError):
    """One request failed (topic missing, broker down, Spark failure); the service keeps running."""


@dataclass(frozen=True, slots=True)
class KeyCount:
    key: str  # printable: UTF-8 text, or escaped bytes
    records: int


@dataclass(frozen=True, slots=True)
class PartitionCounts:
    """One Kafka partition as Spark counted it, beside the watermarks read before the job."""

    partition: int
    records: int
    bytes: int  # key + value bytes (record overhead and headers not included)
    first_offset: int | None
    last_offset: int | None
    earliest_timestamp_ms: int | None
    latest_timestamp_ms: int | None
    low_watermark: int
    high_watermark: int
    keyed_records: int = 0
    distinct_keys: int = 0
    top_keys: tuple[KeyCount, ...] = ()

    @property
    def span(self) -> int:
        """Offsets between the watermarks: what the log would hold if every offset were a record."""
        return self.high_watermark - self.low_watermark

    @property
    def gap(self) -> int:
        """Offsets in the span with no record read: 0 when the count matches high − low."""
        return self.span - self.records

    @property
    def holes(self) -> int:
        """Offsets missing between the first and the last record read."""
        if self.first_offset is None or self.last_offset is None:
            return 0
        return self.last_offset - self.first_offset + 1 - self.records


@dataclass(frozen=True, slots=True)
class TopicCounts:
    topic: str
    partitions: tuple[PartitionCounts, ...]
    cleanup_policy: str | None = None  # "delete", "compact", "compact,delete"; None when not readable
    elapsed_s: float = 0.0
    master: str = ""
    streaming: bool = False  # a live update of a streaming query (counts so far, no top keys)
    batch_id: int | None = None

    @property
    def records(self) -> int:
        return sum(p.records for p in self.partitions)

    @property
    def bytes(self) -> int:
        return sum(p.bytes for p in self.partitions)

    @property
    def gap(self) -> int:
        return sum(p.gap for p in self.partitions)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TopicCounts:
        parts = tuple(
            PartitionCounts(
                **{k: v for k, v in p.items() if k != "top_keys"},
                top_keys=tuple(KeyCount(**k) for k in p.get("top_keys", ())),
            )
            for p in data["partitions"]
        )
        return cls(**{k: v for k, v in data.items() if k != "partitions"}, partitions=parts)


def watermark_check(p: PartitionCounts, cleanup_policy: str | None) -> str | None:
    """Why the count differs from high − low watermark, or None when it does not.

    Offsets can exist without a readable record: compaction removes superseded keys, a transaction writes one
    control marker per commit or abort (and a read_committed reader skips aborted records), and deleted records
    move the low watermark only when a whole segment goes.
    """
    if p.gap == 0:
        return None
    if p.gap < 0:
        return f"{-p.gap} more records than offsets: records arrived while counting"
    compacted = cleanup_policy is not None and "compact" in cleanup_policy
    head = 0 if p.first_offset is None else p.first_offset - p.low_watermark
    tail = 0 if p.last_offset is None else p.high_watermark - 1 - p.last_offset
    if p.records == 0:
        if compacted:
            return f"{p.gap} offsets, no records: all compacted away or tombstones cleaned (cleanup.policy=compact)"
        return f"{p.gap} offsets, no records: only transaction markers or aborted records remain"
    if compacted:
        return (
            f"{p.gap} offsets without a record: compaction removed older records of the same keys "
            f"(cleanup.policy={cleanup_policy})"
        )
    if tail > 0:
        return (
            f"{p.gap} offsets without a record, {tail} after the last one: transaction markers likely "
            "(one per committed or aborted transaction; aborted records are skipped too)"
        )
    parts = []
    if p.holes:
        parts.append(f"{p.holes} inside")
    if head:
        parts.append(f"{head} before the first record")
    where = ", ".join(parts)
    return f"{p.gap} offsets without a record ({where}): aborted transactions or deleted records likely"


@dataclass(frozen=True, slots=True)
class JobProgress:
    """Tasks of the running Spark job, from Spark's status tracker: what the progress bar shows."""

    request_id: str
    done: int
    total: int
    running: int = 0
    stage: str = ""  # what the active stage does: "reading Kafka", "aggregating"
    job_id: int | None = None  # Spark's ids of the newest job and of its active stage
    stage_id: int | None = None


@dataclass(frozen=True, slots=True)
class ServiceInfo:
    """The Spark service once its session is up."""

    master: str
    spark_version: str
    default_parallelism: int
    started_s: float  # from process start to session ready
    pid: int
    warm: bool = False  # a first job has run (Python workers and the data source are loaded)
    notes: tuple[str, ...] = field(default=())


@dataclass(frozen=True, slots=True)
class LastCount:
    """The newest finished batch count."""

    at: float  # epoch seconds when its result arrived
    topic: str
    records: int
    elapsed_s: float


@dataclass(frozen=True, slots=True)
class SparkStatus:
    """What Spark is doing now, produced by the Spark service's client from the service's own lifecycle events (the
    process launched, the JVM started, the warm-up job ran, ready, fatal, exit) and the requests it serves. The panel
    renders it and never asks: it is pushed on every change."""

    phase: SparkPhase
    master: str  # the requested master until ready, then the session's own (local[2], spark://host:7077)
    since: float  # epoch seconds when this phase began: a panel shows "starting, 12 s" from it
    reason: str = ""  # not started: when it will start; failed: one line, with what to do
    step: StartStep | None = None  # starting: how far
    spark_version: str = ""
    cores: int = 0
    topic: str = ""  # counting or streaming
    progress: JobProgress | None = None  # counting, once Spark has scheduled a job
    batch_id: int | None = None  # streaming: the newest micro-batch reported
    streams: int = 0  # live counts running (a count can run beside them)
    last_count: LastCount | None = None

    @property
    def busy(self) -> bool:
        """Starting or counting: the elapsed seconds change the line every second."""
        return self.phase in ("starting", "counting")
