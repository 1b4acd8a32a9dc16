"""Avro records read and written by fastavro, and their values as JSON.

A record decodes to what the serializer was given (fastavro's schemaless_reader: a record a dict, a union its branch's
value, an enum its symbol) where JSON can hold it, and otherwise as:

    bytes, fixed                        base64 (standard, padded), as Protobuf's JSON mapping writes bytes
    decimal                             its digits as a string ("12.50"): exact, as a JSON number would not be
    uuid                                its text

Dates, times and timestamps read as the number written (days, ms or µs), as Avro's JSON encoding and Confluent's
kafka-avro-console-consumer print them, so a record given to the serializer with numbers reads back the same.
Encoding takes the same JSON back (a timestamp may also be ISO 8601 text, a decimal a number); a value that does not fit
is a FormatError naming its field. The text may also be Avro's own JSON encoding (unions as {"type": value}, as
kafka-avro-console-producer reads it): fastavro's json_reader reads it when the plain form does not fit.
"""

from __future__ import annotations

import base64
import binascii
import copy
import datetime as dt
import io
import json
import uuid
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, cast

import fastavro
from fastavro.schema import SchemaParseException, UnknownType
from fastavro.validation import ValidationError, validate

from kafkatop.backends.model.formats import FormatError, JsonValue
from kafkatop.backends.model.json_text import loads

_LOGICAL = ("bytes", "fixed", "logicalType")
_TIMESTAMPS = ("timestamp-millis", "timestamp-micros", "local-timestamp-millis", "local-timestamp-micros")
_INTS = ("int", "long")
_TIMES = ('"date"', '"time-millis"', '"time-micros"', *(f'"{t}"' for t in _TIMESTAMPS))


def _numbered_times(schema: Any) -> Any:
    """The (copied) parsed schema with its date, time and timestamp logical types dropped, in place."""
    stack, seen = [schema], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            if f'"{node.get("logicalType")}"' in _TIMES:
                del node["logicalType"]
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return schema


_NUMBERS = ("int", "long", "float", "double")


@dataclass(frozen=True, slots=True)
class AvroSchema:
    """A parsed schema (fastavro's form), its named types, and whether its values need the JSON mapping above."""

    parsed: Any
    named: dict[str, Any]
    mapped: bool
    reading: Any  # `parsed` without the date, time and timestamp logical types: they read as their numbers

    @classmethod
    def of(cls, parsed: Any) -> AvroSchema:
        named = dict(parsed.get("__named_schemas", {})) if isinstance(parsed, dict) else {}
        _collect(parsed, named)
        text = json.dumps(parsed, default=str)
        reading = _numbered_times(copy.deepcopy(parsed)) if any(t in text for t in _TIMES) else parsed
        left = json.dumps(reading, default=str) if reading is not parsed else text  # what reads as other than JSON
        return cls(parsed, named, any(f'"{word}"' in left for word in _LOGICAL), reading)


def parse_avro(text: str, where: str) -> AvroSchema:
    """A schema's text (an .avsc's, or the registry's); FormatError says why it cannot be one."""
    try:
        schema = loads(text)
    except ValueError as e:
        raise FormatError(f"{where} is not JSON: {e}") from None
    try:
        return AvroSchema.of(fastavro.parse_schema(schema))
    except (SchemaParseException, UnknownType, ValueError, TypeError, KeyError, AttributeError) as e:
        raise FormatError(f"{where} is not an Avro schema: {' '.join(str(e).split())[:200]}") from None


def read_avro(payload: bytes, schema: AvroSchema) -> JsonValue:
    """The record in `payload` as JSON-able data; ValueError (or EOFError, …) when the bytes are not of the schema."""
    value = fastavro.schemaless_reader(io.BytesIO(payload), schema.reading, None)
    return jsonable(value) if schema.mapped else cast(JsonValue, value)


def write_avro(value: JsonValue, schema: AvroSchema, where: str) -> bytes:
    record = avro_value(value, schema, where)
    out = io.BytesIO()
    fastavro.schemaless_writer(out, schema.parsed, record)
    return out.getvalue()


def avro_value(value: JsonValue, schema: AvroSchema, where: str, text: str | None = None) -> Any:
    """The JSON value as the datum fastavro writes, checked against the schema: FormatError names the field that does
    not fit. `text` (the JSON as typed) is read as Avro's JSON encoding when the plain form does not fit."""
    datum = _to_avro(value, schema.parsed, schema.named, "")
    try:
        validate(datum, schema.parsed, raise_errors=True)
    except ValidationError as e:
        encoded = None if text is None else _avro_json(text, schema)
        if encoded is None:
            raise FormatError(f"the text does not fit {where}: {_said(e)}") from None
        return encoded
    return datum


def _avro_json(text: str, schema: AvroSchema) -> Any:
    """The text read as Avro's JSON encoding, or None when it is not that either."""
    try:
        datum = next(iter(fastavro.json_reader(io.StringIO(text), schema.parsed)))
        validate(datum, schema.parsed, raise_errors=True)
    except Exception:  # noqa: BLE001 — fastavro raises all sorts: the plain form's error is the one said
        return None
    return datum


