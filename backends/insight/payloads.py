"""How a record's bytes read: JSON pretty-printed when they parse, text when they decode, a hex dump when they do
not; and the message browser's search, as one predicate over key, value and headers: a text (or a regular
expression) in the bytes or in the decoded key and value, or a path over the decoded key or value (record_path.py)."""

from __future__ import annotations

import codecs
import json
import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Literal

from kafkatop.backends.insight.record_path import looks_like_path, parse_path
from kafkatop.backends.model.consoles import escape_payload
from kafkatop.backends.model.formats import AUTO, WIRE_MAGIC, Decoded, Format, JsonValue, RecordField, TopicFormat
from kafkatop.backends.model.json_text import loads
from kafkatop.backends.model.messages import SearchRequest
from kafkatop.backends.model.text import HIDDEN_CATEGORIES as HIDDEN

PayloadKind = Literal["null", "empty", "json", "text", "binary"]

_SHOWN_CONTROLS = frozenset("\n\r\t")


# A payload beyond this is shown by its head: pretty-printing and highlighting megabytes would hold the event loop.
SHOWN_BYTES = 64 * 1024


def text_of(data: bytes) -> str | None:
    """The bytes as text when they are UTF-8 without hidden characters (controls but newline, CR and tab; format
    characters such as bidi overrides; line separators), which would drive or mislead a terminal; None otherwise:
    shown as hex. A character cut at the end (a payload's head) is left out, not taken for binary."""
    try:
        text = codecs.getincrementaldecoder("utf-8")().decode(data, final=False)
    except UnicodeDecodeError:
        return None
    if text.isprintable() or all(c in _SHOWN_CONTROLS or unicodedata.category(c) not in HIDDEN for c in text):
        return text
    return None


def kind_of(data: bytes | None) -> PayloadKind:
    if data is None:
        return "null"
    if not data:
        return "empty"
    text = text_of(data)
    if text is None:
        return "binary"
    return "json" if _json_value(text) is not None else "text"


def _json_value(text: str) -> object | None:
    """A JSON object or array (a bare number or string is just text to a reader), else None."""
    stripped = text.lstrip()
    if not stripped or stripped[0] not in "{[":
        return None
    try:
        value: object = loads(text)
    except ValueError:  # TooDeep too
        return None
    return value


def pretty(data: bytes | None, hex_width: int = 16) -> tuple[PayloadKind, str]:
    """The bytes for a reader: (kind, text) with JSON indented, binary as a hex dump; beyond SHOWN_BYTES, the head
    as text or hex, and how much more there is."""
    if data is not None and len(data) > SHOWN_BYTES:
        head, more = data[:SHOWN_BYTES], f"\n… {len(data) - SHOWN_BYTES:,} more bytes not shown"
        text = text_of(head)
        return ("text", text + more) if text is not None else ("binary", hex_dump(head, hex_width) + more)
    kind = kind_of(data)
    if data is None or kind in ("null", "empty"):
        return kind, ""
    if kind == "binary":
        return kind, hex_dump(data, hex_width)
    text = data.decode("utf-8")
    if kind == "json":
        return kind, json.dumps(_json_value(text), indent=2, ensure_ascii=False)
    return kind, text


def hex_dump(data: bytes, width: int = 16, limit: int = 4096) -> str:
    """`00000010  48 65 6c 6c 6f  |Hello|` lines, as hexdump -C; at most `limit` bytes, then how many more."""
    lines = []
    for at in range(0, min(len(data), limit), width):
        chunk = data[at : at + width]
        hexes = " ".join(f"{b:02x}" for b in chunk)
        shown = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        lines.append(f"{at:08x}  {hexes:<{width * 3 - 1}}  |{shown}|")
    if len(data) > limit:
        lines.append(f"… {len(data) - limit} more bytes")
    return "\n".join(lines)


