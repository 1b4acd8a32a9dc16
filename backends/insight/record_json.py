"""A record as one JSON line, the way `kafkatop consume --json` prints it (kcat -J's fields): what the browser's
export writes too, so an exported page reads back as consume's output does (and `kafkatop produce --json` takes it)."""

from __future__ import annotations

import base64
import json
from typing import Any

from kafkatop.backends.model.messages import BrowsedRecord, TimestampType

_TSTYPES = {TimestampType.CREATE_TIME: "create", TimestampType.LOG_APPEND_TIME: "logappend"}


def _json_bytes(out: dict[str, Any], name: str, data: bytes | None) -> None:
    if data is None:
        out[name] = None
        return
    try:
        out[name] = data.decode("utf-8")
    except UnicodeDecodeError:
        out[name] = base64.b64encode(data).decode()
        out[f"{name}_encoding"] = "base64"


def as_json(r: BrowsedRecord) -> bytes:
    """kcat -J's fields (headers as its flat name, value list), with the leader epoch; bytes that are not UTF-8 as
    base64, said so by a `*_encoding` field: `key_encoding`, `payload_encoding`, and for header values
    `headers_encoding`, a list with one entry per header (null for text, "base64"), there only when one is base64."""
    out: dict[str, Any] = {
        "topic": r.topic, "partition": r.partition, "offset": r.offset,
        "tstype": _TSTYPES.get(r.timestamp_type, "none"), "ts": r.timestamp_ms if r.timestamp_ms is not None else -1,
        "leader_epoch": r.leader_epoch,
    }  # fmt: skip
    if r.headers:
        flat: list[str | None] = []
        encodings: list[str | None] = []
        for name, value in r.headers:
            shown: dict[str, Any] = {}
            _json_bytes(shown, "value", value)
            flat += [name, shown["value"]]
            encodings.append(shown.get("value_encoding"))
        out["headers"] = flat
        if any(encodings):  # kcat -J has no way to say it: one entry per header, null for text
            out["headers_encoding"] = encodings
    _json_bytes(out, "key", r.key)
    _json_bytes(out, "payload", r.value)
    if r.masked:  # a context's mask changed these (model/masking.py): "[masked]" where a value was
        out["masked"] = list(r.masked)
    return json.dumps(out, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
