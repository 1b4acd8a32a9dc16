"""The partition table: what `kafka-topics.sh --describe` prints, live, with watermarks and faults coloured; a row
whose leader or ISR just changed is highlighted for a moment, so a failover is seen, not hunted for. Beside the ISR,
the topic's min.insync.replicas: a partition whose ISR is below it refuses acks=all writes (NOT_ENOUGH_REPLICAS), which
under-replicated alone does not say."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Select

from kafkatop.backends.insight.history import HistorySnapshot
from kafkatop.backends.model.cluster import ClusterSnapshot, Partition, TopicPartition
from kafkatop.tui.format import rate, sparkline
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.widgets.filter import matches
from kafkatop.tui.live.widgets.pane import LivePane

TREND_WIDTH = 10  # samples drawn per sparkline: the last ten polls
HIGHLIGHT_S = 3.0  # how long a changed row stays highlighted (about three polls)
ALL_TOPICS = "\x00all"  # the picker's value for every topic (no topic can be named so)


Piece = tuple[str, str]  # text and a Rich style string
Cell = tuple[Piece, ...]


@lru_cache(maxsize=4096)
def _ids(ids: tuple[int, ...], dead: tuple[int, ...] = (), style: str = "") -> Cell:
    pieces: list[Piece] = []
    for i, b in enumerate(ids):
        if i:
            pieces.append((",", style))
        pieces.append((str(b), f"{style} red strike" if b in dead else style))  # a replica on a dead broker
    return tuple(pieces)


@lru_cache(maxsize=4096)
def _leader(leader: int, offline: bool, preferred: bool, style: str) -> Cell:
    if offline:
        return (("-1 offline", style),)
    if not preferred:
        return ((str(leader), style), (" *", "dim"))  # not the preferred leader (first replica)
    return ((str(leader), style),)


UNDER_MIN_ISR = "bold magenta"  # acks=all producers are refused: worse than under-replicated, not yet offline


def _min_isr(min_isr: int | None, under: bool) -> Cell:
    if min_isr is None:
        return (("-", "dim"),)
    return ((f"{min_isr} !", UNDER_MIN_ISR),) if under else ((str(min_isr), ""),)


def partition_row(
    p: Partition, changed: bool = False, isr_trend: str = "", rate_trend: str = "", min_isr: int | None = None
) -> tuple[Cell, ...]:
    """A row's cells as styled pieces; the styled ones are shared between rows in the same state. `min_isr`: the
    topic's min.insync.replicas (None: not read)."""
    under_min_isr = p.under_min_isr(min_isr)
    fault = "bold red" if p.offline else UNDER_MIN_ISR if under_min_isr else "yellow" if p.under_replicated else ""
    style = f"{fault} reverse" if changed else fault
    return (
        ((p.topic, fault),),
        ((str(p.id), fault),),
        _leader(p.leader, p.offline, p.leader_is_preferred, style),
        _ids(p.replicas, p.offline_replicas),
        _ids(p.isr, (), style),
        _min_isr(min_isr, under_min_isr),
        (("-" if p.low_watermark is None else str(p.low_watermark), ""),),
        (("-" if p.high_watermark is None else str(p.high_watermark), ""),),
        (("-" if p.messages is None else str(p.messages), ""),),
        ((isr_trend, "yellow" if isr_trend and isr_trend[-1] != isr_trend[0] else "dim"),),
        ((rate_trend, "cyan"),),
    )


Windows = tuple[tuple[float, ...], tuple[float, ...], int]  # ISR sizes, record rates, replica count


def _windows(history: HistorySnapshot | None, p: Partition) -> Windows | None:
    """ISR size over the window (a dip is a failover seen afterwards) and the rate of records."""
    if history is None:
        return None
    tp = TopicPartition(p.topic, p.id)
    return history.isr_size(tp)[-TREND_WIDTH:], history.records_per_s(tp)[-TREND_WIDTH:], len(p.replicas)


def _trend_text(windows: Windows) -> tuple[str, str]:
    isr, rates, replicas = windows
    rate_text = f"{sparkline(rates, TREND_WIDTH)} {rate(rates[-1])}" if rates else ""
    return sparkline(isr, TREND_WIDTH, top=float(replicas)), rate_text


def _widths(row: tuple[Cell, ...]) -> tuple[int, ...]:
    # Most cells are one piece; list comprehensions, because this runs for every row a failover changed.
    return tuple([len(cell[0][0]) if len(cell) == 1 else sum([len(t) for t, _ in cell]) for cell in row])


