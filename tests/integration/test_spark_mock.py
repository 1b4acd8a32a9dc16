"""The Kafka data source and the counts job on a real SparkSession (local[2]) against the librdkafka mock cluster.

One session per module (a JVM start costs 10–20 s here); each test makes its own topics on a module-wide mock.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.spark import TopicCounts, watermark_check
from kafkatop.spark.source_plan import KafkaSourceError, OffsetRange, SourceOptions, parse_offsets, watermarks
from kafkatop.spark.source_read import RangeReader
from tests.conftest import wait_for

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def mock() -> Iterator[MockCluster]:
    with MockCluster(3) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from kafkatop.spark.counts import register

    session = (
        SparkSession.builder.master("local[2]")
        .appName("kafkatop-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.python.authenticate.socketTimeout", "60s")  # as the service: a loaded machine is slow
        .config("spark.local.dir", str(tmp_path_factory.mktemp("spark-local")))
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    register(session)
    try:
        yield session
    finally:
        session.stop()


def produce(bootstrap: str, topic: str, records: list[tuple[bytes | None, bytes, int | None]]) -> Counter[int]:
    """Send (key, value, partition or None) and return how many records each partition acknowledged."""
    acked: Counter[int] = Counter()
    errors: list[str] = []

    def delivered(err: Any, msg: Any) -> None:
        if err is not None:
            errors.append(str(err))
        else:
            acked[msg.partition()] += 1

    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "acks": "all"})
    for key, value, partition in records:
        if partition is None:
            producer.produce(topic, value=value, key=key, on_delivery=delivered)
        else:
            producer.produce(topic, value=value, key=key, partition=partition, on_delivery=delivered)
        producer.poll(0)
    assert producer.flush(30) == 0
    assert not errors, errors
    return acked


def test_counts_equal_what_was_produced_keyed_and_unkeyed(mock: MockCluster, spark: Any) -> None:
    from kafkatop.spark.counts import count_topic

    mock.create_topic("orders", 4, 3)
    keyed = [(f"customer-{i % 7}".encode(), b"v" * (i % 50), None) for i in range(700)]
    unkeyed = [(None, b"u" * 10, i % 4) for i in range(300)]
    acked = produce(mock.bootstrap_servers, "orders", keyed + unkeyed)

    counts = count_topic(spark, mock.bootstrap_servers, "orders", top_keys=3)

    assert counts.records == 1000
    assert {p.partition: p.records for p in counts.partitions} == dict(acked)
    assert counts.bytes == sum(len(k or b"") + len(v) for k, v, _ in keyed + unkeyed)
    for p in counts.partitions:
        assert (p.first_offset, p.last_offset) == (0, acked[p.partition] - 1)
        assert (p.low_watermark, p.high_watermark) == (0, acked[p.partition])
        assert watermark_check(p, counts.cleanup_policy) is None
        assert p.earliest_timestamp_ms is not None and p.latest_timestamp_ms is not None
        assert p.earliest_timestamp_ms <= p.latest_timestamp_ms
        assert p.records - p.keyed_records == 75  # the unkeyed records were spread evenly by partition
    # Each key lands on exactly one partition (the murmur2 partitioner): 7 keys × 100 records.
    seen = Counter[str]()
    for p in counts.partitions:
        for k in p.top_keys:
            assert k.records == 100
            seen[k.key] += 1
        assert len(p.top_keys) == min(3, p.distinct_keys)
    assert sum(p.distinct_keys for p in counts.partitions) == 7
    assert all(n == 1 for n in seen.values())


def test_empty_partitions_are_reported_with_zero(mock: MockCluster, spark: Any) -> None:
    from kafkatop.spark.counts import count_topic

    mock.create_topic("sparse", 4, 1)
    produce(mock.bootstrap_servers, "sparse", [(b"k", b"x", 1)] * 5)

    counts = count_topic(spark, mock.bootstrap_servers, "sparse")

    by = {p.partition: p for p in counts.partitions}
    assert sorted(by) == [0, 1, 2, 3]
    assert by[1].records == 5 and by[1].top_keys[0].key == "k"
    for empty in (0, 2, 3):
        assert by[empty].records == 0 and by[empty].first_offset is None and by[empty].gap == 0


def test_low_watermark_above_zero(mock: MockCluster, spark: Any) -> None:
    """The mock keeps about 5 MB per partition and drops its oldest batches beyond that, as retention would."""
    from kafkatop.spark.counts import count_topic

    mock.create_topic("retained", 2, 1)
    produce(mock.bootstrap_servers, "retained", [(None, os.urandom(200_000), 0)] * 40 + [(None, b"x", 1)] * 3)
    options = SourceOptions.parse({"kafka.bootstrap.servers": mock.bootstrap_servers, "subscribe": "retained"},
                                  streaming=False)  # fmt: skip
    low, high = watermarks(options)["retained"][0]
    assert low > 0, "the mock kept every batch: produce more to push the low watermark"

    counts = count_topic(spark, mock.bootstrap_servers, "retained")

    p0 = counts.partitions[0]
    assert (p0.low_watermark, p0.high_watermark) == (low, high)
    assert p0.records == high - low and p0.first_offset == low and p0.gap == 0
    assert counts.partitions[1].records == 3


def test_offset_ranges_split_large_partitions(mock: MockCluster, spark: Any) -> None:
    from kafkatop.spark.counts import count_topic, reader_options

    mock.create_topic("big", 2, 1)
    acked = produce(mock.bootstrap_servers, "big", [(None, b"x" * 20, i % 2) for i in range(2500)])

    df = (
        spark.read.format("kafkatop")
        .options(**reader_options(mock.bootstrap_servers, "big"))
        .option("maxRecordsPerPartition", "300")
        .load()
    )
    assert df.rdd.getNumPartitions() == 10  # 1250 records per Kafka partition → 5 ranges of ≤ 300 each
    rows = df.select("partition", "offset").collect()
    offsets = Counter((r["partition"], r["offset"]) for r in rows)
    assert len(rows) == 2500 and max(offsets.values()) == 1  # no record read twice, none skipped
    assert {p for p, _ in offsets} == {0, 1}

    split = count_topic(spark, mock.bootstrap_servers, "big", max_records_per_partition=300)
    assert {p.partition: p.records for p in split.partitions} == dict(acked)


def test_all_columns_and_explicit_offsets(mock: MockCluster, spark: Any) -> None:
    mock.create_topic("columns", 1, 1)
    producer = Producer({"bootstrap.servers": mock.bootstrap_servers})
    for i in range(10):
        producer.produce("columns", value=f"v{i}".encode(), key=b"k", headers=[("trace", b"t%d" % i)])
    producer.flush(10)

    rows = (
        spark.read.format("kafkatop")
        .option("kafka.bootstrap.servers", mock.bootstrap_servers)
        .option("subscribe", "columns")
        .option("startingOffsets", json.dumps({"columns": {"0": 3}}))
        .option("endingOffsets", json.dumps({"columns": {"0": 6}}))
        .load()
        .orderBy("offset")
        .collect()
    )
    assert [r["offset"] for r in rows] == [3, 4, 5]
    first = rows[0]
    assert (first["topic"], first["partition"], first["key"], first["value"]) == ("columns", 0, b"k", b"v3")
    assert first["headers"][0]["key"] == "trace" and first["headers"][0]["value"] == b"t3"
    assert first["timestamp"] is not None and first["timestampType"] == 0  # CreateTime


def test_missing_topic_and_bad_options_are_explained(mock: MockCluster, spark: Any) -> None:
    from kafkatop.spark.counts import count_topic

    with pytest.raises(KafkaSourceError, match="topic 'nowhere' does not exist"):
        count_topic(spark, mock.bootstrap_servers, "nowhere")
    with pytest.raises(KafkaSourceError, match="startingOffsets must be"):
        parse_offsets("{oops", ("t",), "startingOffsets")
    with pytest.raises(KafkaSourceError, match="kafka.bootstrap.servers"):
        SourceOptions.parse({"subscribe": "t"}, streaming=False)


def test_a_leader_moving_during_a_read_is_ridden_out(mock: MockCluster, spark: Any) -> None:
    """A broker down with its partitions moved: the tasks' consumers follow the new leader (no task failure)."""
    from kafkatop.spark.counts import count_topic

    mock.create_topic("moving", 3, 3)
    acked = produce(mock.bootstrap_servers, "moving", [(None, b"x", i % 3) for i in range(600)])
    mock.set_broker_down(1)
    try:
        for p in range(3):
            mock.set_partition_leader("moving", p, 2)
        counts = count_topic(spark, mock.bootstrap_servers, "moving")
    finally:
        mock.set_broker_up(1)
    assert {p.partition: p.records for p in counts.partitions} == dict(acked)


