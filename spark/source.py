"""A Kafka data source for PySpark 4 (`pyspark.sql.datasource`): `spark.read.format("kafkatop")`.

Spark's own Kafka connector is a JVM jar (spark-sql-kafka-0-10) that is often not at hand; this source reads Kafka
with confluent-kafka inside Spark's Python tasks instead. Options use the official connector's names:

    kafka.bootstrap.servers   required; every other `kafka.*` option goes to the consumer (security settings, …)
    subscribe                 a topic, or several separated by commas
    startingOffsets           "earliest" (batch default), "latest", or JSON {"topic": {"0": 23, "1": -2}}
    endingOffsets             "latest" (default) or JSON; -2 means earliest, -1 latest
    maxRecordsPerPartition    split a Kafka partition into offset ranges of at most this many records
    minPartitions             split ranges further until there are at least this many input partitions
    kafkaConsumer.pollTimeoutMs  how long a task waits without progress before it fails (default 120000)
    failOnDataLoss            "true" (default): fail when a requested offset was deleted; "false": skip to the earliest

One Spark input partition per Kafka partition and offset range. A task stops exactly at its end offset — when the
record at or past the end arrives, or at the end of the partition — so it never waits out a poll timeout. Rows come
as Arrow record batches. Columns (a schema given with `.schema(...)` picks a subset, which skips building the rest):

    topic string, partition int, offset long, timestamp timestamp, timestampType int, key binary, value binary,
    headers array<struct<key string, value binary>>

The streaming reader (`spark.readStream.format("kafkatop")`) offers each micro-batch the records up to the high
watermarks at the time, so an aggregation over it updates as messages arrive.

This module is imported by Spark's Python workers: it keeps to confluent-kafka, pyarrow and pyspark.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec
from pyspark.sql.datasource import DataSource, DataSourceReader, DataSourceStreamReader, InputPartition
from pyspark.sql.types import StructType

from kafkatop.backends.model.errors import KafkatopError

SOURCE_NAME = "kafkatop"
SCHEMA = (
    "topic string, partition int, offset long, timestamp timestamp, timestampType int, key binary, value binary, "
    "headers array<struct<key: string, value: binary>>"
)
EARLIEST, LATEST = -2, -1  # the official connector's sentinels in startingOffsets/endingOffsets JSON
BATCH_ROWS = 32768
DEFAULT_POLL_TIMEOUT_MS = 120_000
METADATA_TIMEOUT_S = 15.0

# Consumer errors that no retry mends; the rest (a broker down, a leader moving) librdkafka rides out by itself.
_PERMANENT = frozenset(
    {
        KafkaError.UNKNOWN_TOPIC_OR_PART,
        KafkaError._UNKNOWN_PARTITION,
        KafkaError._UNKNOWN_TOPIC,
        KafkaError.TOPIC_AUTHORIZATION_FAILED,
        KafkaError._AUTHENTICATION,
        KafkaError.SASL_AUTHENTICATION_FAILED,
    }
)

_ARROW_TYPES: dict[str, pa.DataType] = {
    "topic": pa.string(),
    "partition": pa.int32(),
    "offset": pa.int64(),
    "timestamp": pa.timestamp("us", tz="UTC"),
    "timestampType": pa.int32(),
    "key": pa.binary(),
    "value": pa.binary(),
    "headers": pa.list_(pa.struct([("key", pa.string()), ("value", pa.binary())])),
}


def _offset(message: Any) -> int:
    """A record's offset (a record, unlike an error event, always has one)."""
    offset = message.offset()
    return -1 if offset is None else int(offset)


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


def _quiet_logger() -> Any:
    import logging

    logger = logging.getLogger("kafkatop.spark.librdkafka")
    logger.propagate = False
    logger.addHandler(logging.NullHandler())
    return logger


def admin_client(options: SourceOptions) -> AdminClient:
    """An AdminClient with the source's connection and security settings (not the consumer-only ones)."""
    consumer_only = ("group.id", "enable.auto.commit", "enable.auto.offset.store", "enable.partition.eof",
                     "auto.offset.reset", "fetch.queue.backoff.ms")  # fmt: skip
    return AdminClient({k: v for k, v in consumer_config(options).items() if k not in consumer_only})


