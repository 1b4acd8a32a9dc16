"""The message browser's keys that act on what it shows, beside reading it: `F` picks the topic's key and value
formats (record_format.py: the codec reads the schema in a worker), then what is shown is decoded again; `y` exports
the page, or the search's matches, as `kafkatop consume --json` lines (record_export.py), written in a worker while
the page stays as it is; `h` opens the highlighted record's schema in the Schemas tab (record_schema.py). None writes
to the cluster."""

from __future__ import annotations

from textual.widget import Widget

from kafkatop.backends.model.formats import TopicFormat
from kafkatop.backends.model.messages import BrowsedRecord, Page, SearchProgress
from kafkatop.backends.ports import RecordCodec
from kafkatop.tui.live.tabs.messages.record_export import ExportScreen, default_path, write_jsonl
from kafkatop.tui.live.tabs.messages.record_format import FormatScreen
from kafkatop.tui.live.tabs.messages.record_schema import schema_wanted
from kafkatop.tui.live.tabs.messages.record_table import RecordTable
from kafkatop.tui.live.tabs.messages.record_view import ShownRecord, decode_records, record_id
from kafkatop.tui.live.text import Input
from kafkatop.tui.live.widgets.pane import ask

Decoded = tuple[ShownRecord, ...]


class FormatsAndExport(Widget):
    """Mixed into MessagesPane, which holds what these read and draws what they change."""

    codec: RecordCodec | None
    page: Page | None
    results: SearchProgress | None
    _decoded: dict[str, ShownRecord]

    def _status(self, text: str, error: bool = False) -> None:
        raise NotImplementedError

    def _fill(self, records: tuple[BrowsedRecord, ...], keep_cursor: bool = False) -> None:
        raise NotImplementedError

    @property
    def shown_records(self) -> tuple[BrowsedRecord, ...]:
        """What the table shows: the search's matches once it is done, else the page."""
        if self.results is not None:
            return self.results.found
        return self.page.records if self.page is not None else ()

    def action_formats(self) -> None:
        """F: the topic's key and value formats; once the codec has them, what is shown is decoded again."""
        codec = self.codec
        topic = self.page.topic if self.page is not None else self.query_one("#browse-topic", Input).value.strip()
        if codec is None:
            self._status("formats: this view has no codec (a replay holds no records)", error=True)
            return
        if not topic:
            self._status("formats: pick a topic first", error=True)
            return

        def chosen(fmt: TopicFormat | None) -> None:
            if fmt is None:
                return
            self.notify(f"{topic}: key {fmt.key.described}, value {fmt.value.described}", timeout=4)
            records = self.shown_records if self.page is None or self.page.topic == topic else ()
            ask(self, "decode", lambda _: decode_records(records, codec), self._redecoded,
                lambda reason: self._status(reason, error=True))  # fmt: skip

        def use(screen: FormatScreen, fmt: TopicFormat) -> None:
            # The dialog may be closed (Escape) before the codec answers: then the answer is said here.
            def used(_: None) -> None:
                if screen.is_active:
                    screen.dismiss(fmt)
                else:
                    chosen(fmt)

            def refused(reason: str) -> None:
                if screen.is_active:
                    screen.refused(reason)
                else:
                    self._status(f"formats: {reason}", error=True)

            ask(self, "record-format", lambda _: codec.set_format(topic, fmt), used, refused)

        self.app.push_screen(FormatScreen(topic, codec.format_of(topic), use), chosen)

    def _redecoded(self, decoded: Decoded) -> None:
        if tuple(s.record for s in decoded) != self.shown_records:
            return  # another page came meanwhile, decoded by its own worker
        self._decoded = {record_id(s.record): s for s in decoded}
        self._fill(self.shown_records, keep_cursor=True)

    def action_record_schema(self) -> None:
        """h: the highlighted record's schema, in the Schemas tab."""
        table = self.query_one("#message-table", RecordTable)
        self.open_schema(table.shown.get(table.selected_key or ""))

    def open_schema(self, shown: ShownRecord | None) -> None:
        """The record's schema: asked of the main screen (SchemaWanted), or why there is none said here."""
        if shown is None:
            self._status("h: no record highlighted: read a page first (Enter in the fields)", error=True)
            return
        wanted = schema_wanted(shown)
        if isinstance(wanted, str):
            self.notify(wanted, severity="warning", timeout=6)
        else:
            self.post_message(wanted)

    def action_export(self) -> None:
        """y: the page, or the search's matches, to a file of `consume --json` lines (written in a worker)."""
        records = self.shown_records
        if not records:
            self._status("export: nothing shown to export: read a page or search first", error=True)
            return
        if self.results is not None:
            p = self.results
            more = f" (the first {len(records)} of {p.matches:,})" if p.matches > len(records) else ""
            what = f"the search's {len(records)} match{'es' if len(records) != 1 else ''}{more}"
        else:
            what = f"the page: {len(records)} records of {records[0].topic}-{records[0].partition}, offsets " \
                   f"{records[0].offset}–{records[-1].offset}"  # fmt: skip

        def chosen(where: tuple[str, bool] | None) -> None:
            if where is None:
                return
            path, replace = where
            ask(self, "export", lambda _: write_jsonl(path, records, replace),
                lambda n: self.notify(f"exported {n} record{'s' if n != 1 else ''} to {path}", timeout=6),
                lambda reason: self.notify(reason, severity="error", timeout=8), exclusive=False)  # fmt: skip

        self.app.push_screen(ExportScreen(what, default_path(records)), chosen)
