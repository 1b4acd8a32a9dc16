"""Benchmark: the browser's search with a codec (decoded values, paths) against the search of the bytes alone.

Prints figures (medians of --runs); asserts nothing about timings. Run from the repository root:

    KAFKA_HOME=/opt/kafka_2.13-4.1.0 .venv/bin/python bench/search_decoded.py [--records 200000] [--runs 3]
        [--bootstrap-server H:P]

The cluster: a one-node KRaft lab from $KAFKA_HOME on free ports (deleted afterwards), or an attached cluster
(--bootstrap-server: topics of its own, named with the time, are created there and left). One partition holds
--records JSON values (~90 B: an order with a nested customer, an array, a number) with a key. MessageBrowser.search
reads the whole partition each time, matching:
  - raw:     no codec, a text no record holds (the bytes searched: today's search);
  - decoded: the real SchemaCodec (auto, no registry), the same text: JSON's bytes are its text, so nothing is
             decoded (the codec's decode calls are counted to show it);
  - path:    the codec, `.customer.id == -1`: every value parsed (json.loads by the search itself: JSON's bytes are
             its text, the codec is asked only for the wire format; its decode calls counted);
  - path without a codec: the same, as auto reads bytes not in the wire format.
Then the same values in Avro (Confluent's wire format, written by confluent-kafka's AvroSerializer through the
Schema Registry test double of the tests, tests/doubles/schema_registry.py: no real registry runs here), where every
record the bytes do not match must be decoded: raw, decoded text, path. Records/s of each, and each against raw.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.* as a file too
from bench.common.lab import kraft_lab
from bench.common.machine import load
from kafkatop.backends.kafka.records.browser import MessageBrowser
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.formats import Decoded, RecordField, RegistrySettings
from kafkatop.backends.model.messages import SearchRequest
from kafkatop.backends.schemas.codec import SchemaCodec
from kafkatop.backends.schemas.registry import ConfluentRegistry
from tests.doubles.schema_registry import SchemaRegistryDouble

TOPIC = f"bench-search-decoded-{int(time.time())}"  # an attached cluster keeps the topics of earlier runs
AVRO_TOPIC = f"{TOPIC}-avro"
ORDER = {
    "type": "record", "name": "Order", "fields": [
        {"name": "order", "type": "long"},
        {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [
            {"name": "id", "type": "long"}, {"name": "name", "type": "string"}]}},
        {"name": "items", "type": {"type": "array", "items": "string"}}, {"name": "qty", "type": "int"},
    ],
}  # fmt: skip
MISSING = "no-record-holds-this"


class Counted(SchemaCodec):
    """The real codec, its decodes counted."""

    decodes = 0

    def decode(self, topic: str, which: RecordField, data: bytes | None) -> Decoded:
        Counted.decodes += 1
        return super().decode(topic, which, data)


@contextmanager
def cluster(bootstrap: str | None) -> Iterator[str]:
    if bootstrap is not None:
        yield bootstrap
        return
    with kraft_lab("search-decoded", brokers=1) as lab:
        yield lab.up(timeout_s=180).bootstrap_servers


def fill(bootstrap: str, records: int, topic: str, serialize: AvroSerializer | None = None) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)], request_timeout=30)[topic].result(timeout=60)
    context = SerializationContext(topic, MessageField.VALUE)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 50, "batch.size": 1_000_000,
                         "queue.buffering.max.messages": 1_000_000, "compression.type": "lz4"})  # fmt: skip
    began = time.monotonic()
    for i in range(records):
        value = {"order": i, "customer": {"id": i % 9973, "name": f"c-{i % 9973}"}, "items": ["book"], "qty": i % 5}
        data = json.dumps(value).encode() if serialize is None else serialize(value, context)
        while True:
            try:
                producer.produce(topic, data, key=f"c-{i % 9973}".encode(), partition=0)
                break
            except BufferError:
                producer.poll(0.05)
    assert producer.flush(120) == 0, "records left unsent"
    print(f"filled {topic} with {records:,} records in {time.monotonic() - began:.1f} s", flush=True)


def rate(browser: MessageBrowser, topic: str, text: str, records: int) -> float:
    done = browser.search(SearchRequest(topic, text), lambda _: None, lambda: False)
    assert done.error is None and done.matches == 0 and done.scanned == records, done
    return done.records_per_s


def measure(cases: dict[str, tuple[MessageBrowser, str, str]], records: int, runs: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    for name, (browser, topic, text) in cases.items():
        Counted.decodes = 0
        figures[name] = statistics.median(rate(browser, topic, text, records) for _ in range(runs))
        decodes = Counted.decodes // runs
        print(f"  {name:<32} {figures[name]:>10,.0f} records/s  ({decodes:,} decodes a search)", flush=True)
    raw = next(iter(figures.values()))
    print("  against raw: " + ", ".join(f"{name} {value / raw:.2f}×" for name, value in list(figures.items())[1:]))
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bootstrap-server", default=None)
    args = ap.parse_args()
    print(f"search_decoded: {args.records:,} records, {args.runs} runs each, {load()}")
    with cluster(args.bootstrap_server) as bootstrap, SchemaRegistryDouble() as double:
        serialize = AvroSerializer(SchemaRegistryClient({"url": double.url}), json.dumps(ORDER))
        fill(bootstrap, args.records, TOPIC)
        fill(bootstrap, args.records, AVRO_TOPIC, serialize)
        connection = KafkaConnection.parse(bootstrap)
        registry = ConfluentRegistry(RegistrySettings(double.url), timeout_s=10)
        plain = MessageBrowser(connection)
        decoding = MessageBrowser(connection, codec=Counted({}, registry))
        path = ".customer.id == -1"
        try:
            rate(plain, TOPIC, MISSING, args.records)  # warm: the consumer connected, the log in the page cache
            print("JSON values:")
            measure({"raw (bytes, no codec)": (plain, TOPIC, MISSING),
                     "decoded (codec, text)": (decoding, TOPIC, MISSING),
                     "path (codec)": (decoding, TOPIC, path), "path (no codec)": (plain, TOPIC, path)},
                    args.records, args.runs)  # fmt: skip
            print("Avro values (wire format):")
            measure({"raw (bytes, no codec)": (plain, AVRO_TOPIC, MISSING),
                     "decoded (codec, text)": (decoding, AVRO_TOPIC, MISSING),
                     "path (codec)": (decoding, AVRO_TOPIC, path)}, args.records, args.runs)  # fmt: skip
        finally:
            plain.close()
            decoding.close()
            registry.close()


if __name__ == "__main__":
    main()
