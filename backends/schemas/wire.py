"""Records in Confluent's wire format, read through the registry: the schema of each id asked for once (the client's
cache, `format=serialized` so that a Protobuf schema comes as the descriptor its deserializer reads), loaded once (an
Avro schema parsed with its references by confluent-kafka's own resolver, a Protobuf file into a pool, a JSON Schema
into a validator), and kept with the subject and version that hold it. An id the registry could not give is not asked
for again for RETRY_S: a topic full of such records costs one request, not one per record.

Avro bytes are read by fastavro's schemaless_reader with the writer's schema, as AvroDeserializer reads them, but
without its per-record work (a subject name strategy, rules, the reader schema expanded again for each record): that
is what makes a million records a matter of seconds (bench/). A record must be read to its last byte: bytes left over
mean the record is not of that schema.
"""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import fastavro
from confluent_kafka.schema_registry import Schema
from confluent_kafka.schema_registry._sync.avro import _resolve_named_schema
from confluent_kafka.schema_registry.common.avro import _schema_loads, parse_schema_with_repo

from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.formats import WIRE_HEADER, Decoded, Format, JsonValue, RecordField
from kafkatop.backends.model.json_text import loads
from kafkatop.backends.schemas.avro import AvroSchema, jsonable
from kafkatop.backends.schemas.json_schema import JsonSchemaCheck, registered_json_schema
from kafkatop.backends.schemas.plain import shown, structured
from kafkatop.backends.schemas.protobuf import WriterFile, decode_error, read_message, wire_indexes, writer_file
from kafkatop.backends.schemas.registry import ConfluentRegistry

RETRY_S = 10.0
_FORMATS = {"AVRO": Format.AVRO, "PROTOBUF": Format.PROTOBUF, "JSON": Format.JSON_SCHEMA}
_NAMES = {"AVRO": "Avro", "PROTOBUF": "Protobuf", "JSON": "JSON Schema"}


class LeftOver(ValueError):
    """Bytes after the end of a record."""


def read_avro_exactly(payload: bytes, schema: AvroSchema) -> JsonValue:
    """fastavro's read of the whole payload; LeftOver when bytes remain after the record."""
    stream = io.BytesIO(payload)
    value = fastavro.schemaless_reader(stream, schema.reading, None)
    if stream.tell() != len(payload):
        raise LeftOver(f"{len(payload) - stream.tell()} bytes left after the record")
    return jsonable(value) if schema.mapped else cast(JsonValue, value)


@dataclass(frozen=True, slots=True)
class Writer:
    """A schema id, loaded: its type, what reads its records, and who holds it."""

    schema_id: int
    schema_type: str
    loaded: AvroSchema | WriterFile | JsonSchemaCheck
    subject: str | None
    version: int | None


class WireReader:
    def __init__(self, registry: ConfluentRegistry) -> None:
        self.registry = registry
        self._writers: dict[int, Writer] = {}
        self._failed: dict[int, tuple[float, str]] = {}
        self._lock = threading.Lock()

    def writer(self, schema_id: int, topic: str, which: RecordField) -> Writer:
        """The id's writer schema, loaded; KafkatopError (or the loader's ValueError) when it cannot be."""
        found = self._writers.get(schema_id)
        if found is not None:
            return found
        failed = self._failed.get(schema_id)
        if failed is not None and time.monotonic() - failed[0] < RETRY_S:
            raise KafkatopError(failed[1])
        try:
            writer = self._load(schema_id, f"{topic}-{which}")
        except Exception as e:  # noqa: BLE001 — the registry's errors and the loaders' ValueErrors alike
            with self._lock:
                self._failed[schema_id] = (time.monotonic(), " ".join(str(e).split()) or type(e).__name__)
            raise
        with self._lock:
            self._writers[schema_id] = writer
            self._failed.pop(schema_id, None)
        return writer

    def _load(self, schema_id: int, topic_subject: str) -> Writer:
        client = self.registry.client
        schema: Schema = self.registry.call(client.get_schema, schema_id, None, "serialized")
        schema_type = (schema.schema_type or "AVRO").upper()
        where = f"schema id {schema_id}"
        loaded: AvroSchema | WriterFile | JsonSchemaCheck
        if schema_type == "PROTOBUF":
            loaded = self._guarded(lambda: writer_file(schema, client))
        elif schema_type == "JSON":
            loaded = self._guarded(lambda: registered_json_schema(schema, client, where))
        else:
            loaded = self._guarded(lambda: AvroSchema.of(registered_avro(schema, client)))
        holder = self.registry.holder(schema_id, topic_subject=topic_subject)
        subject, version = holder if holder is not None else (None, None)
        return Writer(schema_id, schema_type, loaded, subject, version)

    def _guarded(self, load: Callable[[], Any]) -> Any:
        try:
            return load()
        except KafkatopError:
            raise
        except Exception as e:  # noqa: BLE001 — the registry client inside a resolver, or a schema that does not load
            raise ValueError(f"the schema does not load: {' '.join(str(e).split())[:200]}") from None

    def decode(self, fmt: Format, data: bytes, schema_id: int, topic: str, which: RecordField) -> Decoded:
        """A wire-format record by its writer schema's type, whatever the format asked (the registry knows better: the
        note says so)."""
        try:
            writer = self.writer(schema_id, topic, which)
        except Exception as e:  # noqa: BLE001 — never raises: said, with the bytes
            return shown(fmt, data, schema_id=schema_id, error=f"schema id {schema_id}: {e}")
        found = _FORMATS[writer.schema_type]
        note = None if fmt in (Format.AUTO, found) else f"schema id {schema_id} is {found.value}, not {fmt.value}"
        try:
            value, problem = self._value(writer, data)
        except Exception as e:  # noqa: BLE001
            why = decode_error(e) if writer.schema_type == "PROTOBUF" else " ".join(str(e).split()) or type(e).__name__
            return shown(found, data, schema_id=schema_id, note=note,
                         error=f"not {_NAMES[writer.schema_type]} for schema id {schema_id}: {why}")  # fmt: skip
        return structured(found, value, schema_id, writer.subject, writer.version, note, problem)

    @staticmethod
    def _value(writer: Writer, data: bytes) -> tuple[JsonValue, str | None]:
        loaded = writer.loaded
        if isinstance(loaded, AvroSchema):
            return read_avro_exactly(data[WIRE_HEADER:], loaded), None
        if isinstance(loaded, WriterFile):
            _, indexes, payload = wire_indexes(data)
            return read_message(payload, loaded.message_class(indexes)), None
        value = loads(data[WIRE_HEADER:])
        problem = loaded.problem(value)
        return value, None if problem is None else f"does not match schema id {writer.schema_id}: {problem}"


def registered_avro(schema: Schema, client: Any) -> Any:
    """An Avro schema from the registry, parsed with its references as AvroDeserializer parses it."""
    named = _resolve_named_schema(schema, client)
    prepared = _schema_loads(schema.schema_str or "")
    return parse_schema_with_repo(prepared.schema_str or "", named_schemas=named)
