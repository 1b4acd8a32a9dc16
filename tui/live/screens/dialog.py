"""What every modal dialog of the live view shares: the answer Escape gives (`cancelled`: None, or False to a
question), the frame (#dialog in app.tcss: a title on one line, the buttons' row ending in Cancel) and the line
that says what is wrong with a field (#dialog-errors). A dialog names the widget it opens in with Textual's
AUTO_FOCUS, and binds Escape to `cancel` (a dialog whose Escape first leaves a field binds its own action)."""

from __future__ import annotations

from typing import TypeVar

from rich.text import Text
from textual import on
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button

from kafkatop.tui.live.text import Label, Static, shown

Result = TypeVar("Result")


def frame(title: str, classes: str = "") -> Vertical:
    """The dialog's box, its title first: one line, so a name's newline is shown as \\n, never a line of its own."""
    return Vertical(Label(shown(title, lines=False), id="dialog-title"), id="dialog", classes=classes)


def buttons(*first: Button, compact: bool = False) -> Horizontal:
    """The buttons' row: the dialog's own, then Cancel."""
    return Horizontal(*first, Button("Cancel", id="cancel", classes="cancel", compact=compact), classes="buttons")


class Dialog(ModalScreen[Result]):
    def __init__(self, cancelled: Result) -> None:
        """`cancelled`: what the dialog is dismissed with when nothing is chosen (Escape, Cancel)."""
        super().__init__()
        self.cancelled = cancelled

    def action_cancel(self) -> None:
        self.dismiss(self.cancelled)

    @on(Button.Pressed, ".cancel")
    def _cancel_pressed(self) -> None:
        """A button of class cancel (the row's Cancel) answers as Escape does."""
        self.action_cancel()

    def say(self, problem: str | Text) -> None:
        """What is wrong with the fields, on the errors' line (#dialog-errors); "" once nothing is."""
        errors = self.query_one("#dialog-errors", Static)
        errors.update(problem)
        errors.set_class(bool(problem), "shown")
