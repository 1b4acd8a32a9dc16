"""The partition table: what `kafka-topics.sh --describe` prints, live, with watermarks and faults coloured; a row
whose leader or ISR just changed is highlighted for a moment, so a failover is seen, not hunted for. Beside the ISR,
the topic's min.insync.replicas: a partition whose ISR is below it refuses acks=all writes (NOT_ENOUGH_REPLICAS), which
under-replicated alone does not say."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Select

from kafkatop.backends.insight.history import HistorySnapshot, Metric
from kafkatop.backends.model.cluster import ClusterSnapshot, Partition, Topic, TopicPartition
from kafkatop.tui.format import rate, sparkline
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.widgets.line_table import LineTable, RowCursor
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


# Above this many rows, the trend columns are as wide as the widest of the whole history (worked out once per poll),
# not of the rows shown: a keystroke of `/` must not look up 20,000 series.
EXACT_TRENDS_UP_TO = 1_000


_whole_history: list[tuple[HistorySnapshot, tuple[int, int]]] = []  # the last history's, by identity


def _all_trend_widths(history: HistorySnapshot) -> tuple[int, int]:
    if _whole_history and _whole_history[0][0] is history:
        return _whole_history[0][1]
    isr = [len(s.values) for s in history.of(Metric.ISR_SIZE)]
    rates = [s.values for s in history.of(Metric.RECORDS_PER_S)]
    widths = _trend_widths_of(isr, rates, 0, 0)
    _whole_history[:] = [(history, widths)]
    return widths


def _trend_widths(
    history: HistorySnapshot, rows: Sequence[Partition], isr_width: int, rate_width: int
) -> tuple[int, int]:
    """The widths of the trend columns over these rows, from the series' lengths and last rates, as drawn."""
    if len(rows) > EXACT_TRENDS_UP_TO:
        isr_all, rate_all = _all_trend_widths(history)
        return max(isr_width, isr_all), max(rate_width, rate_all)
    isr = [len(history.isr_size(TopicPartition(p.topic, p.id))) for p in rows]
    rates = [history.records_per_s(TopicPartition(p.topic, p.id)) for p in rows]
    return _trend_widths_of(isr, rates, isr_width, rate_width)


def _trend_widths_of(
    isr: list[int], rates: Sequence[tuple[float, ...]], isr_width: int, rate_width: int
) -> tuple[int, int]:
    samples = max((len(r) for r in rates if r), default=0)
    if samples:
        # rate()'s text grows with the rate below 1 M/s, and again above: the largest of each is the widest.
        lasts = [r[-1] for r in rates if r]
        below = [v for v in lasts if v < 999_950]
        above = [v for v in lasts if v >= 999_950]
        text = max(len(rate(max(below))) if below else 0, len(rate(max(above))) if above else 0)
        rate_width = max(rate_width, min(samples, TREND_WIDTH) + 1 + text)
    return max(isr_width, min(max(isr, default=0), TREND_WIDTH)), rate_width


@lru_cache(maxsize=4096)
def _ids_width(ids: tuple[int, ...]) -> int:
    return len(",".join(map(str, ids)))


def _may_end_in_id(word: str, name: str) -> bool:
    """Whether `word`, not in topic `name`, can be in some "name-ID" key: it must reach into "-ID", so it is digits,
    or what comes before its last "-" ends the name and what follows is digits (a whole topic is ruled out at once)."""
    if "-" not in word:
        return word.isdigit()
    head, _, tail = word.rpartition("-")
    return name.endswith(head) and (not tail or tail.isdigit())


def _digits(value: int | None) -> int:
    return 1 if value is None else len(str(value))


def cell_text(cell: Cell) -> str:
    return "".join(text for text, _ in cell)


@lru_cache(maxsize=256)
def _style(spec: str) -> Style:
    return Style.parse(spec) if spec.strip() else Style()


