"""`P` in Partitions: more partitions for the highlighted topic — its count now, the new total, what it does to
keyed records — checked as typed, then validated by Kafka (CreatePartitions with validate_only: nothing changes)
before a last confirmation. Dismissed with the new total, or None."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button

from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.partitions import KEY_WARNING, check_new_total
from kafkatop.tui.live.screens.dialog import Dialog, buttons, frame
from kafkatop.tui.live.text import Input, Label, Static


@dataclass
class PartitionsValidated(Message):
    total: int
    error: str | None  # Kafka's refusal, or the demo's; None: Kafka would accept it


class AddPartitionsScreen(Dialog[int | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("y", "add", "Add", show=False)]
    AUTO_FOCUS = "#new-total"

    def __init__(self, topic: str, current: int, validate: Callable[[int], None] | None = None) -> None:
        super().__init__(None)
        self.topic = topic
        self.current = current
        self.validate = validate  # CreatePartitions with validate_only; raises Kafka's refusal
        self.validated: int | None = None  # the total Kafka accepted, awaiting the confirmation
        self.asking: int | None = None

    def compose(self) -> ComposeResult:
        with frame(f"Add partitions to topic {self.topic}", "add-partitions"):
            with Horizontal(classes="row"):
                yield Label(f"{self.current} partition(s) now; new total")
                yield Input(str(self.current + 1), id="new-total", classes="number")
            yield Static(Text(f"Warning: {KEY_WARNING}.", style="yellow"), id="dialog-detail")
            yield Static("", id="dialog-errors")
            yield Static("", id="partitions-state")
            yield buttons(Button("Check (Enter)", variant="primary", id="add"))

    def _state(self, text: str, style: str = "") -> None:
        state = self.query_one("#partitions-state", Static)
        state.update(Text(text, style=style))
        state.set_class(bool(text), "shown")

    @on(Input.Changed, "#new-total")
    def _changed(self) -> None:
        if self.validated is not None:
            self.validated = None  # another number: validated again before it is added
            self.query_one("#add", Button).label = "Check (Enter)"
            self._state("")

    @on(Input.Submitted)
    @on(Button.Pressed, "#add")
    def action_add(self) -> None:
        """First Enter: checked here, then by Kafka; once Kafka accepts it, Enter or y adds the partitions."""
        total, problem = check_new_total(self.topic, self.current, self.query_one("#new-total", Input).value)
        self.say(problem or "")
        if total is None:
            return
        if self.validated == total:
            self.dismiss(total)
            return
        if self.asking is not None:
            return
        if self.validate is None:
            self._accepted(total, "checked")
            return
        self.asking = total
        self._state(f"asking Kafka to validate {self.current} → {total} (validate_only: nothing changes) …", "dim")
        self._validate(total)

    def _accepted(self, total: int, by: str = "Kafka accepts it") -> None:
        self.validated = total
        added = total - self.current
        self._state(f"{by}: {self.current} → {total}. Enter or y adds {added} partition(s); Escape cancels.", "bold")
        button = self.query_one("#add", Button)
        button.label = f"Add {added} (y)"
        button.variant = "warning"
        button.focus()  # y is a key again (in the field it would be typed)

    @work(thread=True, exclusive=True, group="validate-partitions", exit_on_error=False)
    def _validate(self, total: int) -> None:
        assert self.validate is not None
        try:
            self.validate(total)
        except KafkatopError as e:
            self.post_message(PartitionsValidated(total, str(e)))
        except Exception as e:  # noqa: BLE001 - a refusal is shown in the dialog, never a crash
            self.post_message(PartitionsValidated(total, f"{type(e).__name__}: {e}"))
        else:
            self.post_message(PartitionsValidated(total, None))

    def on_partitions_validated(self, message: PartitionsValidated) -> None:
        self.asking = None
        current, _ = check_new_total(self.topic, self.current, self.query_one("#new-total", Input).value)
        if current != message.total:
            self._state("")  # changed meanwhile: checked again at the next Enter
            return
        if message.error is not None:
            self.say(message.error)
            self._state("")
            return
        self._accepted(message.total)
