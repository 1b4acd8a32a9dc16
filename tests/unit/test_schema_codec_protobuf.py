"""SchemaCodec on Protobuf, with message classes compiled at test time from .proto files (grpc_tools' protoc) and
bytes written by confluent-kafka's own ProtobufSerializer against the Schema Registry TEST DOUBLE (no real registry
can run here): a record reads back as json_format's dict of what the serializer was given (and parses back into the
same message), whichever message of its file it is (the wire format's message indexes); bare messages read by a
.proto or a descriptor set; writing from JSON as the serializer writes, or bare without a registry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.protobuf import ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from google.protobuf import json_format
from google.protobuf.message import Message

from kafkatop.backends.model.formats import FieldFormat, Format, FormatError, TopicFormat
from kafkatop.backends.schemas.codec import SchemaCodec
from kafkatop.backends.schemas.proto_files import ProtoSchema, compile_proto, schema_from_set
from kafkatop.backends.schemas.registry import ConfluentRegistry
from tests.doubles.schema_registry import SchemaRegistryDouble

FORMATS = Path(__file__).resolve().parents[1] / "fixtures" / "formats"
EVENTS = """syntax = "proto3";
package shop.events;
import "google/protobuf/timestamp.proto";

message Envelope {
  message Inner { string s = 1; }
  Inner inner = 1;
}
message Audit {
  enum Kind { CREATED = 0; DELETED = 1; }
  int64 big = 1;
  bytes raw = 2;
  Kind kind = 3;
  google.protobuf.Timestamp at = 4;
  repeated int32 counts = 5;
}
"""


def order(i: int) -> dict[str, object]:
    return {
        "id": i,
        "customer": {"id": i, "name": f"customer-{i}"},
        "items": [{"sku": f"sku-{i}", "quantity": 1 + i % 3, "price": 9.5}],
        "total": 9.5 * (1 + i % 3),
        "status": ("NEW", "PAID", "SHIPPED")[i % 3],
        "note": "gift",
        "tags": {"i": str(i)},
    }


@pytest.fixture(scope="module")
def orders() -> ProtoSchema:
    return schema_from_set(compile_proto(FORMATS / "orders.proto"), None, "orders.proto")


@pytest.fixture(scope="module")
def events(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("protos") / "events.proto"
    path.write_text(EVENTS)
    return path


def serialize(client: SchemaRegistryClient, message: Message, topic: str) -> bytes:
    data = ProtobufSerializer(type(message), client, {})(message, SerializationContext(topic, MessageField.VALUE))
    assert data is not None
    return data


def as_dict(message: Message) -> object:
    return json_format.MessageToDict(
        message,
        preserving_proto_field_name=True,
        always_print_fields_with_no_presence=True,
        unquote_int64_if_possible=True,
    )


def proto_codec(registry: ConfluentRegistry | None, topic: str = "orders", **field: str) -> SchemaCodec:
    return SchemaCodec({topic: TopicFormat(value=FieldFormat(Format.PROTOBUF, **field))}, registry, FORMATS)  # type: ignore[arg-type]


def test_wire_records_read_as_the_messages_the_serializer_was_given(
    double: SchemaRegistryDouble, registry: ConfluentRegistry, client: SchemaRegistryClient, orders: ProtoSchema
) -> None:
    messages = [json_format.ParseDict(order(i), orders.message_class()) for i in range(50)]
    data = [serialize(client, m, "orders") for m in messages]
    for codec in (SchemaCodec({}, registry), proto_codec(registry)):
        decoded = [codec.decode("orders", "value", d) for d in data]
        assert [d.value for d in decoded] == [order(i) for i in range(50)]  # every field set: the dict given
        assert [json_format.ParseDict(d.value, orders.message_class()) for d in decoded] == messages
        assert {(d.format, d.schema_id, d.subject, d.version, d.error) for d in decoded} == {
            (Format.PROTOBUF, 1, "orders-value", 1, None)
        }
    assert double.count("GET", "/schemas/ids/1") == 1
    zero = SchemaCodec({}, registry).decode("orders", "value", serialize(client, orders.message_class(), "orders"))
    assert zero.value == {"id": 0, "items": [], "total": 0.0, "status": "NEW", "tags": {}}  # zeros shown; unset
    # message and optional fields (customer, note) are not: they have presence, and are absent


def test_the_message_indexes_pick_the_message_of_the_file(
    registry: ConfluentRegistry, client: SchemaRegistryClient, events: Path
) -> None:
    files = compile_proto(events)
    audit = schema_from_set(files, "Audit", "events.proto")
    inner = schema_from_set(files, "shop.events.Envelope.Inner", "events.proto")
    given = json_format.ParseDict(
        {"big": str(2**60 + 1), "raw": "AP8=", "kind": "DELETED", "at": "2024-05-01T12:00:00.123Z", "counts": [1, 2]},
        audit.message_class(),
    )
    data = serialize(client, given, "audits")
    assert data[5:6] == b"\x02"  # index [1], zigzag: the second top-level message
    d = SchemaCodec({}, registry).decode("audits", "value", data)
    assert d.value == {
        "big": str(2**60 + 1),
        "raw": "AP8=",
        "kind": "DELETED",
        "at": "2024-05-01T12:00:00.123Z",
        "counts": [1, 2],
    }  # int64 beyond 2^53 stays a string, as ProtoJSON writes it
    small = serialize(client, json_format.ParseDict({"big": "42"}, audit.message_class()), "audits")
    assert SchemaCodec({}, registry).decode("audits", "value", small).value["big"] == 42  # type: ignore[index]
    nested = serialize(client, json_format.ParseDict({"s": "hi"}, inner.message_class()), "inners")
    assert nested[5:7] == b"\x04\x00"  # [0, 0]: a count of 2, then 0 and 0
    assert SchemaCodec({}, registry).decode("inners", "value", nested).value == {"s": "hi"}


def test_what_is_not_the_message_is_said_with_the_bytes(
    registry: ConfluentRegistry, client: SchemaRegistryClient, orders: ProtoSchema
) -> None:
    data = serialize(client, json_format.ParseDict(order(1), orders.message_class()), "orders")
    d = SchemaCodec({}, registry).decode("orders", "value", data[:6] + b"\xff\xff\xff")
    assert d.error is not None and d.error.startswith("not Protobuf for schema id 1: not this message: ")
    assert d.value is None and d.text.startswith("00000000  00 00 00 00 01")
    d = SchemaCodec({}, registry).decode("orders", "value", data[:5] + b"\x02\x0e" + data[6:])  # message 7 of 1
    assert d.error is not None and d.error.startswith("not Protobuf for schema id 1: ")


def test_bare_messages_read_by_a_proto_or_a_descriptor_set(
    tmp_path: Path, client: SchemaRegistryClient, orders: ProtoSchema, events: Path
) -> None:
    message = json_format.ParseDict(order(3), orders.message_class())
    bare = message.SerializeToString()
    d = proto_codec(None, schema_file="orders.proto").decode("orders", "value", bare)
    assert (d.value, d.error, d.schema_id) == (order(3), None, None)
    (tmp_path / "events.desc").write_bytes(compile_proto(events).SerializeToString())
    audit = schema_from_set(compile_proto(events), "Audit", "x")
    codec = proto_codec(None, "audits", schema_file=str(tmp_path / "events.desc"), message_type="Audit")
    d = codec.decode(
        "audits", "value", json_format.ParseDict({"counts": [7]}, audit.message_class()).SerializeToString()
    )
    assert d.value == {"big": 0, "raw": "", "kind": "CREATED", "counts": [7]}
    wire = serialize(client, message, "orders")
    d = proto_codec(None, schema_file="orders.proto").decode("orders", "value", wire)
    assert (d.value, d.schema_id) == (order(3), 1)
    assert d.note == "schema id 1 (no registry configured): read with orders.proto"


def test_writing_registers_the_file_or_uses_the_subjects_latest(
    double: SchemaRegistryDouble, registry: ConfluentRegistry, client: SchemaRegistryClient, orders: ProtoSchema
) -> None:
    text = json.dumps(order(4))
    data = proto_codec(registry, schema_file="orders.proto").encode("orders", "value", text)
    assert data == serialize(client, json_format.Parse(text, orders.message_class()), "orders")  # byte for byte
    assert client.get_subjects() == ["orders-value"]
    latest = proto_codec(registry, "copy", subject="orders-value").encode("copy", "value", text)
    assert latest == data and double.count("POST", "/subjects/copy-value/versions") == 0
    by_name = proto_codec(registry, "copy", subject="orders-value", message_type="kafkatop.test.Order")
    assert by_name.encode("copy", "value", text) == data
    assert SchemaCodec({}, registry).decode("orders", "value", data).value == order(4)
    bare = proto_codec(None, schema_file="orders.proto").encode("orders", "value", text)
    assert orders.message_class().FromString(bare) == json_format.Parse(text, orders.message_class())


def test_a_value_that_does_not_fit_names_its_field() -> None:
    codec = proto_codec(None, schema_file="orders.proto")
    with pytest.raises(FormatError, match=r"Failed to parse total field: .* at Order\.total\.$"):
        codec.encode("orders", "value", json.dumps({"total": "lots"}))
    with pytest.raises(FormatError, match='has no field named "colour"'):
        codec.encode("orders", "value", json.dumps({"colour": "red"}))