def test_an_offline_partition_fails_the_read_with_a_reason(mock: MockCluster, spark: Any) -> None:
    """Offline before the query: the planner says so. Offline during a task: the task stops after pollTimeoutMs
    with the offset it was waiting at (RangeReader is what a task runs)."""
    from kafkatop.spark.counts import reader_options
    from kafkatop.spark.session import explain

    mock.create_topic("stuck", 1, 1)
    produce(mock.bootstrap_servers, "stuck", [(None, b"x", 0)] * 10)
    options = {**reader_options(mock.bootstrap_servers, "stuck"), "kafkaConsumer.pollTimeoutMs": "1500"}
    leader = 1  # the mock puts a 1-replica partition 0 on broker 1
    mock.set_broker_down(leader)
    try:
        with pytest.raises(Exception) as failure:  # noqa: B017,PT011 — Spark wraps the planner's error; checked below
            spark.read.format("kafkatop").options(**options).load().count()
        assert explain(failure.value).startswith("cannot read the watermarks of stuck-0")
        assert "leader down" in explain(failure.value)

        task = RangeReader(SourceOptions.parse(options, streaming=False), ["offset"])
        with pytest.raises(KafkaSourceError, match=r"stuck-0: no records for 1.5 s at offset 0 \(range 0–10\)"):
            list(task.read(OffsetRange("stuck", 0, 0, 10)))
    finally:
        mock.set_broker_up(leader)


