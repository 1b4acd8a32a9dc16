"""`/`: a table narrowed to the rows that hold what is typed (a topic, a partition, a group, a key, a value).

Each table keeps its own filter; one bar under the tabs edits the active tab's and says how many rows it leaves.
Enter keeps the filter and goes back to the table; Escape in the bar, or on a filtered table, clears it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.geometry import Size
from textual.reactive import Reactive
from textual.widget import Widget

from kafkatop.tui.live.text import Input, Label


@runtime_checkable
class Filterable(Protocol):
    """A table that can be narrowed: `apply_filter` keeps the rows matching `text` ('' keeps every row)."""

    filter_text: str

    def apply_filter(self, text: str) -> tuple[int, int]:
        """The rows shown and the rows there are, once filtered."""
        ...

    def focus(self, scroll_visible: bool = True) -> Widget: ...


def matches(needle: str, *haystack: str) -> bool:
    """Case-insensitive substring of any of the row's texts; every word typed must be found."""
    words = needle.lower().split()
    texts = [h.lower() for h in haystack]
    return all(any(w in t for t in texts) for w in words)


class FilterInput(Input):
    """The bar's field. Its value is handed on in the keystroke's own step, so that the table narrowed and the field
    typed in are repainted in one frame: a `Changed` message is handled a step later, after the field's repaint has
    already started a frame, and Textual's next frame is then 17 to 33 ms away. Its growing text does not lay out the
    screen: `Input` keeps its text's width as a virtual size that lays out when it changes, and this field is 1fr
    wide whatever is typed."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def __init__(self, typed: Callable[[str], None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._hand_on = typed

    def watch_value(self, value: str) -> None:
        self._hand_on(value)


class FilterBar(Horizontal):
    """Shown while a filter is typed, or while the active tab's table is filtered."""

    BINDINGS = [Binding("escape", "clear", "Clear filter", show=False)]

    def __init__(self) -> None:
        super().__init__(id="filter-bar")
        self.target: Filterable | None = None
        self._said = ""

    def compose(self) -> ComposeResult:
        yield Label("/", id="filter-prompt")
        yield FilterInput(
            self._typed, placeholder="topic, partition, group, key or value", id="filter-input", compact=True
        )
        yield Label("", id="filter-count")

    def on_mount(self) -> None:
        self.display = False

    def open(self, target: Filterable) -> None:
        self.target = target
        field = self.query_one("#filter-input", Input)
        field.value = target.filter_text
        self.display = True
        self._count(*target.apply_filter(target.filter_text))
        # Now, not after the frame (Widget.focus): keys typed right after `/` are the filter's, not the table's.
        self.screen.set_focus(field)

    def follow(self, target: Filterable | None) -> None:
        """The active tab changed: show its table's filter, or nothing."""
        self.target = target
        filtered = target is not None and bool(target.filter_text)
        if target is not None and filtered:
            self.query_one("#filter-input", Input).value = target.filter_text
            self._count(*target.apply_filter(target.filter_text))
        self.display = filtered

    def _typed(self, value: str) -> None:
        if self.target is not None and self.display and value != self.target.filter_text:
            self._count(*self.target.apply_filter(value))

    @on(Input.Submitted, "#filter-input")
    def _kept(self) -> None:
        if self.target is not None:
            self.display = bool(self.target.filter_text)
            self.target.focus()

    @on(Input.Blurred, "#filter-input")
    def _left(self) -> None:
        self.query_one("#filter-count", Label).update(self._said.replace("Enter keeps it", "/ edits it"))

    def action_clear(self) -> None:
        self.clear()

    def clear(self) -> None:
        if self.target is not None:
            self.target.apply_filter("")
            self.target.focus()
        self.query_one("#filter-input", Input).value = ""
        self.display = False

    def _count(self, shown: int, total: int) -> None:
        filtered = self.target is not None and self.target.filter_text
        self._said = f"{shown} of {total} rows · Enter keeps it · Escape clears" if filtered else ""
        label = self.query_one("#filter-count", Label)
        # As wide as the longest count of this total: a keystroke then repaints the count, never the layout (a
        # layout of the whole screen is most of a keystroke's time in a 10,000-row table).
        width = len(f"{total} of {total} rows · Enter keeps it · Escape clears") + 1
        if label.styles.width is None or label.styles.width.value != width:
            label.styles.width = width
        label.update(self._said, layout=False)