def cell_text(cell: Cell) -> str:
    return "".join(text for text, _ in cell)


@lru_cache(maxsize=256)
def _style(spec: str) -> Style:
    return Style.parse(spec) if spec.strip() else Style()


class PartitionTable(ScrollView, can_focus=True):
    """Drawn line by line (Textual's line API) from cells cached per row. A refresh where every one of 1,000 rows
    changed (a broker died) redraws only the visible rows, and builds cells only for rows whose state changed."""

    COLUMNS = (
        "topic", "partition", "leader", "replicas", "isr", "min isr", "low", "high", "messages", "isr history", "msg/s",
    )  # fmt: skip
    # What goes first when the terminal is narrow: the watermarks (messages says their difference), then the trends;
    # topic, partition, leader, replicas, ISR and min ISR always stay (min ISR is left out where no topic's is known:
    # the demo's mock has no DescribeConfigs, ZooKeeper's znodes do not hold it).
    DROPPED_FIRST = ("low", "high", "isr history", "msg/s", "messages")
    BINDINGS = [
        Binding("up,k", "cursor(-1)", show=False),
        Binding("down,j", "cursor(1)", show=False),
        Binding("pageup", "page(-1)", show=False),
        Binding("pagedown", "page(1)", show=False),
        Binding("home,g", "cursor(-1_000_000)", show=False),
        Binding("end,G", "cursor(1_000_000)", show=False),
        Binding("enter", "app.browse", "Browse messages", show=False),
    ]
    DEFAULT_CSS = """
    PartitionTable > .partition-table--header { text-style: bold; }
    PartitionTable > .partition-table--cursor { background: $accent 40%; }
    PartitionTable > .partition-table--cursor-blurred { background: $accent 15%; }
    """
    COMPONENT_CLASSES = {"partition-table--header", "partition-table--cursor", "partition-table--cursor-blurred"}

    cursor_row: reactive[int] = reactive(0)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._keys: list[str] = []
        self._cells: dict[str, tuple[Cell, ...]] = {}
        self._states: dict[str, tuple[object, ...]] = {}
        self._widths: list[int] = [len(c) for c in self.COLUMNS]
        self._strips: dict[int, Strip] = {}
        self._row_widths: dict[str, tuple[int, ...]] = {}
        self._cells_before: dict[str, tuple[Cell, ...]] = {}
        # The last draw's trend texts by their windows: a quiet partition's windows repeat from poll to poll, and
        # 1,000 rows are drawn per poll. Only the last draw's are kept: a busy cluster's windows never repeat, and a
        # cache across draws grew with every poll (bench/soak.py).
        self._trends: dict[Windows, tuple[str, str]] = {}
        self.filter_text = ""
        self._total = 0
        self._last: tuple[ClusterSnapshot, str | None, float, HistorySnapshot | None] | None = None
        self._columns: tuple[int, ...] = tuple(range(len(self.COLUMNS)))  # those that fit the width
        self._min_isr_known = False  # whether any shown topic's min.insync.replicas was read

    @property
    def row_count(self) -> int:
        return len(self._keys)

    def clear(self) -> None:
        self._keys, self._cells, self._states, self._strips = [], {}, {}, {}
        self._resize()

    def row(self, key: str) -> tuple[str, ...]:
        """The row's cells as plain text (for tests and for copying)."""
        return tuple(cell_text(c) for c in self._cells[key])

    def row_cell(self, key: str, column: str) -> Cell:
        return self._cells[key][self.COLUMNS.index(column)]

    def show(
        self, snapshot: ClusterSnapshot, topic: str | None, now: float, history: HistorySnapshot | None = None
    ) -> None:
        self._last = (snapshot, topic, now, history)
        states: dict[str, tuple[object, ...]] = {}
        partitions: dict[str, Partition] = {}
        needle = self.filter_text
        total = 0
        changed_at = history.changed_at if history is not None else {}
        trends: dict[Windows, tuple[str, str]] = {}
        min_isr_known = False
        shown = (
            (p, t.min_insync_replicas)
            for t in snapshot.topics
            if topic is None or t.name == topic
            for p in t.partitions
        )
        for p, min_isr in shown:
            min_isr_known = min_isr_known or min_isr is not None
            total += 1
            key = f"{p.topic}-{p.id}"
            if needle and not (matches(needle, key) or needle.strip() == str(p.id)):
                continue
            when = changed_at.get(TopicPartition(p.topic, p.id))  # leader or ISR, as insight/changes.py tells
            changed = when is not None and now - when <= HIGHLIGHT_S
            windows = _windows(history, p)
            if windows is None:
                isr_trend, rate_trend = "", ""
            else:
                drawn = trends.get(windows) or self._trends.get(windows)
                isr_trend, rate_trend = trends[windows] = drawn or _trend_text(windows)
            states[key] = (
                p.leader, p.replicas, p.isr, p.offline_replicas, p.low_watermark, p.high_watermark, min_isr,
                isr_trend, rate_trend, changed,
            )  # fmt: skip
            partitions[key] = p
        keys = list(states)
        same_rows = keys == self._keys
        cells: dict[str, tuple[Cell, ...]] = {}
        dirty: list[int] = []
        for index, key in enumerate(keys):
            if same_rows and states[key] == self._states.get(key):
                cells[key] = self._cells[key]
                continue
            state = states[key]
            read = state[6]
            cells[key] = partition_row(
                partitions[key],
                bool(state[-1]),
                str(state[-3]),
                str(state[-2]),
                read if isinstance(read, int) else None,
            )
            dirty.append(index)
        self._keys, self._cells, self._states, self._trends = keys, cells, states, trends
        self._total = total
        row_widths = {}
        for key, row in cells.items():
            known = self._row_widths.get(key) if row is self._cells_before.get(key) else None
            row_widths[key] = known or _widths(row)
        self._row_widths, self._cells_before = row_widths, dict(cells)
        widths = (
            [
                max(len(name), *column)
                for name, column in zip(self.COLUMNS, zip(*row_widths.values(), strict=True), strict=True)
            ]
            if row_widths
            else [len(c) for c in self.COLUMNS]
        )
        if widths != self._widths or not same_rows or min_isr_known != self._min_isr_known:
            self._widths = widths
            self._min_isr_known = min_isr_known
            self._fit()
            self._strips.clear()
        else:
            for index in dirty:
                self._strips.pop(index, None)
        self.cursor_row = min(self.cursor_row, max(0, len(keys) - 1))
        self._resize()
        self.refresh()

    def _resize(self) -> None:
        width, height = sum(self._widths[i] + 2 for i in self._columns), len(self._keys) + 1
        room, current = self.size.width, self.virtual_size
        if room and current.height == height and width <= room and current.width <= room:
            return  # narrower or wider, it still fits: no scrollbar changes, and a new size would cost a relayout
        self.virtual_size = Size(width, height)

    def _fit(self) -> None:
        """The columns that fit the width, dropping DROPPED_FIRST in order (a wide table still scrolls)."""
        room = self.size.width or 10_000
        columns = list(range(len(self.COLUMNS)))
        if not self._min_isr_known:
            columns.remove(self.COLUMNS.index("min isr"))
        for name in self.DROPPED_FIRST:
            if sum(self._widths[i] + 2 for i in columns) <= room:
                break
            columns.remove(self.COLUMNS.index(name))
        if tuple(columns) != self._columns:
            self._columns = tuple(columns)
            self._strips.clear()
            self._resize()

    def on_resize(self) -> None:
        self._fit()
        self.refresh()

    # --- the filter (`/`) --------------------------------------------------------------------------------------
    def apply_filter(self, text: str) -> tuple[int, int]:
        self.filter_text = text
        if self._last is not None:
            self.show(*self._last)
        return len(self._keys), self._total

    # --- drawing -----------------------------------------------------------------------------------------------
    def _line(self, cells: tuple[Cell, ...], base: Style) -> Strip:
        segments: list[Segment] = []
        for i in self._columns:
            cell, width = cells[i], self._widths[i]
            used = 0
            segments.append(Segment(" ", base))
            for text, spec in cell:
                segments.append(Segment(text, base + _style(spec)))
                used += len(text)
            segments.append(Segment(" " * (width - used + 1), base))
        return Strip(segments)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        if y == 0:  # the header stays put while the rows scroll under it
            header = tuple(((name, ""),) for name in self.COLUMNS)
            strip = self._line(header, self.get_component_rich_style("partition-table--header"))
            return strip.crop(scroll_x, scroll_x + width).extend_cell_length(width)
        index = scroll_y + y - 1
        if index >= len(self._keys):
            return Strip.blank(width, self.rich_style)
        # The highlighted row is always shown (what d and v act on), brighter while the table has the keys.
        cursor = index == self.cursor_row
        cached = None if cursor else self._strips.get(index)
        if cached is not None:
            strip = cached
        else:
            look = "partition-table--cursor" if self.has_focus else "partition-table--cursor-blurred"
            base = self.get_component_rich_style(look) if cursor else self.rich_style
            strip = self._line(self._cells[self._keys[index]], base)
            if not cursor:
                self._strips[index] = strip
        return strip.crop(scroll_x, scroll_x + width).extend_cell_length(width)

    # --- cursor ------------------------------------------------------------------------------------------------
    def watch_cursor_row(self, old: int, new: int) -> None:
        self._strips.pop(old, None)
        self._strips.pop(new, None)
        body = max(1, self.size.height - 1)
        top = self.scroll_offset.y
        if new < top:
            self.scroll_to(y=new, animate=False)
        elif new >= top + body:
            self.scroll_to(y=new - body + 1, animate=False)
        self.refresh()

    def action_cursor(self, delta: int) -> None:
        if self._keys:
            self.cursor_row = max(0, min(len(self._keys) - 1, self.cursor_row + delta))

    def action_page(self, direction: int) -> None:
        self.action_cursor(direction * max(1, self.size.height - 2))

    def on_click(self, event: events.Click) -> None:
        index = self.scroll_offset.y + event.y - 1
        if 0 <= index < len(self._keys):
            self.cursor_row = index

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    @property
    def selected_topic(self) -> str | None:
        if not self._keys:
            return None
        return cell_text(self._cells[self._keys[self.cursor_row]][0])

    @property
    def selected_partition(self) -> TopicPartition | None:
        if not self._keys:
            return None
        cells = self._cells[self._keys[self.cursor_row]]
        return TopicPartition(cell_text(cells[0]), int(cell_text(cells[1])))

    @property
    def shown_partitions(self) -> tuple[TopicPartition, ...]:
        """The rows on show: the picked topic's (or every topic's), narrowed by the filter."""
        rows = (self._cells[key] for key in self._keys)
        return tuple(TopicPartition(cell_text(cells[0]), int(cell_text(cells[1]))) for cells in rows)