def test_streaming_counts_pick_up_new_messages(mock: MockCluster, spark: Any, tmp_path: Path) -> None:
    from kafkatop.spark.counts import stream_counts

    mock.create_topic("live", 2, 1)
    produce(mock.bootstrap_servers, "live", [(None, b"a", i % 2) for i in range(10)])
    updates: list[TopicCounts] = []
    seen = threading.Condition()

    def on_update(counts: TopicCounts) -> None:
        with seen:
            updates.append(counts)
            seen.notify_all()

    query = stream_counts(spark, mock.bootstrap_servers, "live", on_update, interval_s=0.5,
                          checkpoint_dir=str(tmp_path / "checkpoint"))  # fmt: skip
    try:
        wait_for(lambda: updates and updates[-1].records == 10, timeout_s=60, what="the first micro-batch")
        produce(mock.bootstrap_servers, "live", [(None, b"b", 1) for _ in range(7)])
        wait_for(lambda: updates[-1].records == 17, timeout_s=60, what="a micro-batch with the new records")
    finally:
        query.stop()
    last = updates[-1]
    assert last.streaming and last.batch_id is not None
    assert {p.partition: p.records for p in last.partitions} == {0: 5, 1: 12}
    assert last.partitions[1].high_watermark == 12


def test_the_executors_archive_holds_the_whole_source(mock: MockCluster, tmp_path: Path) -> None:
    """A Spark cluster's executors get the source as a zip (they have confluent-kafka and pyarrow, not kafkatop):
    imported from the zip alone, every kafkatop module comes from it and a range is read."""
    from kafkatop.spark.session import source_archive

    mock.create_topic("shipped", 1, 1)
    produce(mock.bootstrap_servers, "shipped", [(None, b"v%d" % i, 0) for i in range(5)])
    archive = source_archive(tmp_path)
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(archive)!r})\n"
        "from kafkatop.spark.source import KafkaDataSource\n"
        "from kafkatop.spark.source_plan import OffsetRange, SourceOptions\n"
        "from kafkatop.spark.source_read import RangeReader\n"
        f"options = SourceOptions.parse({{'kafka.bootstrap.servers': {mock.bootstrap_servers!r}, "
        "'subscribe': 'shipped'}, streaming=False)\n"
        "batches = list(RangeReader(options, ['offset', 'value']).read(OffsetRange('shipped', 0, 1, 4)))\n"
        "print(sum(b.num_rows for b in batches), [v.as_py() for b in batches for v in b.column('value')])\n"
        "outside = sorted(m for m, mod in sys.modules.items() if m.startswith('kafkatop.') and "
        f"getattr(mod, '__file__', None) and not mod.__file__.startswith({str(archive)!r}))\n"
        "print(outside)\n"
    )
    # -S: no site, so no editable install of kafkatop; the libraries an executor has come in by PYTHONPATH.
    libraries = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sorted(libraries))}
    result = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path, env=env
    )
    assert result.returncode == 0, result.stderr
    rows, outside = result.stdout.splitlines()
    assert rows == "3 [b'v1', b'v2', b'v3']"
    assert outside == "[]"
