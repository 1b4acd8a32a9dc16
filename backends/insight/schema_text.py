"""A registered schema as a reader reads it (the Schemas tab): Avro and JSON Schema as pretty-printed JSON; Protobuf as
.proto text — as registered, or, for a serialized FileDescriptorProto in base64 (what confluent-kafka's
ProtobufSerializer registers, and what a registry serves with `?format=serialized`), the .proto it describes, decoded
here from protobuf's wire format with the standard library only (insight is pure: no google.protobuf).

What a registry serves is shown, never obeyed: control and invisible characters are written as escapes.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Literal

from kafkatop.backends.model.formats import SchemaType
from kafkatop.backends.model.json_text import loads
from kafkatop.backends.model.text import printable

Language = Literal["json", "protobuf", "text"]
SHOWN_CHARS = 200_000  # a schema beyond this is shown by its head: drawing megabytes would hold the event loop


@dataclass(frozen=True, slots=True)
class SchemaText:
    language: Language  # how to highlight it
    text: str
    note: str | None = None  # what a reader must know: "a serialized FileDescriptorProto (base64), shown as .proto"


def _cut(text: str) -> tuple[str, str | None]:
    if len(text) <= SHOWN_CHARS:
        return text, None
    return text[:SHOWN_CHARS], f"its first {SHOWN_CHARS:,} of {len(text):,} characters"


def schema_text(schema_type: SchemaType, schema: str) -> SchemaText:
    """How a schema of this type is shown; never raises (what does not read as its type is shown as it is, saying
    so)."""
    if schema_type in ("AVRO", "JSON"):
        try:
            text, note = _cut(json.dumps(loads(schema), indent=2, ensure_ascii=False))
        except ValueError:
            text, cut = _cut(schema)
            said = f"not JSON, as an {schema_type.title()} schema is: shown as the registry serves it"
            return SchemaText("text", printable(text, lines=True), said + (f"; {cut}" if cut else ""))
        return SchemaText("json", printable(text, lines=True), note)
    descriptor = _descriptor_bytes(schema)
    if descriptor is None:
        text, note = _cut(schema)
        return SchemaText("protobuf", printable(text, lines=True), note)
    try:
        proto = proto_of_descriptor(descriptor)
    except ValueError as e:
        text, cut = _cut(schema)
        said = f"base64 of {len(descriptor)} bytes that are not a FileDescriptorProto ({e}): shown as served"
        return SchemaText("text", printable(text, lines=True), said + (f"; {cut}" if cut else ""))
    text, cut = _cut(proto)
    said = "a serialized FileDescriptorProto (base64), shown as the .proto it describes"
    return SchemaText("protobuf", printable(text, lines=True), said + (f"; {cut}" if cut else ""))


def _descriptor_bytes(schema: str) -> bytes | None:
    """The bytes of a base64 schema (a serialized descriptor), or None for .proto text (which is never base64: it
    has spaces, semicolons or braces)."""
    compact = "".join(schema.split())
    if not compact or any(c in schema for c in ';{}"') or len(compact) % 4:
        return None
    try:
        return base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        return None


# --- protobuf's wire format, as far as a descriptor needs it ------------------------------------------------------
Fields = dict[int, list[int | bytes]]  # a message: its field numbers, each with the values it holds, in order


def _varint(data: bytes, i: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        if i >= len(data):
            raise ValueError("cut in a varint")
        byte = data[i]
        value |= (byte & 0x7F) << shift
        i += 1
        if not byte & 0x80:
            return value, i
        shift += 7
        if shift > 63:
            raise ValueError("a varint longer than 10 bytes")


def _message(data: bytes) -> Fields:
    """A message's fields by number; ValueError when the bytes are not one."""
    fields: Fields = {}
    i, end = 0, len(data)
    while i < end:
        key, i = _varint(data, i)
        number, wire = key >> 3, key & 7
        value: int | bytes
        if number == 0:
            raise ValueError("field number 0")
        if wire == 0:
            value, i = _varint(data, i)
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            if i + size > end:
                raise ValueError("cut in a fixed-size field")
            value, i = int.from_bytes(data[i : i + size], "little"), i + size
        elif wire == 2:
            size, i = _varint(data, i)
            if i + size > end:
                raise ValueError(f"field {number} runs past the end")
            value, i = data[i : i + size], i + size
        else:
            raise ValueError(f"wire type {wire} in field {number}")
        fields.setdefault(number, []).append(value)
    return fields


def _str(m: Fields, number: int, default: str = "") -> str:
    values = m.get(number)
    if not values:
        return default
    value = values[-1]
    if not isinstance(value, bytes):
        raise ValueError(f"field {number} is not text")
    return value.decode("utf-8")


