"""`B` in Connect: restart the highlighted connector, asked first whether with its tasks or only what failed
(Connect's `POST /connectors/{name}/restart?includeTasks=…&onlyFailed=…`). Dismissed with (include_tasks,
only_failed), or None."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button

from kafkatop.backends.model.connect import Connector
from kafkatop.tui.live.screens.dialog import Dialog, frame
from kafkatop.tui.live.text import Label

CHOICES = {"connector": (False, False), "tasks": (True, False), "failed": (True, True)}


class RestartConnectorScreen(Dialog[tuple[bool, bool] | None]):
    BINDINGS = [
        Binding("escape,n", "cancel", "Cancel"),
        Binding("c", "choose('connector')", "Connector only", show=False),
        Binding("a", "choose('tasks')", "With its tasks", show=False),
        Binding("f", "choose('failed')", "Only what failed", show=False),
    ]
    AUTO_FOCUS = "#cancel"  # an Enter typed out of habit restarts nothing

    def __init__(self, connector: Connector) -> None:
        super().__init__(None)
        self.connector = connector

    def compose(self) -> ComposeResult:
        c = self.connector
        failed = c.failed + (c.state == "FAILED")
        with frame(f"Restart connector {c.name}?", "connector-restart"):
            yield Label(f"It is {c.state}; {c.running} of {len(c.tasks)} task(s) RUNNING, {c.failed} FAILED. The "
                        "connector alone leaves its tasks as they are; only what failed restarts the connector if it "
                        "failed and each failed task.", id="dialog-detail")  # fmt: skip
            yield Label("c: connector only · a: with all its tasks · f: only what failed · n or Escape: cancel",
                        id="dialog-keys")  # fmt: skip
            with Horizontal(classes="buttons"):
                yield Button("Connector (c)", id="connector")
                yield Button("+ tasks (a)", variant="warning", id="tasks")
                yield Button("Failed (f)", variant="warning", id="failed", disabled=not failed)
                yield Button("Cancel (n)", id="cancel", classes="cancel")

    @on(Button.Pressed, "#connector, #tasks, #failed")
    def _chosen(self, event: Button.Pressed) -> None:
        self.action_choose(str(event.button.id))

    def action_choose(self, how: str) -> None:
        self.dismiss(CHOICES[how])
