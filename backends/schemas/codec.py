"""SchemaCodec: each topic's key and value formats, and records read and written in them (the RecordCodec port of
backends/ports.py), through a Schema Registry when one is configured.

Reading never raises: what does not decode is a Decoded saying why, the bytes shown as they are.

    auto           the wire format (magic byte 0, a schema id) read by the registry's schema, whatever its type
                   (the Decoded's format then says which: avro, protobuf or json-schema); without a registry
                   "schema id 7 (no registry configured)" and the bytes; otherwise a JSON object or array as
                   structured JSON, UTF-8 text as text, anything else as a hex dump
    avro, protobuf, json-schema
                   the wire format through the registry; bare records by the schema file (a record in the wire
                   format with no registry to read it is read by the schema file too, its header skipped, and the
                   note says so)
    string, json, hex, base64
                   as named (plain.py)

Writing (a producer's text): string and auto as UTF-8, json as typed once it parses, hex and base64 parsed, a schema
format from JSON (writers.py). What decodes each schema format, and how its values read as JSON: avro.py,
protobuf.py, json_schema.py; the wire format: wire.py.

Those modules, and the libraries they stand on (confluent_kafka.schema_registry with httpx and authlib, protobuf,
jsonschema, fastavro: ~0.4 s of imports), are imported when a record first needs them, not with this module: the live
view makes its codec before its first frame (issue 45), and plain records never need them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from kafkatop.backends.model.formats import (
    AUTO,
    WIRE_HEADER,
    Decoded,
    FieldFormat,
    Format,
    FormatError,
    RecordField,
    TopicFormat,
    wire_schema_id,
)
from kafkatop.backends.model.json_text import loads
from kafkatop.backends.schemas.plain import decode_plain, encode_plain, shown, structured

if TYPE_CHECKING:
    from kafkatop.backends.schemas.avro import AvroSchema
    from kafkatop.backends.schemas.files import SchemaFiles
    from kafkatop.backends.schemas.registry import ConfluentRegistry
    from kafkatop.backends.schemas.wire import WireReader
    from kafkatop.backends.schemas.writers import RecordWriter


class SchemaCodec:
    """The formats of `formats` (by topic; others auto), the registry's schemas when given, schema files relative to
    `base_dir`; `remember` is told each format set (to keep it in kafkatop.toml or the context)."""

    def __init__(
        self,
        formats: Mapping[str, TopicFormat],
        registry: ConfluentRegistry | None,
        base_dir: Path | None = None,
        remember: Callable[[str, TopicFormat], None] | None = None,
    ) -> None:
        self.registry = registry
        self._base_dir = base_dir
        self._formats = dict(formats)
        self._remember = remember
        self._lock = threading.Lock()
        self._made: dict[str, object] = {}  # the schema files, the wire reader, the writer: made at first need

    def _once(self, name: str, make: Callable[[], object]) -> object:
        with self._lock:
            if name not in self._made:
                self._made[name] = make()
            return self._made[name]

    @property
    def files(self) -> SchemaFiles:
        from kafkatop.backends.schemas.files import SchemaFiles

        made = self._once("files", lambda: SchemaFiles(self._base_dir))
        assert isinstance(made, SchemaFiles)
        return made

    @property
    def _wire(self) -> WireReader | None:
        if self.registry is None:
            return None
        from kafkatop.backends.schemas.wire import WireReader

        registry = self.registry
        made = self._once("wire", lambda: WireReader(registry))
        assert isinstance(made, WireReader)
        return made

    @property
    def _writer(self) -> RecordWriter:
        from kafkatop.backends.schemas.writers import RecordWriter

        files = self.files
        made = self._once("writer", lambda: RecordWriter(files, self.registry))
        assert isinstance(made, RecordWriter)
        return made

    def format_of(self, topic: str) -> TopicFormat:
        return self._formats.get(topic, AUTO)

    def set_format(self, topic: str, fmt: TopicFormat) -> None:
        """Check that each schema named can be used (a file read and parsed, its message type found; a subject known
        to the registry), then use the formats and remember them."""
        for which in ("key", "value"):
            self.check(fmt.key if which == "key" else fmt.value, which)
        with self._lock:
            self._formats[topic] = fmt
        if self._remember is not None:
            self._remember(topic, fmt)

    def check(self, field: FieldFormat, which: str = "value") -> None:
        """FormatError when the field's schema cannot be used."""
        if field.schema_file is not None:
            self.files.load(field, fresh=True)
        if field.subject is not None:
            from kafkatop.backends.schemas.registry import RegistryRefused, RegistryUnavailable

            if self.registry is None:
                raise FormatError(f"the {which}'s subject {field.subject} needs a schema registry: configure one")
            try:
                self.registry.call(self.registry.client.get_latest_version, field.subject)
            except RegistryRefused as e:
                raise FormatError(f"the {which}'s subject: {e}") from None
            except RegistryUnavailable:
                pass  # unreachable now: the subject is asked for when it is used
        if field.message_type is not None and field.schema_file is None and field.subject is None:
            raise FormatError(f"the {which}'s message type {field.message_type} goes with a schema file or a subject")

    # --- reading ----------------------------------------------------------------------------------------------------
    def decode(self, topic: str, which: RecordField, data: bytes | None) -> Decoded:
        field = self.format_of(topic).of(which)
        try:
            return self._decode(topic, which, field, data)
        except Exception as e:  # noqa: BLE001 — decoding never raises: said, with the bytes
            return shown(field.format, data, error=f"cannot decode: {' '.join(str(e).split()) or type(e).__name__}")

    def _decode(self, topic: str, which: RecordField, field: FieldFormat, data: bytes | None) -> Decoded:
        fmt = field.format
        if data is None or not (fmt is Format.AUTO or fmt.has_schema):
            return decode_plain(fmt, data)
        schema_id = wire_schema_id(data)
        if schema_id is not None and self._wire is not None:
            decoded = self._wire.decode(fmt, data, schema_id, topic, which)
            if decoded.error is None or fmt is Format.AUTO or field.schema_file is None:
                return decoded
            bare = self._by_file(field, data, None)  # a bare record that happens to begin with a zero byte?
            return bare if bare.error is None else decoded
        if fmt is Format.AUTO:
            if schema_id is not None:
                return shown(fmt, data, schema_id=schema_id, note=f"schema id {schema_id} (no registry configured)")
            return decode_plain(fmt, data)
        if field.schema_file is None:
            if schema_id is not None:
                return shown(fmt, data, schema_id=schema_id, note=f"schema id {schema_id} (no registry configured)")
            return shown(fmt, data, error=f"not in the wire format, and no schema file to read {fmt.value} with")
        if schema_id is not None:
            decoded = self._by_file(field, data, schema_id)
            if decoded.error is None:
                return decoded
            bare = self._by_file(field, data, None)
            return bare if bare.error is None else decoded
        return self._by_file(field, data, None)

    def _by_file(self, field: FieldFormat, data: bytes, schema_id: int | None) -> Decoded:
        """A record read by the field's schema file; in the wire format (`schema_id`), after its header."""
        from kafkatop.backends.schemas.protobuf import decode_error, read_message, wire_indexes
        from kafkatop.backends.schemas.wire import read_avro_exactly

        fmt = field.format
        where = field.schema_file or ""
        note = None if schema_id is None else f"schema id {schema_id} (no registry configured): read with {where}"
        try:
            if fmt is Format.PROTOBUF:
                payload = data if schema_id is None else wire_indexes(data)[2]
                return structured(fmt, read_message(payload, self.files.proto(field).message_class), schema_id,
                                  note=note)  # fmt: skip
            payload = data if schema_id is None else data[WIRE_HEADER:]
            if fmt is Format.AVRO:
                schema: AvroSchema = self.files.avro(field)[0]
                return structured(fmt, read_avro_exactly(payload, schema), schema_id, note=note)
            value = loads(payload)
            problem = self.files.json_schema(field)[0].problem(value)
            error = None if problem is None else f"does not match {where}: {problem}"
            return structured(fmt, value, schema_id, note=note, error=error)
        except FormatError as e:
            return shown(fmt, data, schema_id=schema_id, error=str(e))
        except Exception as e:  # noqa: BLE001 — the bytes are not of the schema
            why = decode_error(e) if fmt is Format.PROTOBUF else " ".join(str(e).split()) or type(e).__name__
            return shown(fmt, data, schema_id=schema_id, note=note, error=f"not {fmt.value} of {where}: {why}")

    # --- writing ----------------------------------------------------------------------------------------------------
    def encode(self, topic: str, which: RecordField, text: str) -> bytes:
        field = self.format_of(topic).of(which)
        if not field.format.has_schema:
            return encode_plain(field.format, text)
        return self._writer.encode(topic, which, field, text)

    def close(self) -> None:
        """Nothing of its own to close: the registry is the composition root's, which closes it."""
