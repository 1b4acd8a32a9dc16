"""The Schema Registry TEST DOUBLE (tests/doubles/schema_registry.py) against confluent-kafka's own
SchemaRegistryClient and serializers: what they send, it answers as Confluent's registry does (ids, versions,
lookups, compatibility levels, deletes, Confluent's error codes and HTTP statuses, the Protobuf `format=serialized`
form, basic auth), and it counts the requests. No real registry can run here: every test names the double."""

from __future__ import annotations

import base64
import json
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient, SchemaRegistryError
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.protobuf import ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from google.protobuf import descriptor_pb2, struct_pb2

from tests.doubles.schema_registry import CONTENT_TYPE, PASSWORD_VARIABLE, SchemaRegistryDouble

ROOT = Path(__file__).resolve().parents[2]
ORDERS = (ROOT / "tests" / "fixtures" / "formats" / "orders.avsc").read_text()
V1 = json.dumps({"type": "record", "name": "R", "fields": [{"name": "a", "type": "int"}]})
V2 = json.dumps(
    {
        "type": "record",
        "name": "R",
        "fields": [{"name": "a", "type": "int"}, {"name": "b", "type": "string", "default": ""}],
    }
)
NO_DEFAULT = json.dumps(
    {"type": "record", "name": "R", "fields": [{"name": "a", "type": "int"}, {"name": "c", "type": "string"}]}
)


@pytest.fixture
def double() -> Iterator[SchemaRegistryDouble]:
    with SchemaRegistryDouble() as d:
        yield d


@pytest.fixture
def client(double: SchemaRegistryDouble) -> Iterator[SchemaRegistryClient]:
    c = SchemaRegistryClient({"url": double.url, "max.retries": 0})
    yield c
    c.close()


def refused(call: object, *args: object) -> SchemaRegistryError:
    with pytest.raises(SchemaRegistryError) as caught:
        call(*args)  # type: ignore[operator]
    return caught.value


def test_double_gives_one_id_per_schema_and_versions_per_subject(
    double: SchemaRegistryDouble, client: SchemaRegistryClient
) -> None:
    first = client.register_schema("a-value", Schema(V1, "AVRO"))
    assert client.register_schema("a-value", Schema(" " + V1 + "\n", "AVRO")) == first  # the same schema: no version
    assert client.register_schema("b-value", Schema(V1, "AVRO")) == first  # global ids: the same schema elsewhere
    second = client.register_schema("a-value", Schema(V2, "AVRO"))
    assert second != first
    assert client.get_subjects() == ["a-value", "b-value"]
    assert client.get_versions("a-value") == [1, 2]
    latest = client.get_latest_version("a-value")
    assert (latest.subject, latest.version, latest.schema_id, json.loads(latest.schema.schema_str or "")) == (
        "a-value",
        2,
        second,
        json.loads(V2),
    )
    assert latest.schema.schema_type == "AVRO"
    assert client.get_version("a-value", 1).schema_id == first
    assert json.loads(client.get_schema(first).schema_str or "") == json.loads(V1)
    holders = {(v.subject, v.version) for v in client.get_schema_versions(first)}
    assert holders == {("a-value", 1), ("b-value", 1)}
    assert sorted(client.get_subjects_by_schema_id(first)) == ["a-value", "b-value"]
    found = client.lookup_schema("a-value", Schema(V2, "AVRO"))
    assert (found.schema_id, found.version) == (second, 2)


