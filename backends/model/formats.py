"""How a record's key or value is read and written: its format (string, JSON, Avro, Protobuf, JSON Schema, hex,
base64, or auto), where its schema comes from (a file, or a Schema Registry through Confluent's wire format), a
record decoded for a reader, and a Schema Registry's subjects — standard library only.

Confluent's wire format: magic byte 0, a 4-byte big-endian schema id, then the payload (for Protobuf, the message
indexes come first). `wire_schema_id` reads the id without decoding, so a record whose registry is unknown is said as
"schema id 7 (no registry configured)", never shown as garbage.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Literal

from kafkatop.backends.model.errors import BadInput

RecordField = Literal["key", "value"]


class Format(Enum):
    """A key's or a value's format, named as kcat -s and the Schema Registry name them."""

    AUTO = "auto"  # the wire format when it is there, else JSON, text or hex as the bytes read
    STRING = "string"
    JSON = "json"
    AVRO = "avro"
    PROTOBUF = "protobuf"
    JSON_SCHEMA = "json-schema"
    HEX = "hex"
    BASE64 = "base64"

    @property
    def has_schema(self) -> bool:
        return self in (Format.AVRO, Format.PROTOBUF, Format.JSON_SCHEMA)


FORMAT_NAMES: tuple[str, ...] = tuple(f.value for f in Format)


class FormatError(BadInput):
    """A format, a schema or a registry setting that cannot be used; the message says what to change."""


def format_named(name: str) -> Format:
    try:
        return Format(name.strip().lower())
    except ValueError:
        raise FormatError(f"no format {name!r}: there are {', '.join(FORMAT_NAMES)}") from None


@dataclass(frozen=True, slots=True)
class FieldFormat:
    """How one field (key or value) of a topic's records reads and writes.

    `schema_file`: an Avro schema (.avsc), a Protobuf descriptor set (.desc/.pb, from `protoc --descriptor_set_out`)
    or a .proto file, or a JSON Schema (.json), for records without the wire format or to encode with. `subject`: a
    registry subject to encode with (its latest version) — decoding the wire format needs no subject, the schema id
    is in the record. `message_type`: the Protobuf message's full name when the file defines several."""

    format: Format = Format.AUTO
    schema_file: str | None = None
    subject: str | None = None
    message_type: str | None = None

    def __post_init__(self) -> None:
        if (self.schema_file or self.subject or self.message_type) and not self.format.has_schema:
            raise FormatError(
                f"a schema goes with avro, protobuf or json-schema, not {self.format.value}: give "
                "--value-format (or --key-format) with the schema"
            )
        if self.message_type is not None and self.format is not Format.PROTOBUF:
            raise FormatError("a message type is Protobuf's: it goes with the protobuf format")

    @property
    def described(self) -> str:
        """'avro (orders.avsc)', 'protobuf (subject orders-value)', 'string'."""
        where = self.schema_file or (f"subject {self.subject}" if self.subject else None)
        return self.format.value + (f" ({where})" if where else "")


@dataclass(frozen=True, slots=True)
class TopicFormat:
    key: FieldFormat = field(default_factory=FieldFormat)
    value: FieldFormat = field(default_factory=FieldFormat)

    def of(self, which: RecordField) -> FieldFormat:
        return self.key if which == "key" else self.value


AUTO = TopicFormat()


@dataclass(frozen=True, slots=True)
class RegistrySettings:
    """A Schema Registry: its URL(s), comma-separated, and a properties file of the client's settings that may be
    secret (basic.auth.user.info, ssl.key.password) or paths (ssl.ca.location, ssl.certificate.location,
    ssl.key.location): kafkatop.toml and contexts hold no secret themselves."""

    url: str
    properties_file: str | None = None


WIRE_MAGIC = 0
WIRE_HEADER = 5  # magic byte and schema id


def wire_schema_id(data: bytes | None) -> int | None:
    """The schema id of a record in Confluent's wire format, or None when the bytes are not in it."""
    if data is None or len(data) < WIRE_HEADER or data[0] != WIRE_MAGIC:
        return None
    return int.from_bytes(data[1:WIRE_HEADER], "big")


JsonValue = None | bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"]
# One encoder for every compact line: json.dumps builds a new one per call, a fifth of a record's decode.
_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


@dataclass(frozen=True)  # not slots: `text` is cached on the instance
class Decoded:
    """A key or value read in its format, for a reader and for a search.

    `text`: what is shown (JSON pretty-printed for structured values, text, a hex dump or base64) — for a structured
    value made from `value` when first asked (`shown` empty): a million records consumed as compact JSON never pay
    for indenting, which took about half of an Avro decode; `value`: the
    decoded value as JSON-able data (an Avro record as the dict the serializer was given, a Protobuf message as
    json_format gives it; text as a str; None for null or for bytes that could not be decoded) — what a path search
    (`.customer.id == 42`) looks into. `schema_id`/`subject`/`version` link the record to its schema in the registry.
    `note` says what a reader must know ("schema id 7 (no registry configured)"); `error` why it did not decode, the
    bytes then shown as they are."""

    format: Format
    shown: str  # the text, or "" for a structured value's indented JSON, made when `text` is first read
    value: JsonValue = None
    structured: bool = False  # a JSON, Avro, Protobuf or JSON Schema value: shown as JSON, searched by path
    schema_id: int | None = None
    subject: str | None = None
    version: int | None = None
    note: str | None = None
    error: str | None = None

    @functools.cached_property
    def text(self) -> str:
        if self.shown or not self.structured or self.error is not None:
            return self.shown
        return json.dumps(self.value, indent=2, ensure_ascii=False)

    def compact(self) -> str:
        """One line: structured values as compact JSON, hex and base64 as their digits, others as their text."""
        if self.structured and self.error is None:
            return _compact(self.value)
        if self.format in (Format.HEX, Format.BASE64) and isinstance(self.value, str):
            return self.value
        return self.text


SchemaType = Literal["AVRO", "PROTOBUF", "JSON"]


@dataclass(frozen=True, slots=True)
class SchemaReference:
    name: str
    subject: str
    version: int


@dataclass(frozen=True, slots=True)
class RegisteredSchema:
    """One version of a subject, as the registry serves it (`GET /subjects/S/versions/V`)."""

    subject: str
    version: int
    schema_id: int
    schema_type: SchemaType
    schema: str  # the text as registered (Avro/JSON Schema: JSON; Protobuf: .proto text or a serialized descriptor)
    references: tuple[SchemaReference, ...] = ()


@dataclass(frozen=True, slots=True)
class Subject:
    name: str
    versions: tuple[int, ...]
    compatibility: str | None  # the subject's own level; None: the registry's default applies
    latest: RegisteredSchema | None = None


@dataclass(frozen=True, slots=True)
class SchemasSnapshot:
    """What the Schemas tab shows: the registry's subjects, its default compatibility level, or why it could not be
    read."""

    url: str
    subjects: tuple[Subject, ...] = ()
    compatibility: str | None = None
    error: str | None = None
    at: float = 0.0