def _int(m: Fields, number: int, default: int = 0) -> int:
    values = m.get(number)
    if not values:
        return default
    value = values[-1]
    if isinstance(value, bytes):
        raise ValueError(f"field {number} is not a number")
    return value - (1 << 64) if value >= 1 << 63 else value  # int32 and int64 negatives: ten bytes, two's complement


def _subs(m: Fields, number: int) -> list[Fields]:
    out = []
    for value in m.get(number, []):
        if not isinstance(value, bytes):
            raise ValueError(f"field {number} is not a message")
        out.append(_message(value))
    return out


def _strs(m: Fields, number: int) -> list[str]:
    return [_str({number: [v]}, number) for v in m.get(number, [])]


# FieldDescriptorProto.Type, by number
TYPES = {1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 6: "fixed64", 7: "fixed32", 8: "bool",
         9: "string", 10: "group", 11: "message", 12: "bytes", 13: "uint32", 14: "enum", 15: "sfixed32",
         16: "sfixed64", 17: "sint32", 18: "sint64"}  # fmt: skip
EDITIONS = {1000: "2023", 1001: "2024"}  # the Edition enum's values
OPTIONAL, REQUIRED, REPEATED = 1, 2, 3
INDENT = "  "


def _join(scope: str, name: str) -> str:
    return f"{scope}.{name}" if scope else name


def _symbols(f: Fields, package: str) -> set[str]:
    """Every name the file defines (packages, messages, enums and their values, fields, oneofs, services), in full:
    what a type name written relative to a scope could resolve to instead."""
    found = {".".join(package.split(".")[: i + 1]) for i in range(len(package.split(".")))} if package else set()

    def enums(holder: Fields, scope: str) -> None:
        for e in _subs(holder, 5 if holder is f else 4):
            found.add(_join(scope, _str(e, 1)))
            found.update(_join(scope, _str(v, 1)) for v in _subs(e, 2))  # C++ scoping: values beside their enum

    def message(m: Fields, scope: str) -> None:
        full = _join(scope, _str(m, 1))
        found.add(full)
        found.update(_join(full, _str(x, 1)) for number in (2, 8) for x in _subs(m, number))
        enums(m, full)
        for n in _subs(m, 3):
            message(n, full)

    for m in _subs(f, 4):
        message(m, package)
    enums(f, package)
    found.update(_join(package, _str(s, 1)) for s in _subs(f, 6))
    return found


