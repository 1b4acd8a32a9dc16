"""Records written in a schema's format, from the JSON a producer types, by confluent-kafka's own serializers where a
registry is configured (the wire format: magic byte, schema id, for Protobuf the message indexes, then the record):

- with a `subject`: the subject's latest version (`use.latest.version`, nothing registered);
- with a schema file and no subject: the file's schema, registered under the topic's subject (`<topic>-value`, or
  `-key`), as the serializers register it by default (TopicNameStrategy);
- with neither: the topic's subject's latest version.

Without a registry, a schema file writes the bare record: fastavro's schemaless_writer, a Protobuf message's own
bytes, or the JSON as typed once it fits its JSON Schema. The value is checked against the schema before a
serializer sees it, so that a FormatError names the field that does not fit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from confluent_kafka.schema_registry import RegisteredSchema as ClientSchema
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.schema_registry.json_schema import JSONSerializer
from confluent_kafka.schema_registry.protobuf import ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext, SerializationError
from google.protobuf import message_factory

from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.formats import FieldFormat, Format, FormatError, JsonValue, RecordField
from kafkatop.backends.model.json_text import loads
from kafkatop.backends.schemas.avro import AvroSchema, avro_value, write_avro
from kafkatop.backends.schemas.files import SchemaFiles
from kafkatop.backends.schemas.json_schema import JsonSchemaCheck, registered_json_schema
from kafkatop.backends.schemas.proto_files import ProtoSchema, messages_of
from kafkatop.backends.schemas.protobuf import WriterFile, write_message, writer_file
from kafkatop.backends.schemas.registry import ConfluentRegistry, RegistryRefused, failure
from kafkatop.backends.schemas.wire import registered_avro

_TOPIC_STRATEGY = {"subject.name.strategy.type": "TOPIC"}
_SCHEMA_NAMES = {"AVRO": "an Avro", "PROTOBUF": "a Protobuf", "JSON": "a JSON Schema"}


def _latest_of(subject: str) -> dict[str, Any]:
    return {"auto.register.schemas": False, "use.latest.version": True,
            "subject.name.strategy": lambda ctx, record_name: subject}  # fmt: skip


def parse_json(text: str) -> JsonValue:
    try:
        value: JsonValue = loads(text)
    except ValueError as e:
        raise FormatError(f"not JSON: {e}") from None
    return value


class RecordWriter:
    def __init__(self, files: SchemaFiles, registry: ConfluentRegistry | None) -> None:
        self.files = files
        self.registry = registry
        self._serializers: dict[tuple[Any, ...], Callable[..., bytes | None]] = {}
        self._latest: dict[int, Any] = {}  # a latest version's schema id → its schema, loaded
        self._lock = threading.Lock()

    def encode(self, topic: str, which: RecordField, field: FieldFormat, text: str) -> bytes:
        value = parse_json(text)
        if self.registry is None:
            return self._bare(field, value, text)
        if field.schema_file is not None and field.subject is None:
            return self._registered_file(topic, which, field, value, text)
        return self._latest_version(topic, which, field, value, text, field.subject or f"{topic}-{which}")

    def _bare(self, field: FieldFormat, value: JsonValue, text: str) -> bytes:
        name = field.format.value
        if field.subject is not None:
            raise FormatError(f"{name} with subject {field.subject} needs a schema registry: configure one, or give "
                              "a schema file")  # fmt: skip
        if field.schema_file is None:
            raise FormatError(f"{name} needs a schema to write with: give a schema file (or configure a schema "
                              "registry)")  # fmt: skip
        where = str(self.files.path(field.schema_file))
        if field.format is Format.AVRO:
            schema, _ = self.files.avro(field)
            return write_avro(avro_value(value, schema, where, text), schema, where)
        if field.format is Format.PROTOBUF:
            return bytes(write_message(text, self.files.proto(field), where).SerializeToString())
        check, _ = self.files.json_schema(field)
        _fits(check, value, where)
        return text.encode("utf-8")

    def _registered_file(
        self, topic: str, which: RecordField, field: FieldFormat, value: JsonValue, text: str
    ) -> bytes:
        assert self.registry is not None and field.schema_file is not None
        client, where = self.registry.client, str(self.files.path(field.schema_file))
        key = (topic, which, field)
        if field.format is Format.AVRO:
            schema, schema_text = self.files.avro(field)
            datum = avro_value(value, schema, where, text)
            return self._serialize(key, lambda: AvroSerializer(client, schema_text, conf=_TOPIC_STRATEGY), datum,
                                   topic, which)  # fmt: skip
        if field.format is Format.PROTOBUF:
            proto = self.files.proto(field)
            message = write_message(text, proto, where)
            return self._serialize(key, lambda: ProtobufSerializer(proto.message_class, client, _TOPIC_STRATEGY),
                                   message, topic, which)  # fmt: skip
        check, schema_text = self.files.json_schema(field)
        _fits(check, value, where)
        return self._serialize(key, lambda: JSONSerializer(schema_text, client, conf=_TOPIC_STRATEGY), value,
                               topic, which)  # fmt: skip

    def _latest_version(
        self, topic: str, which: RecordField, field: FieldFormat, value: JsonValue, text: str, subject: str
    ) -> bytes:
        assert self.registry is not None
        client = self.registry.client
        fmt = "serialized" if field.format is Format.PROTOBUF else None
        try:
            latest: ClientSchema = self.registry.call(client.get_latest_version, subject, fmt)
        except RegistryRefused as e:
            raise FormatError(f"{e}: nothing to write {field.format.value} with; give a schema file (registered under "
                              f"{topic}-{which}) or the subject of a registered schema") from None  # fmt: skip
        where = f"subject {subject} (version {latest.version}, schema id {latest.schema_id})"
        expected = {Format.AVRO: "AVRO", Format.PROTOBUF: "PROTOBUF", Format.JSON_SCHEMA: "JSON"}[field.format]
        if (latest.schema.schema_type or "AVRO").upper() != expected:
            held = _SCHEMA_NAMES.get((latest.schema.schema_type or "").upper(), f"a {latest.schema.schema_type}")
            raise FormatError(f"{where} holds {held} schema, not {field.format.value}")
        loaded = self._loaded(latest)
        key = (topic, which, field, latest.schema_id)
        conf = _latest_of(subject)
        if isinstance(loaded, AvroSchema):
            datum = avro_value(value, loaded, where, text)
            return self._serialize(key, lambda: AvroSerializer(client, None, conf=conf), datum, topic, which)
        if isinstance(loaded, WriterFile):
            proto = _message_of(loaded, field.message_type, where)
            message = write_message(text, proto, where)
            return self._serialize(key, lambda: ProtobufSerializer(proto.message_class, client, conf), message,
                                   topic, which)  # fmt: skip
        _fits(loaded, value, where)
        return self._serialize(key, lambda: JSONSerializer(None, client, conf=conf), value, topic, which)

    def _loaded(self, latest: ClientSchema) -> AvroSchema | WriterFile | JsonSchemaCheck:
        assert self.registry is not None
        schema_id = int(latest.schema_id or 0)
        found = self._latest.get(schema_id)
        if found is None:
            client, schema = self.registry.client, latest.schema
            try:
                if latest.schema.schema_type == "PROTOBUF":
                    found = writer_file(schema, client)
                elif latest.schema.schema_type == "JSON":
                    found = registered_json_schema(schema, client, f"schema id {schema_id}")
                else:
                    found = AvroSchema.of(registered_avro(schema, client))
            except KafkatopError:
                raise
            except Exception as e:  # noqa: BLE001 — a schema of the registry that does not load
                raise FormatError(f"schema id {schema_id} does not load: {' '.join(str(e).split())[:200]}") from None
            with self._lock:
                self._latest[schema_id] = found
        return found

    def _serialize(
        self, key: tuple[Any, ...], make: Callable[[], Callable[..., bytes | None]], datum: Any, topic: str,
        which: RecordField,
    ) -> bytes:  # fmt: skip
        assert self.registry is not None
        serializer = self._serializers.get(key)
        if serializer is None:
            serializer = self._serializers[key] = make()
        ctx = SerializationContext(topic, MessageField.KEY if which == "key" else MessageField.VALUE)
        registry = self.registry
        try:
            data = serializer(datum, ctx)
        except (SerializationError, ValueError, TypeError) as e:  # what the serializer itself refused
            raise FormatError(f"cannot encode: {' '.join(str(e).split())[:300]}") from None
        except Exception as e:  # noqa: BLE001 — the registry's answer or no answer: said in one line
            raise failure(e, registry.where, registry.timeout_s, registry.credentials) from None
        return bytes(data or b"")


def _fits(check: JsonSchemaCheck, value: JsonValue, where: str) -> None:
    problem = check.problem(value)
    if problem is not None:
        raise FormatError(f"the text does not fit {where}: {problem}")


def _message_of(file: WriterFile, message_type: str | None, where: str) -> ProtoSchema:
    if message_type is None:
        desc = messages_of(file.file)[0]
    else:
        try:
            desc = file.pool.FindMessageTypeByName(message_type.lstrip("."))
        except KeyError:
            names = ", ".join(d.full_name for d in messages_of(file.file))
            raise FormatError(f"{where} has no message {message_type!r}: there are {names}") from None
    return ProtoSchema(desc, message_factory.GetMessageClass(desc))
