"""How a record's bytes read: JSON pretty-printed when they parse, text when they decode, a hex dump when they do
not; and the message browser's search, as one predicate over key, value and headers."""

from __future__ import annotations

import codecs
import json
import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Literal

from kafkatop.backends.model.consoles import HIDDEN_CATEGORIES as HIDDEN
from kafkatop.backends.model.consoles import escape_payload
from kafkatop.backends.model.messages import SearchRequest

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
        value: object = json.loads(text)
    except ValueError:
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


def compile_search(request: SearchRequest) -> Callable[[bytes | None, bytes | None, Headers], bool]:
    """The search as a predicate on a record's key, value and headers (as the client hands them over: a search
    builds a BrowsedRecord only for what matches). Bytes are matched as bytes (a substring of UTF-8, or a regular
    expression compiled for bytes), so binary payloads are searched without decoding them. An invalid regular
    expression raises ValueError with re's reason."""
    if not request.text:
        raise ValueError("nothing to search for: type a text (or a regular expression)")
    if not request.fields:
        raise ValueError("no field to search: pick key, value or headers")
    needle = request.text.encode("utf-8")
    if request.regex or request.ignore_case:
        try:
            pattern = re.compile(needle if request.regex else re.escape(needle), re.IGNORECASE if request.ignore_case
                                 else 0)  # fmt: skip
        except re.error as e:
            raise ValueError(f"not a regular expression: {e}") from None

        def found(data: bytes) -> bool:
            return pattern.search(data) is not None
    else:

        def found(data: bytes) -> bool:
            return needle in data

    key, value, headers = (f in request.fields for f in ("key", "value", "headers"))

    def matches(k: bytes | None, v: bytes | None, h: Headers) -> bool:
        if value and v is not None and found(v):
            return True
        if key and k is not None and found(k):
            return True
        if not (headers and h):
            return False
        return any(found(n.encode()) or (hv is not None and found(hv.encode() if isinstance(hv, str) else hv))
                   for n, hv in h)  # fmt: skip

    return matches
