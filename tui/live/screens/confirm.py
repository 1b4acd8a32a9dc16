"""A yes/no question before a destructive action (kill -9 a node, delete a topic), naming what it acts on.

Focus starts on Cancel, so an Enter typed out of habit cancels; `y` or the red button does it."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [Binding("escape,n", "no", "Cancel"), Binding("y", "yes", "Yes")]

    def __init__(self, question: str, yes: str = "Delete", detail: str = "") -> None:
        super().__init__()
        self.question = question
        self.yes = yes
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(self.question, id="dialog-title")
            if self.detail:
                yield Label(self.detail, id="dialog-detail")
            yield Label(f"y: {self.yes.lower()} · n or Escape: cancel", id="dialog-keys")
            with Horizontal(classes="buttons"):
                yield Button(f"{self.yes} (y)", variant="error", id="yes")
                yield Button("Cancel (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_yes(self) -> None:
        self.dismiss(True)

    def action_no(self) -> None:
        self.dismiss(False)
