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

Three modules: this one (the Spark API), `source_plan` (options and offset ranges, on the driver) and
`source_read` (a range into Arrow batches, in the tasks). Spark's Python workers import them: they keep to
confluent-kafka, pyarrow and pyspark.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, DataSourceStreamReader, InputPartition
from pyspark.sql.types import StructType

from kafkatop.spark.source_plan import OffsetRange, SourceOptions, resolve_ranges, split_ranges, watermarks
from kafkatop.spark.source_read import RangeReader

SOURCE_NAME = "kafkatop"
SCHEMA = (
    "topic string, partition int, offset long, timestamp timestamp, timestampType int, key binary, value binary, "
    "headers array<struct<key: string, value: binary>>"
)


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
