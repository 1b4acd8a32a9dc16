"""The counts job: per Kafka partition, records, bytes, offsets, timestamps and top keys, computed by Spark.

One read of the topic feeds everything: Spark groups the records by (partition, key) — the partial aggregation
happens in the tasks that read, so only one row per key and partition is shuffled — and a window over those rows
gives each partition's totals and its most frequent keys. Which key lands on which partition is worth seeing:
ordering holds only within a partition.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from typing import Any

from confluent_kafka.admin import AdminClient, ConfigResource, ResourceType
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.window import Window

from kafkatop.backends.model.spark import KeyCount, PartitionCounts, TopicCounts
from kafkatop.spark.source import SOURCE_NAME, KafkaDataSource
from kafkatop.spark.source_plan import METADATA_TIMEOUT_S, SourceOptions, admin_client, release, watermarks

# Only what the job needs: the source then never builds topic, headers or timestampType columns.
COUNT_SCHEMA = "partition int, offset long, timestamp timestamp, key binary, value binary"
TOP_KEYS = 5


def register(spark: SparkSession) -> None:
    spark.dataSource.register(KafkaDataSource)


def reader_options(bootstrap: str, topic: str, client_config: Mapping[str, str] | None = None) -> dict[str, str]:
    """The data source's options: the connector's names, client settings as kafka.* options."""
    options = {f"kafka.{k}": str(v) for k, v in (client_config or {}).items()}
    options["kafka.bootstrap.servers"] = bootstrap
    options["subscribe"] = topic
    return options


def count_topic(
    spark: SparkSession,
    bootstrap: str,
    topic: str,
    *,
    client_config: Mapping[str, str] | None = None,
    top_keys: int = TOP_KEYS,
    max_records_per_partition: int | None = None,
    poll_timeout_ms: int | None = None,
) -> TopicCounts:
    """Count every record between the watermarks read now; the check compares against the same watermarks."""
    started = time.monotonic()
    options = reader_options(bootstrap, topic, client_config)
    parsed = SourceOptions.parse(options, streaming=False)
    admin = admin_client(parsed)
    try:
        marks = watermarks(parsed, admin)[topic]
        policy = cleanup_policy(admin, topic)
    finally:
        release([admin])
        del admin
    pinned = {topic: {str(p): low for p, (low, _) in marks.items()}}
    ends = {topic: {str(p): high for p, (_, high) in marks.items()}}
    reader = (
        spark.read.format(SOURCE_NAME)
        .schema(COUNT_SCHEMA)
        .options(**options)
        .option("startingOffsets", json.dumps(pinned))
        .option("endingOffsets", json.dumps(ends))
    )
    if max_records_per_partition:
        reader = reader.option("maxRecordsPerPartition", str(max_records_per_partition))
    if poll_timeout_ms:
        reader = reader.option("kafkaConsumer.pollTimeoutMs", str(poll_timeout_ms))
    rows = _per_partition(reader.load(), top_keys).collect()
    by_partition: dict[int, list[Any]] = {}
    for row in rows:
        by_partition.setdefault(row["partition"], []).append(row)
    partitions = tuple(
        _partition(p, low, high, by_partition.get(p, []), top_keys) for p, (low, high) in sorted(marks.items())
    )
    return TopicCounts(
        topic=topic,
        partitions=partitions,
        cleanup_policy=policy,
        elapsed_s=time.monotonic() - started,
        master=str(spark.sparkContext.master),
    )


def _per_partition(records: DataFrame, top_keys: int) -> DataFrame:
    record_bytes = F.coalesce(F.length("key"), F.lit(0)) + F.coalesce(F.length("value"), F.lit(0))
    by_key = records.groupBy("partition", "key").agg(
        F.count(F.lit(1)).alias("records"),
        F.sum(record_bytes).alias("bytes"),
        F.min("offset").alias("first_offset"),
        F.max("offset").alias("last_offset"),
        F.min("timestamp").alias("earliest"),
        F.max("timestamp").alias("latest"),
    )
    partition = Window.partitionBy("partition")
    # Keyed records first, most frequent first; the null key (unkeyed records) ranks last.
    ranking = partition.orderBy(F.col("key").isNull(), F.desc("records"), F.col("key"))
    ranked = by_key.select(
        "partition",
        "key",
        "records",
        F.row_number().over(ranking).alias("rank"),
        F.sum("records").over(partition).alias("p_records"),
        F.sum("bytes").over(partition).alias("p_bytes"),
        F.min("first_offset").over(partition).alias("p_first"),
        F.max("last_offset").over(partition).alias("p_last"),
        F.min("earliest").over(partition).alias("p_earliest"),
        F.max("latest").over(partition).alias("p_latest"),
        F.count("key").over(partition).alias("p_keys"),
        F.sum(F.when(F.col("key").isNotNull(), F.col("records")).otherwise(0)).over(partition).alias("p_keyed"),
    )
    return ranked.where(F.col("rank") <= max(1, top_keys)).select(
        "partition",
        "key",
        "records",
        "rank",
        "p_records",
        "p_bytes",
        "p_first",
        "p_last",
        F.unix_micros("p_earliest").alias("p_earliest_us"),
        F.unix_micros("p_latest").alias("p_latest_us"),
        "p_keys",
        "p_keyed",
    )


def _partition(partition: int, low: int, high: int, rows: list[Any], top_keys: int) -> PartitionCounts:
    if not rows:
        return _empty(partition, low, high)
    head = rows[0]
    keys = sorted((r for r in rows if r["key"] is not None), key=lambda r: r["rank"])[:top_keys]
    top = tuple(KeyCount(printable_key(bytes(r["key"])), r["records"]) for r in keys)
    return _counted(partition, low, high, head, head["p_keys"], top)


def _empty(partition: int, low: int, high: int) -> PartitionCounts:
    return PartitionCounts(partition, 0, 0, None, None, None, None, low, high)


def _counted(
    partition: int, low: int, high: int, totals: Any, distinct_keys: int = 0, top_keys: tuple[KeyCount, ...] = ()
) -> PartitionCounts:
    """A partition's counts from a row of per-partition totals (the p_* columns of the batch job and the stream)."""
    return PartitionCounts(
        partition=partition,
        records=totals["p_records"],
        bytes=totals["p_bytes"] or 0,
        first_offset=totals["p_first"],
        last_offset=totals["p_last"],
        earliest_timestamp_ms=_ms(totals["p_earliest_us"]),
        latest_timestamp_ms=_ms(totals["p_latest_us"]),
        low_watermark=low,
        high_watermark=high,
        keyed_records=totals["p_keyed"] or 0,
        distinct_keys=distinct_keys,
        top_keys=top_keys,
    )