def preview(data: bytes | None, width: int = 80) -> str:
    """One line of about `width` characters: text with its newlines and tabs escaped (consoles' escape_payload),
    binary as hex."""
    if data is None:
        return "null"
    if text_of(data[: width * 4 + 8]) is None:  # the head decides: a long payload costs no more than a short one
        shown = "0x" + data[: width // 2].hex()
        return shown[:width] + ("…" if len(data) * 2 + 2 > width else "")
    return escape_payload(data, width)


# As the client hands them over: a list of (name, value) pairs, values bytes (or str, or None).
Headers = Sequence[tuple[str, bytes | str | None]] | None


# A record's key or value read in the topic's format (a RecordCodec's decode, its topic given).
Decode = Callable[[RecordField, bytes | None], Decoded]
Matcher = Callable[[bytes | None, bytes | None, Headers], bool]
_WIRE = bytes([WIRE_MAGIC])


def plain_value(data: bytes | None) -> JsonValue:
    """The bytes as the auto format reads them when they are not in the wire format: a JSON object or array, else
    UTF-8 text (None: null, or neither). What a path reads of JSON and text, without a codec's pretty text."""
    if data is None:
        return None
    if data.lstrip()[:1] in (b"{", b"["):
        try:
            value: JsonValue = loads(data)
            return value
        except ValueError:
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _value_reader(decode: Decode | None, fmt: TopicFormat, which: RecordField) -> Callable[[bytes | None], JsonValue]:
    """How a path reads the field: by the codec where the bytes are not their text, else as they are."""
    field = fmt.of(which).format
    if decode is None:
        return plain_value
    if field is Format.AUTO:

        def read_auto(data: bytes | None) -> JsonValue:
            return decode(which, data).value if data is not None and data.startswith(_WIRE) else plain_value(data)

        return read_auto
    if field is Format.JSON:
        return lambda data: None if data is None else _json(which, data, decode)
    if field is Format.STRING:
        return lambda data: _text(data)
    return lambda data: decode(which, data).value


def _text(data: bytes | None) -> JsonValue:
    try:
        return None if data is None else data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _json(which: RecordField, data: bytes, decode: Decode) -> JsonValue:
    try:
        value: JsonValue = loads(data)
        return value
    except ValueError:
        return decode(which, data).value  # the codec says what it makes of it


def compile_search(request: SearchRequest, decode: Decode | None = None, fmt: TopicFormat = AUTO) -> Matcher:
    """The search as a predicate on a record's key, value and headers (as the client hands them over: a search
    builds a BrowsedRecord only for what matches). Bytes are matched as bytes (a substring of UTF-8, or a regular
    expression compiled for bytes), so binary payloads are searched without decoding them; with `decode`, a key or
    value whose bytes are not its text (by `fmt`: Avro, Protobuf, JSON Schema, or auto's wire format) is decoded when
    its bytes do not match, and its decoded text searched. A text that looks like a path (`.customer.id == 42`,
    `key.id == 7`; not with regex) is a path over the decoded key or value: JSON and text read as they are
    (`plain_value`), other bytes by `decode`, a field only when the path reads it. Bad input (an invalid regular
    expression or path) raises ValueError."""
    if not request.text:
        raise ValueError("nothing to search for: type a text (or a regular expression)")
    if not request.regex and looks_like_path(request.text):
        return _path_search(request.text, _value_reader(decode, fmt, "key"), _value_reader(decode, fmt, "value"))
    if not request.fields:
        raise ValueError("no field to search: pick key, value or headers")
    needle = request.text.encode("utf-8")
    flags = re.IGNORECASE if request.ignore_case else 0
    if request.regex or request.ignore_case:
        try:
            pattern = re.compile(needle if request.regex else re.escape(needle), flags)
            text_pattern = re.compile(request.text if request.regex else re.escape(request.text), flags)
        except re.error as e:
            raise ValueError(f"not a regular expression: {e}") from None

        def found(data: bytes) -> bool:
            return pattern.search(data) is not None

        def found_in(text: str) -> bool:
            return text_pattern.search(text) is not None
    else:

        def found(data: bytes) -> bool:
            return needle in data

        def found_in(text: str) -> bool:
            return request.text in text

    def decoded_matcher(which: RecordField) -> tuple[Callable[[bytes], bool] | None, bool]:
        """The field's decoded text searched (a structured value's: its JSON, indented), and whether every record
        needs it (else only those in the wire format); None where the bytes are the text."""
        field = fmt.of(which).format
        if decode is None or field in (Format.JSON, Format.STRING, Format.HEX, Format.BASE64):
            return None, False

        def found_decoded(data: bytes) -> bool:
            return found_in(decode(which, data).text)

        return found_decoded, field is not Format.AUTO

    key, value, headers = (f in request.fields for f in ("key", "value", "headers"))
    (in_key, every_key), (in_value, every_value) = decoded_matcher("key"), decoded_matcher("value")

    # Inline, and the decoded text only tried when the bytes do not match: a search of JSON or text costs what it
    # cost before the codec.
    def matches(k: bytes | None, v: bytes | None, h: Headers) -> bool:
        if value and v is not None and (found(v) or (in_value is not None and (every_value or v[:1] == _WIRE)
                                                      and in_value(v))):  # fmt: skip
            return True
        if key and k is not None and (found(k) or (in_key is not None and (every_key or k[:1] == _WIRE)
                                                    and in_key(k))):  # fmt: skip
            return True
        if not (headers and h):
            return False
        return any(found(n.encode()) or (hv is not None and found(hv.encode() if isinstance(hv, str) else hv))
                   for n, hv in h)  # fmt: skip

    return matches


def _path_search(
    text: str, read_key: Callable[[bytes | None], JsonValue], read_value: Callable[[bytes | None], JsonValue]
) -> Matcher:
    query = parse_path(text)

    def matches(k: bytes | None, v: bytes | None, h: Headers) -> bool:
        read: dict[RecordField, JsonValue] = {}  # each field read once, however often the path reads it

        def value_of(which: RecordField) -> JsonValue:
            if which not in read:
                read[which] = read_key(k) if which == "key" else read_value(v)
            return read[which]

        return query.matches_lazily(value_of)

    return matches
