"""The Spark panel: per-partition counts of a topic computed by Spark, with a bar per partition and the check of
each count against high − low watermark; a live mode keeps a streaming query's counts on screen.

Spark runs in the Spark service process (kafkatop.spark.service), reached through `counter` (the SparkCounts port);
its blocking calls are asked through `ask` (widgets/pane.py). What the port pushes from its own threads comes back as
messages: what Spark is doing (starting, ready, counting…) as a SparkStatus, drawn by the state line; a live count's
batches (SparkCounted) and its end (SparkFailed).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Checkbox, ProgressBar

from kafkatop.backends.model.spark import SparkServiceError, SparkStatus, TopicCounts, watermark_check
from kafkatop.backends.ports import SparkCounts
from kafkatop.tui.format import data_size
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.tabs.spark.status import SparkStatusLine
from kafkatop.tui.live.text import DataTable, Select, Static
from kafkatop.tui.live.widgets.pane import Asking, LivePane, ask

BAR_WIDTH = 24
NARROW = 100  # below: no first/last offset columns, a shorter bar and two top keys, so 80 columns hold the rest
SHORT = 20  # panel rows below which the controls drop their borders (one row instead of three)
COLUMNS = ("partition", "records", "", "bytes", "first", "last", "low", "high", "check", "top keys")
WIDE_ONLY = ("first", "last")


@dataclass
class SparkCounted(Message):
    """A live count's batch, pushed by the port."""

    counts: TopicCounts


@dataclass
class SparkStatusChanged(Message):
    status: SparkStatus

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SparkStatusChanged)


@dataclass
class SparkFailed(Message):
    """A live count ended with an error, pushed by the port."""

    reason: str


def bar(value: int, largest: int, width: int = BAR_WIDTH) -> Text:
    """A horizontal bar in eighths of a cell, so small differences between partitions still show."""
    if largest <= 0 or value <= 0:
        return Text(" " * width)
    eighths = max(1, round(value / largest * width * 8))
    full, rest = divmod(eighths, 8)
    partial = "▏▎▍▌▋▊▉"[rest - 1] if rest else ""
    return Text("█" * full + partial, style="cyan").append(" " * (width - full - len(partial)))


def bar_width(width: int) -> int:
    """The bar's cells for a panel `width` columns wide: full from NARROW up, then shrinking with the terminal."""
    return BAR_WIDTH if width >= NARROW else max(6, min(BAR_WIDTH, width - 72))


