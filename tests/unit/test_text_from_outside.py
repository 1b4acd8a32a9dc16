"""Text from outside is text: `printable` (backends/model/text.py) escapes what a terminal would act on; the live view
shows every str and Text through tui/live/text.py, never as markup; and the live view's modules take their text
widgets from there, never from Textual or Rich directly — one way, kept by this test, not by memory."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from rich.console import Group
from rich.text import Text
from textual.app import App, ComposeResult

from kafkatop.backends.model.text import printable, unprintable
from kafkatop.tui.live.text import (
    CELL_WIDTH,
    ESCAPE_STYLE,
    Input,
    Label,
    Select,
    Static,
    Table,
    name_cell,
    shown,
    shown_visual,
)
from tests.fixtures.hostile import NAMES, RAW_CONTROLS

LIVE = Path(__file__).resolve().parents[2] / "tui" / "live"
# Textual's widgets that read markup, or draw a str or a Text without escaping it: tui/live/text.py has safe ones.
UNSAFE_WIDGETS = {"Label", "Static", "DataTable", "RichLog", "Log", "Pretty", "Digits", "Input", "Select"}
BORDER_TITLES = {"border_title", "border_subtitle"}  # Textual reads a str given to these as markup


@pytest.mark.parametrize("kind", list(NAMES))
def test_printable_leaves_nothing_a_terminal_acts_on(kind: str) -> None:
    name = NAMES[kind]
    out = printable(name)
    assert not [c for c in RAW_CONTROLS if c in out]
    assert out.isprintable() or all(c.isprintable() or c == " " for c in out)
    assert unprintable(name) == (out != name)


def test_printable_writes_each_control_as_python_does_and_keeps_the_rest() -> None:
    assert printable("a\x1b]0;t\x07\u202ez\x9b\t\n\r\x7f") == "a\\x1b]0;t\\x07\\u202ez\\x9b\\t\\n\\r\\x7f"
    assert printable("a\tb\nc\rd", lines=True) == "a\tb\nc\\rd"
    assert printable("[bold]x[/] café 日本 👍") == "[bold]x[/] café 日本 👍"  # markup is no control
    assert printable("a\u00a0b") == "a\u00a0b"  # a no-break space is shown as it is


def test_shown_escapes_a_str_on_one_line_and_styles_the_escapes_apart() -> None:
    text = shown("a\nb\x1b[2J")
    assert text.plain == "a\\nb\\x1b[2J"
    assert [(s.start, s.end, s.style) for s in text.spans] == [(1, 3, ESCAPE_STYLE), (4, 8, ESCAPE_STYLE)]


def test_a_tables_cell_is_one_line_cut_to_its_width() -> None:
    assert name_cell(NAMES["long"]) == "L" * (CELL_WIDTH - 1) + "…"
    assert name_cell("a\nb") == "a\\nb"


def test_shown_keeps_a_composed_texts_lines_and_styles() -> None:
    composed = Text.assemble(("x\x1b", "bold"), " y\nz")
    text = shown(composed)
    assert text.plain == "x\\x1b y\nz"
    assert (0, 5, "bold") in [(s.start, s.end, s.style) for s in text.spans]


async def test_the_text_widgets_never_read_markup() -> None:
    assert shown_visual("[/]") == Text("[/]")
    grouped = shown_visual(Group(Text("ok"), Text("\x1b]52;c;x\x07")))  # Rich's Text drops the BEL, not the ESC
    assert isinstance(grouped, Group)
    assert [r.plain for r in grouped.renderables if isinstance(r, Text)] == ["ok", "\\x1b]52;c;x"]
    table = Table()
    table.add_column("c")
    table.add_row("[bold red]x[/]")
    cell = table.columns[0]._cells[0]  # noqa: SLF001 - the cell as Rich will draw it
    assert isinstance(cell, Text) and cell.plain == "[bold red]x[/]"

    class Shown(App[None]):
        def compose(self) -> ComposeResult:
            yield Label("[/]")
            yield Static("[@click=app.quit]q[/]\x1b]0;t\x07")
            yield Input("s\x1b]0;t\x07")
            yield Select([("[/]", 1), ("\x1b]0;t\x07", 2)], allow_blank=False)

    async with Shown().run_test() as pilot:
        assert [str(w.render()) for w in pilot.app.query("Label, Static").exclude("Select *")] == [
            "[/]",
            "[@click=app.quit]q[/]\\x1b]0;t\\x07",
        ]
        field = pilot.app.query_one(Input)
        assert field.value == "s\x1b]0;t\x07" and field._value.plain == "s\\x1b]0;t\\x07"  # noqa: SLF001 - as drawn
        assert [str(p) for p, _ in pilot.app.query_one(Select)._options] == ["[/]", "\\x1b]0;t\\x07"]  # noqa: SLF001


def _imports(path: Path) -> list[tuple[str, str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found += [(node.module, alias.name, node.lineno) for alias in node.names]
    return found


def test_the_live_view_takes_its_text_widgets_from_one_place() -> None:
    wrong = []
    for path in sorted(LIVE.rglob("*.py")):
        if path == LIVE / "text.py":
            continue
        for module, name, line in _imports(path):
            if (module == "textual.widgets" and name in UNSAFE_WIDGETS) or (module, name) == ("rich.table", "Table"):
                wrong.append(f"{path.relative_to(LIVE)}:{line}: {module}.{name} (take it from tui/live/text.py)")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Attribute) and t.attr in BORDER_TITLES for t in node.targets
            ):
                safe = isinstance(node.value, ast.Constant) or (
                    isinstance(node.value, ast.Call) and getattr(node.value.func, "id", "") == "shown"
                )
                if not safe:
                    wrong.append(f"{path.relative_to(LIVE)}:{node.lineno}: a border's title not through shown()")
        source = path.read_text(encoding="utf-8")
        for needle in ("from_markup", "markup=True", "from_ansi"):
            if needle in source:
                wrong.append(f"{path.relative_to(LIVE)}: {needle}: text from outside would be read as markup")
    assert wrong == []