def _ms(micros: int | None) -> int | None:
    return None if micros is None else micros // 1000


def printable_key(raw: bytes) -> str:
    """UTF-8 keys as text; anything else escaped, so a binary key never garbles a terminal."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("ascii", "backslashreplace")
    if text.isprintable():
        return text
    return text.encode("unicode_escape").decode("ascii")


def cleanup_policy(admin: AdminClient, topic: str) -> str | None:
    """The topic's cleanup.policy, to explain a count below high − low; None when it cannot be read."""
    try:
        futures = admin.describe_configs([ConfigResource(ResourceType.TOPIC, topic)], request_timeout=5)
        entries = next(iter(futures.values())).result(timeout=METADATA_TIMEOUT_S)
        entry = entries.get("cleanup.policy")
        return None if entry is None else str(entry.value)
    except Exception:  # noqa: BLE001 — optional detail: a cluster without DescribeConfigs (the mock) still counts
        return None


def stream_counts(
    spark: SparkSession,
    bootstrap: str,
    topic: str,
    on_update: Callable[[TopicCounts], None],
    *,
    client_config: Mapping[str, str] | None = None,
    interval_s: float = 2.0,
    checkpoint_dir: str,
) -> Any:
    """A streaming query whose every micro-batch reports the counts so far; returns the StreamingQuery.

    The state is one row per partition (not per key), so it stays small however many keys a topic has; top keys
    come from a batch count.
    """
    options = reader_options(bootstrap, topic, client_config)
    parsed = SourceOptions.parse(options, streaming=True)
    record_bytes = F.coalesce(F.length("key"), F.lit(0)) + F.coalesce(F.length("value"), F.lit(0))
    stream = (
        spark.readStream.format(SOURCE_NAME)
        .schema(COUNT_SCHEMA)
        .options(**options)
        .option("startingOffsets", "earliest")
        .load()
        .groupBy("partition")
        .agg(
            F.count(F.lit(1)).alias("p_records"),
            F.sum(record_bytes).alias("p_bytes"),
            F.min("offset").alias("p_first"),
            F.max("offset").alias("p_last"),
            F.unix_micros(F.min("timestamp")).alias("p_earliest_us"),
            F.unix_micros(F.max("timestamp")).alias("p_latest_us"),
            F.count("key").alias("p_keyed"),
        )
    )
    started = time.monotonic()

    def each_batch(batch: DataFrame, batch_id: int) -> None:
        rows = {r["partition"]: r for r in batch.collect()}
        marks = watermarks(parsed)[topic]  # with a client of its own, released at once (as the planner's)
        partitions = [
            _counted(p, low, high, rows[p]) if p in rows else _empty(p, low, high)
            for p, (low, high) in sorted(marks.items())
        ]
        on_update(
            TopicCounts(
                topic=topic,
                partitions=tuple(partitions),
                elapsed_s=time.monotonic() - started,
                master=str(spark.sparkContext.master),
                streaming=True,
                batch_id=batch_id,
            )
        )

    return (
        stream.writeStream.outputMode("complete")
        .foreachBatch(each_batch)
        .option("checkpointLocation", checkpoint_dir)
        .trigger(processingTime=f"{interval_s} seconds")
        .queryName(f"kafkatop-counts-{topic}")
        .start()
    )
