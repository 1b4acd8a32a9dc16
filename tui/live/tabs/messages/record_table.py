"""The browser's table: a page of records, or a search's matches, one row each with the decoded key and value; `/`
narrows it by the decoded values, or by a path (`.customer.id == 42`: record_view.record_filter). A path that does
not parse is said in the table, in place of the rows, until it does."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from kafkatop.tui.live.tabs.messages.record_view import ShownRecord, record_filter, record_id, record_row
from kafkatop.tui.live.widgets.tables import KeyedTable

PROBLEM = "-filter-problem"  # the row that says why a path does not parse


class RecordTable(KeyedTable):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(filterable=True, **kwargs)
        self.shown: dict[str, ShownRecord] = {}
        self.problem: str | None = None  # why the filter typed keeps nothing: a path that does not parse

    def set_records(self, shown: tuple[ShownRecord, ...]) -> None:
        self.shown = {record_id(s.record): s for s in shown}
        self.set_rows({key: record_row(s) for key, s in self.shown.items()})

    def apply_filter(self, text: str) -> tuple[int, int]:
        shown, total = super().apply_filter(text)
        return (0 if self.problem else shown), total

    def _redraw(self) -> None:
        selected = self.selected_key
        self.clear()
        self.problem = None
        try:
            keeps = record_filter(self.filter_text) if self.filter_text else None
        except ValueError as e:
            self.problem = str(e)
            self.add_row("", "", "", "", Text(self.problem, style="bold red"), key=PROBLEM)
            return
        for key, cells in self._all.items():
            if keeps is None or keeps(self.shown[key], tuple(cells)):
                self.add_row(*cells, key=key)
        if selected is not None and selected in self.rows:
            self.move_cursor(row=self.get_row_index(selected))
