"""The dialogs' base (tui/live/screens/dialog.py): what Escape and Cancel answer, the frame's title on one line, the
buttons' row ending in Cancel, the errors' line."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Button

from kafkatop.tui.live.screens.dialog import Dialog, buttons, frame
from kafkatop.tui.live.text import Input, Label, Static


class Question(Dialog[str]):
    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    AUTO_FOCUS = "#answer"

    def __init__(self) -> None:
        super().__init__("nothing chosen")  # not None: the answer is the one given, not a default

    def compose(self) -> ComposeResult:
        with frame("Rename group a\nb\x1b]0;t\x07", "question"):
            yield Input(id="answer")
            yield Static("", id="dialog-errors")
            yield buttons(Button("OK", id="ok"))


class Asking(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.answers: list[str | None] = []

    def on_mount(self) -> None:
        self.push_screen(Question(), self.answers.append)


async def test_escape_and_cancel_answer_what_the_dialog_was_given() -> None:
    async with Asking().run_test() as pilot:
        app = pilot.app
        assert isinstance(app.focused, Input) and app.focused.id == "answer"
        await pilot.press("escape")
        await pilot.pause()
        assert app.answers == ["nothing chosen"]
        app.push_screen(Question(), app.answers.append)
        await pilot.pause()
        row = app.screen.query_one("#dialog .buttons")
        assert [b.id for b in row.query(Button)] == ["ok", "cancel"]  # Cancel last
        app.screen.query_one("#cancel", Button).press()
        await pilot.pause()
        assert app.answers == ["nothing chosen", "nothing chosen"]
        assert not isinstance(app.screen, Question)


async def test_frame_title_is_one_line_and_say_shows_the_errors_line() -> None:
    async with Asking().run_test() as pilot:
        screen = pilot.app.screen
        assert isinstance(screen, Question)
        box = screen.query_one("#dialog")
        assert box.has_class("question")
        title = box.children[0]
        assert isinstance(title, Label) and title.id == "dialog-title"
        assert str(title.render()) == "Rename group a\\nb\\x1b]0;t\\x07"  # one line, nothing sent to the terminal
        errors = screen.query_one("#dialog-errors", Static)
        screen.say("answer: a group's new name")
        assert str(errors.render()) == "answer: a group's new name" and errors.has_class("shown")
        screen.say("")
        assert str(errors.render()) == "" and not errors.has_class("shown")
