"""The context switcher (`w`): every context, the one shown marked; Enter switches, Escape stays."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from kafkatop.tui.live.screens.dialog import Dialog, frame
from kafkatop.tui.live.sources import ContextChoice
from kafkatop.tui.live.text import Label


def choice_text(choice: ContextChoice, current: bool) -> Text:
    text = Text()
    text.append("● " if current else "  ", style=choice.colour or "")
    text.append(choice.name, style=f"bold {choice.colour or ''}".strip())
    text.append(f"  {choice.where}", style="dim")
    if choice.read_only:
        text.append("  READ-ONLY", style="bold red")
    if current:
        text.append("  (shown)", style="dim")
    return text


class ContextsScreen(Dialog[str | None]):
    BINDINGS = [Binding("escape,q,w", "cancel", "Stay")]
    AUTO_FOCUS = "#contexts"

    def __init__(self, choices: tuple[ContextChoice, ...], current: str | None) -> None:
        super().__init__(None)
        self.choices = choices
        self.current = current

    def compose(self) -> ComposeResult:
        with frame("Switch to a context"):
            yield OptionList(*(Option(choice_text(c, c.name == self.current), id=c.name) for c in self.choices),
                             id="contexts")  # fmt: skip
            yield Label("Enter: switch (its timeline is kept) · Escape: stay", id="dialog-keys")

    def on_mount(self) -> None:
        at = next((i for i, c in enumerate(self.choices) if c.name == self.current), 0)  # ↓ goes to the next one
        self.query_one(OptionList).highlighted = at

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)
