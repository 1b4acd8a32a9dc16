"""Enter on a record in Messages: the whole record on a screen of its own, scrolled with the arrows and Page keys —
on a small terminal the detail pane beside the page shows only its first lines. A structured value is folded beyond
a depth and its first items, as in the pane; `u` unfolds it all (and folds it again); `h` closes it for the record's
schema in the Schemas tab, as in the pane (tabs/messages/record_schema.py). A Java stack trace (Enter on a failed
task in Connect) is shown unwrapped: each frame one line, folded where the screen ends (word-wrapped, each `at` would
stand alone on a line of its own)."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll

from kafkatop.tui.live.screens.dialog import Dialog
from kafkatop.tui.live.text import Static, shown


class RecordScreen(Dialog[None]):
    BINDINGS = [
        Binding("escape,q,enter", "cancel", "Close"),
        Binding("u", "unfold", "Unfold"),
        Binding("h", "schema", "Schema"),
    ]
    AUTO_FOCUS = "#record-box"

    def __init__(
        self,
        detail: RenderableType | Callable[[bool], RenderableType],
        title: str,
        schema: Callable[[], None] | None = None,
        *,
        word_wrap: bool = True,
    ) -> None:
        """`detail`: what is shown, or `detail(unfolded)`: the record, its values folded or not; `schema`: what `h`
        does once the screen is closed (the browser's: the record's schema); `word_wrap`: False for a trace."""
        super().__init__(None)
        self.detail: Callable[[bool], RenderableType] = detail if callable(detail) else lambda _: detail
        self.schema = schema
        self.box_title = title
        self.unfolded = False
        self.word_wrap = word_wrap

    def compose(self) -> ComposeResult:
        box = VerticalScroll(id="record-box")
        box.border_title = shown(self.box_title, lines=False)  # it names the record's topic or connector
        with box:
            yield Static(self.detail(False), id="record-detail", classes="" if self.word_wrap else "-unwrapped")

    def action_unfold(self) -> None:
        self.unfolded = not self.unfolded
        self.query_one("#record-detail", Static).update(self.detail(self.unfolded))

    def action_schema(self) -> None:
        if self.schema is not None:
            self.dismiss(None)
            self.schema()
