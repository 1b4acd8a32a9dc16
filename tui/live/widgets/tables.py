"""What every table of the live view shares: j/k/g/G as in less and vi (beside the arrows, Home and End), and a
`/` filter over its rows; and a console log the same filter narrows."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.binding import Binding

from kafkatop.tui.live.text import DataTable, RichLog
from kafkatop.tui.live.widgets.filter import matches

VI_KEYS: list[Binding | tuple[str, str] | tuple[str, str, str]] = [
    Binding("j", "cursor_down", "Down", show=False),
    Binding("k", "cursor_up", "Up", show=False),
    Binding("g", "scroll_top", "First row", show=False),
    Binding("G", "scroll_bottom", "Last row", show=False),
]

Cells = Sequence[str | Text]


class KeyedTable(DataTable[str | Text]):
    """A DataTable with vi keys and a filter: `set_rows` keeps every row, and shows those the filter keeps."""

    BINDINGS = VI_KEYS

    def __init__(self, *, filterable: bool = False, **kwargs: Any) -> None:
        """`filterable`: rows come through `set_rows`, so `/` can narrow them (rows added one by one cannot be)."""
        kwargs.setdefault("cursor_type", "row")
        super().__init__(**kwargs)
        self.filterable = filterable
        self.filter_text = ""
        self._all: dict[str, Cells] = {}

    def set_rows(self, rows: dict[str, Cells]) -> None:
        """Every row by its key; the highlighted row stays highlighted when it is still shown."""
        self._all = rows
        self._redraw()

    def apply_filter(self, text: str) -> tuple[int, int]:
        self.filter_text = text
        self._redraw()
        return self.row_count, len(self._all)

    def _redraw(self) -> None:
        selected = self.selected_key
        self.clear()
        for key, cells in self._all.items():
            if not self.filter_text or matches(self.filter_text, *(str(c) for c in cells)):
                self.add_row(*cells, key=key)
        if selected is not None and selected in self.rows:
            self.move_cursor(row=self.get_row_index(selected))

    @property
    def selected_key(self) -> str | None:
        return highlighted_key(self)


def highlighted_key(table: DataTable[Any]) -> str | None:
    """The key of the row under the cursor; None in an empty table."""
    if not table.row_count:
        return None
    try:
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
    except Exception:  # noqa: BLE001 - no valid cursor while the table is rebuilt
        return None
    return None if key.value is None else str(key.value)


class MessageLog(RichLog):
    """A console's log that `/` narrows to the lines holding what is typed (a key, a value, a topic-partition): it
    keeps its last `max_lines` lines, and writes again those the filter keeps."""

    def __init__(self, *, max_lines: int, **kwargs: Any) -> None:
        super().__init__(max_lines=max_lines, **kwargs)
        self.filter_text = ""
        self._kept: deque[Text] = deque(maxlen=max_lines)

    def add(self, line: Text) -> None:
        self._kept.append(line)
        if not self.filter_text or matches(self.filter_text, line.plain):
            self.write(line)

    def apply_filter(self, text: str) -> tuple[int, int]:
        self.filter_text = text
        self.clear()
        shown = [line for line in self._kept if not text or matches(text, line.plain)]
        for line in shown:
            self.write(line)
        return len(shown), len(self._kept)