class PartitionTable(RowCursor):
    """Drawn line by line (Textual's line API): a poll costs one pass over the partitions shown for the columns'
    widths, and cells only for the rows on screen. At 10,000 partitions a refresh where every row changed (a broker
    died) stays a frame's work (bench/scale.py)."""

    COLUMNS = (
        "topic", "partition", "leader", "replicas", "isr", "min isr", "low", "high", "messages", "isr history", "msg/s",
    )  # fmt: skip
    # What goes first when the terminal is narrow: the watermarks (messages says their difference), then the trends;
    # topic, partition, leader, replicas, ISR and min ISR always stay (min ISR is left out where no topic's is known:
    # the demo's mock has no DescribeConfigs, ZooKeeper's znodes do not hold it).
    DROPPED_FIRST = ("low", "high", "isr history", "msg/s", "messages")
    BINDINGS = [
        Binding("enter", "app.browse", "Browse messages", show=False),
        Binding("o", "order", "Order rows", show=False),
    ]
    # `o` cycles the rows' order: as kafka-topics lists them, faults first (offline, under min ISR, under-replicated),
    # most messages first, by leader.
    ORDERS = ("topic", "faults", "messages", "leader")
    DEFAULT_CSS = """
    PartitionTable > .partition-table--header { text-style: bold; }
    PartitionTable > .partition-table--cursor { background: $accent 40%; }
    PartitionTable > .partition-table--cursor-blurred { background: $accent 15%; }
    """
    COMPONENT_CLASSES = {"partition-table--header", "partition-table--cursor", "partition-table--cursor-blurred"}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._rows: list[Partition] = []  # shown
        self._min_isr: dict[str, int | None] = {}  # of the topics shown
        self._by_topic: dict[str, tuple[Topic, tuple[int, ...]]] = {}  # each topic's widths, with the topic they fit
        self._cells: dict[int, tuple[Cell, ...]] = {}  # by row index, built when drawn, until the next poll
        self._widths: list[int] = [len(c) for c in self.COLUMNS]
        self.filter_text = ""
        self._total = 0
        self._last: tuple[ClusterSnapshot, str | None, float, HistorySnapshot | None] | None = None
        self._now = 0.0
        self._history: HistorySnapshot | None = None
        self._columns: tuple[int, ...] = tuple(range(len(self.COLUMNS)))  # those that fit the width
        self._min_isr_known = False  # whether any shown topic's min.insync.replicas was read
        self.order = "topic"

    @property
    def row_count(self) -> int:
        return len(self._rows)

    def action_order(self) -> None:
        self.order = self.ORDERS[(self.ORDERS.index(self.order) + 1) % len(self.ORDERS)]
        self.cursor_row = 0
        if self._last is not None:
            self.show(*self._last)
        self.post_message(self.Ordered(self.order))

    class Ordered(Message):
        def __init__(self, order: str) -> None:
            super().__init__()
            self.order = order

    def _sort(self, rows: list[Partition], min_isrs: Mapping[str, int | None]) -> None:
        """Rows in `self.order`, ties kept in kafka-topics' order (sorts are stable)."""
        if self.order == "faults":  # four passes of comprehensions: a key function per row costs twice as much
            led = [p for p in rows if p.leader >= 0]
            below = [p for p in led if (m := min_isrs.get(p.topic)) is not None and len(p.isr) < m]
            shrunk = [p for p in led if len(p.isr) < len(p.replicas) and not p.under_min_isr(min_isrs.get(p.topic))]
            faulty = {id(p) for p in below} | {id(p) for p in shrunk}
            rows[:] = [p for p in rows if p.leader < 0] + below + shrunk + [p for p in led if id(p) not in faulty]
        elif self.order == "messages":
            rows.sort(key=lambda p: (p.low_watermark or 0) - (p.high_watermark or 0))
        elif self.order == "leader":
            rows.sort(key=lambda p: p.leader)

    def clear(self) -> None:
        self._rows, self._cells, self._strips = [], {}, {}
        self._resize()

    def _index(self, key: str) -> int:
        return next(i for i, p in enumerate(self._rows) if f"{p.topic}-{p.id}" == key)

    def row(self, key: str) -> tuple[str, ...]:
        """The row's cells as plain text (for tests and for copying)."""
        return tuple(cell_text(c) for c in self._row_cells(self._index(key)))

    def row_cell(self, key: str, column: str) -> Cell:
        return self._row_cells(self._index(key))[self.COLUMNS.index(column)]

    def show(
        self, snapshot: ClusterSnapshot, topic: str | None, now: float, history: HistorySnapshot | None = None
    ) -> None:
        self._last = (snapshot, topic, now, history)
        self._now, self._history = now, history
        needle = self.filter_text
        words = needle.lower().split()  # as filter.matches has it: every word, case-insensitive, in the row's key
        rows: list[Partition] = []
        min_isrs: dict[str, int | None] = {}
        by_topic: dict[str, tuple[Topic, tuple[int, ...]]] = {}
        total = 0
        widths = [len(c) for c in self.COLUMNS]
        min_isr_known = False
        for t in snapshot.topics:
            if topic is not None and t.name != topic:
                continue
            total += len(t.partitions)
            min_isr = t.min_insync_replicas
            min_isr_known = min_isr_known or (min_isr is not None and bool(t.partitions))
            parts: tuple[Partition, ...] | list[Partition] = t.partitions
            if words:
                name = t.name.lower()
                rest = [w for w in words if w not in name]  # the words every partition of the topic has are done
                if rest and all(_may_end_in_id(w, name) for w in rest):
                    parts = [p for p in parts if all(w in f"{name}-{p.id}" for w in rest)]
                elif rest:
                    parts = [p for p in parts if needle.strip() == str(p.id)]
            if not parts:
                continue
            rows.extend(parts)
            min_isrs[t.name] = min_isr
            if parts is not t.partitions:  # narrowed by the filter
                found = self._topic_widths(t.name, parts, min_isr)
            else:
                # A topic that did not change is the same object poll after poll (AdminSource): its widths too.
                cached = self._by_topic.get(t.name)
                if cached is None or cached[0] is not t:
                    cached = (t, self._topic_widths(t.name, parts, min_isr))
                by_topic[t.name] = cached
                found = cached[1]
            for i, w in enumerate(found):
                if w > widths[i]:
                    widths[i] = w
        if history is not None and rows:
            widths[9], widths[10] = _trend_widths(history, rows, widths[9], widths[10])
        if self.order != "topic":
            self._sort(rows, min_isrs)
        self._rows, self._min_isr, self._cells, self._total = rows, min_isrs, {}, total
        self._by_topic.update(by_topic)
        for gone in set(self._by_topic).difference(t.name for t in snapshot.topics):
            del self._by_topic[gone]
        self._strips.clear()  # rows are drawn again as they are shown: a screenful, whatever changed
        if widths != self._widths or min_isr_known != self._min_isr_known:
            self._widths = widths
            self._min_isr_known = min_isr_known
            self._fit()
        self.cursor_row = min(self.cursor_row, max(0, len(rows) - 1))
        self._resize()
        self.refresh()

    @staticmethod
    def _topic_widths(name: str, parts: Sequence[Partition], min_isr: int | None) -> tuple[int, ...]:
        """The widths one topic's shown partitions need, from their values, without drawing them: a few passes of
        builtins over the values (a number's width grows with it), as this runs over every partition."""
        led = [p for p in parts if p.leader >= 0]
        preferred = [p.leader for p in led if p.replicas and p.replicas[0] == p.leader]
        moved = [p.leader for p in led if not (p.replicas and p.replicas[0] == p.leader)]
        leader = max(
            len("-1 offline") if len(led) < len(parts) else 0,
            len(str(max(preferred))) if preferred else 0,
            len(str(max(moved))) + 2 if moved else 0,  # " *": not the preferred leader
        )
        under_min_isr = min_isr is not None and any(len(p.isr) < min_isr for p in led)
        lows = [p.low_watermark for p in parts if p.low_watermark is not None]
        highs = [p.high_watermark for p in parts if p.high_watermark is not None]
        known = [
            p.high_watermark - p.low_watermark
            for p in parts
            if p.high_watermark is not None and p.low_watermark is not None
        ]
        found = (
            len(name),
            _digits(max(p.id for p in parts)),
            leader,
            max(map(_ids_width, [p.replicas for p in parts])),
            max(map(_ids_width, [p.isr for p in parts])),
            0 if min_isr is None else len(str(min_isr)) + (2 if under_min_isr else 0),
            _digits(max(lows)) if lows else 1,
            _digits(max(highs)) if highs else 1,
            _digits(max(0, max(known))) if known else 1,
        )
        return found

    def _row_cells(self, index: int) -> tuple[Cell, ...]:
        cells = self._cells.get(index)
        if cells is None:
            p = self._rows[index]
            min_isr = self._min_isr.get(p.topic)
            history = self._history
            when = history.changed_at.get(TopicPartition(p.topic, p.id)) if history is not None else None
            changed = when is not None and self._now - when <= HIGHLIGHT_S  # leader or ISR (insight/changes.py)
            windows = _windows(history, p)
            isr_trend, rate_trend = ("", "") if windows is None else _trend_text(windows)
            cells = self._cells[index] = partition_row(p, changed, isr_trend, rate_trend, min_isr)
        return cells

    def _resize(self) -> None:
        width, height = sum(self._widths[i] + 2 for i in self._columns), len(self._rows) + 1
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
        self._strips.clear()
        if tuple(columns) != self._columns:
            self._columns = tuple(columns)
            self._resize()

    def on_resize(self) -> None:
        self._fit()
        self.refresh()

    # --- the filter (`/`) --------------------------------------------------------------------------------------
    def apply_filter(self, text: str) -> tuple[int, int]:
        self.filter_text = text
        if self._last is not None:
            self.show(*self._last)
        return len(self._rows), self._total

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
        if index >= len(self._rows):
            return Strip.blank(width, self.rich_style)
        # The highlighted row is always shown (what d and v act on), brighter while the table has the keys.
        cursor = index == self.cursor_row
        cached = None if cursor else self._strips.get(index)
        if cached is not None:
            strip = cached
        else:
            look = "partition-table--cursor" if self.has_focus else "partition-table--cursor-blurred"
            base = self.get_component_rich_style(look) if cursor else self.rich_style
            strip = self._line(self._row_cells(index), base)
            if not cursor:
                self._strips[index] = strip
        return strip.crop(scroll_x, scroll_x + width).extend_cell_length(width)

    @property
    def selected_topic(self) -> str | None:
        return self._rows[self.cursor_row].topic if self._rows else None

    @property
    def selected_partition(self) -> TopicPartition | None:
        if not self._rows:
            return None
        p = self._rows[self.cursor_row]
        return TopicPartition(p.topic, p.id)

    @property
    def shown_partitions(self) -> tuple[TopicPartition, ...]:
        """The rows on show: the picked topic's (or every topic's), narrowed by the filter."""
        return tuple(TopicPartition(p.topic, p.id) for p in self._rows)


