"""The driver's side of the kafkatop source: its options, the watermarks, and the offset ranges a read covers.

Runs once per scan (or micro-batch) on the Spark driver; the ranges it plans are read by `source_read` in the tasks.
Like every module of the source, it keeps to confluent-kafka, pyarrow and pyspark (and kafkatop's error base class).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec
from pyspark.sql.datasource import InputPartition

from kafkatop.backends.model import lifetime
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.refusals import security_reason

EARLIEST, LATEST = -2, -1  # the official connector's sentinels in startingOffsets/endingOffsets JSON
DEFAULT_POLL_TIMEOUT_MS = 120_000
METADATA_TIMEOUT_S = 15.0


class KafkaSourceError(KafkatopError):
    """A problem with the options, the topic or the cluster, worded for the user (no library traceback needed)."""


@dataclass(frozen=True, slots=True)
class OffsetRange(InputPartition):
    """Records [start, end) of one Kafka partition: one Spark input partition."""

    topic: str
    partition: int
    start: int
    end: int

    @property
    def size(self) -> int:
        return self.end - self.start


# ---------------------------------------------------------------------------------------------------------------------
# Options


@dataclass(frozen=True, slots=True)
class SourceOptions:
    bootstrap_servers: str
    topics: tuple[str, ...]
    starting: str
    ending: str
    consumer_config: Mapping[str, str]
    max_records_per_partition: int | None
    min_partitions: int | None
    poll_timeout_ms: int
    fail_on_data_loss: bool

    @classmethod
    def parse(cls, options: Mapping[str, str], *, streaming: bool) -> SourceOptions:
        opts = {k.lower(): v for k, v in options.items()}  # Spark hands options over case-insensitively
        bootstrap = opts.get("kafka.bootstrap.servers", "").strip()
        if not bootstrap:
            raise KafkaSourceError('option "kafka.bootstrap.servers" is required, e.g. 127.0.0.1:9092')
        topics = tuple(t.strip() for t in opts.get("subscribe", "").split(",") if t.strip())
        if not topics:
            raise KafkaSourceError('option "subscribe" is required: the topic to read (several separated by commas)')
        if "assign" in opts or "subscribepattern" in opts:
            raise KafkaSourceError('only "subscribe" is supported by the kafkatop source (not assign/subscribePattern)')
        consumer = {k[len("kafka.") :]: v for k, v in options.items() if k.lower().startswith("kafka.")}
        return cls(
            bootstrap_servers=bootstrap,
            topics=topics,
            starting=opts.get("startingoffsets", "latest" if streaming else "earliest").strip(),
            ending=opts.get("endingoffsets", "latest").strip(),
            consumer_config=consumer,
            max_records_per_partition=_positive_int(opts, "maxrecordsperpartition", "maxRecordsPerPartition"),
            min_partitions=_positive_int(opts, "minpartitions", "minPartitions"),
            poll_timeout_ms=_positive_int(opts, "kafkaconsumer.polltimeoutms", "kafkaConsumer.pollTimeoutMs")
            or DEFAULT_POLL_TIMEOUT_MS,
            fail_on_data_loss=_boolean(opts, "failondataloss", "failOnDataLoss", default=True),
        )


def _positive_int(opts: Mapping[str, str], key: str, name: str) -> int | None:
    if key not in opts:
        return None
    try:
        value = int(opts[key])
    except ValueError:
        value = 0
    if value < 1:
        raise KafkaSourceError(f"option {name!r} must be a positive whole number, got {opts[key]!r}")
    return value


def _boolean(opts: Mapping[str, str], key: str, name: str, *, default: bool) -> bool:
    text = opts.get(key)
    if text is None:
        return default
    if text.strip().lower() in ("true", "false"):
        return text.strip().lower() == "true"
    raise KafkaSourceError(f"option {name!r} must be true or false, got {text!r}")


def parse_offsets(text: str, topics: Sequence[str], what: str) -> dict[str, dict[int, int]] | int:
    """ "earliest"/"latest" as a sentinel for every partition, or the connector's JSON per topic and partition."""
    if text == "earliest":
        return EARLIEST
    if text == "latest":
        return LATEST
    try:
        raw = json.loads(text)
        parsed = {str(t): {int(p): int(o) for p, o in parts.items()} for t, parts in raw.items()}
    except (ValueError, AttributeError, TypeError):
        raise KafkaSourceError(
            f'{what} must be "earliest", "latest" or JSON like {{"{topics[0]}": {{"0": 23, "1": -2}}}}, got {text!r}'
        ) from None
    unknown = sorted(set(parsed) - set(topics))
    if unknown:
        raise KafkaSourceError(f"{what} names topics that are not subscribed: {', '.join(unknown)}")
    return parsed


