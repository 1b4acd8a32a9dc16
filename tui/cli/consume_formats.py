"""`kafkatop consume`'s records read in their topic's formats (--key-format/--value-format, [formats.TOPIC], a
registry): a decoded key or value prints as compact JSON (structured formats) or text.

--json is an export: it keeps each record's bytes (what `produce --json` sends back as they were), as kcat -J does,
unless the command's own --key-format/--value-format asks for a field decoded (kcat -J -s): then the decoded object
is its `payload`/`key`, with its `value_schema_id`/`key_schema_id`.

Where nothing is set (auto, no registry) the bytes print as they are, as kafka-console-consumer.sh prints them;
records in Confluent's wire format are then said once on stderr, with what to add. A registry that cannot be read is
said once, naming its URL, and its records count as not decoded (exit 1)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from kafkatop.backends.model.errors import BadInput, KafkatopError
from kafkatop.backends.model.formats import Decoded, Format, RecordField, wire_schema_id
from kafkatop.backends.model.messages import BrowsedRecord
from kafkatop.backends.ports import RecordCodec, SchemaRegistry
from kafkatop.tui.cli.compose_schemas import unreadable
from kafkatop.tui.cli.exits import err

_JSON_NAME = {"key": "key", "value": "payload"}  # kcat -J's names


class RecordDecoding:
    """Which fields of a topic's records are decoded, and each record's decoded key and value. `fields`: those
    decoded at all (--json: the ones its flags name); the others stay bytes."""

    def __init__(
        self,
        codec: RecordCodec,
        topic: str,
        registry: SchemaRegistry | None,
        fields: frozenset[RecordField] = frozenset(("key", "value")),
        exact: bool = False,
    ) -> None:
        self._codec, self._topic, self._registry, self._exact = codec, topic, registry, exact
        fmt = codec.format_of(topic)
        # auto with a registry decodes what is in the wire format; auto without one leaves the bytes as they are.
        self._mode: dict[RecordField, str] = {
            which: "raw" if which not in fields else ("wire" if registry else "raw")
            if fmt.of(which).format is Format.AUTO else "all"
            for which in ("key", "value")
        }  # fmt: skip
        self._said: set[str] = set()
        self._down = False  # the registry could not be read: its records are not asked for again
        self._asked = False
        self.failed = 0

    @property
    def decodes(self) -> bool:
        return any(mode != "raw" for mode in self._mode.values())

    def decoded(self, r: BrowsedRecord, which: RecordField) -> Decoded | None:
        """The field decoded, or None where it stays bytes."""
        data = r.key if which == "key" else r.value
        if which in r.masked:
            return None  # the mask's text (or "[masked]"), not the topic's format any more
        mode = self._mode[which]
        schema_id = wire_schema_id(data)
        if data is None or mode == "raw" or (mode == "wire" and schema_id is None):
            if mode == "raw" and schema_id is not None:
                self._say(f"wire:{which}", self._raw_wire(which, schema_id))
            return None
        if self._down and schema_id is not None:
            self.failed += 1
            return None
        decoded = self._codec.decode(self._topic, which, data)
        if decoded.error is not None:
            self.failed += 1
            if schema_id is not None and self._unreadable(schema_id):
                return None
            self._say(f"error:{which}", f"partition {r.partition} offset {r.offset}: {which}: {decoded.error}")
            return None
        return decoded

    def _raw_wire(self, which: RecordField, schema_id: int) -> str:
        said = f"{which}s are in Confluent's wire format (schema id {schema_id})"
        if self._exact:
            registry = "" if self._registry is not None else " and --schema-registry URL"
            return (f"{said}: --json keeps their bytes, which `produce --json` sends back as they are; give "
                    f"--{which}-format auto{registry} to decode them")  # fmt: skip
        return (f"{said} and no Schema Registry is configured: they print as bytes; give --schema-registry URL to "
                "decode them")  # fmt: skip

    def _unreadable(self, schema_id: int) -> bool:
        """After the first record of the wire format that did not decode: whether the registry answers at all (a
        schema id it does not have is an answer). When it does not, that is said once, and its records are not
        asked for again: a topic of a million such records is one line and no million requests."""
        if self._asked or self._registry is None:
            return self._down
        self._asked = True
        try:
            self._registry.schema_by_id(schema_id)
        except BadInput:
            return False
        except KafkatopError as e:
            self._down = True
            err(f"{unreadable(e)}: the records in its wire format print as bytes; check that the registry runs at "
                "that URL (--schema-registry, [schema-registry] url in kafkatop.toml, or the context's)")  # fmt: skip
        return self._down

    def _say(self, kind: str, line: str) -> None:
        if kind not in self._said:  # once each: a topic of a million such records is one line, not a million
            self._said.add(kind)
            err(line)

    def as_text(self, r: BrowsedRecord) -> BrowsedRecord:
        """The record with its decoded fields as their text (compact JSON for structured values)."""
        key, value = self.decoded(r, "key"), self.decoded(r, "value")
        if key is None and value is None:
            return r
        return BrowsedRecord(  # not dataclasses.replace: its field-by-field copy was a tenth of a record's time
            r.topic, r.partition, r.offset, r.timestamp_ms, r.timestamp_type,
            r.key if key is None else key.compact().encode(), r.value if value is None else value.compact().encode(),
            r.headers, r.leader_epoch,
        )  # fmt: skip

    def json_line(self, r: BrowsedRecord, as_json: Callable[[BrowsedRecord], bytes]) -> bytes:
        """consume --json's line: the record's bytes (as_json), and the fields decoded as kcat -J -s prints them."""
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