def test_double_answers_confluents_error_codes_and_statuses(
    double: SchemaRegistryDouble, client: SchemaRegistryClient
) -> None:
    e = refused(client.get_versions, "nope")
    assert (e.http_status_code, e.error_code, e.error_message) == (404, 40401, "Subject 'nope' not found.")
    client.register_schema("s", Schema(V1, "AVRO"))
    e = refused(client.get_version, "s", 7)
    assert (e.http_status_code, e.error_code, e.error_message) == (404, 40402, "Version 7 not found.")
    e = refused(client.get_schema, 99)
    assert (e.http_status_code, e.error_code) == (404, 40403)
    e = refused(client.lookup_schema, "s", Schema(V2, "AVRO"))
    assert (e.http_status_code, e.error_code) == (404, 40403)
    e = refused(client.register_schema, "s", Schema('{"type": "record"}', "AVRO"))
    assert (e.http_status_code, e.error_code) == (422, 42201)
    e = refused(client.register_schema, "s", Schema(NO_DEFAULT, "AVRO"))  # BACKWARD: a new field needs a default
    assert (e.http_status_code, e.error_code) == (409, 409)
    assert "READER_FIELD_MISSING_DEFAULT_VALUE" in e.error_message and "'c'" in e.error_message
    e = refused(client.set_compatibility, None, "SIDEWAYS")
    assert (e.http_status_code, e.error_code) == (422, 42203)
    with urllib.request.urlopen(double.url + "/subjects") as answer:  # noqa: S310 — the double's http URL
        assert answer.headers["Content-Type"] == CONTENT_TYPE
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(double.url + "/no/such/path")  # noqa: S310
    assert json.loads(caught.value.read()) == {"error_code": 404, "message": "HTTP 404 Not Found"}


def test_double_keeps_compatibility_levels_as_confluent_does(client: SchemaRegistryClient) -> None:
    assert client.get_compatibility() == "BACKWARD"
    client.register_schema("s", Schema(V1, "AVRO"))
    e = refused(client.get_compatibility, "s")
    assert (e.http_status_code, e.error_code) == (404, 40408)  # no level of its own: the default applies
    assert client.set_compatibility("s", "none") == {"compatibility": "NONE"}
    assert client.get_compatibility("s") == "NONE"
    assert client.register_schema("s", Schema(NO_DEFAULT, "AVRO")) > 0  # NONE: anything goes
    assert client.set_compatibility(None, "FULL") == {"compatibility": "FULL"}
    assert client.get_compatibility() == "FULL"
    assert client.delete_config("s").compatibility_level == "NONE"
    assert refused(client.get_compatibility, "s").error_code == 40408


def test_double_deletes_softly_then_permanently(double: SchemaRegistryDouble, client: SchemaRegistryClient) -> None:
    client.register_schema("s", Schema(V1, "AVRO"))
    client.register_schema("s", Schema(V2, "AVRO"))
    assert refused(client.delete_subject, "s", True).error_code == 40405  # permanent needs a soft delete first
    assert client.delete_subject("s") == [1, 2]
    assert client.get_subjects() == []
    assert refused(client.get_versions, "s").error_code == 40401
    assert client.get_subjects(deleted=True) == ["s"]
    double.register("s", V1)  # back, with its numbering (the client would answer from its cache, not ask)
    assert client.get_versions("s") == [3]
    client.delete_subject("s")
    assert client.delete_subject("s", permanent=True) == [1, 2, 3]
    assert client.get_subjects(deleted=True) == []