def watermarks(options: SourceOptions, admin: AdminClient | None = None) -> dict[str, dict[int, tuple[int, int]]]:
    """Low and high watermark of every partition of the subscribed topics, in two batched ListOffsets calls."""
    admin = admin or admin_client(options)
    try:
        metadata = admin.list_topics(timeout=METADATA_TIMEOUT_S)
    except KafkaException as e:
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


# ---------------------------------------------------------------------------------------------------------------------
# Reading one range inside a Spark task


class RangeReader:
    """Reads one OffsetRange with a Consumer and yields Arrow record batches of the requested columns."""

    def __init__(self, options: SourceOptions, columns: Sequence[str]) -> None:
        unknown = [c for c in columns if c not in _ARROW_TYPES]
        if unknown:
            raise KafkaSourceError(
                f"unknown column(s) {', '.join(unknown)}; the kafkatop source has: {', '.join(_ARROW_TYPES)}"
            )
        self.options = options
        self.columns = tuple(columns)
        self.schema = pa.schema([(c, _ARROW_TYPES[c]) for c in self.columns])

    def read(self, r: OffsetRange) -> Iterator[pa.RecordBatch]:
        if r.size <= 0:
            return
        consumer = Consumer(consumer_config(self.options))
        try:
            yield from self._read(consumer, r)
        finally:
            consumer.close()

    def _read(self, consumer: Consumer, r: OffsetRange) -> Iterator[pa.RecordBatch]:
        consumer.assign([TopicPartition(r.topic, r.partition, r.start)])
        stall_s = self.options.poll_timeout_ms / 1000
        last_progress = time.monotonic()
        position = r.start
        pending: list[Any] = []  # messages of the next record batch
        done = False
        while not done:
            # consume() waits for all it was asked for or the timeout, even past the end of the partition: ask
            # for no more than the range still holds, and poll briefly in case compaction left the range short.
            messages = consumer.consume(num_messages=min(BATCH_ROWS, r.end - position), timeout=0.1)
            if not messages:
                if time.monotonic() - last_progress > stall_s:
                    raise KafkaSourceError(
                        f"{r.topic}-{r.partition}: no records for {stall_s:g} s at offset {position} "
                        f"(range {r.start}–{r.end}); is the partition's leader down?"
                    )
                continue
            last_progress = time.monotonic()
            # The common case, checked in C-speed comprehensions: no error events and nothing past the end.
            last = messages[-1].offset()
            if (
                messages[-1].error() is None
                and last is not None
                and last < r.end
                and not any([m for m in messages if m.error() is not None])
            ):
                records = messages
            else:
                records, done = self._sift(consumer, r, messages, position)
            if records:
                pending += records
                position = _offset(records[-1]) + 1
            if position >= r.end:
                done = True
            if len(pending) >= BATCH_ROWS or (done and pending):
                yield self._batch(r, pending)
                pending = []

    def _sift(self, consumer: Consumer, r: OffsetRange, messages: list[Any], position: int) -> tuple[list[Any], bool]:
        """The records of a consumed batch that holds error events or crosses the range's end; and whether done."""
        records: list[Any] = []
        for m in messages:
            err = m.error()
            if err is not None:
                if err.code() == KafkaError._PARTITION_EOF:
                    return records, True  # the end of the partition: the range's tail was deleted or is markers
                if err.code() == KafkaError.OFFSET_OUT_OF_RANGE:
                    self._out_of_range(consumer, r, position)
                    return records, False
                if err.fatal() or err.code() in _PERMANENT:
                    raise KafkaSourceError(f"{r.topic}-{r.partition} at offset {position}: {err.str()}")
                continue  # transient (a broker went away): librdkafka fetches from the new leader
            if _offset(m) >= r.end:
                return records, True
            records.append(m)
            position = m.offset() + 1
        return records, False

    def _out_of_range(self, consumer: Consumer, r: OffsetRange, position: int) -> None:
        if self.options.fail_on_data_loss:
            raise KafkaSourceError(
                f"{r.topic}-{r.partition}: offset {position} was deleted while reading (retention or compaction); "
                'set failOnDataLoss to "false" to skip what is gone'
            )
        low, _ = consumer.get_watermark_offsets(TopicPartition(r.topic, r.partition), timeout=METADATA_TIMEOUT_S)
        consumer.assign([TopicPartition(r.topic, r.partition, max(low, position))])

    def _batch(self, r: OffsetRange, messages: list[Any]) -> pa.RecordBatch:
        n = len(messages)
        stamps = (
            [m.timestamp() for m in messages] if "timestamp" in self.columns or "timestampType" in self.columns else []
        )
        columns = {
            "topic": lambda: pa.array([r.topic] * n, pa.string()),
            "partition": lambda: pa.array([r.partition] * n, pa.int32()),
            "offset": lambda: pa.array([m.offset() for m in messages], pa.int64()),
            # Kafka's timestamp types: 0 CreateTime, 1 LogAppendTime (librdkafka counts from 1; 0 is none).
            "timestamp": lambda: pa.array([ts * 1000 if kind else None for kind, ts in stamps], pa.int64()).cast(
                _ARROW_TYPES["timestamp"]
            ),
            "timestampType": lambda: pa.array([kind - 1 if kind else -1 for kind, _ in stamps], pa.int32()),
            "key": lambda: pa.array([m.key() for m in messages], pa.binary()),
            "value": lambda: pa.array([m.value() for m in messages], pa.binary()),
            "headers": lambda: pa.array([m.headers() for m in messages], _ARROW_TYPES["headers"]),
        }
        return pa.RecordBatch.from_arrays([columns[c]() for c in self.columns], schema=self.schema)


