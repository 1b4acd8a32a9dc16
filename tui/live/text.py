"""Text from outside — a topic, group, transactional id, connector, principal or subject; a record; an error text
from Kafka, Connect, a registry or a file — as the live view shows it: never read as markup, and its control
characters shown as escapes (\\x1b, \\u202e, dimmed, so that a name that holds them is told from one that holds the
backslashes), never sent to the terminal, which would act on them (set its title, its clipboard, rewrite a line).

One way, used everywhere: the live view takes its text widgets from here, never from Textual or Rich
(tests/unit/test_text_from_outside.py checks it). `Label` and `Static` are Textual's with markup off, escaping what
they are given, a str, a Rich Text or a Group of them; `DataTable`, `RichLog` and Rich's `Table` escape their cells
and lines, `Select` its options, `Input` what it draws of its value. The line-drawn tables (line_table.py, the
partition table) escape their cells with `printable` and cut them to CELL_WIDTH, and every notice is escaped by the
app (KafkatopApp.notify). `shown` is the same for any other place a Text is drawn (a border's title)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, Generic, Self, TypeVar, cast

from rich import table
from rich.console import Group, RenderableType
from rich.text import Span, Text
from textual import widgets
from textual.binding import Binding, BindingType
from textual.visual import VisualType

from kafkatop.backends.model.text import escaped, printable, unprintable

ESCAPE_STYLE = "dim reverse"  # an escape, told from the same characters typed


def shown(value: str | Text, style: str = "", *, lines: bool | None = None) -> Text:
    """`value` as a Rich Text that shows every control character as its escape, styled apart. A str is one line: a
    newline in it is a name's, shown as \\n (a group named "a\\nb" in a dialog's title). A Text is as composed (its
    styles kept): its newlines and tabs are its lines, every other control character is escaped. `lines` says
    otherwise (a record's value, several lines of its own)."""
    if lines is None:
        lines = isinstance(value, Text)
    # Escaped before Rich sees a str: a Text drops CR, BEL, BS, VT and FF, and shows ESC to the terminal.
    plain = value.plain if isinstance(value, Text) else value
    if not unprintable(plain, lines=lines):
        return value if isinstance(value, Text) else Text(value, style=style)
    out: list[str] = []
    at = [0]  # at[i]: where character i of `plain` begins in the escaped text
    escapes: list[Span] = []
    for char in plain:
        piece = char if lines and char in "\n\t" else escaped(char)
        if piece != char:
            escapes.append(Span(at[-1], at[-1] + len(piece), ESCAPE_STYLE))
        out.append(piece)
        at.append(at[-1] + len(piece))
    if not isinstance(value, Text):
        result = Text("".join(out), style=style)
        result.spans = escapes
        return result
    result = Text("".join(out), style=value.style, justify=value.justify, no_wrap=value.no_wrap, end=value.end)
    result.spans = [Span(at[s.start], at[min(s.end, len(plain))], s.style) for s in value.spans] + escapes
    return result


def shown_visual(value: VisualType) -> VisualType:
    """What a text widget is given, made safe: a str or a Text as `shown` makes it — its lines kept (a widget's text
    is often several: an error, a list of problems; a dialog's title, one line, says so itself) —, a Group of them
    part by part; anything else as it is: a Table here escapes its cells, Syntax is given text that went through
    `printable`."""
    if isinstance(value, (str, Text)):
        return shown(value, lines=True)
    if isinstance(value, Group):
        return Group(*(cast(RenderableType, shown_visual(part)) for part in value.renderables), fit=value.fit)
    return value


class Static(widgets.Static):
    """Textual's Static, that never reads markup and shows control characters escaped."""

    def __init__(self, content: VisualType = "", **kwargs: Any) -> None:
        kwargs["markup"] = False
        super().__init__(shown_visual(content), **kwargs)

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        super().update(shown_visual(content), layout=layout)


class Label(widgets.Label):
    """Textual's Label, that never reads markup and shows control characters escaped."""

    def __init__(self, content: VisualType = "", **kwargs: Any) -> None:
        kwargs["markup"] = False
        super().__init__(shown_visual(content), **kwargs)

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        super().update(shown_visual(content), layout=layout)


Cell = TypeVar("Cell")


class DataTable(widgets.DataTable[Cell], Generic[Cell]):
    """Textual's DataTable, whose str cells (which it would read as markup) and Text cells show control characters
    escaped, each on one line."""

    def add_row(self, *cells: Cell, height: int | None = 1, key: str | None = None, label: Any = None) -> Any:
        return super().add_row(*(_cell(c) for c in cells), height=height, key=key, label=label)

    def update_cell(self, row_key: Any, column_key: Any, value: Cell, *, update_width: bool = False) -> None:
        super().update_cell(row_key, column_key, _cell(value), update_width=update_width)


def _cell(value: Any) -> Any:
    """A DataTable's cell: one line (a row is), escaped."""
    return shown(value, lines=False) if isinstance(value, (str, Text)) else value


class RichLog(widgets.RichLog):
    """Textual's RichLog (markup off, as its default), whose lines show control characters escaped: a line written is
    one line (a record's newline shown as \\n), which the log wraps where it is too long."""

    def write(
        self,
        content: RenderableType | object,
        width: int | None = None,
        expand: bool = False,
        shrink: bool = True,
        scroll_end: bool | None = None,
        animate: bool = False,
    ) -> Self:
        safe = shown(content, lines=False) if isinstance(content, (str, Text)) else content
        return super().write(safe, width, expand, shrink, scroll_end, animate)


class Input(widgets.Input):
    """Textual's Input, whose value is drawn with its control characters escaped (a subject, a topic or a config
    value from outside, put in a field to be edited): the value itself, what is typed and used, is left as it is.
    In a tab, the footer says how out of it: Escape, the main screen's `leave_field` (a dialog's own Escape, where
    the screen has none, cancels it)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "screen.leave_field", "Leave field")]

    @property
    def _value(self) -> Text:  # Textual's: what the field draws
        if self.password or not unprintable(self.value):
            return super()._value
        drawn = shown(self.value, lines=False)
        drawn.no_wrap, drawn.overflow, drawn.end = True, "ignore", ""
        return drawn


SelectValue = TypeVar("SelectValue")


class Select(widgets.Select[SelectValue], Generic[SelectValue]):
    """Textual's Select, whose options' str prompts (which its list would read as markup: a topic's name) show
    control characters escaped."""

    def __init__(self, options: Iterable[tuple[RenderableType, SelectValue]], *args: Any, **kwargs: Any) -> None:
        super().__init__(_prompts(options), *args, **kwargs)

    def set_options(self, options: Iterable[tuple[RenderableType, SelectValue]]) -> None:
        super().set_options(_prompts(options))


def _prompts(options: Iterable[tuple[RenderableType, Any]]) -> list[tuple[RenderableType, Any]]:
    return [(shown(p, lines=False) if isinstance(p, (str, Text)) else p, v) for p, v in options]


class Table(table.Table):
    """Rich's Table, whose str cells (which it would read as markup) and Text cells show control characters
    escaped."""

    def add_row(self, *renderables: RenderableType | None, style: Any = None, end_section: bool = False) -> None:
        cells = (shown(r) if isinstance(r, (str, Text)) else r for r in renderables)  # a Text keeps its lines
        super().add_row(*cells, style=style, end_section=end_section)


# The widest a table's cell is drawn: a name of 10,000 characters (any client may choose one) would push every other
# column off the screen. The cell is cut with an ellipsis; the whole name is in the row's dialogs and in `/`.
CELL_WIDTH = 64


# The most of a name a dialog's line quotes (a 10 KB one would push the dialog's keys off the screen).
DIALOG_NAME = 200


def cut(text: str, width: int = CELL_WIDTH) -> str:
    """`text` cut to `width` characters with an ellipsis (a name too long for its place)."""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def name_cell(name: str) -> str:
    """A name as a table's cell shows it: escaped, on one line, cut to CELL_WIDTH."""
    return cut(printable(name))
