"""Benchmark: `kafkatop consume --value-format avro` against plain `kafkatop consume` on the same records.

Prints figures (medians of --runs); asserts nothing about timings. Run from the repository root:

    KAFKA_HOME=/opt/kafka_2.13-4.1.0 .venv/bin/python bench/decode_throughput.py [--records 1000000] [--runs 3]

The cluster: a one-node KRaft lab from $KAFKA_HOME on free ports (deleted afterwards). The registry: the Schema
Registry test double of the tests (tests/doubles/schema_registry.py — no real Schema Registry can run here), on
127.0.0.1. One topic of 3 partitions holds --records order records (a nested record, an array, a double, an enum, a
timestamp-millis; ~60 B in Avro) written in Confluent's wire format by confluent-kafka's own AvroSerializer.

Each run reads the whole topic to its end, stdout to /dev/null, the process's wall time from start to exit:
  - `kafkatop consume --value-format avro --schema-registry URL`: every value decoded, printed as compact JSON;
  - `kafkatop consume`: the bytes as they are (kafka-console-consumer.sh's output);
  - `kcat -C -e -q`: kcat's plain read, when kcat is installed; and `kcat -s value=avro` when this kcat has Avro
    (Debian's kcat 1.7.1 is built without libserdes: then said, not measured).
Records/s of each, and the ratios avro / plain and avro / kcat avro.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.*, tests.* as a file too
from bench.common.lab import kraft_lab
from bench.common.machine import load
from tests.doubles.schema_registry import SchemaRegistryDouble

TOPIC = "bench-decode"
SCHEMA = """{
  "type": "record", "name": "Order", "namespace": "bench",
  "fields": [
    {"name": "id", "type": "long"},
    {"name": "customer", "type": {"type": "record", "name": "Customer",
      "fields": [{"name": "id", "type": "int"}, {"name": "name", "type": "string"}]}},
    {"name": "items", "type": {"type": "array", "items": {"type": "record", "name": "Item",
      "fields": [{"name": "sku", "type": "string"}, {"name": "qty", "type": "int"}]}}},
    {"name": "total", "type": "double"},
    {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID", "SHIPPED"]}},
    {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}}
  ]
}"""
STATUSES = ("NEW", "PAID", "SHIPPED")


def order(i: int) -> dict[str, object]:
    return {
        "id": i,
        "customer": {"id": i % 997, "name": f"customer-{i % 997}"},
        "items": [{"sku": f"A-{i % 31}", "qty": 1 + i % 5}],
        "total": round(10 + (i % 1000) / 7, 2),
        "status": STATUSES[i % 3],
        "ts": 1_764_000_000_000 + i,
    }


def fill(bootstrap: str, registry_url: str, records: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(TOPIC, 3, 1)])[TOPIC].result(30)
    serializer = AvroSerializer(
        SchemaRegistryClient({"url": registry_url}), SCHEMA, conf={"auto.register.schemas": True}
    )
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 50, "compression.type": "lz4"})
    ctx = SerializationContext(TOPIC, MessageField.VALUE)
    started = time.perf_counter()
    for i in range(records):
        value = serializer(order(i), ctx)
        while True:
            try:
                producer.produce(TOPIC, value=value, key=str(i).encode())
                break
            except BufferError:
                producer.poll(0.1)
        if i % 10_000 == 0:
            producer.poll(0)
    if producer.flush(120) != 0:
        raise SystemExit("decode_throughput: records left undelivered")
    print(f"  filled {records:,} records in {time.perf_counter() - started:.1f} s")


def timed(argv: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"decode_throughput: {' '.join(argv[:4])} … failed: {done.stderr.strip()[-400:]}")
    return took


def kcat_has_avro(kcat: str) -> bool:
    return "avro" in subprocess.run([kcat, "-V"], capture_output=True, text=True, check=False).stdout.lower()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    print(f"decode_throughput: {args.records:,} Avro records, {args.runs} runs each, load {load()}")
    kafkatop = [sys.executable, "-m", "kafkatop.tui.cli"]
    with kraft_lab("decode", brokers=1) as cluster, SchemaRegistryDouble() as registry:
        bootstrap = cluster.up(timeout_s=180).bootstrap_servers
        fill(bootstrap, registry.url, args.records)
        read = [*kafkatop, "consume", "--bootstrap-server", bootstrap, "--topic", TOPIC, "--timeout", "60"]
        commands = {
            "kafkatop consume --value-format avro": [
                *read,
                "--value-format",
                "avro",
                "--schema-registry",
                registry.url,
            ],
            "kafkatop consume (plain)": read,
        }
        kcat = shutil.which("kcat")
        if kcat:
            commands["kcat -C -e (plain)"] = [kcat, "-C", "-e", "-q", "-b", bootstrap, "-t", TOPIC]
            if kcat_has_avro(kcat):
                commands["kcat -s value=avro"] = [
                    *commands["kcat -C -e (plain)"],
                    "-s",
                    "value=avro",
                    "-r",
                    registry.url,
                ]
            else:
                print("  kcat -s avro: not measured — this kcat is built without Avro (no libserdes)")
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, argv in commands.items():  # alternated: a drift of the machine is spread over all of them
                times[name].append(timed(argv))
        rate = {name: args.records / statistics.median(t) for name, t in times.items()}
        for name, t in times.items():
            print(f"  {name:<40} median {statistics.median(t):6.2f} s  {rate[name]:>10,.0f} records/s  "
                  f"(runs: {', '.join(f'{x:.2f}' for x in t)})")  # fmt: skip
        avro, plain = rate["kafkatop consume --value-format avro"], rate["kafkatop consume (plain)"]
        print(f"RESULT avro/plain throughput ratio: {avro / plain:.2f} (decoding every value costs "
              f"{(1 / avro - 1 / plain) * 1e6:.1f} µs a record)")  # fmt: skip
        if "kcat -s value=avro" in rate:
            print(f"RESULT avro: kafkatop/kcat ratio: {avro / rate['kcat -s value=avro']:.2f}")
        if "kcat -C -e (plain)" in rate:
            print(f"  plain: kafkatop/kcat ratio: {plain / rate['kcat -C -e (plain)']:.2f}")


if __name__ == "__main__":
    if not os.environ.get("KAFKA_HOME"):
        raise SystemExit("set KAFKA_HOME to an Apache Kafka install (e.g. /opt/kafka_2.13-4.1.0)")
    main()
