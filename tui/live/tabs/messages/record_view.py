"""A browsed record as the browser shows it: its row (the decoded key and value in one line each) and its detail (the
decoded key and value — structured values as JSON pretty-printed, highlighted and folded beyond a depth —, their
format and schema, headers, timestamp, offset, leader epoch, size); and what the `/` filter keeps of a page.

Records are decoded by the topic's RecordCodec in the worker that read them (`decode_records`): the event loop only
draws. Without a codec (a replay, or none given) the bytes read as the payloads module reads them: JSON, text or hex.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.text import Text

from kafkatop.backends.insight.payloads import plain_value, pretty, preview
from kafkatop.backends.insight.record_path import looks_like_path, parse_path
from kafkatop.backends.insight.seek import age_text
from kafkatop.backends.model.consoles import escape_payload
from kafkatop.backends.model.formats import Decoded, Format, JsonValue, RecordField
from kafkatop.backends.model.messages import BrowsedRecord, TimestampType
from kafkatop.backends.model.text import printable
from kafkatop.backends.ports import RecordCodec
from kafkatop.tui.live.widgets.filter import matches

KEY_WIDTH, VALUE_WIDTH = 16, 60
FOLD_DEPTH = 6  # nested deeper, an object or array is shown as {…} with its size: `u` on the record's screen unfolds
FOLD_ITEMS = 50  # an array's first items, an object's first fields; then how many more
SHOWN_CHARS = 64 * 1024  # a pretty-printed value beyond this is cut: highlighting megabytes would hold the event loop
INLINE_CHARS = 40  # a structured value this short is shown on its heading's line: a key's {"id": 7} takes one line


@dataclass(frozen=True, slots=True)
class ShownRecord:
    """A record and its key and value decoded in the topic's formats (None: no codec, the bytes as they are)."""

    record: BrowsedRecord
    key: Decoded | None = None
    value: Decoded | None = None

    def decoded(self, which: RecordField) -> Decoded | None:
        return self.key if which == "key" else self.value


def decode_records(records: Iterable[BrowsedRecord], codec: RecordCodec | None) -> tuple[ShownRecord, ...]:
    """Each record with its key and value decoded (a worker's: a registry may be asked for a schema)."""
    if codec is None:
        return tuple(ShownRecord(r) for r in records)

    def decoded(r: BrowsedRecord, which: RecordField, data: bytes | None) -> Decoded | None:
        # A field a context's mask changed is the mask's text (or "[masked]"), not the topic's format any more.
        return None if which in r.masked else codec.decode(r.topic, which, data)

    return tuple(ShownRecord(r, decoded(r, "key", r.key), decoded(r, "value", r.value)) for r in records)


def record_id(r: BrowsedRecord) -> str:
    """A row's key: unique in a page and in a search's matches over several partitions."""
    return f"{r.partition}:{r.offset}"


def time_text(ms: int | None) -> str:
    if ms is None:
        return "-"
    return datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def _cell(data: bytes | None, d: Decoded | None, width: int) -> Text:
    """One line of a key or value: a structured value's compact JSON, a text, else the bytes' preview."""
    if data is None:
        return Text("null", style="dim")
    if d is not None and d.error is None and (d.structured or d.format in (Format.STRING, Format.BASE64)):
        return Text(escape_payload(d.compact()[: width * 2].encode(), width))
    shown = preview(data, width)
    if d is not None and d.note and not d.structured:
        return Text.assemble((f"[{d.note}] ", "yellow"), shown)
    return Text(shown)


def record_row(s: ShownRecord) -> tuple[str | Text, ...]:
    r = s.record
    return (str(r.offset), time_text(r.timestamp_ms)[5:], str(r.size), _cell(r.key, s.key, KEY_WIDTH),
            _cell(r.value, s.value, VALUE_WIDTH))  # fmt: skip


def schema_line(d: Decoded) -> str:
    """'avro · schema id 7 · subject orders-value v2': the format and where its schema is in the registry; auto
    says what it found ('json (auto)')."""
    read = d.format.value
    if d.format is Format.AUTO and d.error is None and d.schema_id is None:
        read = "json (auto)" if d.structured else "text (auto)" if isinstance(d.value, str) else read
    parts = [read]
    if d.schema_id is not None:
        parts.append(f"schema id {d.schema_id}")
    if d.subject is not None:
        parts.append(f"subject {d.subject}" + (f" v{d.version}" if d.version is not None else ""))
    return " · ".join(parts)


def fold(value: JsonValue, depth: int = FOLD_DEPTH, items: int = FOLD_ITEMS) -> tuple[JsonValue, bool]:
    """The value with what is nested deeper than `depth` said by its size ("{… 3 fields}"), and only the first
    `items` of a long array or object; and whether anything was folded."""
    folded = False

    def walk(v: JsonValue, level: int) -> JsonValue:
        nonlocal folded
        if isinstance(v, dict):
            if level >= depth and v:
                folded = True
                return f"{{… {len(v)} field{'s' if len(v) != 1 else ''}}}"
            out = {k: walk(x, level + 1) for k, x in list(v.items())[:items]}
            if len(v) > items:
                folded = True
                out["…"] = f"{len(v) - items} more fields"
            return out
        if isinstance(v, list):
            if level >= depth and v:
                folded = True
                return f"[… {len(v)} item{'s' if len(v) != 1 else ''}]"
            shown: list[JsonValue] = [walk(x, level + 1) for x in v[:items]]
            if len(v) > items:
                folded = True
                shown.append(f"… {len(v) - items} more items")
            return shown
        return v

    return walk(value, 0), folded


