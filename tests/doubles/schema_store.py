"""TEST DOUBLE's state: the subjects, versions, schema ids and compatibility levels of a Confluent Schema Registry,
kept in memory, and the rules Confluent's registry applies to them (see schema_registry.py for the HTTP side).

As Confluent's registry does: a schema's id is global (the same schema, type and references under another subject
keep their id); registering a schema a subject already holds answers its id without a new version; a soft-deleted
subject or version is hidden unless `deleted=true` is asked, and its version numbers are not given again; a schema is
parsed before it is kept (Avro by fastavro, JSON Schema by jsonschema, Protobuf as a base64 FileDescriptorProto or as
.proto text compiled by protoc) and kept as registered, its base64 descriptor at hand for `format=serialized`.
Compatibility is checked for Avro records only, and by a subset of Avro's rules (a field read without a default must
be written; a field kept must keep its type or be promoted): enough for tests, not Confluent's full checker. Protobuf
and JSON Schema versions are accepted as compatible."""

from __future__ import annotations

import base64
import binascii
import json
import threading
from dataclasses import dataclass, field
from typing import Any

import fastavro
import jsonschema
from google.protobuf import descriptor_pb2
from google.protobuf.message import DecodeError

from kafkatop.backends.model.formats import FormatError
from kafkatop.backends.schemas.proto_files import compile_proto_text

LEVELS = ("NONE", "BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE")
TYPES = ("AVRO", "PROTOBUF", "JSON")
_PROMOTIONS = {("int", "long"), ("int", "float"), ("int", "double"), ("long", "float"), ("long", "double"),
               ("float", "double"), ("string", "bytes"), ("bytes", "string")}  # fmt: skip


class Refused(Exception):  # noqa: N818 — an answer of the registry, not a failure of the double
    """An error answer: HTTP status, Confluent's error_code and message."""

    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def subject_not_found(subject: str) -> Refused:
    return Refused(404, 40401, f"Subject '{subject}' not found.")


@dataclass(frozen=True)
class Stored:
    """One schema, as registered, under its global id."""

    schema_id: int
    schema_type: str
    schema: str
    references: tuple[tuple[str, str, int], ...]  # (name, subject, version)
    serialized: str | None = None  # Protobuf: the base64 FileDescriptorProto

    def answer(self, fmt: str | None = None) -> dict[str, Any]:
        """The fields Confluent answers a schema with: schemaType only when not AVRO, references only when some."""
        text = self.serialized if fmt == "serialized" and self.serialized is not None else self.schema
        body: dict[str, Any] = {"schema": text}
        if self.schema_type != "AVRO":
            body["schemaType"] = self.schema_type
        if self.references:
            body["references"] = [{"name": n, "subject": s, "version": v} for n, s, v in self.references]
        return body


@dataclass
class SubjectState:
    versions: dict[int, int] = field(default_factory=dict)  # version → schema id, in order
    deleted_versions: set[int] = field(default_factory=set)
    deleted: bool = False  # soft-deleted as a whole
    compatibility: str | None = None
    next_version: int = 1

    def live(self, deleted: bool = False) -> list[int]:
        if self.deleted and not deleted:
            return []
        return [v for v in self.versions if deleted or v not in self.deleted_versions]