def test_double_keeps_protobuf_as_registered_and_serves_it_serialized(
    double: SchemaRegistryDouble, client: SchemaRegistryClient
) -> None:
    serializer = ProtobufSerializer(struct_pb2.Struct, client, {"subject.name.strategy.type": "TOPIC"})
    message = struct_pb2.Struct()
    message.update({"a": 1})
    data = serializer(message, SerializationContext("p", MessageField.VALUE))
    assert data is not None and data[0] == 0
    registered = base64.b64encode(struct_pb2.DESCRIPTOR.serialized_pb).decode()
    answer = client.get_latest_version("p-value", fmt="serialized")
    assert (answer.schema.schema_type, answer.schema.schema_str) == ("PROTOBUF", registered)
    text = 'syntax = "proto3";\npackage shop;\nmessage Order { int64 id = 1; string sku = 2; }\n'
    schema_id = client.register_schema("t-value", Schema(text, "PROTOBUF"))
    assert client.get_version("t-value", 1).schema.schema_str == text.strip()  # as registered
    fresh = SchemaRegistryClient({"url": double.url})  # a client keeps a version in one form, whatever the format
    serialized = fresh.get_version("t-value", 1, fmt="serialized").schema.schema_str or ""
    fresh.close()
    file = descriptor_pb2.FileDescriptorProto.FromString(base64.b64decode(serialized))  # what protoc made of it
    assert (file.package, [m.name for m in file.message_type]) == ("shop", ["Order"])
    assert [f.name for f in file.message_type[0].field] == ["id", "sku"]
    assert double.count("GET", "/subjects/t-value/versions/1") == 2
    assert double.count("GET", f"/schemas/ids/{schema_id}") == 0
    bad = refused(client.register_schema, "u-value", Schema("message {", "PROTOBUF"))
    assert (bad.http_status_code, bad.error_code) == (422, 42201)


def test_double_serves_the_serializers_and_counts_their_requests(
    double: SchemaRegistryDouble, client: SchemaRegistryClient
) -> None:
    serializer = AvroSerializer(client, ORDERS)  # the default subject name strategy: associations, then the topic's
    order = {
        "id": 1,
        "customer": {"id": 2, "name": "c"},
        "items": [],
        "total": 0.0,
        "status": "NEW",
        "note": None,
        "tags": {},
    }
    data = [serializer(order, SerializationContext("orders", MessageField.VALUE)) for _ in range(3)]
    assert double.count("GET", "/associations/resources/-/orders") == 1  # 404: the topic's subject, as Confluent's
    assert double.count("POST", "/subjects/orders-value/versions") == 1
    assert client.get_subjects() == ["orders-value"]
    deserializer = AvroDeserializer(SchemaRegistryClient({"url": double.url}))
    assert [deserializer(d) for d in data] == [order] * 3
    assert double.count("GET", "/schemas/ids/1") == 1  # the deserializer's client asks once, then keeps it


def test_double_asks_for_basic_auth_when_given_a_user() -> None:
    with SchemaRegistryDouble(user="alice", password="s3cret") as d:
        anonymous = SchemaRegistryClient({"url": d.url, "max.retries": 0})
        wrong = SchemaRegistryClient({"url": d.url, "max.retries": 0, "basic.auth.user.info": "alice:nope"})
        right = SchemaRegistryClient({"url": d.url, "basic.auth.user.info": "alice:s3cret"})
        try:
            assert refused(anonymous.get_subjects).http_status_code == 401
            assert refused(wrong.get_subjects).http_status_code == 401
            assert right.get_subjects() == []
        finally:
            for c in (anonymous, wrong, right):
                c.close()


def test_double_closes_its_server_and_thread() -> None:
    d = SchemaRegistryDouble()
    kept = SchemaRegistryClient({"url": d.url, "max.retries": 0})  # a kept-alive connection must not hold it open
    assert kept.get_subjects() == []
    d.close()
    assert not d.thread.is_alive()
    with pytest.raises(Exception):  # noqa: B017,PT011 — httpx's connection error: nothing listens any more
        kept.get_subjects()
    kept.close()


def test_double_runs_standalone_until_interrupted() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.doubles.schema_registry", "--port", "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line.startswith("TEST DOUBLE of Confluent Schema Registry at http://127.0.0.1:")
        url = line.split(" at ")[1].split()[0]
        with urllib.request.urlopen(url + "/subjects", timeout=10) as answer:  # noqa: S310
            assert json.loads(answer.read()) == []
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0
        if proc.stdout:
            proc.stdout.close()


def test_double_standalone_takes_no_password_on_its_command_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tests.doubles.schema_registry", "--user", "alice"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": ""},
        check=False,
    )
    assert done.returncode == 2 and PASSWORD_VARIABLE in done.stderr