def _payload(title: str, data: bytes | None, d: Decoded | None, unfold: bool) -> list[RenderableType]:
    size = f", {len(data)} B" if data else ""
    if d is None:  # no codec: the bytes as they read
        kind, text = pretty(data, hex_width=8)  # 8 bytes a line: a hex dump fits a pane of 46 columns
        head = Text.assemble((title, "bold"), (f" · {kind}{size}", "dim"))
        if kind == "json":
            return [head, Syntax(text, "json", theme="ansi_dark", word_wrap=True, background_color="default")]
        return [head] if kind in ("null", "empty") else [head, Text(text, style="cyan" if kind == "binary" else "")]
    if data is None:  # null: no format to say (auto would read as nothing at all)
        return [Text.assemble((title, "bold"), (" · null", "dim"))]
    head = Text.assemble((title, "bold"), (f" · {schema_line(d)}{size}", "dim"))
    link = " · h: its schema" if d.schema_id is not None else ""  # said last on the heading's line
    shown: list[RenderableType] = [head]
    if d.note:
        shown.append(Text(d.note, style="yellow"))
    if d.error is not None:
        shown.append(Text(d.error, style="red"))
    if d.structured:
        compact = d.compact()
        if len(compact) <= INLINE_CHARS and d.error is None:  # {"id": 7}: on its heading's line
            head.append("  ")
            head.append(printable(compact, lines=True))
            head.append(link, style="dim")
            return shown
        value, folded = (d.value, False) if unfold else fold(d.value)
        text = printable(json.dumps(value, indent=2, ensure_ascii=False), lines=True)
        if len(text) > SHOWN_CHARS:
            text = text[:SHOWN_CHARS] + f"\n… {len(text) - SHOWN_CHARS:,} more characters not shown"
        if folded:
            head.append(" · folded: u unfolds (on Enter's screen)", style="dim")
        shown.append(Syntax(text, "json", theme="ansi_dark", word_wrap=True, background_color="default"))
    elif d.error is None and d.format is not Format.HEX and isinstance(d.value, str):  # text, base64
        shown.append(Text(printable(d.value[:SHOWN_CHARS], lines=True)))
    else:  # binary, or bytes that did not decode: as they are, 8 bytes a line
        kind, text = pretty(data, hex_width=8)
        shown.append(Text(printable(text, lines=True), style="cyan" if kind == "binary" else ""))
    head.append(link, style="dim")
    return shown


def record_detail(s: ShownRecord, now: float, unfold: bool = False) -> RenderableType:
    """Everything the record holds, for the detail pane (and, unfolded, Enter's screen)."""
    r = s.record
    stamp = "no timestamp" if r.timestamp_ms is None else (
        f"{time_text(r.timestamp_ms)} ({age_text(r.timestamp_ms, now)}), {r.timestamp_ms}")  # fmt: skip
    kind = "" if r.timestamp_type is TimestampType.NOT_AVAILABLE else f" · {r.timestamp_type.value}"
    epoch = "-" if r.leader_epoch is None else str(r.leader_epoch)
    parts: list[RenderableType] = [
        Text.assemble((f"{r.topic}-{r.partition} @ {r.offset}", "bold"), f" · leader epoch {epoch} · {r.size} B"),
        Text(f"{stamp}{kind}"),
    ]
    if r.headers:
        parts.append(Text("headers", style="bold"))
        for name, value in r.headers:
            parts.append(Text(f"  {preview(name.encode(), 40)} = {preview(value, 200)}"))
    parts += [Text(""), *_payload("key", r.key, s.key, unfold), Text(""), *_payload("value", r.value, s.value, unfold)]
    return Group(*parts)


def record_filter(text: str) -> Callable[[ShownRecord, tuple[str | Text, ...]], bool]:
    """What `/` keeps of a page: a path (`.customer.id == 42`) over the decoded key or value (the bytes as JSON
    without a codec), else rows holding every word typed, in their cells or their decoded key and value. A path
    that does not parse raises ValueError saying why."""
    if looks_like_path(text):
        query = parse_path(text)

        def by_path(s: ShownRecord, cells: tuple[str | Text, ...]) -> bool:
            def value_of(which: RecordField) -> JsonValue:
                d = s.decoded(which)
                return d.value if d is not None else plain_value(s.record.key if which == "key" else s.record.value)

            return query.matches_lazily(value_of)

        return by_path

    def by_words(s: ShownRecord, cells: tuple[str | Text, ...]) -> bool:
        texts = [str(c) for c in cells] + [d.text for d in (s.key, s.value) if d is not None]
        return matches(text, *texts)

    return by_words