@dataclass
class _Writer:
    package: str
    proto3: bool
    symbols: set[str]
    lines: list[str]

    def relative(self, name: str, scope: str) -> str:
        """A type's name as short as it reads the same from `scope` (.shop.Order.Item from shop.Order: Item); a
        type of another file stays fully qualified (.google.protobuf.Timestamp)."""
        target = name.removeprefix(".")
        scopes = [".".join(scope.split(".")[:i]) for i in range(len(scope.split(".")) if scope else 0, -1, -1)]
        for outer in scopes:
            if outer and not target.startswith(outer + "."):
                continue
            written = target[len(outer) + 1 :] if outer else target
            first = written.split(".")[0]
            bound = next((_join(s, first) for s in scopes if _join(s, first) in self.symbols), None)
            if bound is not None and _join(bound.rpartition(".")[0], written) == target:
                return written
        return name

    def type_name(self, field: Fields, scope: str) -> str:
        """A field's type: scalar by name; a message or enum as `relative` writes it."""
        kind = _int(field, 5)
        if kind not in (10, 11, 14) or 6 not in field:
            return TYPES.get(kind, f"type{kind}")
        return self.relative(_str(field, 6), scope)

    def field(self, f: Fields, depth: int, scope: str, nested: dict[str, Fields]) -> None:
        label, kind = _int(f, 4, OPTIONAL), self.type_name(f, scope)
        inner = nested.get(_str(f, 6).rpartition(".")[2]) if _int(f, 5) in (10, 11) else None
        map_entry = inner is not None and label == REPEATED and any(_int(o, 7) for o in _subs(inner, 7))
        if inner is not None and map_entry:  # a map: its entry type's key and value, as .proto writes them
            key, value = (next((x for x in _subs(inner, 2) if _int(x, 3) == n), {}) for n in (1, 2))
            said = f"map<{self.type_name(key, scope)}, {self.type_name(value, scope)}>"
        elif label == REPEATED:
            said = f"repeated {kind}"
        elif label == REQUIRED:
            said = f"required {kind}"
        elif _int(f, 17) or not self.proto3:
            said = f"optional {kind}"
        else:
            said = kind
        pad = INDENT * depth
        if inner is not None and _int(f, 5) == 10:  # a proto2 group: its message written in place
            name = _str(inner, 1)
            self.lines.append(f"{pad}{said.rpartition(' ')[0]} group {name} = {_int(f, 3)} {{")
            self.body(inner, depth + 1, _join(scope, name))
            self.lines.append(f"{pad}}}")
            return
        default = ""
        if 7 in f:
            text = _str(f, 7)
            default = f" [default = {json.dumps(text) if _int(f, 5) in (9, 12) else text}]"
        self.lines.append(f"{pad}{said} {_str(f, 1)} = {_int(f, 3)}{default};")

    def enum(self, e: Fields, depth: int) -> None:
        pad = INDENT * depth
        self.lines.append(f"{pad}enum {_str(e, 1)} {{")
        for v in _subs(e, 2):
            self.lines.append(f"{pad}{INDENT}{_str(v, 1)} = {_int(v, 2)};")
        self.lines.append(f"{pad}}}")

    def message(self, m: Fields, depth: int, scope: str) -> None:
        pad = INDENT * depth
        self.lines.append(f"{pad}message {_str(m, 1)} {{")
        self.body(m, depth + 1, _join(scope, _str(m, 1)))
        self.lines.append(f"{pad}}}")

    def body(self, m: Fields, depth: int, scope: str) -> None:
        """A message's fields (oneofs where their first field is), then its nested messages and enums — a map's
        entry type and a group's message are written where their field is."""
        pad = INDENT * depth
        nested = {_str(n, 1): n for n in _subs(m, 3)}
        fields, oneofs = _subs(m, 2), _subs(m, 8)
        inline = {_str(f, 6).rpartition(".")[2] for f in fields if _int(f, 5) == 10} | {
            name for name, n in nested.items() if any(_int(o, 7) for o in _subs(n, 7))}  # fmt: skip
        real = [i for i in range(len(oneofs)) if not all(_int(f, 17) for f in fields if _int(f, 9, -1) == i)]
        done: set[int] = set()
        for f in fields:
            index = _int(f, 9, -1) if 9 in f and not _int(f, 17) else -1
            if index in real:
                if index not in done:  # the oneof, with its fields, where its first field is
                    done.add(index)
                    self.lines.append(f"{pad}oneof {_str(oneofs[index], 1)} {{")
                    for g in fields:
                        if 9 in g and _int(g, 9) == index and not _int(g, 17):
                            self.field(g, depth + 1, scope, nested)
                    self.lines.append(f"{pad}}}")
                continue
            self.field(f, depth, scope, nested)
        for name, n in nested.items():
            if name not in inline:
                self.message(n, depth, scope)
        for e in _subs(m, 4):
            self.enum(e, depth)
        reserved = _strs(m, 10)
        if reserved:
            self.lines.append(f"{pad}reserved {', '.join(json.dumps(r) for r in reserved)};")

    def service(self, s: Fields) -> None:
        self.lines.append(f"service {_str(s, 1)} {{")
        for rpc in _subs(s, 2):
            streams = ["stream " if _int(rpc, n) else "" for n in (5, 6)]
            given, returned = (self.relative(_str(rpc, n), self.package) for n in (2, 3))
            self.lines.append(f"{INDENT}rpc {_str(rpc, 1)}({streams[0]}{given}) returns ({streams[1]}{returned});")
        self.lines.append("}")


def proto_of_descriptor(data: bytes) -> str:
    """The .proto text a serialized FileDescriptorProto describes: syntax, package, imports, messages (fields,
    oneofs, maps, nested messages and enums), enums and services; options other than a map's are left out. ValueError
    when the bytes are not a FileDescriptorProto."""
    try:
        f = _message(data)
        syntax = _str(f, 12, "proto2")
        if syntax not in ("proto2", "proto3", "editions") or not ({4, 5, 6} & f.keys() or 1 in f or 2 in f):
            raise ValueError("no file descriptor's fields")
        package = _str(f, 2)
        out = _Writer(package, syntax == "proto3", _symbols(f, package), [])
        edition = EDITIONS.get(_int(f, 14), str(_int(f, 14)))
        out.lines.append(f'syntax = "{syntax}";' if syntax != "editions" else f'edition = "{edition}";')
        if 1 in f:
            out.lines.insert(0, f"// {_str(f, 1)}")
        if out.package:
            out.lines += ["", f"package {out.package};"]
        imports = _strs(f, 3)
        if imports:
            out.lines += ["", *(f'import "{name}";' for name in imports)]
        for m in _subs(f, 4):
            out.lines.append("")
            out.message(m, 0, package)
        for e in _subs(f, 5):
            out.lines.append("")
            out.enum(e, 0)
        for s in _subs(f, 6):
            out.lines.append("")
            out.service(s)
    except (UnicodeDecodeError, RecursionError) as e:
        raise ValueError(type(e).__name__) from None
    return "\n".join(out.lines) + "\n"
