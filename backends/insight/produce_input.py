"""What `kafkatop produce` reads, as records: lines as kafka-console-producer.sh's LineMessageReader reads them
(`--property` parse.key, key.separator, parse.headers, headers.delimiter, headers.separator, headers.key.separator,
null.marker, ignore.error), a key cut as kcat -P -K cuts it, headers for every record (kcat -H), or the JSON lines
`kafkatop consume --json` prints (kcat -J's fields) — pure: the model only.

A line is bytes: the separators are matched as their UTF-8 bytes, so a line that is not UTF-8 splits as text does and
goes out as the bytes read (kcat -P's way; the console producer decodes and re-encodes UTF-8, replacing what is not).
Where the two tools differ the console producer's way is kept, but for the separators, which are matched literally
(its headers.separator is a Java regular expression)."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kafkatop.backends.model.consoles import escape_payload
from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.formats import FormatError, RecordField
from kafkatop.backends.model.json_text import TooDeep, loads
from kafkatop.backends.model.produce import BadLine, Header, ProducerRecord

# kafka-console-producer.sh's --property names, with their defaults as its help says them.
READER_PROPERTIES: dict[str, str] = {
    "parse.key": "false", "key.separator": "\\t", "parse.headers": "false", "headers.delimiter": "\\t",
    "headers.separator": ",", "headers.key.separator": ":", "null.marker": "none", "ignore.error": "false",
}  # fmt: skip
_FLAGS = ("parse.key", "parse.headers", "ignore.error")
_SEPARATORS = ("key.separator", "headers.delimiter", "headers.separator", "headers.key.separator")
SHOWN_CHARS = 80  # of a bad line, in its error


def _shown(data: bytes) -> str:
    return escape_payload(data, SHOWN_CHARS)


def chomp(line: bytes) -> bytes:
    """A line without its end: \\n, or \\r\\n (as Java's readLine; a lone \\r stays in the line)."""
    if line.endswith(b"\n"):
        line = line[:-1]
        if line.endswith(b"\r"):
            line = line[:-1]
    return line


def parse_header(text: str) -> Header:
    """kcat -H's NAME=VALUE: NAME= an empty value, NAME alone no value (null)."""
    name, sep, value = text.partition("=")
    if not name:
        raise BadInput(f"--header {text!r}: write NAME=VALUE (NAME= for an empty value, NAME alone for none)")
    return name, value.encode() if sep else None


@dataclass(frozen=True, slots=True)
class LineReader:
    """How a line becomes a record: kafka-console-producer.sh's reader properties, kcat's -K, and headers added to
    every record before the line's own."""

    parse_key: bool = False
    key_separator: bytes = b"\t"
    parse_headers: bool = False
    headers_delimiter: bytes = b"\t"
    headers_separator: bytes = b","
    headers_key_separator: bytes = b":"
    null_marker: bytes | None = None
    ignore_error: bool = False
    key_delimiter: bytes | None = None  # kcat -K: a line without it is a value with no key
    headers: tuple[Header, ...] = ()

    @classmethod
    def of(
        cls, properties: Sequence[str] = (), key_delimiter: str | None = None, headers: Sequence[str] = ()
    ) -> LineReader:
        """From --property K=V (refused: a name the console producer does not know, a value that cannot be one,
        separators it refuses together), --key-delimiter and --header."""
        given: dict[str, str] = {}
        for prop in properties:
            name, sep, value = prop.partition("=")
            name = name.strip()
            if not sep or name not in READER_PROPERTIES:
                known = ", ".join(READER_PROPERTIES)
                raise BadInput(f"--property {prop!r}: write NAME=VALUE with one of {known}")
            given[name] = value
        flags = {name: _boolean(name, value) for name, value in given.items() if name in _FLAGS}
        seps = {name: _separator(name, value) for name, value in given.items() if name in _SEPARATORS}
        reader = cls(
            parse_key=flags.get("parse.key", False),
            key_separator=seps.get("key.separator", b"\t"),
            parse_headers=flags.get("parse.headers", False),
            headers_delimiter=seps.get("headers.delimiter", b"\t"),
            headers_separator=seps.get("headers.separator", b","),
            headers_key_separator=seps.get("headers.key.separator", b":"),
            null_marker=given["null.marker"].encode() if "null.marker" in given else None,
            ignore_error=flags.get("ignore.error", False),
            key_delimiter=None if key_delimiter is None else _separator("--key-delimiter", key_delimiter),
            headers=tuple(parse_header(h) for h in headers),
        )
        reader._check()
        return reader

    def _check(self) -> None:
        """The console producer's refusals (its words), and -K beside parse.key."""
        if self.key_delimiter is not None and self.parse_key:
            raise BadInput("--key-delimiter and --property parse.key=true: give one way to cut the key")
        pairs = [("null.marker", self.null_marker, "key.separator", self.key_separator)]
        if self.parse_headers:
            pairs += [
                ("null.marker", self.null_marker, "headers.separator", self.headers_separator),
                ("headers.delimiter", self.headers_delimiter, "headers.separator", self.headers_separator),
                ("headers.delimiter", self.headers_delimiter, "headers.key.separator", self.headers_key_separator),
                ("headers.separator", self.headers_separator, "headers.key.separator", self.headers_key_separator),
            ]
        for a, a_value, b, b_value in pairs:
            if a_value == b_value:
                raise BadInput(f"--property: {a} and {b} may not be equal")

    def _null(self, data: bytes) -> bytes | None:
        return None if data == self.null_marker else data

    def _cut(self, line: bytes, start: int, sep: bytes, what: str, number: int) -> bytes | None:
        """The text from `start` to `sep`: None when there is no `sep` and ignore.error is set, else refused."""
        at = line.find(sep, start)
        if at >= 0:
            return line[start:at]
        if self.ignore_error:
            return None
        fix = f"write KEY{_shown(sep)}VALUE" if what == "key separator" else f"write HEADERS{_shown(sep)}…"
        raise BadLine(number, f"no {what} ({_shown(sep)}) in '{_shown(line)}': {fix}, or set ignore.error=true")

    def record(self, line: bytes, number: int) -> ProducerRecord:
        """One line (its end chomped) as a record; BadLine when it lacks a separator the reader needs."""
        if self.key_delimiter is not None:
            at = line.find(self.key_delimiter)
            if at < 0:
                return ProducerRecord(None, self._null(line), self.headers)
            return ProducerRecord(self._null(line[:at]), self._null(line[at + len(self.key_delimiter) :]), self.headers)
        if not (self.parse_headers or self.parse_key):
            return ProducerRecord(None, self._null(line), self.headers)
        start, headers = 0, None
        if self.parse_headers:
            headers = self._cut(line, 0, self.headers_delimiter, "headers delimiter", number)
            start = 0 if headers is None else len(headers) + len(self.headers_delimiter)
        key: bytes | None = None
        if self.parse_key:
            key = self._cut(line, start, self.key_separator, "key separator", number)
            start += 0 if key is None else len(key) + len(self.key_separator)
        own = () if headers is None or headers == self.null_marker else self._headers(headers, line, number)
        return ProducerRecord(None if key is None else self._null(key), self._null(line[start:]), (*self.headers, *own))

    def _headers(self, text: bytes, line: bytes, number: int) -> tuple[Header, ...]:
        pairs = text.split(self.headers_separator)
        while len(pairs) > 1 and not pairs[-1]:
            pairs.pop()  # as Java's String.split: trailing empty strings are dropped
        out: list[Header] = []
        kv = self.headers_key_separator
        for pair in pairs:
            at = pair.find(kv)
            if at < 0 and not self.ignore_error:
                raise BadLine(number, f"no header key separator ({_shown(self.headers_key_separator)}) in header "
                              f"'{_shown(pair)}' of '{_shown(line)}': write NAME{_shown(self.headers_key_separator)}"
                              "VALUE, or set ignore.error=true")  # fmt: skip
            name, value = (pair, None) if at < 0 else (pair[:at], self._null(pair[at + len(kv) :]))
            if name == self.null_marker:
                raise BadLine(number, f"a header's name may not be the null marker '{_shown(name)}': headers "
                              "always have a name")  # fmt: skip
            try:
                out.append((name.decode("utf-8"), value))
            except UnicodeDecodeError:
                raise BadLine(number, f"header name '{_shown(name)}' is not UTF-8 text") from None
        return tuple(out)


def _boolean(name: str, value: str) -> bool:
    if value.strip().lower() not in ("true", "false"):
        raise BadInput(f"--property {name}={value}: true or false")
    return value.strip().lower() == "true"


def _separator(name: str, value: str) -> bytes:
    if not value or "\n" in value:
        raise BadInput(f"{name}: give one or more characters on one line (for example ':'), not {value!r}")
    return value.encode()


# --- JSON lines ------------------------------------------------------------------------------------------------------
_JSON_FIELDS: dict[RecordField, str] = {"key": "key", "value": "payload"}  # kcat -J's names


def json_record(line: bytes, number: int, encodes: frozenset[RecordField] = frozenset()) -> ProducerRecord | None:
    """A JSON line of `kafkatop consume --json` (kcat -J's fields) as the record it describes: key, payload
    (`*_encoding: base64`: bytes), headers (with `headers_encoding`), ts (-1: none), partition (-1: any). topic,
    offset, tstype, leader_epoch, broker and the schema ids are the source's, not the record's: left out. A JSON
    object or array (a decoded record, kcat -J -s's) is its compact JSON for the format of a field in `encodes`, and
    refused elsewhere: sent as text it would not be the record it was. None for a blank line."""
    if not line.strip():
        return None
    try:
        # kcat -J prints bytes that are not UTF-8 as they are: carried as surrogates, they go out as they came.
        obj = loads(line.decode("utf-8", "surrogateescape"))
    except TooDeep as e:  # json.loads would raise RecursionError near 1,000 levels
        raise BadLine(number, e.msg) from None
    except json.JSONDecodeError as e:
        raise BadLine(number, f"not JSON ({e.msg} at column {e.colno}): one record per line, as `kafkatop consume "
                      "--json` prints them") from None  # fmt: skip
    if not isinstance(obj, dict):
        raise BadLine(number, "not a JSON object: one record per line, as `kafkatop consume --json` prints them")
    fields: dict[RecordField, bytes | None] = {}
    binary: set[RecordField] = set()
    for which, name in _JSON_FIELDS.items():
        if which not in encodes and isinstance(obj.get(name), (dict, list)):
            raise BadLine(number, _decoded_refused(obj, which))
        fields[which], given_binary = _json_bytes(obj, name, number)
        if given_binary:
            binary.add(which)
    return ProducerRecord(
        fields["key"], fields["value"], _json_headers(obj, number), _json_int(obj, "partition", number),
        _json_int(obj, "ts", number), frozenset(binary),
    )  # fmt: skip


def _decoded_refused(obj: Mapping[str, Any], which: RecordField) -> str:
    """Why a decoded field (an object or array) is not sent as it is, and the two ways to go on."""
    name, schema_id = _JSON_FIELDS[which], obj.get(f"{which}_schema_id")
    if isinstance(schema_id, int) and not isinstance(schema_id, bool):
        what = f"{which}_schema_id {schema_id}"
        encode = (f"give --{which}-format avro, protobuf or json-schema (with --{which}-schema or --{which}-subject, "
                  f"or the registry's TOPIC-{which}) to encode it")  # fmt: skip
    else:
        what = f"a JSON {'object' if isinstance(obj.get(name), dict) else 'array'}"
        encode = f"give --{which}-format json to send it as JSON text"
    return (f"{name} is a decoded {which} ({what}), not the record's bytes: {encode}, or export with `kafkatop "
            f"consume --json` without --{which}-format, which keeps the bytes")  # fmt: skip


def _json_bytes(obj: Mapping[str, Any], name: str, number: int) -> tuple[bytes | None, bool]:
    value, encoding = obj.get(name), obj.get(f"{name}_encoding")
    if encoding not in (None, "base64"):
        raise BadLine(number, f"{name}_encoding {encoding!r}: base64 is the only one (or none, for text)")
    if value is None:
        return None, False
    if encoding == "base64":
        if not isinstance(value, str):
            raise BadLine(number, f"{name}: base64 text expected, not {type(value).__name__}")
        try:
            return base64.b64decode(value, validate=True), True
        except (binascii.Error, ValueError):
            raise BadLine(number, f"{name}: not base64 ({_shown(value.encode())})") from None
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return _utf8(text, name, number), False


def _utf8(text: str, name: str, number: int) -> bytes:
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate (\ud800) is valid JSON but no text
        raise BadLine(number, f"{name}: not Unicode text (a lone surrogate): give its bytes in base64") from None


def _json_headers(obj: Mapping[str, Any], number: int) -> tuple[Header, ...]:
    flat, encodings = obj.get("headers"), obj.get("headers_encoding")
    if flat is None:
        return ()
    if not isinstance(flat, list) or len(flat) % 2:
        raise BadLine(number, 'headers: a flat list of names and values, ["name", "value", …], as kcat -J prints')
    count = len(flat) // 2
    if encodings is None:
        encodings = [None] * count
    if not isinstance(encodings, list) or len(encodings) != count or any(e not in (None, "base64") for e in encodings):
        raise BadLine(number, f'headers_encoding: a list of {count} entries, null or "base64", one per header')
    out: list[Header] = []
    for i in range(count):
        name, value = flat[2 * i], flat[2 * i + 1]
        if not isinstance(name, str) or not (value is None or isinstance(value, str)):
            raise BadLine(number, f"headers: header {i + 1}'s name must be text, its value text or null")
        if not name.isprintable() and any("\ud800" <= c <= "\udfff" for c in name):
            raise BadLine(number, f"headers: header {i + 1}'s name is not UTF-8 text")
        what = f"header {name!r}"
        if value is None:
            out.append((name, None))
        elif encodings[i] == "base64":
            try:
                out.append((name, base64.b64decode(value, validate=True)))
            except (binascii.Error, ValueError):
                raise BadLine(number, f"{what}: not base64 ({_shown(value.encode())})") from None
        else:
            out.append((name, _utf8(value, what, number)))
    return tuple(out)


def _json_int(obj: Mapping[str, Any], name: str, number: int) -> int | None:
    value = obj.get(name)
    if value is None or value == -1 and not isinstance(value, bool):
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise BadLine(number, f"{name}: a whole number, 0 or more (or -1 for none), not {json.dumps(value)}")
    return value


# --- formats ---------------------------------------------------------------------------------------------------------
Encoders = Mapping[RecordField, Callable[[str], bytes]]


def encoded(record: ProducerRecord, encoders: Encoders, number: int) -> ProducerRecord:
    """The record with its key and value in their topic's formats (`encoders`: the fields a format writes; the
    others, and fields given as bytes, go as they are); BadLine saying what does not fit."""
    fields: dict[RecordField, bytes | None] = {"key": record.key, "value": record.value}
    for which, encode in encoders.items():
        data = fields[which]
        if data is None or which in record.binary:
            continue
        try:
            fields[which] = encode(data.decode("utf-8"))
        except UnicodeDecodeError:
            raise BadLine(number, f"the {which} is not UTF-8 text, which its format reads") from None
        except FormatError as e:
            raise BadLine(number, f"the {which}: {e}") from None
    return replace(record, key=fields["key"], value=fields["value"])