class Summary(Widget):
    """One line repainted in place (a Static's update would re-lay out the screen on every count change)."""

    text: reactive[Text] = reactive(Text, layout=False)

    def render(self) -> Text:
        return self.text


# Above this many partitions the table starts as one row per topic (T switches): 10,000 rows are no glance.
TOPIC_ROWS_ABOVE = 1_000


def topic_rows(snapshot: ClusterSnapshot, history: HistorySnapshot | None) -> dict[str, tuple[str | Text, ...]]:
    """One row per topic: its partitions, replication factor, faults, messages, rate and the lag of its groups."""
    lag: dict[str, int] = {}
    for g in snapshot.groups:
        for o in g.offsets:
            if o.lag is not None:
                lag[o.topic] = lag.get(o.topic, 0) + o.lag
    rows: dict[str, tuple[str | Text, ...]] = {}
    for t in snapshot.topics:
        parts = t.partitions
        urp = sum(1 for p in parts if len(p.isr) < len(p.replicas))
        offline = sum(1 for p in parts if p.leader < 0)
        under = len(t.under_min_isr) if t.min_insync_replicas is not None else 0
        messages = t.messages
        rates = history.topic_records_per_s(t.name)[-TREND_WIDTH:] if history is not None else ()
        rows[t.name] = (
            Text(t.name, style="bold red" if offline else "yellow" if urp else ""),
            str(len(parts)),
            str(t.replication_factor),
            Text(str(urp), style="yellow" if urp else "dim"),
            Text(str(under), style=UNDER_MIN_ISR if under else "dim"),
            Text(str(offline), style="bold red" if offline else "dim"),
            "-" if messages is None else str(messages),
            Text(f"{sparkline(rates, TREND_WIDTH)} {rate(rates[-1])}" if rates else "", style="cyan"),
            str(lag[t.name]) if t.name in lag else "-",
        )
    return rows


