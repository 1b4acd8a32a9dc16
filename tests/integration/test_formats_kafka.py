"""Records in every schema format through a real Apache Kafka, their schemas in the Schema Registry TEST DOUBLE (no
real registry can run here): 10,000 Avro records written by confluent-kafka's own AvroSerializer, 1,000 Protobuf
records (a message class compiled now from tests/fixtures/formats/orders.proto by grpc_tools) by its
ProtobufSerializer, 1,000 JSON Schema records by its JSONSerializer, produced into Kafka, consumed back with a plain
confluent Consumer and decoded by SchemaCodec: the same dicts the serializers were given, with their schema ids and
subjects. And the other way: records SchemaCodec wrote from JSON, read by confluent-kafka's AvroDeserializer. Set
KAFKA_HOME to run."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.json_schema import JSONSerializer
from confluent_kafka.schema_registry.protobuf import ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from google.protobuf import json_format

from kafkatop.backends.model.formats import Decoded, FieldFormat, Format, RegistrySettings, TopicFormat
from kafkatop.backends.schemas.codec import SchemaCodec
from kafkatop.backends.schemas.proto_files import compile_proto, schema_from_set
from kafkatop.backends.schemas.registry import ConfluentRegistry
from tests.doubles.schema_registry import SchemaRegistryDouble
from tests.integration.test_real_kafka import KraftNode, create_topic

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(300)]

FORMATS = Path(__file__).resolve().parents[1] / "fixtures" / "formats"
PARTITIONS = 3


def order(i: int) -> dict[str, object]:
    """Every field set, to a value other than its default: as a reader of any of the three formats gets it back."""
    return {
        "id": 1 + i,
        "customer": {"id": 1 + i % 1000, "name": f"customer-{i % 1000}"},
        "items": [{"sku": f"sku-{i}-{n}", "quantity": 1 + n, "price": 0.5 + n} for n in range(1 + i % 3)],
        "total": 1.5 * (1 + i % 7),
        "status": ("PAID", "SHIPPED")[i % 2],
        "note": f"note {i}",
        "tags": {"batch": str(i // 100)},
    }


@pytest.fixture(scope="module")
def double() -> Iterator[SchemaRegistryDouble]:
    with SchemaRegistryDouble() as d:
        yield d


@pytest.fixture(scope="module")
def registry(double: SchemaRegistryDouble) -> Iterator[ConfluentRegistry]:
    r = ConfluentRegistry(RegistrySettings(double.url), timeout_s=10.0)
    yield r
    r.close()


@pytest.fixture(scope="module")
def client(double: SchemaRegistryDouble) -> Iterator[SchemaRegistryClient]:
    c = SchemaRegistryClient({"url": double.url})
    yield c
    c.close()


def produce(
    node: KraftNode, topic: str, count: int, serialize: Callable[[int, SerializationContext], bytes | None]
) -> None:
    create_topic(node, topic, PARTITIONS)
    producer = Producer({"bootstrap.servers": node.bootstrap, "linger.ms": 20})
    ctx = SerializationContext(topic, MessageField.VALUE)
    for i in range(count):
        producer.produce(topic, serialize(i, ctx), key=str(i).encode())
        producer.poll(0)
    assert producer.flush(60) == 0


def consume(node: KraftNode, topic: str, count: int) -> list[tuple[bytes, bytes]]:
    """Every record of the topic, (key, value), read by a plain consumer from the beginning of each partition."""
    consumer = Consumer(
        {"bootstrap.servers": node.bootstrap, "group.id": f"kafkatop-test-{topic}", "enable.auto.commit": False}
    )
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(PARTITIONS)])
    records: list[tuple[bytes, bytes]] = []
    deadline = time.monotonic() + 120
    try:
        while len(records) < count and time.monotonic() < deadline:
            for message in consumer.consume(num_messages=1000, timeout=1.0):
                assert message.error() is None, message.error()
                records.append((message.key() or b"", message.value() or b""))
    finally:
        consumer.close()
    assert len(records) == count
    return records


def consumed_by_kafkatop(node: KraftNode, topic: str, fmt: str, registry_url: str) -> dict[int, object]:
    """`kafkatop consume --value-format FMT --json`, as a user runs it: each record's decoded value by its key."""
    done = subprocess.run(
        [sys.executable, "-m", "kafkatop.tui.cli", "consume", "--bootstrap-server", node.bootstrap, "--topic", topic,
         "--value-format", fmt, "--key-format", "string", "--schema-registry", registry_url, "--json"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert all("value_schema_id" in line for line in lines)
    return {int(line["key"]): line["payload"] for line in lines}


def decoded_by_key(codec: SchemaCodec, topic: str, records: list[tuple[bytes, bytes]]) -> dict[int, Decoded]:
    started = time.perf_counter()
    decoded = {int(key): codec.decode(topic, "value", value) for key, value in records}
    rate = len(records) / (time.perf_counter() - started)
    print(f"{topic}: {len(records):,} records decoded at {rate:,.0f} records/s")  # noqa: T201 — a figure, -s shows it
    return decoded


def test_avro_records_of_confluents_serializer_read_back_as_given(
    kafka: KraftNode, registry: ConfluentRegistry, client: SchemaRegistryClient
) -> None:
    count = 10_000
    serializer = AvroSerializer(client, (FORMATS / "orders.avsc").read_text())
    produce(kafka, "orders-avro", count, lambda i, ctx: serializer(order(i), ctx))
    records = consume(kafka, "orders-avro", count)
    codec = SchemaCodec({"orders-avro": TopicFormat(value=FieldFormat(Format.AVRO))}, registry)
    decoded = decoded_by_key(codec, "orders-avro", records)
    assert {i: d.value for i, d in decoded.items()} == {i: order(i) for i in range(count)}
    assert {(d.schema_id, d.subject, d.version, d.error) for d in decoded.values()} == {
        (1, "orders-avro-value", 1, None)
    }
    auto = SchemaCodec({}, registry).decode("orders-avro", "value", records[0][1])
    assert auto.format is Format.AVRO and auto.value == order(int(records[0][0]))
    assert consumed_by_kafkatop(kafka, "orders-avro", "avro", registry.url) == {i: order(i) for i in range(count)}


def test_protobuf_records_of_confluents_serializer_read_back_as_given(
    kafka: KraftNode, registry: ConfluentRegistry, client: SchemaRegistryClient
) -> None:
    count = 1_000
    message_class = schema_from_set(compile_proto(FORMATS / "orders.proto"), None, "orders.proto").message_class
    serializer = ProtobufSerializer(message_class, client, {})
    produce(
        kafka, "orders-proto", count, lambda i, ctx: serializer(json_format.ParseDict(order(i), message_class()), ctx)
    )
    records = consume(kafka, "orders-proto", count)
    decoded = decoded_by_key(SchemaCodec({}, registry), "orders-proto", records)
    assert {i: d.value for i, d in decoded.items()} == {i: order(i) for i in range(count)}
    assert {(d.format, d.subject, d.error) for d in decoded.values()} == {(Format.PROTOBUF, "orders-proto-value", None)}
    assert consumed_by_kafkatop(kafka, "orders-proto", "protobuf", registry.url) == {i: order(i) for i in range(count)}


def test_json_schema_records_of_confluents_serializer_read_back_as_given(
    kafka: KraftNode, registry: ConfluentRegistry, client: SchemaRegistryClient
) -> None:
    count = 1_000
    serializer = JSONSerializer((FORMATS / "orders.schema.json").read_text(), client)
    produce(kafka, "orders-json", count, lambda i, ctx: serializer(order(i), ctx))
    records = consume(kafka, "orders-json", count)
    codec = SchemaCodec({"orders-json": TopicFormat(value=FieldFormat(Format.JSON_SCHEMA))}, registry)
    decoded = decoded_by_key(codec, "orders-json", records)
    assert {i: d.value for i, d in decoded.items()} == {i: order(i) for i in range(count)}
    assert {(d.format, d.subject, d.error) for d in decoded.values()} == {
        (Format.JSON_SCHEMA, "orders-json-value", None)
    }
    assert consumed_by_kafkatop(kafka, "orders-json", "json-schema", registry.url) == {
        i: order(i) for i in range(count)
    }


def test_records_the_codec_writes_are_read_by_confluents_deserializer(
    kafka: KraftNode, double: SchemaRegistryDouble, registry: ConfluentRegistry
) -> None:
    count = 1_000
    codec = SchemaCodec(
        {"orders-written": TopicFormat(value=FieldFormat(Format.AVRO, schema_file="orders.avsc"))}, registry, FORMATS
    )
    produce(
        kafka, "orders-written", count, lambda i, ctx: codec.encode("orders-written", "value", json.dumps(order(i)))
    )
    deserializer = AvroDeserializer(SchemaRegistryClient({"url": double.url}))
    read = {int(key): deserializer(value) for key, value in consume(kafka, "orders-written", count)}
    assert read == {i: order(i) for i in range(count)}