# ---------------------------------------------------------------------------------------------------------------------
# The Spark API


class KafkaDataSource(DataSource):
    """`spark.read.format("kafkatop")` / `spark.readStream.format("kafkatop")`."""

    @classmethod
    def name(cls) -> str:
        return SOURCE_NAME

    def schema(self) -> str:
        return SCHEMA

    def reader(self, schema: StructType) -> DataSourceReader:
        return KafkaBatchReader(SourceOptions.parse(self.options, streaming=False), schema)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        return KafkaStreamReader(SourceOptions.parse(self.options, streaming=True), schema)


class KafkaBatchReader(DataSourceReader):
    def __init__(self, options: SourceOptions, schema: StructType) -> None:
        self.options = options
        self.ranges = RangeReader(options, schema.fieldNames())

    def partitions(self) -> Sequence[InputPartition]:
        planned = resolve_ranges(self.options, watermarks(self.options))
        ranges = split_ranges(
            [r for r in planned if r.size > 0], self.options.max_records_per_partition, self.options.min_partitions
        )
        # Spark needs at least one partition to plan a scan; an empty one reads nothing.
        return ranges or [OffsetRange(self.options.topics[0], 0, 0, 0)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, OffsetRange)
        return self.ranges.read(partition)


class KafkaStreamReader(DataSourceStreamReader):
    """Offsets are {"topic": {"partition": next offset}}; each micro-batch reads up to the current high watermarks."""

    def __init__(self, options: SourceOptions, schema: StructType) -> None:
        self.options = options
        self.ranges = RangeReader(options, schema.fieldNames())

    def initialOffset(self) -> dict[str, Any]:
        marks = watermarks(self.options)
        ranges = resolve_ranges(self.options, marks)
        return _offsets_dict({(r.topic, r.partition): r.start for r in ranges})

    def latestOffset(self, start: dict[str, Any] | None = None, limit: Any = None) -> dict[str, Any]:
        marks = watermarks(self.options)
        return _offsets_dict({(t, p): high for t, parts in marks.items() for p, (_, high) in parts.items()})

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> Sequence[InputPartition]:
        ranges = []
        for topic, parts in end.items():
            for p, stop in parts.items():
                # A partition added since the last batch starts at its beginning.
                begin = int(start.get(topic, {}).get(p, 0))
                if int(stop) > begin:
                    ranges.append(OffsetRange(topic, int(p), begin, int(stop)))
        return split_ranges(ranges, self.options.max_records_per_partition, None)

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, OffsetRange)
        return self.ranges.read(partition)

    def commit(self, end: dict[str, Any]) -> None:
        """Nothing to do: offsets live in Spark's checkpoint, never in a consumer group."""


def _offsets_dict(offsets: Mapping[tuple[str, int], int]) -> dict[str, Any]:
    out: dict[str, dict[str, int]] = {}
    for (topic, partition), offset in sorted(offsets.items()):
        out.setdefault(topic, {})[str(partition)] = offset
    return out
