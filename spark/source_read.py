"""The tasks' side of the kafkatop source: one offset range of one partition, read into Arrow record batches.

A task stops exactly at its end offset — when the record at or past the end arrives, or at the end of the partition
— so it never waits out a poll timeout. Imported by Spark's Python workers: confluent-kafka and pyarrow only.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
from confluent_kafka import Consumer, KafkaError, TopicPartition

from kafkatop.backends.model import lifetime
from kafkatop.spark.source_plan import (
    METADATA_TIMEOUT_S,
    KafkaSourceError,
    OffsetRange,
    SourceOptions,
    consumer_config,
    release,
)

BATCH_ROWS = 32768

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
        consumer = lifetime.keep(Consumer(consumer_config(self.options)))
        try:
            yield from self._read(consumer, r)
        finally:
            consumer.close()
            release([consumer])
            del consumer

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
