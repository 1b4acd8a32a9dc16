"""LineTable, the line-drawn table of topics and groups: keys, the filter keeping the highlighted row, Enter, and only
the rows on screen drawn at 10,000 rows."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult

from kafkatop.tui.live.widgets.line_table import LineTable


class TableApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.highlighted: list[str | None] = []
        self.chosen: list[str] = []

    def compose(self) -> ComposeResult:
        yield LineTable(("group", "state", "lag"), id="t")

    @on(LineTable.Highlighted)
    def _highlighted(self, event: LineTable.Highlighted) -> None:
        self.highlighted.append(event.key)

    @on(LineTable.Chosen)
    def _chosen(self, event: LineTable.Chosen) -> None:
        self.chosen.append(event.key)


def rows(n: int) -> dict[str, tuple[str | Text, ...]]:
    return {f"g-{i:05}": (f"g-{i:05}", Text("Stable", style="green"), str(i * 7)) for i in range(n)}


async def test_keys_filter_and_enter() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(LineTable)
        table.set_rows(rows(30))
        table.focus()
        await pilot.pause()
        assert table.selected_key == "g-00000" and table.row_count == 30
        await pilot.press("j", "j", "down")
        assert table.selected_key == "g-00003"
        await pilot.press("G")
        assert table.selected_key == "g-00029" and table.scroll_offset.y > 0  # scrolled to keep it in sight
        await pilot.press("k", "g")
        assert table.selected_key == "g-00000"
        await pilot.press("pagedown")
        assert table.selected_key == "g-00010"  # a page: the body's height (12 - the header - 1)
        await pilot.pause()
        assert app.highlighted[-1] == "g-00010"
        # The filter keeps the highlighted row highlighted while it is shown.
        assert table.apply_filter("g-0001") == (10, 30) and table.selected_key == "g-00010"
        assert table.apply_filter("nothing") == (0, 30) and table.selected_key is None
        assert table.apply_filter("") == (30, 30)
        table.move_to("g-00021")
        await pilot.press("enter")
        await pilot.pause()
        assert app.chosen == ["g-00021"]
        # Rows replaced: the same key stays highlighted; widths follow the widest cell.
        table.set_rows({k: (*v[:2], "1" * 12) for k, v in rows(30).items()})
        assert table.selected_key == "g-00021" and table.row("g-00021")[2] == "1" * 12


async def test_ten_thousand_rows_draw_a_screenful() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(LineTable)
        table.set_rows(rows(10_000))
        await pilot.pause()
        assert table.row_count == 10_000 and table.virtual_size.height == 10_001
        assert 0 < len(table._strips) <= 12  # drawn: the rows on screen, no more
        assert "g-00000" in table.render_line(1).text and "Stable" in table.render_line(1).text


async def test_o_orders_by_the_next_column() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(LineTable)
        table.set_rows({"b": ("b", "Empty", "7"), "a": ("a", "Stable", "-"), "c": ("c", "Stable", "12")})
        table.focus()
        await pilot.press("o")  # by group
        assert table._keys == ["a", "b", "c"] and table.header[0] == "group ▼"
        await pilot.press("o", "o")  # by lag: largest first, unknown last
        assert table._keys == ["c", "b", "a"]
        await pilot.press("o")  # as given
        assert table._keys == ["b", "a", "c"] and table.header == ("group", "state", "lag")


async def test_the_highlighted_row_stays_above_a_horizontal_scrollbar_and_a_long_name_is_cut() -> None:
    """A name wider than the table (any client may name a group with 10,000 characters) is cut to CELL_WIDTH, and
    the row the cursor moves to is never the one a horizontal scrollbar covers (issue 38, at 80x24)."""
    from kafkatop.tui.live.text import CELL_WIDTH

    app = TableApp()
    async with app.run_test(size=(40, 8)) as pilot:
        table = app.query_one(LineTable)
        table.set_rows({f"{'L' * 10_240}{i}": (f"{'L' * 10_240}{i}", "Empty", str(i)) for i in range(20)})
        table.focus()
        await pilot.pause()
        assert table.virtual_size.width == CELL_WIDTH + len("Empty") + len("lag") + 6  # cut, then padded
        for _ in range(12):
            await pilot.press("j")
            await pilot.pause()
            top = table.scroll_offset.y
            shown_rows = table.scrollable_content_region.height - 1  # the header aside
            assert top <= table.cursor_row < top + shown_rows, (table.cursor_row, top, shown_rows)
        assert table.scrollable_content_region.height < table.size.height  # the scrollbar is there
