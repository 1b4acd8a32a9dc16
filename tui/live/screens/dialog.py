"""What the modal dialogs of the live view share: `Dialog`, the answer Escape and a Cancel button give (`cancelled`:
None, or False to a question) and the line that says what is wrong with a field (#dialog-errors); the frame of the
small ones (#dialog in app.tcss: a title on one line, the buttons' row ending in Cancel), while a screen of plans,
tables or reports keeps a box of its own. A dialog binds its keys, Escape to `cancel` (or to an action of its own
that first leaves a field, then cancels), and names the widget it opens in with Textual's AUTO_FOCUS."""

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