class Summary(Widget):
    """One line repainted in place (a Static's update would re-lay out the screen on every count change)."""

    text: reactive[Text] = reactive(Text, layout=False)

    def render(self) -> Text:
        return self.text


class PartitionsPane(LivePane, Vertical):
    """A topic picker (or all topics), a one-line summary, and the table."""

    def draw(self, view: LiveView) -> None:
        if view.cluster is not None:
            self.show(view.cluster, view.cluster.taken_at, view.history)

    @on(Select.Changed, "#topic-picker")
    def _topic_picked(self) -> None:
        self.redraw()

    def compose(self) -> ComposeResult:
        with Horizontal(id="topic-bar"):
            yield Select(
                [("all topics", ALL_TOPICS)], value=ALL_TOPICS, allow_blank=False, id="topic-picker", compact=True
            )
            yield Summary(id="topic-summary")
        yield PartitionTable()

    @property
    def topic(self) -> str | None:
        value = self.query_one("#topic-picker", Select).value
        return None if value == ALL_TOPICS or not isinstance(value, str) else value

    def show(self, snapshot: ClusterSnapshot, now: float, history: HistorySnapshot | None = None) -> None:
        picker = self.query_one("#topic-picker", Select)
        names = [t.name for t in sorted(snapshot.topics, key=lambda t: t.name)]
        options = [("all topics", ALL_TOPICS), *((n, n) for n in names)]
        if getattr(self, "_options", None) != options:
            current = picker.value
            picker.set_options(options)
            picker.value = current if current in {v for _, v in options} else ALL_TOPICS
            self._options = options
        topic = self.topic
        shown = [t for t in snapshot.topics if topic is None or t.name == topic]
        partitions = sum(len(t.partitions) for t in shown)
        urp = sum(len(t.under_replicated) for t in shown)
        offline = sum(len(t.offline) for t in shown)
        under_min_isr = sum(len(t.under_min_isr) for t in shown)
        summary = Text(f"{len(shown)} topic(s), {partitions} partition(s)")
        if urp:
            summary.append(f"  {urp} under-replicated", style="bold yellow")
        if under_min_isr:
            summary.append(f"  {under_min_isr} under min ISR (acks=all refused)", style=f"{UNDER_MIN_ISR}")
        if offline:
            summary.append(f"  {offline} offline", style="bold red")
        if topic is not None and shown:
            t = shown[0]
            summary.append(f"  RF {t.replication_factor}")
            if t.min_insync_replicas is not None:
                summary.append(f"  min.insync.replicas {t.min_insync_replicas}")
        self.query_one("#topic-summary", Summary).text = summary
        self.query_one(PartitionTable).show(snapshot, topic, now, history)
