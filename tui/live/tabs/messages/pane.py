"""The message browser: one partition's records a page at a time from an offset, a time, the beginning or the end;
each record's key and value decoded in the topic's formats (record_view.py: JSON, Avro, Protobuf … pretty-printed
and highlighted, with the schema they were written with; text; a hex dump), headers, timestamp, offset, leader epoch
and size; a search over a bounded range, with progress and cancel, in the bytes or the decoded values, or by a path
(`.customer.id == 42`); `F` picks the topic's formats, `y` exports what is shown as `consume --json` lines. It joins
no group and writes nothing to the cluster.

Pages and searches are asked of the MessageBrowser port through `ask` (widgets/pane.py), and their records decoded by
the RecordCodec port in the same worker: a page supersedes the one asked before it; a search reports its progress
about ten times a second and keeps the first matches, so the event loop only ever draws a page and a counter.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Checkbox
from textual.worker import Worker, get_current_worker

from kafkatop.backends.insight.seek import parse_seek
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.messages import (
    END,
    SEARCH_FIELDS,
    BrowsedRecord,
    Isolation,
    Page,
    SearchField,
    SearchProgress,
    SearchRequest,
    Seek,
    SeekKind,
)
from kafkatop.backends.ports import MessageBrowser, RecordCodec
from kafkatop.tui.live.action import bindings
from kafkatop.tui.live.screens.record import RecordScreen
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.tabs.messages.browser_keys import AT_ONCE, BROWSER_ACTIONS
from kafkatop.tui.live.tabs.messages.message_keys import Decoded, FormatsAndExport
from kafkatop.tui.live.tabs.messages.record_schema import schema_wanted
from kafkatop.tui.live.tabs.messages.record_table import RecordTable
from kafkatop.tui.live.tabs.messages.record_view import ShownRecord, decode_records, record_detail, record_id
from kafkatop.tui.live.text import DataTable, Input, Select, Static
from kafkatop.tui.live.widgets.pane import Asking, LivePane, ask
from kafkatop.tui.live.widgets.topic_input import TopicInput

# What the search looks at: every field, or one.
SEARCHED: dict[str, tuple[SearchField, ...]] = {
    "everywhere": SEARCH_FIELDS, "key": ("key",), "value": ("value",), "headers": ("headers",),
}  # fmt: skip
COLUMNS = ("offset", "time", "size", "key", "value")  # the value last: it takes what width is left


class MessagesPane(FormatsAndExport, Asking, LivePane, Vertical):
    """Browse a partition page by page, look at one record in full, search a range; its formats, its export."""

    BINDINGS = bindings(BROWSER_ACTIONS, "messages")

    def __init__(
        self,
        browser: MessageBrowser | None,
        clock: Callable[[], float] = time.time,
        codec: RecordCodec | None = None,
        masking: str | None = None,
    ) -> None:
        super().__init__()
        self.browser = browser
        self.masking = masking  # said after every status: what is shown is the context's mask's
        self.codec = codec  # the topics' formats: records are decoded by it (None: shown as their bytes read)
        self.clock = clock
        self.snapshot: ClusterSnapshot | None = None
        self.page: Page | None = None
        self.results: SearchProgress | None = None  # shown in the table instead of the page, once done
        self._decoded: dict[str, ShownRecord] = {}  # the records shown, decoded by the worker that read them
        self._search: Worker[None] | None = None
        self._stop_search = threading.Event()  # the running search's Stop: it ends with what it found so far

    def compose(self) -> ComposeResult:
        with Horizontal(id="browse-what"):
            yield TopicInput("topic", id="browse-topic")
            yield Input(placeholder="partition", id="browse-partition", compact=True)
            yield Input(placeholder="from: offset, -N, 10:30, 15m ago, end", id="browse-from", compact=True)
            yield Checkbox("read_committed", False, compact=True, id="browse-committed")
        with Horizontal(id="browse-search"):
            yield Input(placeholder="search (f)", id="search-text", compact=True)
            yield Select([(f, f) for f in SEARCHED], value="everywhere", allow_blank=False, compact=True,
                         id="search-in")  # fmt: skip
            yield Checkbox("regex", False, compact=True, id="search-regex")
            yield Checkbox("all partitions", False, compact=True, id="search-all")
            yield Button("Search", compact=True, id="search-run")
        yield Static("", id="browse-status", classes="status")
        with Horizontal(id="browse-body"):
            yield RecordTable(id="message-table")
            with VerticalScroll(id="message-detail-box"):
                yield Static("", id="message-detail")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """f and o are keys at once (priority): in a field they are text, never a move to another field."""
        return not (action in AT_ONCE and isinstance(self.screen.focused, Input))

    def on_mount(self) -> None:
        self.query_one("#browse-topic", TopicInput).compact = True
        self.query_one("#message-table", DataTable).add_columns(*COLUMNS)
        if self.browser is None:
            self._status(Text("the message browser reads a live cluster: a replay holds no records", style="yellow"))
        else:
            self._status(Text("pick a topic and a partition, then Enter (or b on a partition in the Partitions tab)",
                              style="dim"))  # fmt: skip

    def draw(self, view: LiveView) -> None:
        if view.cluster is not None and view.cluster is not self.snapshot:
            self.snapshot = view.cluster
            self.query_one("#browse-topic", TopicInput).follow(view.cluster)

    # --- what the fields ask for -------------------------------------------------------------------------------
    def _status(self, text: Text | str, error: bool = False) -> None:
        shown = text if isinstance(text, Text) else Text(text, style="bold red" if error else "")
        if self.masking and shown.plain:
            shown = Text.assemble(shown, (f" · {self.masking}", "yellow"))
        self.query_one("#browse-status", Static).update(shown)

    @property
    def isolation(self) -> Isolation:
        return "read_committed" if self.query_one("#browse-committed", Checkbox).value else "read_uncommitted"

    def _where(self) -> tuple[str, int] | None:
        """The topic and partition in the fields, or None after saying what is wrong."""
        topic = self.query_one("#browse-topic", Input).value.strip()
        text = self.query_one("#browse-partition", Input).value.strip()
        if not topic:
            self._status("topic: pick the topic to browse (↓ lists them)", error=True)
            return None
        known = self.snapshot.topic(topic) if self.snapshot is not None else None
        if self.snapshot is not None and known is None:
            self._status(f"no topic '{topic}' in the cluster (↓ lists the topics)", error=True)
            return None
        count = len(known.partitions) if known is not None else None
        if not text and count == 1:
            text = "0"
        if not text.isdigit() or (count is not None and int(text) >= count):
            which = f"0–{count - 1}" if count else "a number"
            self._status(f"partition: {text or 'none given'} is not one of {topic}'s ({which})", error=True)
            return None
        return topic, int(text)

    def open(self, topic: str, partition: int, at: str = "end") -> None:
        """Browse `partition` of `topic` from `at` (the Partitions tab's b and Enter: its newest records)."""
        self.query_one("#browse-topic", Input).value = topic
        self.query_one("#browse-partition", Input).value = str(partition)
        self.query_one("#browse-from", Input).value = at
        self._go()

    @on(Checkbox.Changed, "#browse-committed")
    def _isolation_changed(self) -> None:
        if self.page is not None:
            self._go()  # the same place, read the other way

    @on(Input.Submitted, "#browse-topic, #browse-partition, #browse-from")
    def _go(self) -> None:
        where = self._where()
        if where is None:
            return
        try:
            seek = parse_seek(self.query_one("#browse-from", Input).value, self.clock())
        except ValueError as e:
            self._status(f"from: {e}", error=True)
            return
        topic, partition = where
        isolation = self.isolation  # read here: the worker's thread never touches a widget
        self._read(lambda b: b.page(topic, partition, seek, isolation))

    def action_page(self, step: int) -> None:
        page = self.page
        if page is None:
            self._go()
            return
        if step < 0 and not page.has_previous and self.results is None:
            self._status(Text(f"{page.topic}-{page.partition} starts at offset {page.low}: no page before", "yellow"))
            return
        if step > 0 and not page.has_next:  # at the end: the newest page again, with what arrived since
            self._read(lambda b: b.page(page.topic, page.partition, END, page.isolation))
            return
        self._read(lambda b: b.previous(page) if step < 0 else b.next(page))

    def action_seek(self, where: str) -> None:
        self.query_one("#browse-from", Input).value = where
        self._go()

    def _read(self, call: Callable[[MessageBrowser], Page]) -> None:
        browser, codec = self.browser, self.codec
        if browser is None:
            return
        self._status(Text("reading…", style="dim"))

        def read(_: object) -> tuple[Page, Decoded]:
            page = call(browser)
            return page, decode_records(page.records, codec)

        # Exclusive: a page asked for later replaces this one, even if this one answers last.
        ask(self, "browse", read, self._page_read, lambda reason: self._status(reason, error=True))

    def _page_read(self, read: tuple[Page, Decoded]) -> None:
        page, decoded = read
        self._decoded = {record_id(s.record): s for s in decoded}
        self.show_page(page)

    # --- drawing -----------------------------------------------------------------------------------------------
    def show_page(self, page: Page) -> None:
        self.page, self.results = page, None
        self._fill(page.records)
        where = f"{page.topic}-{page.partition}"
        if page.records:
            shown = f"offsets {page.records[0].offset}–{page.records[-1].offset}"
        else:
            shown = f"no record from offset {page.start}" + (" (the end)" if page.start >= page.high else "")
        span = f"log {page.low}–{page.high - 1}" if page.high > page.low else "empty"
        text = Text.assemble((where, "bold"), f" · {shown} · {span} ({page.high - page.low:,} records)")
        if page.isolation == "read_committed":
            text.append(" · read_committed", style="magenta")
        if page.note:
            text.append(f" · {page.note}", style="yellow")
        text.append("  [ ] pages, < > ends, o from, f search, Enter: the record", style="dim")
        self._status(text)

    def _fill(self, records: tuple[BrowsedRecord, ...], keep_cursor: bool = False) -> None:
        table = self.query_one("#message-table", RecordTable)
        shown = tuple(self._decoded.get(record_id(r)) or ShownRecord(r) for r in records)
        table.set_records(shown)
        if keep_cursor:
            self._detail(table.shown.get(table.selected_key or ""))
            return
        # A page sought at the end: the newest record highlighted; any other: the first.
        newest = self.results is None and self.query_one("#browse-from", Input).value.strip().lower() == "end"
        table.move_cursor(row=max(0, table.row_count - 1) if newest else 0)
        self._detail(table.shown.get(table.selected_key or ""))

    @on(DataTable.RowHighlighted, "#message-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        key = event.row_key.value
        self._detail(self.query_one(RecordTable).shown.get(str(key)) if key is not None else None)

    def _detail(self, shown: ShownRecord | None) -> None:
        box = self.query_one("#message-detail", Static)
        box.update(record_detail(shown, self.clock()) if shown is not None else Text("no record", style="dim"))

    @on(DataTable.RowSelected, "#message-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a search's match: its page; on a record of a page: the record on a screen of its own."""
        shown = self.query_one(RecordTable).shown.get(str(event.row_key.value))
        if shown is None:
            return
        record = shown.record
        if self.results is None:
            linked = not isinstance(schema_wanted(shown), str)
            title = f"{record.topic}-{record.partition} @ {record.offset} · Escape closes{' · h its schema' * linked}"
            now = self.clock()
            self.app.push_screen(RecordScreen(lambda unfold: record_detail(shown, now, unfold), title,
                                              schema=lambda: self.open_schema(shown)))  # fmt: skip
            return
        self.query_one("#browse-partition", Input).value = str(record.partition)
        self.query_one("#browse-from", Input).value = str(record.offset)
        isolation = self.isolation
        self._read(lambda b: b.page(record.topic, record.partition, Seek.offset(record.offset), isolation))

    # --- search ------------------------------------------------------------------------------------------------
    def action_find(self) -> None:
        self.screen.set_focus(self.query_one("#search-text", Input))  # at once: the next key typed is the search's

    def action_from_field(self) -> None:
        """o: the `from` field, to type an offset or a time (Enter reads from there)."""
        field = self.query_one("#browse-from", Input)
        self.screen.set_focus(field)  # at once (focus() waits a frame): the offset typed next is the field's
        field.select_all()

    @property
    def searching(self) -> bool:
        return self._search is not None and self._search.is_running

    @on(Input.Submitted, "#search-text")
    @on(Button.Pressed, "#search-run")
    def _search_or_stop(self) -> None:
        if self.searching:
            self._stop_search.set()  # not the worker cancelled: the search's last report, "cancelled", is shown
            return
        where = self._where()
        text = self.query_one("#search-text", Input).value
        browser = self.browser
        if where is None or browser is None:
            return
        if not text:
            self._status("search: type a text, a path (.customer.id == 42) or, with regex ticked, a regular "
                         "expression; then Enter", error=True)  # fmt: skip
            return
        topic, partition = where
        everywhere = self.query_one("#search-all", Checkbox).value
        # From the page shown when it was sought by offset or time; else (beginning, end, all partitions) from each
        # partition's log start.
        page, sought = self.page, self.query_one("#browse-from", Input).value
        try:
            by_place = parse_seek(sought, self.clock()).kind in (SeekKind.OFFSET, SeekKind.TIMESTAMP)
        except ValueError:
            by_place = False
        start = page.start if page is not None and page.topic == topic and by_place and not everywhere else None
        searched = str(self.query_one("#search-in", Select).value)
        request = SearchRequest(
            topic, text, regex=self.query_one("#search-regex", Checkbox).value, fields=SEARCHED[searched],
            partitions=None if everywhere else (partition,), start=start, isolation=self.isolation,
        )  # fmt: skip
        self.query_one("#search-run", Button).label = "Stop"
        self._status(Text(f"searching {topic} for {text!r}…", style="dim"))
        stop = self._stop_search = threading.Event()
        codec = self.codec

        def search(tell: Callable[[tuple[SearchProgress, Decoded]], None]) -> SearchProgress:
            worker = get_current_worker()  # cancelled when the panel goes away

            def told(p: SearchProgress) -> None:  # the matches decoded once, with the last report
                tell((p, decode_records(p.found, codec) if p.done and p.error is None else ()))

            return browser.search(request, told, lambda: stop.is_set() or worker.is_cancelled)

        # The search tells its last progress too (done, cancelled or failed): its answer adds nothing.
        self._search = ask(self, "search", search, lambda _: None, self._search_failed,
                           progress=lambda told: self._searched(request, *told))  # fmt: skip

    def _searched(self, request: SearchRequest, progress: SearchProgress, decoded: Decoded) -> None:
        if progress.done and progress.error is None:
            self._decoded = {record_id(s.record): s for s in decoded}
        self.show_search(request, progress)

    def _search_failed(self, message: str) -> None:
        self.query_one("#search-run", Button).label = "Search"
        self._status(message, error=True)

    def show_search(self, request: SearchRequest, progress: SearchProgress) -> None:
        where = "all partitions" if request.partitions is None else f"{request.topic}-{request.partitions[0]}"
        rate = f"{progress.records_per_s:,.0f} records/s"
        counted = f"{progress.matches:,} match{'es' if progress.matches != 1 else ''} for {request.text!r} in " \
                  f"{progress.scanned:,} of {progress.total:,} records of {where}"  # fmt: skip
        if not progress.done:
            share = progress.scanned / progress.total if progress.total else 1.0
            self._status(Text.assemble(f"searching… {share:.0%} · {counted} · {rate}", (" · Enter or Stop cancels",
                                                                                          "dim")))  # fmt: skip
            return
        self.query_one("#search-run", Button).label = "Search"
        if progress.error is not None:
            self._status(f"search stopped: {progress.error} ({counted})", error=True)
            return
        self.results = progress
        self._fill(progress.found)
        took = f"{progress.elapsed_s:.1f} s" if progress.elapsed_s >= 1 else f"{progress.elapsed_s * 1000:.0f} ms"
        ended = "cancelled" if progress.cancelled else f"done in {took}"
        text = Text.assemble((f"{counted}", "bold"), f" · {ended} · {rate}")
        if progress.matches > len(progress.found):
            text.append(f" · the first {len(progress.found)} shown", style="yellow")
        text.append("  Enter: the match's page", style="dim")
        self._status(text)
