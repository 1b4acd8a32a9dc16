"""The partition table: what `kafka-topics.sh --describe` prints, live, with watermarks and faults coloured; a row
whose leader or ISR just changed is highlighted for a moment, so a failover is seen, not hunted for. Beside the ISR,
the topic's min.insync.replicas: a partition whose ISR is below it refuses acks=all writes (NOT_ENOUGH_REPLICAS), which
under-replicated alone does not say; on a cluster with eligible leader replicas (KIP-966), the ELR, and on such a row
which replicas may still be elected cleanly. Which rows, in which order: partition_rows.py; their cells:
partition_cells.py."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip

from kafkatop.backends.insight.history import HistorySnapshot
from kafkatop.backends.model.cluster import ClusterSnapshot, Partition, Topic, TopicPartition
from kafkatop.tui.live.widgets.line_table import RowCursor
from kafkatop.tui.live.widgets.partition_cells import (
    COLUMNS,
    ISR_TREND,
    RATE_TREND,
    Cell,
    TrendWidths,
    cell_text,
    draw_line,
    topic_widths,
)
from kafkatop.tui.live.widgets.partition_rows import ORDERS, in_order, matching, row_cells


class PartitionTable(RowCursor):
    """Drawn line by line (Textual's line API): a poll costs one pass over the partitions shown for the columns'
    widths, and cells only for the rows on screen. At 10,000 partitions a refresh where every row changed (a broker
    died) stays a frame's work (bench/scale.py)."""

    COLUMNS = COLUMNS
    # What goes first when the terminal is narrow: the watermarks (messages says their difference), then the trends;
    # topic, partition, leader, replicas, ISR and min ISR always stay (min ISR is left out where no topic's is known:
    # the demo's mock has no DescribeConfigs, ZooKeeper's znodes do not hold it); elr only where the cluster has ELR
    # (eligible.leader.replicas.version ≥ 1: Kafka 4.1's default, never the mock's or a Kafka before 4.0).
    DROPPED_FIRST = ("low", "high", "isr history", "msg/s", "messages")
    BINDINGS = [
        Binding("enter", "screen.browse", "Browse messages", show=False),
        Binding("o", "order", "Order rows", show=False),
    ]
    ORDERS = ORDERS
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
        self._trend_widths = TrendWidths()
        self._cells: dict[int, tuple[Cell, ...]] = {}  # by row index, built when drawn, until the next poll
        self._widths: list[int] = [len(c) for c in self.COLUMNS]
        self.filter_text = ""
        self._total = 0
        self._last: tuple[ClusterSnapshot, str | None, float, HistorySnapshot | None] | None = None
        self._now = 0.0
        self._history: HistorySnapshot | None = None
        self._columns: tuple[int, ...] = tuple(range(len(self.COLUMNS)))  # those that fit the width
        self._min_isr_known = False  # whether any shown topic's min.insync.replicas was read
        self._elr_known = False  # whether the cluster keeps eligible leader replicas (KIP-966)
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
        shown: list[tuple[Topic, Sequence[Partition]]] = []
        by_topic: dict[str, tuple[Topic, tuple[int, ...]]] = {}
        total = 0
        widths = [len(c) for c in self.COLUMNS]
        min_isr_known = False
        words = self.filter_text.lower().split()
        for t in snapshot.topics:
            if topic is not None and t.name != topic:
                continue
            total += len(t.partitions)
            min_isr_known = min_isr_known or (t.min_insync_replicas is not None and bool(t.partitions))
            parts = matching(t, words) if words else t.partitions
            if not parts:
                continue
            shown.append((t, parts))
            if parts is not t.partitions:  # narrowed by the filter
                found = topic_widths(t, parts)
            else:
                # A topic that did not change is the same object poll after poll (AdminSource): its widths too.
                cached = self._by_topic.get(t.name)
                if cached is None or cached[0] is not t:
                    cached = (t, topic_widths(t, parts))
                by_topic[t.name] = cached
                found = cached[1]
            for i, w in enumerate(found):
                if w > widths[i]:
                    widths[i] = w
        rows = in_order(shown, self.order)
        if history is not None and rows:
            widths[ISR_TREND], widths[RATE_TREND] = self._trend_widths(
                history, rows, widths[ISR_TREND], widths[RATE_TREND]
            )
        self._rows, self._cells, self._total = rows, {}, total
        self._min_isr = {t.name: t.min_insync_replicas for t, _ in shown}
        self._by_topic.update(by_topic)
        for gone in set(self._by_topic).difference(t.name for t in snapshot.topics):
            del self._by_topic[gone]
        self._strips.clear()  # rows are drawn again as they are shown: a screenful, whatever changed
        elr_known = snapshot.features is not None and snapshot.features.elr_enabled
        if widths != self._widths or (min_isr_known, elr_known) != (self._min_isr_known, self._elr_known):
            self._widths = widths
            self._min_isr_known, self._elr_known = min_isr_known, elr_known
            self._fit()
        self.cursor_row = min(self.cursor_row, max(0, len(rows) - 1))
        self._resize()
        self.refresh()

    def _row_cells(self, index: int) -> tuple[Cell, ...]:
        cells = self._cells.get(index)
        if cells is None:
            p = self._rows[index]
            cells = self._cells[index] = row_cells(p, self._min_isr.get(p.topic), self._history, self._now)
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
        if not self._elr_known:
            columns.remove(self.COLUMNS.index("elr"))
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
    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        if y == 0:  # the header stays put while the rows scroll under it
            header = tuple(((name, ""),) for name in self.COLUMNS)
            style = self.get_component_rich_style("partition-table--header")
            strip = draw_line(header, self._columns, self._widths, style)
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
            strip = draw_line(self._row_cells(index), self._columns, self._widths, base)
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
