"""Enter on a record in Messages: the whole record on a screen of its own, scrolled with the arrows and Page keys —
on a small terminal the detail pane beside the page shows only its first lines."""

from __future__ import annotations

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


class RecordScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,enter", "close", "Close")]

    def __init__(self, detail: RenderableType, title: str) -> None:
        super().__init__()
        self.detail = detail
        self.box_title = title

    def compose(self) -> ComposeResult:
        box = VerticalScroll(id="record-box")
        box.border_title = self.box_title
        with box:
            yield Static(self.detail, id="record-detail")

    def on_mount(self) -> None:
        self.query_one("#record-box").focus()

    def action_close(self) -> None:
        self.dismiss(None)
