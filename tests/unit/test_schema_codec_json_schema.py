"""SchemaCodec on JSON Schema, with bytes written by confluent-kafka's own JSONSerializer against the Schema Registry
TEST DOUBLE (no real registry can run here): the wire format's header stripped, the JSON read back as the dict the
serializer was given, checked against its schema (what does not fit is still shown, and said by its path); bare JSON
checked against a schema file; writing from JSON as the serializer writes, or as typed without a registry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.json_schema import JSONSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from kafkatop.backends.model.formats import FieldFormat, Format, FormatError, TopicFormat
from kafkatop.backends.schemas.codec import SchemaCodec
from kafkatop.backends.schemas.registry import ConfluentRegistry
from tests.doubles.schema_registry import SchemaRegistryDouble

FORMATS = Path(__file__).resolve().parents[1] / "fixtures" / "formats"
ORDERS = (FORMATS / "orders.schema.json").read_text()


def order(i: int) -> dict[str, object]:
    return {
        "id": i,
        "customer": {"id": i, "name": f"customer-{i}"},
        "items": [{"sku": f"sku-{i}", "quantity": 1 + i % 3, "price": 9.5}],
        "total": 9.5 * (1 + i % 3),
        "status": ("NEW", "PAID", "SHIPPED")[i % 3],
        "note": None,
        "tags": {"i": str(i)},
    }


def serialize(client: SchemaRegistryClient, value: object, validate: bool = True) -> bytes:
    serializer = JSONSerializer(ORDERS, client, conf={"validate": validate})
    data = serializer(value, SerializationContext("orders", MessageField.VALUE))
    assert data is not None
    return data


def json_codec(registry: ConfluentRegistry | None, **field: str) -> SchemaCodec:
    return SchemaCodec({"orders": TopicFormat(value=FieldFormat(Format.JSON_SCHEMA, **field))}, registry, FORMATS)  # type: ignore[arg-type]


def test_wire_records_read_as_the_dicts_the_serializer_was_given(
    double: SchemaRegistryDouble, registry: ConfluentRegistry, client: SchemaRegistryClient
) -> None:
    data = [serialize(client, order(i)) for i in range(30)]
    for codec in (SchemaCodec({}, registry), json_codec(registry)):
        decoded = [codec.decode("orders", "value", d) for d in data]
        assert [d.value for d in decoded] == [order(i) for i in range(30)]
        assert {(d.format, d.structured, d.schema_id, d.subject, d.version, d.error) for d in decoded} == {
            (Format.JSON_SCHEMA, True, 1, "orders-value", 1, None)
        }
    assert double.count("GET", "/schemas/ids/1") == 1


def test_what_does_not_fit_its_schema_is_shown_and_said_by_its_path(
    registry: ConfluentRegistry, client: SchemaRegistryClient
) -> None:
    wrong = {**order(1), "items": [{"sku": "x", "quantity": 0, "price": 1.0}]}
    d = SchemaCodec({}, registry).decode("orders", "value", serialize(client, wrong, validate=False))
    assert d.value == wrong and d.structured
    assert d.error == "does not match schema id 1: $.items[0].quantity: 0 is less than the minimum of 1"
    said_avro = SchemaCodec({"orders": TopicFormat(value=FieldFormat(Format.AVRO))}, registry)
    d = said_avro.decode("orders", "value", serialize(client, order(1)))  # the registry knows better
    assert (d.format, d.value, d.note) == (Format.JSON_SCHEMA, order(1), "schema id 1 is json-schema, not avro")
    broken = SchemaCodec({}, registry).decode("orders", "value", serialize(client, order(1))[:-1])
    assert broken.error is not None and broken.error.startswith("not JSON Schema for schema id 1: ")


def test_bare_json_checked_against_the_schema_file(client: SchemaRegistryClient) -> None:
    codec = json_codec(None, schema_file="orders.schema.json")
    d = codec.decode("orders", "value", json.dumps(order(2)).encode())
    assert (d.value, d.error) == (order(2), None)
    d = codec.decode("orders", "value", json.dumps({**order(2), "extra": 1}).encode())
    assert d.error is not None and d.error.startswith("does not match orders.schema.json: $: Additional properties")
    d = codec.decode("orders", "value", serialize(client, order(3)))
    assert (d.value, d.schema_id, d.note) == (
        order(3),
        1,
        "schema id 1 (no registry configured): read with orders.schema.json",
    )


def test_writing_as_the_serializer_writes_or_as_typed(
    double: SchemaRegistryDouble, registry: ConfluentRegistry, client: SchemaRegistryClient
) -> None:
    text = json.dumps(order(4))
    data = json_codec(registry, schema_file="orders.schema.json").encode("orders", "value", text)
    assert data == serialize(client, order(4))
    registered = double.count("POST", "/subjects/orders-value/versions")
    by_subject = json_codec(registry, subject="orders-value").encode("orders", "value", text)
    assert by_subject == data and double.count("POST", "/subjects/orders-value/versions") == registered
    typed = '{"id": 4, "customer": {"id": 4, "name": "c"}, "items": [], "total": 0, "status": "NEW"}'
    assert json_codec(None, schema_file="orders.schema.json").encode("orders", "value", typed) == typed.encode()


def test_a_value_that_does_not_fit_names_its_path(registry: ConfluentRegistry) -> None:
    for codec in (json_codec(None, schema_file="orders.schema.json"), json_codec(registry, subject="none")):
        with pytest.raises(FormatError) as caught:
            codec.encode("orders", "value", json.dumps({**order(1), "customer": {"id": "one", "name": "c"}}))
        if codec.registry is None:
            assert str(caught.value).endswith("orders.schema.json: $.customer.id: 'one' is not of type 'integer'")
        else:
            assert "Subject 'none' not found" in str(caught.value)
