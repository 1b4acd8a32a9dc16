"""A yes/no question before a destructive action (kill -9 a node, delete a topic), naming what it acts on.

Focus starts on Cancel, so an Enter typed out of habit cancels; `y` or the red button does it. On a cluster that is not
kafkatop's own (attached), the most destructive acts ask for the cluster's name typed instead, as GitHub asks for a
repository's name before deleting it: `y` cannot do them by reflex. With --no-confirm a y/n question is answered y at
once (the name to type is still asked). A `y` that comes within ARMING_S of the question was typed before it was
read — the rest of a word typed where its first letter is a key (`Ky…` in Brokers) — and does nothing but say so."""

from __future__ import annotations

import time

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button

from kafkatop.tui.live.screens.dialog import Dialog, frame
from kafkatop.tui.live.sources import Settings
from kafkatop.tui.live.text import Input, Label, shown


class ConfirmScreen(Dialog[bool]):
    BINDINGS = [Binding("escape,n", "cancel", "Cancel"), Binding("y", "yes", "Yes")]
    AUTO_FOCUS = "#typed, #no"  # the name to type, else Cancel: an Enter typed out of habit cancels
    # Sooner than this after the question opens, `y` was typed on from before it (a typist's keys are 0.1–0.2 s
    # apart): Firefox's install prompt waits for the same reason (security.dialog_enable_delay).
    ARMING_S = 0.5

    def __init__(self, question: str, yes: str = "Delete", detail: str = "", typed: str | None = None) -> None:
        super().__init__(False)
        self.question = question
        self.yes = yes
        self.detail = detail
        self.typed = typed  # the name to type before it is done; None: y does it
        self.opened = time.monotonic()  # (again when shown: on_mount)

    def compose(self) -> ComposeResult:
        with frame(self.question):
            if self.detail:
                yield Label(shown(self.detail, lines=True), id="dialog-detail")  # lines of its own
            if self.typed is not None:
                yield Label(f"This cluster is not kafkatop's own. Type {self.typed} to {self.yes.lower()}, Escape "
                            "to cancel:", id="dialog-keys")  # fmt: skip
                yield Input(placeholder="the name, as above", id="typed")
            else:
                yield Label(f"y: {self.yes.lower()} · n or Escape: cancel", id="dialog-keys")
            with Horizontal(classes="buttons"):
                yield Button(f"{self.yes} (y)" if self.typed is None else self.yes, variant="error", id="yes",
                             disabled=self.typed is not None)  # fmt: skip
                yield Button("Cancel (n)" if self.typed is None else "Cancel", id="no")

    def on_mount(self) -> None:
        self.opened = time.monotonic()
        settings = getattr(self.app, "settings", None)  # the live view's (a test's bare App has none)
        if self.typed is None and isinstance(settings, Settings) and not settings.confirm:
            self.dismiss(True)  # --no-confirm: the user said y to every y/n question beforehand

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#yes", Button).disabled = event.value.strip() != self.typed

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.value.strip() == self.typed:
            self.dismiss(True)
        else:
            self.notify(f"type {self.typed} exactly to {self.yes.lower()}; Escape cancels", severity="warning")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes" and not event.button.disabled)

    def action_yes(self) -> None:
        if self.typed is not None:
            return
        if time.monotonic() - self.opened < self.ARMING_S:
            self.notify(f"y came with the question, typed on before it was read: nothing was done. Read it, then "
                        f"y to {self.yes.lower()}, n to cancel", severity="warning", timeout=5)  # fmt: skip
            return
        self.dismiss(True)
