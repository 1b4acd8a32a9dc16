"""A tiny Python data source that runs Spark's Python data source path once when the service starts.

The first query through any Python data source starts Python workers, imports pyarrow and pyspark in them and
compiles the JVM side of the Arrow exchange: several seconds that would otherwise fall on the user's first count.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from pyspark.sql.types import StructType


class WarmUpSource(DataSource):
    @classmethod
    def name(cls) -> str:
        return "kafkatop-warmup"

    def schema(self) -> str:
        return "partition int, offset long"

    def reader(self, schema: StructType) -> DataSourceReader:
        return _WarmUpReader()


class _WarmUpReader(DataSourceReader):
    def partitions(self) -> Sequence[InputPartition]:
        return [InputPartition(i) for i in range(2)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        # Import what a Kafka read imports, so the reused Python workers have it loaded.
        import confluent_kafka  # noqa: F401

        import kafkatop.spark.source  # noqa: F401

        n = 1000
        yield pa.RecordBatch.from_arrays(
            [pa.array([partition.value] * n, pa.int32()), pa.array(range(n), pa.int64())],
            names=["partition", "offset"],
        )
