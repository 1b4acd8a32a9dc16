"""The formats without a schema, read and written: string, JSON, hex, base64, and auto's guess for bytes not in the
wire format (a JSON object or array, else text, else hex: insight/payloads.py's reading). Bytes that do not decode
are shown as they are (text, or a hex dump) with why; nothing here raises on a record."""

from __future__ import annotations

import base64
import binascii

from kafkatop.backends.insight.payloads import SHOWN_BYTES, hex_dump, text_of
from kafkatop.backends.model.formats import Decoded, Format, FormatError, JsonValue
from kafkatop.backends.model.json_text import loads


def structured(
    fmt: Format,
    value: JsonValue,
    schema_id: int | None = None,
    subject: str | None = None,
    version: int | None = None,
    note: str | None = None,
    error: str | None = None,
) -> Decoded:
    """A decoded value (JSON, Avro, Protobuf, JSON Schema): shown as indented JSON (made when first shown), searched by
    path."""
    return Decoded(fmt, "", value, True, schema_id, subject, version, note, error)


def shown(
    fmt: Format, data: bytes | None, *, note: str | None = None, error: str | None = None, schema_id: int | None = None
) -> Decoded:
    """Bytes as they are, for a reader: text when they read as text, else a hex dump, with what to know."""
    if data is None:
        return Decoded(fmt, "", None, schema_id=schema_id, note=note, error=error)
    head = data[:SHOWN_BYTES]
    more = f"\n… {len(data) - len(head):,} more bytes not shown" if len(data) > len(head) else ""
    text = text_of(head)
    if text is not None:
        value = text if not more else None
        return Decoded(fmt, text + more, value, schema_id=schema_id, note=note, error=error)
    return Decoded(fmt, hex_dump(head) + more, None, schema_id=schema_id, note=note, error=error)


def decode_plain(fmt: Format, data: bytes | None) -> Decoded:
    """STRING, JSON, HEX, BASE64, or AUTO for bytes not in the wire format."""
    if data is None:
        return Decoded(fmt, "", None)
    if fmt is Format.HEX:
        return Decoded(fmt, hex_dump(data), data.hex())
    if fmt is Format.BASE64:
        encoded = base64.b64encode(data).decode("ascii")
        return Decoded(fmt, encoded, encoded)
    if fmt is Format.STRING:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            return shown(fmt, data, error=f"not UTF-8: byte {e.start} is 0x{data[e.start]:02x}")
        return Decoded(fmt, text, text)
    if fmt is Format.JSON:
        try:
            return structured(fmt, loads(data))
        except ValueError as e:
            return shown(fmt, data, error=f"not JSON: {e}")
    return _auto(data)


def _auto(data: bytes) -> Decoded:
    if len(data) <= SHOWN_BYTES:
        text = text_of(data)
        if text is not None and text.lstrip()[:1] in ("{", "["):
            try:
                return structured(Format.AUTO, loads(text))
            except ValueError:
                pass
    return shown(Format.AUTO, data)


def encode_plain(fmt: Format, text: str) -> bytes:
    """STRING and AUTO as UTF-8; JSON as typed, once it parses; HEX and BASE64 parsed."""
    if fmt is Format.JSON:
        try:
            loads(text)
        except ValueError as e:
            raise FormatError(f"not JSON: {e}") from None
    elif fmt is Format.HEX:
        digits = "".join(text.split())
        digits = digits[2:] if digits[:2].lower() == "0x" else digits
        try:
            return bytes.fromhex(digits)
        except ValueError:
            raise FormatError(f"not hex: {text[:40]!r} (give pairs of hex digits, e.g. 48656c6c6f)") from None
    elif fmt is Format.BASE64:
        try:
            return base64.b64decode("".join(text.split()), validate=True)
        except (binascii.Error, ValueError) as e:
            raise FormatError(f"not base64: {e}") from None
    return text.encode("utf-8")
