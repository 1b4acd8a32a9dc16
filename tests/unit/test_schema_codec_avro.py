"""SchemaCodec on Avro, with bytes written by confluent-kafka's own AvroSerializer against the Schema Registry TEST
DOUBLE (no real registry can run here) and by fastavro: a record reads back as the dict the serializer was given,
logical types as the JSON codec.py documents, with its schema id, subject and version; what is not Avro for its
schema id is said, with the bytes; each schema id is asked for once. Writing from JSON: registered under the topic's
subject from a schema file, a subject's latest version, or a bare record without a registry; a value that does not fit
names its field."""

from __future__ import annotations

import datetime as dt
import io
import json
import uuid
from decimal import Decimal
from pathlib import Path

import fastavro
import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from kafkatop.backends.model.formats import FieldFormat, Format, FormatError, RegistrySettings, TopicFormat
from kafkatop.backends.schemas.codec import SchemaCodec
from kafkatop.backends.schemas.registry import ConfluentRegistry
from tests.doubles.schema_registry import SchemaRegistryDouble

FORMATS = Path(__file__).resolve().parents[1] / "fixtures" / "formats"
ORDERS = (FORMATS / "orders.avsc").read_text()
LOGICAL = json.dumps(
    {
        "type": "record",
        "name": "Payment",
        "fields": [
            {"name": "raw", "type": "bytes"},
            {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
            {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
            {"name": "day", "type": {"type": "int", "logicalType": "date"}},
            {"name": "ref", "type": {"type": "string", "logicalType": "uuid"}},
            {"name": "maybe", "type": ["null", "bytes"], "default": None},
        ],
    }
)


def order(i: int) -> dict[str, object]:
    return {
        "id": 10_000_000_000 + i,
        "customer": {"id": i, "name": f"customer-{i}"},
        "items": [{"sku": f"sku-{i}", "quantity": 1 + i % 3, "price": 9.99}],
        "total": 9.99 * (1 + i % 3),
        "status": ("NEW", "PAID", "SHIPPED")[i % 3],
        "note": None if i % 2 else "gift",
        "tags": {"i": str(i)},
    }


def serialize(client: SchemaRegistryClient, schema: str, value: object, topic: str = "orders") -> bytes:
    data = AvroSerializer(client, schema)(value, SerializationContext(topic, MessageField.VALUE))
    assert data is not None
    return data


def avro_codec(registry: ConfluentRegistry | None, **field: str) -> SchemaCodec:
    return SchemaCodec({"orders": TopicFormat(value=FieldFormat(Format.AVRO, **field))}, registry, FORMATS)  # type: ignore[arg-type]


def test_wire_records_read_as_the_dicts_the_serializer_was_given(
    double: SchemaRegistryDouble, registry: ConfluentRegistry, client: SchemaRegistryClient
) -> None:
    records = [order(i) for i in range(100)]
    data = [serialize(client, ORDERS, r) for r in records]
    for codec in (SchemaCodec({}, registry), avro_codec(registry)):  # auto says what it found: avro
        decoded = [codec.decode("orders", "value", d) for d in data]
        assert [d.value for d in decoded] == records
        first = decoded[0]
        assert (first.format, first.structured, first.error, first.note) == (Format.AVRO, True, None, None)
        assert (first.schema_id, first.subject, first.version) == (1, "orders-value", 1)
        assert first.text == json.dumps(records[0], indent=2)
    assert double.count("GET", "/schemas/ids/1") == 1  # one request for 200 records (the registry client's cache)
    assert double.count("GET", "/schemas/ids/1/versions") == 2  # who holds it: once per codec


def test_logical_types_read_as_documented_and_write_back(
    registry: ConfluentRegistry, client: SchemaRegistryClient
) -> None:
    ref = uuid.UUID("12345678-1234-5678-1234-567812345678")
    given = {
        "raw": b"\x00\xffok",
        "amount": Decimal("1234.50"),
        "ref": str(ref),
        "maybe": b"\x01",
        "at": dt.datetime(2024, 5, 1, 12, 0, 0, 123000, tzinfo=dt.UTC),
        "day": dt.date(2024, 5, 1),
    }
    data = serialize(client, LOGICAL, given, "payments")
    d = SchemaCodec({}, registry).decode("payments", "value", data)
    assert d.value == {
        "raw": "AP9vaw==",
        "amount": "1234.50",
        "at": 1714564800123,  # the number written, as kafka-avro-console-consumer prints it
        "day": 19844,
        "ref": str(ref),
        "maybe": "AQ==",
    }
    codec = SchemaCodec({"payments": TopicFormat(value=FieldFormat(Format.AVRO, subject="payments-value"))}, registry)
    assert codec.encode("payments", "value", json.dumps(d.value)) == data  # the same bytes back
    as_text = {**(d.value if isinstance(d.value, dict) else {}), "amount": 1234.5,
               "at": "2024-05-01T12:00:00.123+00:00", "day": "2024-05-01"}  # fmt: skip
    assert codec.encode("payments", "value", json.dumps(as_text)) == data  # ISO 8601 text is taken too


def test_what_is_not_avro_for_its_schema_id_is_said_with_the_bytes(
    double: SchemaRegistryDouble, registry: ConfluentRegistry, client: SchemaRegistryClient
) -> None:
    good = serialize(client, ORDERS, order(1))
    codec = SchemaCodec({}, registry)
    for data, said in (
        (good[:5] + b"\xff\xff\xff", "not Avro for schema id 1: "),
        (good + b"\x00", "not Avro for schema id 1: 1 bytes left after the record"),
        (b"\x00\x00\x00\x00\x63" + good[5:], "schema id 99: schema registry http://"),
    ):
        d = codec.decode("orders", "value", data)
        assert d.error is not None and d.error.startswith(said), d.error
        assert d.value is None and d.text.startswith("00000000  00 00 00 00")
    codec.decode("orders", "value", b"\x00\x00\x00\x00\x63" + good[5:])
    assert double.count("GET", "/schemas/ids/99") == 1  # a missing id is not asked for again at once
    down = avro_codec(ConfluentRegistry(RegistrySettings("http://127.0.0.1:9"), timeout_s=1.0))
    d = down.decode("orders", "value", good)
    assert d.error is not None and "schema id 1: schema registry http://127.0.0.1:9: " in d.error


def test_bare_records_read_by_the_schema_file(
    tmp_path: Path, registry: ConfluentRegistry, client: SchemaRegistryClient
) -> None:
    parsed = fastavro.parse_schema(json.loads(ORDERS))
    bare = io.BytesIO()
    fastavro.schemaless_writer(bare, parsed, order(0))
    d = avro_codec(None, schema_file="orders.avsc").decode("orders", "value", bare.getvalue())
    assert (d.value, d.error, d.note, d.schema_id) == (order(0), None, None, None)
    wire = serialize(client, ORDERS, order(4))
    d = avro_codec(None, schema_file="orders.avsc").decode("orders", "value", wire)
    assert (d.value, d.schema_id) == (order(4), 1)
    assert d.note == "schema id 1 (no registry configured): read with orders.avsc"
    # A bare record whose first bytes look like the wire format (schema id 120): read bare, with or without registry.
    zeros = {"type": "record", "name": "Z", "fields": [{"name": n, "type": "int"} for n in "abcde"]}
    (tmp_path / "z.avsc").write_text(json.dumps(zeros))
    record = {"a": 0, "b": 0, "c": 0, "d": 0, "e": 60}
    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(zeros), record)
    assert out.getvalue()[:5] == b"\x00\x00\x00\x00\x78"
    for with_registry in (registry, None):
        d = avro_codec(with_registry, schema_file=str(tmp_path / "z.avsc")).decode("orders", "value", out.getvalue())
        assert (d.value, d.error, d.note) == (record, None, None)


def test_writing_a_schema_file_registers_it_under_the_topics_subject(
    double: SchemaRegistryDouble, registry: ConfluentRegistry, client: SchemaRegistryClient
) -> None:
    codec = avro_codec(registry, schema_file="orders.avsc")
    data = codec.encode("orders", "value", json.dumps(order(3)))
    assert data == serialize(client, ORDERS, order(3))  # what confluent's serializer writes, byte for byte
    assert client.get_subjects() == ["orders-value"]
    assert SchemaCodec({}, registry).decode("orders", "value", data).value == order(3)
    key_codec = SchemaCodec(
        {"orders": TopicFormat(key=FieldFormat(Format.AVRO, schema_file="orders.avsc"))}, registry, FORMATS
    )
    key_codec.encode("orders", "key", json.dumps(order(5)))
    assert client.get_subjects() == ["orders-key", "orders-value"]


def test_writing_by_subject_uses_its_latest_version_and_registers_nothing(
    double: SchemaRegistryDouble, registry: ConfluentRegistry
) -> None:
    double.register("shared-orders", ORDERS)
    codec = avro_codec(registry, subject="shared-orders")
    data = codec.encode("orders", "value", json.dumps(order(2)))
    assert data[:5] == b"\x00\x00\x00\x00\x01"
    assert double.count("POST", "/subjects/shared-orders/versions") == 0
    assert SchemaCodec({}, registry).decode("orders", "value", data).value == order(2)
    with pytest.raises(FormatError, match="Subject 'orders-value' not found"):
        avro_codec(registry).encode("orders", "value", json.dumps(order(2)))  # no file, no subject: the topic's
    as_json_schema = SchemaCodec(
        {"orders": TopicFormat(value=FieldFormat(Format.JSON_SCHEMA, subject="shared-orders"))}, registry
    )
    with pytest.raises(FormatError, match=r"\(version 1, schema id 1\) holds an Avro schema, not json-schema$"):
        as_json_schema.encode("orders", "value", json.dumps(order(2)))


def test_writing_without_a_registry_is_a_bare_record() -> None:
    data = avro_codec(None, schema_file="orders.avsc").encode("orders", "value", json.dumps(order(6)))
    assert fastavro.schemaless_reader(io.BytesIO(data), fastavro.parse_schema(json.loads(ORDERS)), None) == order(6)
    with pytest.raises(FormatError, match="needs a schema registry"):
        avro_codec(None, subject="orders-value").encode("orders", "value", "{}")


def test_a_value_that_does_not_fit_names_its_field() -> None:
    codec = avro_codec(None, schema_file="orders.avsc")

    def refused(value: object) -> str:
        with pytest.raises(FormatError) as caught:
            codec.encode("orders", "value", json.dumps(value))
        return str(caught.value)

    assert refused({**order(1), "total": "lots"}).endswith('field kafkatop.test.Order.total: "lots" is not "double"')
    assert "field kafkatop.test.Customer.name: 7 is not" in refused({**order(1), "customer": {"id": 1, "name": 7}})
    assert "field kafkatop.test.Order.status" in refused({**order(1), "status": "LOST"})
    with pytest.raises(FormatError, match="^not JSON: "):
        codec.encode("orders", "value", "{'id': 1}")


def test_avro_json_encoding_is_read_too() -> None:
    codec = avro_codec(None, schema_file="orders.avsc")
    tagged = {**order(0), "note": {"string": "gift"}}  # a union as Avro's JSON encoding writes it
    data = codec.encode("orders", "value", json.dumps(tagged))
    assert codec.decode("orders", "value", data).value == order(0)
