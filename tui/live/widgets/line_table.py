"""A table drawn line by line (Textual's line API): only the rows on screen are drawn, so a table of 10,000 rows costs
a poll one pass over its rows for the columns' widths, and a frame one screenful. What the topics, the consumer groups
and a group's partitions are shown in; the partition table (partitions.py) is its own, with cells built lazily.

Keys as in less and vi beside the arrows: j/k, g/G, PageUp/PageDown; Enter posts `Chosen`; a move posts
`Highlighted`; `o` orders the rows by the next column (numbers largest first), then as given. `/` narrows it
(`apply_filter`), the highlighted row staying highlighted while it is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import Reactive, reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from kafkatop.backends.model.text import printable, unprintable
from kafkatop.tui.live.text import CELL_WIDTH, cut, shown
from kafkatop.tui.live.widgets.filter import matches

LineCells = Sequence[str | Text]


class RowCursor(ScrollView, can_focus=True):
    """What a line-drawn table's cursor does: the keys, the scrolling that keeps it in sight, a click. Below it, a
    header line; `_strips` caches drawn rows by index (the cursor's old and new rows are drawn again)."""

    # Rows filtered or polled change the virtual size: its scrollbars are updated in the same step (`rows_size`), and
    # the screen is laid out only when a scrollbar appears or goes (Textual's own reactive lays out every change, and
    # a scrollbar's repaint then comes a frame later, 17 to 33 ms).
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    BINDINGS = [
        Binding("up,k", "cursor(-1)", show=False),
        Binding("down,j", "cursor(1)", show=False),
        Binding("pageup", "page(-1)", show=False),
        Binding("pagedown", "page(1)", show=False),
        Binding("home,g", "cursor(-1_000_000)", show=False),
        Binding("end,G", "cursor(1_000_000)", show=False),
    ]

    cursor_row: reactive[int] = reactive(0)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._strips: dict[int, Strip] = {}
        self._base_styles: dict[str | None, Style] = {}

    @property
    def row_count(self) -> int:
        raise NotImplementedError

    @property
    def body_height(self) -> int:
        """The rows on screen: the height but the header's line and a horizontal scrollbar's (a wide row's), which
        would hide the highlighted row under it."""
        return self.scrollable_content_region.height - 1

    def rows_size(self, size: Size) -> None:
        """The rows' size (header included), its scrollbars updated now."""
        if size != self.virtual_size:
            self.virtual_size = size
            self._scroll_update(size)
            if self.styles.auto_dimensions:  # a table as tall as its rows (a group's partitions): its size changed
                self.refresh(layout=True)

    def base_style(self, component: str | None = None) -> Style:
        """The widget's style (or a component's), kept until its styles or focus change: Textual works it out from the
        ancestors each time it is asked, and a frame asks once per line."""
        style = self._base_styles.get(component)
        if style is None:
            style = self.rich_style if component is None else self.get_component_rich_style(component)
            self._base_styles[component] = style
        return style

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.restyled()

    def restyled(self) -> None:
        """The widget's style changed (its CSS, the theme, focus: a focused table is tinted): rows drawn again."""
        self._base_styles.clear()
        self._strips.clear()

    def row_strip(self, index: int) -> Strip:
        """Row `index` drawn as a line not under the cursor (kept in `_strips`)."""
        raise NotImplementedError

    def repaint_changed(self, before: dict[int, Strip], count: int) -> None:
        """Marks for the next frame only the lines that show something else than `before` (the rows drawn, of `count`
        rows, at the same scroll offset): new rows that change nothing on screen draw nothing, and Textual composes a
        frame of the lines marked, not of the whole table."""
        top, lines = self.scroll_offset.y, max(0, self.body_height)
        changed = [
            i for i in range(top, top + lines)
            if i == self.cursor_row or (i < count if i >= self.row_count else before.get(i) != self.row_strip(i))
        ]  # fmt: skip
        start = 0
        for at, i in enumerate(changed):  # runs of lines, one region each
            if at + 1 == len(changed) or changed[at + 1] != i + 1:
                self.refresh_lines(changed[start] + 1, i - changed[start] + 1)  # line 0 is the header
                start = at + 1

    def watch_cursor_row(self, old: int, new: int) -> None:
        self._strips.pop(old, None)
        self._strips.pop(new, None)
        body = max(1, self.body_height)
        top = self.scroll_offset.y
        if new < top:
            self.scroll_to(y=new, animate=False)
        elif new >= top + body:
            self.scroll_to(y=new - body + 1, animate=False)
        self.refresh()

    def action_cursor(self, delta: int) -> None:
        if self.row_count:
            self.cursor_row = max(0, min(self.row_count - 1, self.cursor_row + delta))

    def action_page(self, direction: int) -> None:
        self.action_cursor(direction * max(1, self.body_height - 1))

    def on_click(self, event: events.Click) -> None:
        index = self.scroll_offset.y + event.y - 1
        if 0 <= index < self.row_count:
            self.cursor_row = index

    def on_focus(self) -> None:
        self.restyled()
        self.refresh()

    def on_blur(self) -> None:
        self.restyled()
        self.refresh()


class RowMessage(Message):
    def __init__(self, table: LineTable, key: str | None) -> None:
        super().__init__()
        self.table = table
        self.key = key

    @property
    def control(self) -> LineTable:
        return self.table


def _plain(cells: LineCells) -> tuple[LineCells, tuple[str, ...], tuple[int, ...]]:
    """The row's cells with their texts as drawn — a name's control characters as escapes (tui/live/text.py), which
    the widths and `/` then see too — and those texts' lengths."""
    plain = tuple(printable(c.plain if isinstance(c, Text) else c) for c in cells)
    return cells, plain, tuple(map(len, plain))


class LineTable(RowCursor):
    """Rows by key, drawn only while on screen; see the module's docstring."""

    BINDINGS = [Binding("enter", "choose", show=False), Binding("o", "order", "Order rows", show=False)]
    # As DataTable looks, so that every table of the app looks one way.
    DEFAULT_CSS = """
    LineTable {
        height: 1fr;
        background: $surface;
        color: $foreground;
        &:focus {
            background-tint: $foreground 5%;
            & > .line-table--header { background-tint: $foreground 5%; }
        }
        & > .line-table--header { text-style: bold; background: $panel; color: $foreground; }
        & > .line-table--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
            text-style: $block-cursor-text-style;
        }
        & > .line-table--cursor-blurred {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
    }
    """
    COMPONENT_CLASSES = {"line-table--header", "line-table--cursor", "line-table--cursor-blurred"}

    class Highlighted(RowMessage):
        """The cursor is on another row (`key` None: the table is empty)."""

    class Chosen(RowMessage):
        """Enter on a row."""

    def __init__(
        self,
        columns: Sequence[str],
        *,
        filterable: bool = True,
        dropped_first: Sequence[str] = (),
        uncut: Sequence[str] = (),
        **kwargs: Any,
    ) -> None:
        """`dropped_first`: the columns left out, in this order, while the rows are wider than the table; `uncut`:
        those whose cells are not cut to CELL_WIDTH (a trace's first line, read by scrolling; names are cut)."""
        super().__init__(**kwargs)
        self.columns = tuple(columns)
        self._cut_at = tuple(10**9 if c in uncut else CELL_WIDTH for c in self.columns)
        self.dropped_first = tuple(dropped_first)
        self.sort_column: int | None = None  # `o`: the rows ordered by this column (numbers largest first)
        # A column ordered by its own key of the row's key rather than its text (a status: worst first)
        self.order_keys: dict[int, Callable[[str], Any]] = {}
        self._shown = tuple(range(len(self.columns)))  # the columns that fit
        self.filterable = filterable
        self.filter_text = ""
        self._all: Mapping[str, LineCells] = {}
        self._keys: list[str] = []  # shown, in order
        self._texts: dict[str, tuple[str, ...]] = {}  # plain texts of every row, for widths and the filter
        # Each row's cells as last set, with their plain texts and lengths: a row whose cells are the same tuple as
        # the last set's (a pane keeps the rows that did not change) is not gone over again (9,000 topic rows).
        self._seen: dict[str, tuple[LineCells, tuple[str, ...], tuple[int, ...]]] = {}
        self._drawn_for: tuple[str, int | None] | None = None  # the filter and sort column of the rows drawn
        self._widths = [len(c) for c in self.columns]

    @property
    def row_count(self) -> int:
        return len(self._keys)

    @property
    def total(self) -> int:
        return len(self._all)

    @property
    def selected_key(self) -> str | None:
        return self._keys[self.cursor_row] if self._keys else None

    def row(self, key: str) -> tuple[str, ...]:
        """The row's cells as plain text (for tests)."""
        return tuple(c.plain if isinstance(c, Text) else c for c in self._all[key])

    def set_rows(self, rows: Mapping[str, LineCells]) -> None:
        """Every row by its key, in order; the highlighted row stays highlighted while it is shown."""
        self._all = rows
        self._redraw()

    def apply_filter(self, text: str) -> tuple[int, int]:
        self.filter_text = text
        self._redraw()
        return len(self._keys), len(self._all)

    def move_to(self, key: str) -> None:
        if key in self._keys:
            self.cursor_row = self._keys.index(key)

    def _redraw(self) -> None:
        selected = self.selected_key
        needle = self.filter_text
        last = self._seen  # a row whose cells are the same tuple as the last set's keeps its texts and widths
        self._seen = seen = {k: kept if (kept := last.get(k)) is not None and kept[0] is cells else _plain(cells)
                             for k, cells in self._all.items()}  # fmt: skip
        if (needle, self.sort_column) == self._drawn_for and list(seen.values()) == list(last.values()):
            return  # the same rows, in the same order, filter and sort: the same table
        self._drawn_for = (needle, self.sort_column)
        texts = {k: known[1] for k, known in seen.items()}
        keys = [k for k, t in texts.items() if matches(needle, *t)] if needle else list(texts)
        column = self.sort_column
        if column is not None:
            keys.sort(key=self.order_keys.get(column) or (lambda k: _order_key(texts[k][column])))
        widths = [len(c) for c in self.header]
        for i, w in enumerate(map(max, zip(*(seen[k][2] for k in keys), strict=False))):  # a table's rows: one length
            if w > widths[i]:
                widths[i] = min(w, self._cut_at[i])  # a longer one is cut, its whole in `/` and the dialogs
        before, top, count, looks = self._strips, self.scroll_offset.y, len(self._keys), (self._widths, self._shown)
        self._strips = {}
        self._keys, self._texts, self._widths = keys, texts, widths
        self._fit()
        at = keys.index(selected) if selected is not None and selected in texts and selected in keys else None
        row = at if at is not None else min(self.cursor_row, max(0, len(keys) - 1))
        if row != self.cursor_row:
            self.cursor_row = row
        elif selected != self.selected_key:
            self.post_message(self.Highlighted(self, self.selected_key))
        if looks != (self._widths, self._shown) or self.scroll_offset.y != top:
            self.refresh()
        else:
            self.repaint_changed(before, count)

    def _fit(self) -> None:
        """The columns that fit the width, leaving out `dropped_first` in order (what is left still scrolls)."""
        room = self.size.width or 10_000
        shown = list(range(len(self.columns)))
        for name in self.dropped_first:
            if sum(self._widths[i] + 2 for i in shown) <= room:
                break
            shown.remove(self.columns.index(name))
        self._shown = tuple(shown)
        self._strips.clear()
        self.rows_size(Size(sum(self._widths[i] + 2 for i in shown), len(self._keys) + 1))

    def on_resize(self) -> None:
        self._fit()
        self.refresh()

    # --- drawing -----------------------------------------------------------------------------------------------
    def _line(self, cells: Sequence[str | Text], base: Style) -> Strip:
        """The shown cells padded to their widths on `base`; text in one style runs into one segment (Textual's
        compositor and colour filter go over each segment of each line of each frame)."""
        segments: list[Segment] = []
        run: list[str] = []
        current = base
        console = self.app.console
        for i in self._shown:
            cell, width = cells[i], self._widths[i]
            pieces: Sequence[tuple[str, Style]]
            if isinstance(cell, str):
                cell = cut(printable(cell), width)
                pieces, used = ((cell, base),), len(cell)
            elif not cell.spans and not unprintable(cell.plain) and len(cell.plain) <= width:  # one style: no need
                pieces, used = ((cell.plain, _on(base, cell.style)),), cell.cell_len  # for Rich to divide it
            else:
                cell = shown(cell, lines=False)  # a row is one line: a newline in a cell is an escape too
                if cell.cell_len > width:
                    cell.truncate(width, overflow="ellipsis")
                pieces = [(seg.text, _on(base, seg.style)) for seg in cell.render(console, end="")]
                used = cell.cell_len
            for text, style in ((" ", base), *pieces, (" " * (width - used + 1), base)):
                if style is not current:
                    if run:
                        segments.append(Segment("".join(run), current))
                    run, current = [], style
                run.append(text)
        if run:
            segments.append(Segment("".join(run), current))
        return Strip(segments)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        if y == 0:  # the header stays while the rows scroll under it
            header = self.base_style("line-table--header")
            return self._line(self.header, header).crop(scroll_x, scroll_x + width).extend_cell_length(width, header)
        index = scroll_y + y - 1
        if index >= len(self._keys):
            return Strip.blank(width, self.base_style())
        if index == self.cursor_row:
            base = self.base_style("line-table--cursor" if self.has_focus else "line-table--cursor-blurred")
            strip = self._line(self._all[self._keys[index]], base)
        else:
            base, strip = self.base_style(), self.row_strip(index)
        return strip.crop(scroll_x, scroll_x + width).extend_cell_length(width, base)

    def row_strip(self, index: int) -> Strip:
        strip = self._strips.get(index)
        if strip is None:
            strip = self._strips[index] = self._line(self._all[self._keys[index]], self.base_style())
        return strip

    # --- cursor ------------------------------------------------------------------------------------------------
    def watch_cursor_row(self, old: int, new: int) -> None:
        super().watch_cursor_row(old, new)
        self.post_message(self.Highlighted(self, self.selected_key))

    @property
    def header(self) -> tuple[str, ...]:
        """The column names, the ordering one marked."""
        return tuple(f"{c} ▼" if i == self.sort_column else c for i, c in enumerate(self.columns))

    def action_order(self) -> None:
        """o: ordered by the next column, then as given again."""
        nxt = 0 if self.sort_column is None else self.sort_column + 1
        self.sort_column = nxt if nxt < len(self.columns) else None
        self._redraw()

    def action_choose(self) -> None:
        if self.selected_key is not None:
            self.post_message(self.Chosen(self, self.selected_key))


def _order_key(text: str) -> tuple[int, float, str]:
    """Numbers first and largest first ("-", unknown, last), then text in order."""
    try:
        return (0, -float(text), "")
    except ValueError:
        return (1 if text.strip() not in ("-", "") else 2, 0.0, text.lower())


@lru_cache(maxsize=1024)
def _on_style(base: Style, style: Style) -> Style:
    return base + style


def _on(base: Style, style: str | Style | None) -> Style:
    """`style` (a Rich style or its text) on `base`."""
    if not style:
        return base
    return _on_style(base, Style.parse(style) if isinstance(style, str) else style)