TOPIC_COLUMNS = (
    "topic", "partitions", "rf", "under-replicated", "under min isr", "offline", "messages", "msg/s", "group lag",
)  # fmt: skip
TOPIC_COLUMNS_DROPPED_FIRST = ("msg/s", "messages", "rf")  # a narrow terminal keeps the faults and the lag


class PartitionsPane(LivePane, Vertical):
    """A topic picker (or all topics), a one-line summary, and the table: every partition, or one row per topic
    (T switches; Enter on a topic shows its partitions)."""

    def __init__(self) -> None:
        super().__init__()
        self.by_topic: bool | None = None  # None: as the cluster's size says (TOPIC_ROWS_ABOVE)
        self._summary = Text()
        self._shown: tuple[ClusterSnapshot, float, HistorySnapshot | None] | None = None

    def draw(self, view: LiveView) -> None:
        if view.cluster is not None:
            self.show(view.cluster, view.cluster.taken_at, view.history)

    def redraw(self) -> None:
        """The last view fed, or else the last snapshot shown, again (a topic picked, T)."""
        if self._fed is None and self._shown is not None:
            self.show(*self._shown)
        else:
            super().redraw()

    @on(PartitionTable.Ordered)
    def _ordered(self) -> None:
        """The table ordered its rows itself: the summary says how."""
        self.query_one("#topic-summary", Summary).text = self._with_order(self._summary, self.showing_topics)

    def _with_order(self, summary: Text, by_topic: bool) -> Text:
        order = self.query_one(PartitionTable).order
        if by_topic or order == "topic":
            return summary
        return summary + Text(f"  {order} first (o)" if order != "leader" else "  by leader (o)", style="dim")

    @on(Select.Changed, "#topic-picker")
    def _topic_picked(self) -> None:
        self.redraw()

    @on(LineTable.Chosen, "#topic-table")
    def _topic_chosen(self, event: LineTable.Chosen) -> None:
        """Enter on a topic: its partitions."""
        self.query_one("#topic-picker", Select).value = event.key
        self.query_one(PartitionTable).focus()

    def compose(self) -> ComposeResult:
        with Horizontal(id="topic-bar"):
            yield Select(
                [("all topics", ALL_TOPICS)], value=ALL_TOPICS, allow_blank=False, id="topic-picker", compact=True
            )
            yield Summary(id="topic-summary")
        yield PartitionTable()
        yield LineTable(TOPIC_COLUMNS, id="topic-table", dropped_first=TOPIC_COLUMNS_DROPPED_FIRST)

    @property
    def topic(self) -> str | None:
        value = self.query_one("#topic-picker", Select).value
        return None if value == ALL_TOPICS or not isinstance(value, str) else value

    @property
    def showing_topics(self) -> bool:
        """Whether the table shows one row per topic (every topic picked, and T or the cluster's size says so)."""
        if self.topic is not None or self._shown is None:
            return False
        if self.by_topic is not None:
            return self.by_topic
        return sum(len(t.partitions) for t in self._shown[0].topics) > TOPIC_ROWS_ABOVE

    @property
    def selected_topic(self) -> str | None:
        if self.showing_topics:
            return self.query_one("#topic-table", LineTable).selected_key
        return self.query_one(PartitionTable).selected_topic

    def toggle_topic_rows(self) -> None:
        """T: one row per topic, or every partition; from a topic's partitions, back to the topics."""
        showing = self.showing_topics
        if self.topic is not None:
            self.by_topic = True
            self.query_one("#topic-picker", Select).value = ALL_TOPICS
        else:
            self.by_topic = not showing
        self.redraw()
        table = self.query_one("#topic-table", LineTable) if self.showing_topics else self.query_one(PartitionTable)
        table.focus()

    def show(self, snapshot: ClusterSnapshot, now: float, history: HistorySnapshot | None = None) -> None:
        self._shown = (snapshot, now, history)
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
        by_topic = self.showing_topics
        if by_topic:
            summary.append("  one row per topic: Enter shows its partitions, T every partition", style="dim")
        elif topic is not None or partitions > TOPIC_ROWS_ABOVE:
            summary.append("  T one row per topic", style="dim")
        self._summary = summary
        self.query_one("#topic-summary", Summary).text = self._with_order(summary, by_topic)
        table, topics = self.query_one(PartitionTable), self.query_one("#topic-table", LineTable)
        table.display, topics.display = not by_topic, by_topic
        if by_topic:
            topics.set_rows(topic_rows(snapshot, history))
        else:
            table.show(snapshot, topic, now, history)