def jsonable(value: Any) -> JsonValue:
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dt.date | dt.time):  # datetime is a date
        return value.isoformat()
    if isinstance(value, uuid.UUID | tuple):
        return str(value) if isinstance(value, uuid.UUID) else jsonable(list(value))
    return value  # type: ignore[no-any-return]


def _said(e: ValidationError) -> str:
    if not e.errors:
        return str(e)
    first = e.errors[0]
    wanted = first.schema.get("type") if isinstance(first.schema, dict) else first.schema
    shown = json.dumps(jsonable(first.datum), default=str)[:80]
    return f"field {first.field or '(the value)'}: {shown} is not {json.dumps(wanted, default=str)[:80]}"


def _collect(schema: Any, named: dict[str, Any]) -> None:
    if isinstance(schema, list):
        for branch in schema:
            _collect(branch, named)
    elif isinstance(schema, dict):
        if schema.get("type") in ("record", "enum", "fixed", "error") and "name" in schema:
            named.setdefault(schema["name"], schema)
        for f in schema.get("fields", ()):
            _collect(f.get("type"), named)
        for key in ("items", "values"):
            if key in schema:
                _collect(schema[key], named)


def _to_avro(value: Any, schema: Any, named: dict[str, Any], path: str) -> Any:
    """JSON → the datum, by the schema: base64 to bytes, ISO text to dates and times, a decimal's text to Decimal."""
    if isinstance(schema, str):
        if schema in named:
            return _to_avro(value, named[schema], named, path)
        return _bytes(value, path) if schema == "bytes" and isinstance(value, str) else value
    if isinstance(schema, list):
        if value is None:
            return None
        for branch in schema:
            if branch == "null":
                continue
            try:
                converted = _to_avro(value, branch, named, path)
            except FormatError:
                continue
            if _fits(converted, branch, named):
                return converted
        return value
    kind, logical = schema.get("type"), schema.get("logicalType")
    if logical is not None and value is not None:
        return _logical(value, kind, logical, path)
    if kind == "record" and isinstance(value, dict):
        out = dict(value)
        for f in schema.get("fields", ()):
            if f["name"] in value:
                out[f["name"]] = _to_avro(value[f["name"]], f["type"], named, f"{path}.{f['name']}".lstrip("."))
        return out
    if kind == "array" and isinstance(value, list):
        return [_to_avro(v, schema["items"], named, path) for v in value]
    if kind == "map" and isinstance(value, dict):
        return {k: _to_avro(v, schema["values"], named, path) for k, v in value.items()}
    if kind in ("bytes", "fixed") and isinstance(value, str):
        return _bytes(value, path)
    return value


def _logical(value: Any, kind: str, logical: str, path: str) -> Any:
    try:
        if logical == "decimal" and isinstance(value, str | int | float) and not isinstance(value, bool):
            return Decimal(str(value))
        if not isinstance(value, str):
            return value
        if logical in _TIMESTAMPS:
            return dt.datetime.fromisoformat(value)
        if logical == "date":
            return dt.date.fromisoformat(value)
        if logical in ("time-millis", "time-micros"):
            return dt.time.fromisoformat(value)
    except (ValueError, InvalidOperation):
        raise FormatError(f"field {path or '(the value)'}: {value!r} is not a {logical} ({kind})") from None
    return _bytes(value, path) if kind in ("bytes", "fixed") and logical != "decimal" else value


def _bytes(value: str, path: str) -> bytes:
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise FormatError(f"field {path or '(the value)'}: bytes are given in base64, not {value[:40]!r}") from None


def _fits(value: Any, schema: Any, named: dict[str, Any]) -> bool:
    """Whether a union's branch takes the value (as fastavro picks it: the first that does)."""
    if isinstance(schema, str) and schema in named:
        schema = named[schema]
    kind = schema.get("type") if isinstance(schema, dict) else schema
    if isinstance(schema, dict) and schema.get("logicalType"):
        return not isinstance(value, str) or schema.get("logicalType") == "uuid"
    checks = {
        "boolean": lambda: isinstance(value, bool),
        "string": lambda: isinstance(value, str),
        "bytes": lambda: isinstance(value, bytes),
        "fixed": lambda: isinstance(value, bytes),
        "enum": lambda: isinstance(value, str) and value in schema.get("symbols", ()),
        "array": lambda: isinstance(value, list),
        "map": lambda: isinstance(value, dict),
        "record": lambda: isinstance(value, dict) and _record_fits(value, schema),
    }
    if kind in _NUMBERS:
        number = isinstance(value, int | float) and not isinstance(value, bool)
        return number and (kind not in _INTS or isinstance(value, int))
    check = checks.get(str(kind))
    return bool(check and check())


def _record_fits(value: dict[str, Any], schema: dict[str, Any]) -> bool:
    fields = {f["name"]: f for f in schema.get("fields", ())}
    return set(value) <= set(fields) and all(name in value or "default" in f for name, f in fields.items())
