"""A record's link to its schema: `h` in Messages (and on Enter's record screen) opens the Schemas tab on the subject
and version its value — else its key — was written with, as the registry named them when the record was decoded; by
the schema id alone when it named none (the Schemas panel asks which subject holds it). The panel says here why a
record has nothing to open; the Schemas tab's keys (tabs/schemas/keys.py) show the tab, or how to configure a
registry."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from kafkatop.backends.model.formats import Decoded, RecordField
from kafkatop.tui.live.tabs.messages.record_view import ShownRecord


@dataclass
class SchemaWanted(Message):
    """`h`: the schema a record's key or value was written with, as decoding it named it."""

    which: RecordField
    schema_id: int
    subject: str | None
    version: int | None


def schema_wanted(s: ShownRecord) -> SchemaWanted | str:
    """What `h` opens for the record: its value's schema, else its key's; or why there is none, in one line."""
    r = s.record
    where = f"{r.topic}-{r.partition} @ {r.offset}"
    if s.key is None and s.value is None:
        return f"{where} is shown as its bytes (no formats here): no schema to open"
    fields: tuple[tuple[RecordField, Decoded | None], ...] = (("value", s.value), ("key", s.key))
    for which, d in fields:
        if d is not None and d.schema_id is not None:
            return SchemaWanted(which, d.schema_id, d.subject, d.version)
    return f"{where}: neither its key nor its value carries a schema id (Confluent's wire format): no schema to open"
