"""A topic's schema files, read once and kept: an Avro schema (.avsc), a Protobuf .proto (compiled) or descriptor set
with its message type, a JSON Schema. A relative path is the kafkatop.toml's folder's (`base_dir`). Every failure is
a FormatError naming the file and what is wrong with it."""

from __future__ import annotations

import threading
from pathlib import Path

from kafkatop.backends.model.formats import FieldFormat, Format, FormatError
from kafkatop.backends.schemas.avro import AvroSchema, parse_avro
from kafkatop.backends.schemas.json_schema import JsonSchemaCheck, json_schema_of
from kafkatop.backends.schemas.proto_files import (
    DESCRIPTOR_SETS,
    ProtoSchema,
    compile_proto,
    read_descriptor_set,
    schema_from_set,
)

Loaded = AvroSchema | ProtoSchema | JsonSchemaCheck


class SchemaFiles:
    def __init__(self, base_dir: Path | None = None) -> None:
        self.base_dir = base_dir
        self._loaded: dict[FieldFormat, tuple[Loaded, str]] = {}
        self._lock = threading.Lock()

    def path(self, schema_file: str) -> Path:
        path = Path(schema_file).expanduser()
        return path if path.is_absolute() or self.base_dir is None else self.base_dir / path

    def load(self, field: FieldFormat, fresh: bool = False) -> tuple[Loaded, str]:
        """The field's schema file, parsed, and its text (to register it); `fresh`: read it again."""
        found = None if fresh else self._loaded.get(field)  # a record's way here: one dict lookup
        if found is not None:
            return found
        if field.schema_file is None:
            raise FormatError(f"{field.format.value} has no schema file here")
        loaded = self._read(field.format, self.path(field.schema_file), field.message_type)
        with self._lock:
            self._loaded[field] = loaded
        return loaded

    def avro(self, field: FieldFormat) -> tuple[AvroSchema, str]:
        loaded, text = self.load(field)
        assert isinstance(loaded, AvroSchema)
        return loaded, text

    def proto(self, field: FieldFormat) -> ProtoSchema:
        loaded, _ = self.load(field)
        assert isinstance(loaded, ProtoSchema)
        return loaded

    def json_schema(self, field: FieldFormat) -> tuple[JsonSchemaCheck, str]:
        loaded, text = self.load(field)
        assert isinstance(loaded, JsonSchemaCheck)
        return loaded, text

    @staticmethod
    def _read(fmt: Format, path: Path, message_type: str | None) -> tuple[Loaded, str]:
        where = str(path)
        try:
            data = path.read_bytes()
        except OSError as e:
            raise FormatError(f"{where}: {e.strerror or e} (the {fmt.value} schema file)") from None
        if fmt is Format.PROTOBUF:
            if path.suffix.lower() == ".proto":
                files = compile_proto(path)
            elif path.suffix.lower() in DESCRIPTOR_SETS:
                files = read_descriptor_set(path, data)
            else:
                raise FormatError(f"{where}: a Protobuf schema is a .proto file or a descriptor set "
                                  f"({', '.join(DESCRIPTOR_SETS)}, from protoc --descriptor_set_out)")  # fmt: skip
            return schema_from_set(files, message_type, where), ""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise FormatError(f"{where} is not text: a {fmt.value} schema is JSON") from None
        if fmt is Format.AVRO:
            return parse_avro(text, where), text
        return json_schema_of(text, where), text