class SchemaStore:
    def __init__(self, compatibility: str = "BACKWARD") -> None:
        self.lock = threading.RLock()
        self.compatibility = compatibility
        self.schemas: dict[int, Stored] = {}
        self.subjects: dict[str, SubjectState] = {}
        self._ids: dict[tuple[str, str, tuple[tuple[str, str, int], ...]], int] = {}

    # --- reading ----------------------------------------------------------------------------------------------------
    def subject(self, name: str, deleted: bool = False) -> SubjectState:
        state = self.subjects.get(name)
        if state is None or not state.live(deleted):
            raise subject_not_found(name)
        return state

    def version(self, name: str, version: str, deleted: bool = False) -> tuple[int, Stored]:
        state = self.subject(name, deleted)
        if version == "latest":
            number = state.live(deleted)[-1]
        else:
            try:
                number = int(version)
            except ValueError:
                number = 0
            if number < 1 and number != -1:
                raise Refused(422, 42202, f"The specified version '{version}' is not a valid version id. Allowed "
                                          'values are between [1, 2^31-1] and the string "latest"')  # fmt: skip
            if number == -1:
                number = state.live(deleted)[-1]
            if number not in state.live(deleted):
                raise Refused(404, 40402, f"Version {number} not found.")
        return number, self.schemas[state.versions[number]]

    def by_id(self, schema_id: int) -> Stored:
        stored = self.schemas.get(schema_id)
        if stored is None:
            raise Refused(404, 40403, f"Schema {schema_id} not found")
        return stored

    def holders(self, schema_id: int, deleted: bool = False) -> list[tuple[str, int]]:
        return [(name, v) for name, state in self.subjects.items() for v in state.live(deleted)
                if state.versions[v] == schema_id]  # fmt: skip

    def level(self, subject: str | None) -> str:
        if subject is not None and subject in self.subjects and self.subjects[subject].compatibility:
            return str(self.subjects[subject].compatibility)
        return self.compatibility

    # --- writing ----------------------------------------------------------------------------------------------------
    def register(self, subject: str, body: dict[str, Any]) -> int:
        stored_key, stored = self._parse(body)
        with self.lock:
            state = self.subjects.setdefault(subject, SubjectState())
            existing = self._ids.get(stored_key)
            if existing is not None and existing in (state.versions[v] for v in state.live()):
                return existing
            self._check_compatible(subject, state, stored)
            if state.deleted:  # registering again brings a soft-deleted subject back, with its numbering
                state.deleted = False
                state.deleted_versions |= set(state.versions)
            schema_id = existing if existing is not None else max(self.schemas, default=0) + 1
            if existing is None:
                self._ids[stored_key] = schema_id
                self.schemas[schema_id] = Stored(schema_id, *stored_key, serialized=stored.serialized)
            state.versions[state.next_version] = schema_id
            state.next_version += 1
            return schema_id

    def lookup(self, subject: str, body: dict[str, Any], deleted: bool = False) -> tuple[int, Stored]:
        stored_key, _ = self._parse(body)
        state = self.subject(subject, deleted)
        schema_id = self._ids.get(stored_key)
        for number in state.live(deleted):
            if state.versions[number] == schema_id:
                return number, self.schemas[schema_id]
        raise Refused(404, 40403, "Schema not found")

    def delete_subject(self, subject: str, permanent: bool) -> list[int]:
        with self.lock:
            state = self.subjects.get(subject)
            if state is None or (not permanent and not state.live()):
                raise subject_not_found(subject)
            if permanent:
                if not state.deleted:
                    raise Refused(404, 40405, f"Subject '{subject}' was not deleted first before being "
                                              "permanently deleted")  # fmt: skip
                del self.subjects[subject]
                return list(state.versions)
            versions = state.live()
            state.deleted = True
            return versions

    def delete_version(self, subject: str, version: str, permanent: bool) -> int:
        with self.lock:
            number, _ = self.version(subject, version, deleted=permanent)
            state = self.subjects[subject]
            if permanent:
                if number not in state.deleted_versions:
                    raise Refused(404, 40407, f"Subject '{subject}' Version {number} was not deleted first "
                                              "before being permanently deleted")  # fmt: skip
                del state.versions[number]
                state.deleted_versions.discard(number)
            else:
                state.deleted_versions.add(number)
            return number

    def set_level(self, subject: str | None, body: dict[str, Any]) -> str:
        level = str(body.get("compatibility") or body.get("compatibilityLevel") or "").upper()
        if level not in LEVELS:
            raise Refused(422, 42203, "Invalid compatibility level. Valid values are none, backward, forward, full, "
                                      "backward_transitive, forward_transitive, and full_transitive")  # fmt: skip
        with self.lock:
            if subject is None:
                self.compatibility = level
            else:
                self.subjects.setdefault(subject, SubjectState()).compatibility = level
        return level

    # --- rules ------------------------------------------------------------------------------------------------------
    def _parse(self, body: dict[str, Any]) -> tuple[tuple[str, str, tuple[tuple[str, str, int], ...]], Stored]:
        text = body.get("schema")
        schema_type = str(body.get("schemaType") or "AVRO").upper()
        if not isinstance(text, str) or not text.strip():
            raise Refused(422, 42201, "Invalid schema: empty schema")
        if schema_type not in TYPES:
            raise Refused(422, 42201, f"Invalid schema type {schema_type}")
        refs = tuple((str(r.get("name")), str(r.get("subject")), int(r.get("version", 0)))
                     for r in body.get("references") or ())  # fmt: skip
        referenced = {name: self.version(subject, str(version))[1] for name, subject, version in refs}
        serialized = None
        if schema_type == "AVRO":
            canonical = _avro_canonical(text, referenced)
        elif schema_type == "JSON":
            canonical = _json_canonical(text)
        else:
            canonical, serialized = text.strip(), _protobuf_serialized(text, referenced)
        key = (schema_type, canonical, refs)
        return key, Stored(0, *key, serialized=serialized)

    def _check_compatible(self, subject: str, state: SubjectState, new: Stored) -> None:
        level = self.level(subject)
        live = state.live()
        if level == "NONE" or not live or new.schema_type != "AVRO":
            return
        against = live if level.endswith("_TRANSITIVE") else live[-1:]
        for number in reversed(against):
            old = self.schemas[state.versions[number]]
            problems = []
            if level.startswith(("BACKWARD", "FULL")):
                problems += _avro_reads(json.loads(new.schema), json.loads(old.schema), "new", "old")
            if level.startswith(("FORWARD", "FULL")):
                problems += _avro_reads(json.loads(old.schema), json.loads(new.schema), "old", "new")
            if problems:
                details = ", ".join(f"{{errorType:'{kind}', description:'{text}'}}" for kind, text in problems)
                raise Refused(409, 409, f'Schema being registered is incompatible with an earlier schema for subject '
                                        f'"{subject}", details: [{details}, {{oldSchemaVersion: {number}}}, '
                                        f"{{oldSchema: '{old.schema}'}}, {{compatibility: '{level}'}}]")  # fmt: skip


