"""Protobuf messages read and written by protobuf itself, their values as JSON by its json_format.

A message decodes to json_format's dict (the ProtoJSON mapping) with the field names of the .proto
(preserving_proto_field_name), every field shown, zeros and empty ones too (always_print_fields_with_no_presence),
and 64-bit integers as numbers where a double holds them exactly (below 2^53; larger ones stay strings, as ProtoJSON
writes them). Bytes are base64, enums their names, a Timestamp its RFC 3339 text, as ProtoJSON says. Encoding reads
the same JSON back with json_format.Parse, which also takes the camelCase names and int64 as strings.

A writer schema from the registry is read as confluent-kafka's ProtobufDeserializer reads it: the schema of the id
asked for `format=serialized` (a base64 FileDescriptorProto), its references resolved into a pool beside the
well-known types, the message found by the indexes the record carries (its schema-id deserializer reads them).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

from confluent_kafka.schema_registry import Schema, SchemaRegistryClient, dual_schema_id_deserializer
from confluent_kafka.schema_registry._sync.protobuf import _resolve_named_schema
from confluent_kafka.schema_registry.common.protobuf import _init_pool, _str_to_proto
from confluent_kafka.schema_registry.serde import SchemaId
from google.protobuf import descriptor_pool, json_format, message_factory
from google.protobuf.message import DecodeError, Message

from kafkatop.backends.model.formats import FormatError, JsonValue
from kafkatop.backends.schemas.proto_files import ProtoSchema, message_at

PROTOBUF = "PROTOBUF"


def read_message(payload: bytes, message_class: type[Message]) -> JsonValue:
    """The message in `payload` as JSON-able data; DecodeError when the bytes are not one."""
    message = message_class.FromString(payload)
    value: JsonValue = json_format.MessageToDict(
        message,
        preserving_proto_field_name=True,
        always_print_fields_with_no_presence=True,
        unquote_int64_if_possible=True,
    )
    return value


def write_message(text: str, schema: ProtoSchema, where: str) -> Message:
    """The JSON text as a message of the schema; FormatError says which field does not fit (json_format's words)."""
    try:
        message: Message = json_format.Parse(text, schema.message_class())
    except json_format.ParseError as e:
        said = " ".join(str(e).split())
        raise FormatError(f"the text does not fit {where} ({schema.name}): {said}") from None
    return message


def wire_indexes(data: bytes) -> tuple[int, list[int], bytes]:
    """A record's schema id, message indexes and payload, as confluent's schema-id deserializer reads them."""
    schema_id = SchemaId(PROTOBUF)
    payload: io.BytesIO = dual_schema_id_deserializer(data, None, schema_id)
    return int(schema_id.id or 0), list(schema_id.message_indexes or []), payload.read()


@dataclass(frozen=True, slots=True)
class WriterFile:
    """A registered Protobuf schema, loaded: its file in a pool of its own (references and well-known types beside),
    the message classes made from it by index path."""

    file: Any  # google.protobuf.descriptor.FileDescriptor
    pool: descriptor_pool.DescriptorPool
    classes: dict[tuple[int, ...], type[Message]]

    def message_class(self, indexes: list[int]) -> type[Message]:
        key = tuple(indexes) or (0,)
        found = self.classes.get(key)
        if found is None:
            found = self.classes[key] = message_factory.GetMessageClass(message_at(self.file, list(key)))
        return found


def writer_file(schema: Schema, client: SchemaRegistryClient) -> WriterFile:
    """A schema as the registry answers `format=serialized`; ValueError (or the client's error) when it cannot be
    loaded."""
    pool = descriptor_pool.DescriptorPool()
    _init_pool(pool)
    _resolve_named_schema(schema, client, pool)
    if schema.schema_str is None:
        raise ValueError("the registry answered no schema text")
    try:
        file_proto = _str_to_proto("default", schema.schema_str)
    except Exception as e:  # noqa: BLE001 — SerializationError, binascii.Error: not a serialized descriptor
        raise ValueError(f"not a serialized FileDescriptorProto ({e}): asked for format=serialized") from None
    pool.Add(file_proto)
    return WriterFile(pool.FindFileByName(file_proto.name), pool, {})


def decode_error(e: Exception) -> str:
    if isinstance(e, DecodeError):
        return f"not this message: {e}"
    return " ".join(str(e).split()) or type(e).__name__