# ---------------------------------------------------------------------------------------------------------------------
# Planning: partitions and watermarks, read once on the driver


def consumer_config(options: SourceOptions) -> dict[str, Any]:
    return {
        # librdkafka pauses fetching for fetch.queue.backoff.ms (1 s by default) whenever its queue passes
        # queued.min.messages: on a large partition that idles the task most of the time. A user's kafka.* wins.
        "fetch.queue.backoff.ms": 10,
        **options.consumer_config,
        "bootstrap.servers": options.bootstrap_servers,
        # Never joins a group or commits: partitions are assigned, offsets are Spark's.
        "group.id": "kafkatop-spark",
        "enable.auto.commit": False,
        "enable.auto.offset.store": False,
        "enable.partition.eof": True,
        "auto.offset.reset": "error",
        "logger": _quiet_logger(),
    }


class _SecurityFailure(logging.Handler):
    """The latest TLS or SASL failure librdkafka logged, worded: a refused connection says why, not just that it
    failed."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.latest: str | None = None

    def emit(self, record: logging.LogRecord) -> None:
        reason = security_reason(record.getMessage())
        if reason is not None:
            self.latest = reason


_SECURITY_FAILURE = _SecurityFailure()


def _quiet_logger() -> Any:
    logger = logging.getLogger("kafkatop.spark.librdkafka")
    logger.propagate = False
    if not logger.handlers:
        logger.addHandler(_SECURITY_FAILURE)
    return logger


def admin_client(options: SourceOptions) -> AdminClient:
    """An AdminClient with the source's connection and security settings (not the consumer-only ones)."""
    consumer_only = ("group.id", "enable.auto.commit", "enable.auto.offset.store", "enable.partition.eof",
                     "auto.offset.reset", "fetch.queue.backoff.ms")  # fmt: skip
    return lifetime.keep(AdminClient({k: v for k, v in consumer_config(options).items() if k not in consumer_only}))


def release(box: list[Any]) -> None:
    """Frees the handles in `box` (their last references) on a thread of kafkatop's own: see model/lifetime.py."""
    lifetime.release(box, close=lambda h: h.close() if isinstance(h, Consumer) else None)


def watermarks(options: SourceOptions, admin: AdminClient | None = None) -> dict[str, dict[int, tuple[int, int]]]:
    """Low and high watermark of every partition of the subscribed topics, in two batched ListOffsets calls."""
    if admin is None:
        own = admin_client(options)
        try:
            return watermarks(options, own)
        finally:
            release([own])
            del own
    _SECURITY_FAILURE.latest = None
    try:
        metadata = admin.list_topics(timeout=METADATA_TIMEOUT_S)
    except KafkaException as e:
        admin.poll(0)  # delivers the log lines librdkafka has queued
        if _SECURITY_FAILURE.latest is not None:
            raise KafkaSourceError(
                f"cannot talk to Kafka at {options.bootstrap_servers}: {_SECURITY_FAILURE.latest}"
            ) from None
        raise KafkaSourceError(
            f"cannot reach Kafka at {options.bootstrap_servers}: {_reason(e)}. Is the cluster up?"
        ) from None
    tps: list[TopicPartition] = []
    for topic in options.topics:
        meta = metadata.topics.get(topic)
        if meta is None or (meta.error is not None and meta.error.code() == KafkaError.UNKNOWN_TOPIC_OR_PART):
            known = sorted(t for t in metadata.topics if not t.startswith("__"))
            hint = f"; topics here: {', '.join(known[:10])}" if known else "; the cluster has no topics"
            raise KafkaSourceError(f"topic {topic!r} does not exist on {options.bootstrap_servers}{hint}")
        tps += [TopicPartition(topic, p) for p in sorted(meta.partitions)]
    low = _list_offsets(admin, tps, OffsetSpec.earliest())
    high = _list_offsets(admin, tps, OffsetSpec.latest())
    result: dict[str, dict[int, tuple[int, int]]] = {t: {} for t in options.topics}
    for tp in tps:
        result[tp.topic][tp.partition] = (low[(tp.topic, tp.partition)], high[(tp.topic, tp.partition)])
    return result