def _avro_canonical(text: str, referenced: dict[str, Stored]) -> str:
    try:
        schema = json.loads(text)
        named: dict[str, Any] = {}
        for stored in referenced.values():
            fastavro.parse_schema(json.loads(stored.schema), named_schemas=named)
        fastavro.parse_schema(schema, named_schemas=named)
    except (ValueError, TypeError, KeyError, fastavro.schema.SchemaParseException, fastavro.schema.UnknownType) as e:
        raise Refused(422, 42201, f"Invalid schema {text[:200]}, details: {e}") from None
    return json.dumps(schema, separators=(",", ":"))


def _json_canonical(text: str) -> str:
    try:
        schema = json.loads(text)
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except (ValueError, jsonschema.exceptions.SchemaError) as e:
        raise Refused(422, 42201, f"Invalid schema {text[:200]}, details: {str(e).splitlines()[0]}") from None
    return json.dumps(schema, separators=(",", ":"))


def _protobuf_serialized(text: str, referenced: dict[str, Stored]) -> str:
    """The base64 FileDescriptorProto of a schema given as one (what ProtobufSerializer registers) or as .proto
    text (what a person registers), as Confluent's registry answers `format=serialized`."""
    try:
        raw = base64.b64decode(text.strip(), validate=True)
        proto = descriptor_pb2.FileDescriptorProto.FromString(raw)
        if proto.name or proto.message_type or proto.package:
            return text.strip()
    except (binascii.Error, ValueError, DecodeError):
        pass
    imports = {name: stored.schema for name, stored in referenced.items() if not _is_base64(stored.schema)}
    try:
        files = compile_proto_text("schema.proto", text, imports)
    except FormatError as e:
        raise Refused(422, 42201, f"Invalid schema, details: {e}") from None
    return base64.b64encode(files.file[-1].SerializeToString()).decode("ascii")


def _is_base64(text: str) -> bool:
    try:
        base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _avro_reads(reader: Any, writer: Any, reader_name: str, writer_name: str) -> list[tuple[str, str]]:
    """Why `reader` cannot read what `writer` wrote (top-level record fields only), as Confluent's errorType names."""
    records = isinstance(reader, dict) and isinstance(writer, dict)
    if not (records and reader.get("type") == writer.get("type") == "record"):
        if reader == writer or _promoted(writer, reader):
            return []
        return [("TYPE_MISMATCH", f"The type of the {reader_name} schema cannot read the {writer_name} schema")]
    written = {f["name"]: f for f in writer.get("fields", [])}
    problems = []
    for i, f in enumerate(reader.get("fields", [])):
        old = written.get(f["name"])
        if old is None:
            if "default" not in f:
                problems.append(("READER_FIELD_MISSING_DEFAULT_VALUE", f"The field '{f['name']}' at path "
                                 f"'/fields/{i}' in the {reader_name} schema has no default value and is missing in "
                                 f"the {writer_name} schema"))  # fmt: skip
        elif old["type"] != f["type"] and not _promoted(old["type"], f["type"]):
            problems.append(("TYPE_MISMATCH", f"The type (path '/fields/{i}/type') of a field in the {reader_name} "
                             f"schema does not match with the {writer_name} schema"))  # fmt: skip
    return problems


def _promoted(written: Any, read: Any) -> bool:
    if isinstance(read, list):  # a union reads what any of its branches reads
        return any(written == branch or _promoted(written, branch) for branch in read)
    return isinstance(written, str) and isinstance(read, str) and (written, read) in _PROMOTIONS