class SparkPane(Asking, LivePane, Vertical):
    BINDINGS = [Binding("g", "count", "Count"), Binding("l", "live", "Live counts")]

    def __init__(self, counter: SparkCounts | None, clock: Callable[[], float] | None = None) -> None:
        super().__init__()
        self.counter = counter
        self.stream_id: str | None = None
        self.counts: TopicCounts | None = None
        self.batch_counts: TopicCounts | None = None  # the last full count: live updates carry no top keys
        self.status: SparkStatus | None = None
        self._clock = clock or time.time
        self._topics: tuple[str, ...] = ()
        self._columns: tuple[str, ...] = ()
        self._bar_width = BAR_WIDTH
        self._warmed = False
        self._streams_asked = 0  # live counts asked to start: only the last one asked is kept

    def compose(self) -> ComposeResult:
        with Horizontal(classes="options"):
            yield Select[str]([], prompt="topic", id="spark-topic")
            yield Button("Count (g)", id="spark-count", variant="primary")
            yield Checkbox("live (l)", False, id="spark-live")
        yield SparkStatusLine(self._clock, id="spark-state")
        yield ProgressBar(total=None, show_eta=False, id="spark-progress")
        yield Static(Text("no count yet: g counts the picked topic with Spark, l keeps live counts", "dim"),
                     id="spark-summary")  # fmt: skip
        yield DataTable(id="spark-table", cursor_type="row")
        yield Static("", id="spark-notes")

    def on_mount(self) -> None:
        self._set_columns(self.size.width or self.app.size.width)
        self.query_one("#spark-progress").display = False
        if self.counter is None:
            self._notice("Spark is not available here: run kafkatop where pyspark and Java are installed")
            self.query_one("#spark-summary", Static).update("")
        else:
            # Pushed from the service client's threads; the first call comes at once, from this one.
            self.counter.watch(self._status_from_thread)

    def on_resize(self) -> None:
        short = 0 < self.size.height < SHORT
        for control in self.query("#spark-topic, #spark-count, #spark-live"):
            if isinstance(control, Select | Button | Checkbox):
                control.compact = short
        if self._set_columns(self.size.width) and self.counts is not None:
            self.show_counts(self.counts)

    def _set_columns(self, width: int) -> bool:
        """The table's columns for a panel `width` wide; False when they are already those."""
        columns = tuple(c for c in COLUMNS if width >= NARROW or c not in WIDE_ONLY)
        if columns == self._columns and bar_width(width) == self._bar_width:
            return False
        self._columns, self._bar_width = columns, bar_width(width)
        table = self.query_one("#spark-table", DataTable)
        table.clear(columns=True)
        for column in columns:
            table.add_column(column, key=column or "bar", width=self._bar_width if not column else None)
        return True

    # --- fed by the app ------------------------------------------------------------------------------------------
    def draw(self, view: LiveView) -> None:
        if view.cluster is not None:
            self.show_topics([t.name for t in view.cluster.topics])

    def on_show(self) -> None:
        super().on_show()
        self.warm_up()

    def show_topics(self, names: list[str]) -> None:
        topics = tuple(sorted(names))
        if topics == self._topics:
            return
        self._topics = topics
        select = self.query_one("#spark-topic", Select)
        current = select.value
        select.set_options([(t, t) for t in topics])
        if current in topics:
            select.value = current
        elif topics and select.is_blank():
            select.value = topics[0]

    def warm_up(self) -> None:
        """The tab was shown: launch Spark now, so the first count does not wait for a JVM (once; the port decides
        whether it does). The state line says "starting" as soon as the service client has launched it: it pushes
        the change."""
        if self.counter is not None and not self._warmed:
            self._warmed = True
            self._warm_up(self.counter)

    # --- actions -----------------------------------------------------------------------------------------------
    def _topic(self) -> str | None:
        value = self.query_one("#spark-topic", Select).value
        return None if value is Select.BLANK else str(value)

    def action_count(self) -> None:
        topic = self._topic()
        if self.counter is None:
            return
        if topic is None:
            self._notice("pick a topic to count")
            return
        if any(w.group == "spark-count" and w.is_running for w in self.workers):
            return
        self._notice(None)
        self._count(self.counter, topic)

    def action_live(self) -> None:
        box = self.query_one("#spark-live", Checkbox)
        box.value = not box.value

    @on(Button.Pressed, "#spark-count")
    def _count_pressed(self) -> None:
        self.action_count()

    @on(Checkbox.Changed, "#spark-live")
    def _live_changed(self, event: Checkbox.Changed) -> None:
        self._stop_stream()
        if event.value:
            topic = self._topic()
            if topic is None or self.counter is None:
                event.checkbox.value = False
                self._notice("pick a topic for live counts")
                return
            self._stream(self.counter, topic)

    @on(Select.Changed, "#spark-topic")
    def _topic_changed(self) -> None:
        if self.stream_id is not None:
            self._stop_stream()
            topic = self._topic()
            if topic is not None and self.counter is not None:
                self._stream(self.counter, topic)

    def _stop_stream(self) -> None:
        if self.stream_id is not None and self.counter is not None:
            stream, self.stream_id = self.stream_id, None
            self._stop(self.counter, stream)

    # --- asked of the port: every Spark call blocks -----------------------------------------------------------
    def _warm_up(self, counter: SparkCounts) -> None:
        def warm_up(_: Callable[[object], None]) -> None:
            try:
                counter.warm_up()
            except SparkServiceError:
                pass  # the pushed status says "failed" and why

        ask(self, "spark-service", warm_up, lambda _: None, self._failed)

    def _count(self, counter: SparkCounts, topic: str) -> None:
        def count(_: Callable[[object], None]) -> TopicCounts | None:
            try:
                return counter.counts(topic)
            except SparkServiceError:
                return None  # the service failed: the pushed status says why

        # Not exclusive: a count asked for is shown (the panel asks for one at a time).
        ask(self, "spark-count", count, self._counted,
            lambda reason: self._failed(f"count of {topic} failed: {reason}"), exclusive=False)  # fmt: skip

    def _stream(self, counter: SparkCounts, topic: str) -> None:
        def ended(error: str | None) -> None:
            if error is not None:
                self.post_message(SparkFailed(f"live counts stopped: {error}"))

        def start(_: Callable[[object], None]) -> str | None:
            try:
                return counter.start_stream(topic, self._counted_from_thread, ended)
            except SparkServiceError:
                return None  # the pushed status says why

        self._streams_asked += 1
        asked = self._streams_asked
        # Not exclusive: a live count started must be answered, to be kept or stopped (never left running).
        ask(self, "spark-stream", start, lambda stream_id: self._stream_started(asked, stream_id),
            lambda reason: self._failed(f"live counts of {topic} failed: {reason}"), exclusive=False)  # fmt: skip

    def _stop(self, counter: SparkCounts, stream_id: str) -> None:
        # Not exclusive: every live count asked to stop is stopped. The service may be gone already: said, no more.
        ask(self, "spark-stop", lambda _: counter.stop(stream_id), lambda _: None, self._failed, exclusive=False)

    def _status_from_thread(self, status: SparkStatus) -> None:
        self.post_message(SparkStatusChanged(status))

    def _counted_from_thread(self, counts: TopicCounts) -> None:
        self.post_message(SparkCounted(counts))

    # --- rendering -------------------------------------------------------------------------------------------
    def _notice(self, text: str | None, error: bool = False) -> None:
        notice = None if text is None else Text(text, style="bold red" if error else "yellow")
        self.query_one("#spark-state", SparkStatusLine).show(notice=notice)

    def _stream_started(self, asked: int, stream_id: str | None) -> None:
        if stream_id is None:
            return
        if self.query_one("#spark-live", Checkbox).value and asked == self._streams_asked:
            self.stream_id = stream_id
        elif self.counter is not None:
            # Live was switched off while the stream was starting, or on again: a later one is asked for.
            self._stop(self.counter, stream_id)

    def _counted(self, counts: TopicCounts | None) -> None:
        if counts is not None:
            self.show_counts(counts)

    def _failed(self, reason: str) -> None:
        self._notice(reason, error=True)

    @on(SparkStatusChanged)
    def _on_status(self, message: SparkStatusChanged) -> None:
        status = self.status = message.status
        line = self.query_one("#spark-state", SparkStatusLine)
        line.show(status, line.notice)
        progress = self.query_one("#spark-progress", ProgressBar)
        progress.display = status.phase == "counting"
        if status.phase == "counting":
            p = status.progress
            progress.update(total=p.total if p is not None and p.total else None, progress=p.done if p else 0)

    @on(SparkFailed)
    def _on_failed(self, message: SparkFailed) -> None:
        self._failed(message.reason)

    @on(SparkCounted)
    def _on_counted(self, message: SparkCounted) -> None:
        self.show_counts(message.counts)

    def show_counts(self, counts: TopicCounts) -> None:
        if not counts.streaming:
            self.batch_counts = counts
        last = self.batch_counts
        keys = {p.partition: p.top_keys for p in last.partitions} if last and last.topic == counts.topic else {}
        self.counts = counts
        table = self.query_one("#spark-table", DataTable)
        table.clear()
        largest = max((p.records for p in counts.partitions), default=0)
        notes = []
        for p in counts.partitions:
            check = watermark_check(p, counts.cleanup_policy) if not counts.streaming else None
            if check:
                notes.append(f"partition {p.partition}: {check}")
            top = p.top_keys or keys.get(p.partition, ())
            cells: dict[str, str | Text] = {
                "partition": str(p.partition),
                "records": f"{p.records:,}",
                "": bar(p.records, largest, self._bar_width),
                "bytes": data_size(p.bytes),
                "first": "-" if p.first_offset is None else str(p.first_offset),
                "last": "-" if p.last_offset is None else str(p.last_offset),
                "low": str(p.low_watermark),
                "high": str(p.high_watermark),
                "check": self._check_cell(p.gap, check, counts.streaming),
                "top keys": ", ".join(f"{k.key} ×{k.records:,}" for k in top[: 3 if "first" in self._columns else 2]),
            }
            table.add_row(*(cells[c] for c in self._columns), key=str(p.partition))
        kind = f"live, batch {counts.batch_id}" if counts.streaming else f"counted in {counts.elapsed_s:.1f} s"
        self.query_one("#spark-summary", Static).update(
            Text.assemble(
                (f"{counts.topic}", "bold"),
                f": {counts.records:,} records, {data_size(counts.bytes)} in {len(counts.partitions)} partitions",
                (f" · {counts.master} · {kind}", "dim"),
            )
        )
        notes_text = Text()
        if notes:
            notes_text.append("Count below high − low watermark:\n", style="yellow")
            notes_text.append("\n".join(notes))
        self.query_one("#spark-notes", Static).update(notes_text)

    @staticmethod
    def _check_cell(gap: int, check: str | None, streaming: bool) -> Text:
        if streaming:
            return Text("lag" if gap else "ok", style="dim" if gap else "green")
        if check is None:
            return Text("ok", style="green")
        return Text(f"{-gap:+,}", style="bold yellow")
