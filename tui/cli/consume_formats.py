"""`kafkatop consume`'s records read in their topic's formats (--key-format/--value-format, [formats.TOPIC], a
registry): a decoded key or value prints as compact JSON (structured formats) or text, and --json carries it as
kcat -J -s does (the decoded object as `payload`/`key`, its `value_schema_id`/`key_schema_id`).

Where nothing is set (auto, no registry) the bytes print as they are, as kafka-console-consumer.sh prints them, so
an export stays byte for byte; records in Confluent's wire format are then said once on stderr, with what to add."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

from kafkatop.backends.model.formats import Decoded, Format, RecordField, wire_schema_id
from kafkatop.backends.model.messages import BrowsedRecord
from kafkatop.backends.ports import RecordCodec
from kafkatop.tui.cli.exits import err

_JSON_NAME = {"key": "key", "value": "payload"}  # kcat -J's names


class RecordDecoding:
    """Which fields of a topic's records are decoded, and each record's decoded key and value."""

    def __init__(self, codec: RecordCodec, topic: str, registry: bool) -> None:
        self._codec, self._topic = codec, topic
        fmt = codec.format_of(topic)
        # auto with a registry decodes what is in the wire format; auto without one leaves the bytes as they are.
        self._mode: dict[RecordField, str] = {
            which: ("wire" if registry else "raw") if fmt.of(which).format is Format.AUTO else "all"
            for which in ("key", "value")
        }
        self._said: set[str] = set()
        self.failed = 0

    @property
    def decodes(self) -> bool:
        return any(mode != "raw" for mode in self._mode.values())

    def decoded(self, r: BrowsedRecord, which: RecordField) -> Decoded | None:
        """The field decoded, or None where it stays bytes."""
        data = r.key if which == "key" else r.value
        mode = self._mode[which]
        if data is None or mode == "raw" or (mode == "wire" and wire_schema_id(data) is None):
            if mode == "raw" and wire_schema_id(data) is not None:
                self._say(
                    f"wire:{which}",
                    f"{which}s are in Confluent's wire format (schema id {wire_schema_id(data)}) and no Schema "
                    f"Registry is configured: they print as bytes; give --schema-registry URL to decode them",
                )
            return None
        decoded = self._codec.decode(self._topic, which, data)
        if decoded.error is not None:
            self.failed += 1
            self._say(f"error:{which}", f"partition {r.partition} offset {r.offset}: {which}: {decoded.error}")
            return None
        return decoded

    def _say(self, kind: str, line: str) -> None:
        if kind not in self._said:  # once each: a topic of a million such records is one line, not a million
            self._said.add(kind)
            err(line)

    def as_text(self, r: BrowsedRecord) -> BrowsedRecord:
        """The record with its decoded fields as their text (compact JSON for structured values)."""
        key, value = self.decoded(r, "key"), self.decoded(r, "value")
        if key is None and value is None:
            return r
        return dataclasses.replace(
            r,
            key=r.key if key is None else key.compact().encode(),
            value=r.value if value is None else value.compact().encode(),
        )

    def json_line(self, r: BrowsedRecord, as_json: Callable[[BrowsedRecord], bytes]) -> bytes:
        """consume --json's line, the decoded fields as kcat -J -s prints them."""
        line = as_json(r)
        fields = {which: self.decoded(r, which) for which in ("key", "value")}
        if all(d is None for d in fields.values()):
            return line
        out: dict[str, Any] = json.loads(line)
        for which, d in fields.items():
            if d is None:
                continue
            name = _JSON_NAME[which]
            out.pop(f"{name}_encoding", None)
            out[name] = d.value if d.structured else d.compact()
            if d.schema_id is not None:
                out[f"{which}_schema_id"] = d.schema_id
        return json.dumps(out, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
