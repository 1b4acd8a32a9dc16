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
from textual.strip import Strip

from kafkatop.backends.insight.history import HistorySnapshot
from kafkatop.backends.model.cluster import ClusterSnapshot, Partition, Topic
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.tui.live.tabs.partitions.cells import (
    COLUMNS,
    ISR_TREND,
    RATE_TREND,
    SIZE,
    SIZE_WIDTH,
    Cell,
    TrendWidths,
    cell_text,
    draw_line,
    topic_widths,
)
from kafkatop.tui.live.tabs.partitions.rows import (
    ORDERS,
    Shown,
    Sizes,
    in_order,
    leader_size,
    matching,
    row_cells,
)
from kafkatop.tui.live.widgets.line_table import RowCursor


class PartitionTable(RowCursor):
    """Drawn line by line (Textual's line API): a poll costs one pass over the partitions shown for the columns'
    widths, and cells only for the rows on screen. At 10,000 partitions a refresh where every row changed (a broker
    died) stays a frame's work (bench/scale.py)."""

    COLUMNS = COLUMNS
    # What goes first when the terminal is narrow: the watermarks (messages says their difference), then the trends;
    # topic, partition, leader, replicas, ISR and min ISR always stay (min ISR is left out where no topic's is known:
    # the demo's mock has no DescribeConfigs, ZooKeeper's znodes do not hold it); elr only where the cluster has ELR
    # (eligible.leader.replicas.version ≥ 1: Kafka 4.1's default, never the mock's or a Kafka before 4.0).
    # The size is only where the brokers' log directories are read (not the demo's mock).
    DROPPED_FIRST = ("low", "high", "isr history", "size", "msg/s", "messages")
    # `o` is the pane's (PartitionsPane): the rows ordered and the summary saying how repainted in one frame.
    BINDINGS = [Binding("enter", "screen.key('browse')", "Browse messages", show=False)]  # the Messages tab's `b`
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
        # Rows drawn, by partition, while the look of a row is the same (widths, columns, style, the poll's history
        # and time): a keystroke of the filter or `o` moves rows already drawn, it does not draw them again.
        self._drawn: dict[int, tuple[Partition, int | None, int | None, Strip]] = {}
        self._widths: list[int] = [len(c) for c in self.COLUMNS]
        self.filter_text = ""
        self._total = 0
        self._last: tuple[ClusterSnapshot, str | None, float, HistorySnapshot | None, Sizes | None] | None = None
        self._sizes: Sizes | None = None  # the replicas' bytes, from the last read of the log directories
        self._now = 0.0
        self._history: HistorySnapshot | None = None
        self._columns: tuple[int, ...] = tuple(range(len(self.COLUMNS)))  # those that fit the width
        self._min_isr_known = False  # whether any shown topic's min.insync.replicas was read
        self._elr_known = False  # whether the cluster keeps eligible leader replicas (KIP-966)
        self._sizes_known = False  # whether the replicas' sizes are read (the size column)
        self.order = "topic"
        self._narrowed: tuple[ClusterSnapshot, str, frozenset[str]] | None = None  # the filter's last: topics kept
        self._orders: tuple[ClusterSnapshot | None, str | None, Sizes | None, dict[str, list[Partition]]] = (
            None, None, None, {}
        )  # fmt: skip

    @property
    def row_count(self) -> int:
        return len(self._rows)

    def next_order(self) -> str:
        """The rows in the next of ORDERS (by size only where the sizes are read), from the first row."""
        orders = [o for o in self.ORDERS if o != "size" or self._sizes is not None]
        self.order = orders[(orders.index(self.order) + 1) % len(orders)] if self.order in orders else orders[0]
        self.cursor_row = 0
        if self._last is not None:
            self.show(*self._last)
        return self.order

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
        self,
        snapshot: ClusterSnapshot,
        topic: str | None,
        now: float,
        history: HistorySnapshot | None = None,
        sizes: Sizes | None = None,
    ) -> None:
        """`sizes`: the replicas' bytes (None: not read; no size column)."""
        self._last = (snapshot, topic, now, history, sizes)
        if history is not self._history or now != self._now:
            self._drawn.clear()  # the trends and the highlight of a changed row are the poll's
        self._now, self._history, self._sizes = now, history, sizes
        shown: list[tuple[Topic, Sequence[Partition]]] = []
        by_topic: dict[str, tuple[Topic, tuple[int, ...]]] = {}
        total = 0
        widths = [len(c) for c in self.COLUMNS]
        min_isr_known = False
        words = self.filter_text.lower().split()
        # Typing on narrows what the last keystroke kept (a row matching "t-042" matches "t-04"): of the same
        # snapshot, only the topics that still had rows are looked at again.
        narrowed = self._narrowed
        kept = narrowed[2] if narrowed is not None and narrowed[0] is snapshot and self.filter_text.startswith(
            narrowed[1]) else None  # fmt: skip
        names: set[str] = set()
        found: list[tuple[int, ...]] = []  # each topic's widths; the columns' widths their maxima, taken at once
        for t in snapshot.topics:
            if topic is not None and t.name != topic:
                continue
            total += len(t.partitions)
            if not min_isr_known and t.min_insync_replicas is not None and t.partitions:
                min_isr_known = True
            if kept is not None and t.name not in kept:
                continue  # none of its rows matched the filter's shorter text
            parts = matching(t, words) if words else t.partitions
            if not parts:
                continue
            shown.append((t, parts))
            if parts is not t.partitions:  # narrowed by the filter
                names.add(t.name)
                found.append(topic_widths(t, parts))
                continue
            if words:
                names.add(t.name)
            # A topic that did not change is the same object poll after poll (AdminSource): its widths too.
            cached = self._by_topic.get(t.name)
            if cached is None or cached[0] is not t:
                cached = (t, topic_widths(t, parts))
            by_topic[t.name] = cached
            found.append(cached[1])
        for i, w in enumerate(map(max, zip(*found, strict=True))):  # the leading columns topic_widths sizes
            if w > widths[i]:
                widths[i] = w
        if sizes is not None:
            widths[SIZE] = SIZE_WIDTH
        rows = self._in_order(snapshot, topic, shown, bool(words))
        if history is not None and rows:
            widths[ISR_TREND], widths[RATE_TREND] = self._trend_widths(
                history, rows, widths[ISR_TREND], widths[RATE_TREND]
            )
        count = len(self._rows)
        self._rows, self._cells, self._total = rows, {}, total
        self._narrowed = (snapshot, self.filter_text, frozenset(names)) if words else None
        self._min_isr = {t.name: t.min_insync_replicas for t, _ in shown}
        self._by_topic.update(by_topic)
        for gone in set(self._by_topic).difference(t.name for t in snapshot.topics):
            del self._by_topic[gone]
        before, self._strips = self._strips, {}  # the rows on screen, compared below with what they show now
        top = self.scroll_offset.y
        elr_known = snapshot.features is not None and snapshot.features.elr_enabled
        known = (min_isr_known, elr_known, sizes is not None)
        looks = widths != self._widths or known != (self._min_isr_known, self._elr_known, self._sizes_known)
        if looks:
            self._widths = widths
            self._min_isr_known, self._elr_known, self._sizes_known = known
            self._fit()
        self.cursor_row = min(self.cursor_row, max(0, len(rows) - 1))
        self._resize()
        if looks or self.scroll_offset.y != top:
            self.refresh()
        else:
            self.repaint_changed(before, count)

    def _in_order(self, snapshot: ClusterSnapshot, topic: str | None, shown: Shown, filtered: bool) -> list[Partition]:
        """The rows in the table's order: every row's, worked out once per poll and order and kept (the keystrokes of
        the filter and `o` back to an order seen reuse it); a filter's few rows ordered as they come."""
        sizes = self._sizes
        if self._orders[0] is not snapshot or self._orders[1] != topic or self._orders[2] is not sizes:
            self._orders = (snapshot, topic, sizes, {})
        every = self._orders[3].get(self.order)
        if not filtered:
            if every is None:
                every = self._orders[3][self.order] = in_order(shown, self.order, sizes)
            return list(every)
        if every is None or sum(len(parts) for _, parts in shown) < 1_000:
            return in_order(shown, self.order, sizes)
        kept = {id(p) for _, parts in shown for p in parts}
        return [p for p in every if id(p) in kept]

    def _row_cells(self, index: int) -> tuple[Cell, ...]:
        cells = self._cells.get(index)
        if cells is None:
            p = self._rows[index]
            size = leader_size(p, self._sizes)
            cells = self._cells[index] = row_cells(p, self._min_isr.get(p.topic), self._history, self._now, size)
        return cells

    def row_strip(self, index: int) -> Strip:
        """A row other than the cursor's, drawn: kept by index until the next poll, and by partition while its look
        is the same (a keystroke of the filter or `o` moves rows already drawn)."""
        strip = self._strips.get(index)
        if strip is None:
            p = self._rows[index]
            min_isr, size = self._min_isr.get(p.topic), leader_size(p, self._sizes)
            drawn = self._drawn.get(id(p))
            if drawn is not None and drawn[0] is p and drawn[1] == min_isr and drawn[2] == size:
                strip = drawn[3]
            else:
                strip = draw_line(self._row_cells(index), self._columns, self._widths, self.base_style())
                if len(self._drawn) > 4 * 1024:  # scrolled through many rows in one poll
                    self._drawn.clear()
                self._drawn[id(p)] = (p, min_isr, size, strip)
            self._strips[index] = strip
        return strip

    def _resize(self) -> None:
        width, height = sum(self._widths[i] + 2 for i in self._columns), len(self._rows) + 1
        room, current = self.size.width, self.virtual_size
        if room and current.height == height and width <= room and current.width <= room:
            return  # narrower or wider, it still fits: no scrollbar changes, and a new size would cost a relayout
        self.rows_size(Size(width, height))

    def _fit(self) -> None:
        """The columns that fit the width, dropping DROPPED_FIRST in order (a wide table still scrolls)."""
        room = self.size.width or 10_000
        columns = list(range(len(self.COLUMNS)))
        if not self._min_isr_known:
            columns.remove(self.COLUMNS.index("min isr"))
        if not self._elr_known:
            columns.remove(self.COLUMNS.index("elr"))
        if not self._sizes_known:
            columns.remove(SIZE)
        for name in self.DROPPED_FIRST:
            if sum(self._widths[i] + 2 for i in columns) <= room:
                break
            if (i := self.COLUMNS.index(name)) in columns:  # the size: only where the sizes are read
                columns.remove(i)
        self._strips.clear()
        self._drawn.clear()
        if tuple(columns) != self._columns:
            self._columns = tuple(columns)
            self._resize()

    def on_resize(self) -> None:
        self._fit()
        self.refresh()

    def restyled(self) -> None:
        super().restyled()
        self._drawn.clear()

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
            strip = draw_line(header, self._columns, self._widths, self.base_style("partition-table--header"))
            return strip.crop(scroll_x, scroll_x + width).extend_cell_length(width)
        index = scroll_y + y - 1
        if index >= len(self._rows):
            return Strip.blank(width, self.base_style())
        # The highlighted row is always shown (what d and v act on), brighter while the table has the keys.
        if index == self.cursor_row:
            look = "partition-table--cursor" if self.has_focus else "partition-table--cursor-blurred"
            strip = draw_line(self._row_cells(index), self._columns, self._widths, self.base_style(look))
        else:
            strip = self.row_strip(index)
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
