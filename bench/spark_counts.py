"""Benchmark: per-partition counts of 1,000,000 messages over 12 partitions — the Spark job (warm session, through
the Spark service as the TUI and `kafkatop counts` use it) against a single confluent-kafka consumer computing the
same report in one process. Target on this 2-core machine: warm Spark <= 2x the single consumer. Also: the
scaling from local[1] to local[2], and the cold start (service start to first result) reported separately.

Prints figures; asserts nothing. Needs a real Kafka (the librdkafka mock keeps only ~5 MB per partition, and it
serves fetches far slower than a broker, which would flatter Spark). Run from the repository root:

    KAFKA_HOME=/opt/kafka_2.13-4.1.0 .venv/bin/python bench/spark_counts.py [--runs 5] [--messages 1000000]
    .venv/bin/python bench/spark_counts.py --bootstrap-server 127.0.0.1:9092   (a running cluster)

With KAFKA_HOME, a one-node KRaft lab cluster is started in a temp dir (heap 512m) and brought down at the end.
The topic `bench-counts` (12 partitions) gets the messages once: 100-byte values, keys from 1,000 distinct.

The single consumer is given its best shot: one Consumer assigned all 12 partitions at explicit offsets, batches of
10,000, stopping at the high watermarks it read first, with fetch.queue.backoff.ms=10 (librdkafka's default 1 s
pause when its queue is full made it 5x slower here); it computes the report the Spark job computes (records,
key+value bytes, first/last offset, earliest/latest timestamp, top 5 keys per partition).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from kafkatop.backends.lab.spec import ClusterSpec
from kafkatop.spark.client import SparkServiceClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.* also when run as a file
from bench.common.lab import kraft_install, temp_lab

TOPIC = "bench-counts"
PARTITIONS = 12


@contextmanager
def lab_cluster(kafka_home: str) -> Iterator[str]:
    install = kraft_install(kafka_home, "spark_counts bench")
    spec = ClusterSpec(name="spark-bench", brokers=1, base_port=24092, controller_port=24192, heap="512m")
    with temp_lab(install, spec, "kafkatop-bench-spark-", down_timeout_s=20) as cluster:
        cluster.up(timeout_s=120)
        yield cluster.snapshot().bootstrap_servers


def fill(bootstrap: str, messages: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    md = admin.list_topics(timeout=10)
    if TOPIC in md.topics:
        highs = sum(
            Consumer({"bootstrap.servers": bootstrap, "group.id": "bench"}).get_watermark_offsets(
                TopicPartition(TOPIC, p), timeout=10
            )[1]
            for p in md.topics[TOPIC].partitions
        )
        if highs == messages and len(md.topics[TOPIC].partitions) == PARTITIONS:
            print(f"topic {TOPIC} already holds {messages:,} messages")
            return
        admin.delete_topics([TOPIC])[TOPIC].result(30)
        time.sleep(2)  # topic deletion completes asynchronously on the broker
    admin.create_topics([NewTopic(TOPIC, PARTITIONS, 1)])[TOPIC].result(30)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.num.messages": 10000,
                         "queue.buffering.max.messages": 2_000_000, "acks": "1"})  # fmt: skip
    value = b"v" * 100
    t0 = time.monotonic()
    for i in range(messages):
        producer.produce(TOPIC, value=value, key=b"key-%d" % (i % 1000))
        if i % 50_000 == 0:
            producer.poll(0)
    producer.flush(120)
    print(f"produced {messages:,} messages to {TOPIC} ({PARTITIONS} partitions) in {time.monotonic() - t0:.1f} s")


def single_consumer(bootstrap: str) -> tuple[float, int]:
    """The same report as the Spark job, from one Consumer in this process."""
    t0 = time.monotonic()
    probe = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench"})
    marks = {p: probe.get_watermark_offsets(TopicPartition(TOPIC, p), timeout=10) for p in range(PARTITIONS)}
    probe.close()
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench", "enable.auto.commit": False,
                         "fetch.queue.backoff.ms": 10})  # fmt: skip
    consumer.assign([TopicPartition(TOPIC, p, low) for p, (low, high) in marks.items() if high > low])
    left = {p: high for p, (low, high) in marks.items() if high > low}
    records: Counter[int] = Counter()
    size: Counter[int] = Counter()
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    earliest: dict[int, int] = {}
    latest: dict[int, int] = {}
    keys: dict[int, Counter[bytes | None]] = {p: Counter() for p in range(PARTITIONS)}
    while left:
        for m in consumer.consume(10_000, 0.1):
            if m.error():
                continue
            p, offset = m.partition(), m.offset()
            key, value = m.key(), m.value()
            ts = m.timestamp()[1]
            records[p] += 1
            size[p] += (len(key) if key else 0) + (len(value) if value else 0)
            keys[p][key] += 1
            first.setdefault(p, offset)
            last[p] = offset
            if p not in earliest or ts < earliest[p]:
                earliest[p] = ts
            if p not in latest or ts > latest[p]:
                latest[p] = ts
            if offset >= left.get(p, 0) - 1:
                left.pop(p, None)
    consumer.close()
    top = {p: keys[p].most_common(5) for p in keys}
    assert all(top[p] for p in records)
    return time.monotonic() - t0, sum(records.values())


def spark_runs(bootstrap: str, master: str, runs: int) -> tuple[list[float], float, float, int]:
    """(warm seconds per run, service start, first count, records) for one master."""
    client = SparkServiceClient(master, log_path=Path(tempfile.gettempdir()) / f"bench-spark-{os.getpid()}.log")
    t0 = time.monotonic()
    try:
        client.start()
        client.wait_ready()
        ready = time.monotonic() - t0
        t1 = time.monotonic()
        records = client.counts(bootstrap, TOPIC).records
        first = time.monotonic() - t1
        warm = []
        for _ in range(runs):
            t = time.monotonic()
            assert client.counts(bootstrap, TOPIC).records == records
            warm.append(time.monotonic() - t)
        return warm, ready, first, records
    finally:
        client.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--bootstrap-server", help="a running cluster instead of a lab cluster from KAFKA_HOME")
    parser.add_argument("--kafka-home", default=os.environ.get("KAFKA_HOME"))
    args = parser.parse_args()
    if not args.bootstrap_server and not args.kafka_home:
        raise SystemExit("spark_counts bench needs a real Kafka: set KAFKA_HOME, or give --bootstrap-server")

    @contextmanager
    def given() -> Iterator[str]:
        yield args.bootstrap_server

    with given() if args.bootstrap_server else lab_cluster(args.kafka_home) as bootstrap:
        fill(bootstrap, args.messages)
        single = []
        for _ in range(args.runs):
            seconds, n = single_consumer(bootstrap)
            assert n == args.messages, (n, args.messages)
            single.append(seconds)
        results = {m: spark_runs(bootstrap, m, args.runs) for m in ("local[2]", "local[1]")}

    s_med = statistics.median(single)
    print(f"\n{args.messages:,} messages, {PARTITIONS} partitions, {args.runs} runs each (median, min–max), "
          f"{os.cpu_count()} cores")  # fmt: skip
    print(f"  single consumer, one process     {s_med:6.2f} s   ({min(single):.2f}–{max(single):.2f})   "
          f"{args.messages / s_med / 1e6:.2f} M msg/s")  # fmt: skip
    for master, (warm, _, _, records) in results.items():
        w = statistics.median(warm)
        assert records == args.messages
        print(f"  Spark {master:9} warm            {w:6.2f} s   ({min(warm):.2f}–{max(warm):.2f})   "
              f"{args.messages / w / 1e6:.2f} M msg/s   ratio to single consumer {w / s_med:.2f}x")  # fmt: skip
    w2, w1 = (statistics.median(results[m][0]) for m in ("local[2]", "local[1]"))
    print(f"  scaling local[1] -> local[2]     {w1 / w2:.2f}x faster ({w1:.2f} s -> {w2:.2f} s)")
    for master, (_, ready, first, _) in results.items():
        print(f"  cold start {master:9}            service ready {ready:5.1f} s + first count {first:5.1f} s "
              f"= {ready + first:5.1f} s")  # fmt: skip
    ratio = statistics.median(results["local[2]"][0]) / s_med
    print(f"\n  target: warm Spark (local[2]) <= 2x single consumer -> {ratio:.2f}x {'PASS' if ratio <= 2 else 'MISS'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