def _list_offsets(admin: AdminClient, tps: list[TopicPartition], spec: OffsetSpec) -> dict[tuple[str, int], int]:
    if not tps:
        return {}
    futures = admin.list_offsets({tp: spec for tp in tps}, request_timeout=METADATA_TIMEOUT_S)
    out: dict[tuple[str, int], int] = {}
    for tp, fut in futures.items():
        try:
            out[(tp.topic, tp.partition)] = fut.result().offset
        except KafkaException as e:
            raise KafkaSourceError(
                f"cannot read the watermarks of {tp.topic}-{tp.partition}: {_reason(e)} "
                "(is its leader down? the partition may be offline)"
            ) from None
    return out


def _reason(e: KafkaException) -> str:
    err = e.args[0] if e.args else None
    return err.str() if isinstance(err, KafkaError) else str(e)


def resolve_ranges(options: SourceOptions, marks: Mapping[str, Mapping[int, tuple[int, int]]]) -> list[OffsetRange]:
    """One [start, end) per Kafka partition from the options and the watermarks."""
    starting = parse_offsets(options.starting, options.topics, "startingOffsets")
    ending = parse_offsets(options.ending, options.topics, "endingOffsets")
    ranges = []
    for topic in options.topics:
        for partition, (low, high) in sorted(marks[topic].items()):
            start = _pick(starting, topic, partition, low, high, default=EARLIEST)
            end = _pick(ending, topic, partition, low, high, default=LATEST)
            if start < low:
                if options.fail_on_data_loss:
                    raise KafkaSourceError(
                        f"{topic}-{partition}: offset {start} was deleted (earliest now {low}); "
                        'set failOnDataLoss to "false" to start at the earliest instead'
                    )
                start = low
            end = min(end, high)
            ranges.append(OffsetRange(topic, partition, start, max(start, end)))
    return ranges


def _pick(
    spec: dict[str, dict[int, int]] | int, topic: str, partition: int, low: int, high: int, *, default: int
) -> int:
    value = spec if isinstance(spec, int) else spec.get(topic, {}).get(partition, default)
    return low if value == EARLIEST else high if value == LATEST else value


def split_ranges(
    ranges: Sequence[OffsetRange], max_records: int | None, min_partitions: int | None
) -> list[OffsetRange]:
    """Large partitions become several ranges, so one hot partition does not leave the other cores idle."""
    out = []
    for r in ranges:
        if max_records and r.size > max_records:
            out += _cut(r, -(-r.size // max_records))
        else:
            out.append(r)
    if min_partitions and len(out) < min_partitions:
        total = sum(r.size for r in out)
        if total:
            # Split in proportion to size, as the official connector does with minPartitions.
            parts = []
            for r in out:
                share = max(1, round(min_partitions * r.size / total)) if r.size else 1
                parts += _cut(r, min(share, max(1, r.size)))
            out = parts
    return out


def _cut(r: OffsetRange, pieces: int) -> list[OffsetRange]:
    step, extra = divmod(r.size, pieces)
    out, start = [], r.start
    for i in range(pieces):
        end = start + step + (1 if i < extra else 0)
        out.append(OffsetRange(r.topic, r.partition, start, end))
        start = end
    return out
