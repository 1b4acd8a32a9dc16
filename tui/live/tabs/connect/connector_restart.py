"""`B` in Connect: restart the highlighted connector, asked first whether with its tasks or only what failed
(Connect's `POST /connectors/{name}/restart?includeTasks=…&onlyFailed=…`). Dismissed with (include_tasks,
only_failed), or None."""

from __future__ import annotations

from collections.abc import Callable

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button

from kafkatop.backends.model.connect import Connector
from kafkatop.tui.live.screens.dialog import Dialog, frame
from kafkatop.tui.live.text import Label

CHOICES = {"connector": (False, False), "tasks": (True, False), "failed": (True, True)}
FOLLOW_S = 0.25  # how often an open dialog reads the view's latest poll (a read of a snapshot, no request)


def has_failed(c: Connector) -> bool:
    return bool(c.failed or c.state == "FAILED")


def restart_detail(c: Connector) -> str:
    return (f"It is {c.state}; {c.running} of {len(c.tasks)} task(s) RUNNING, {c.failed} FAILED. The connector alone "
            "leaves its tasks as they are; only what failed restarts the connector if it failed and each failed "
            "task.")  # fmt: skip


class RestartConnectorScreen(Dialog[tuple[bool, bool] | None]):
    BINDINGS = [
        Binding("escape,n", "cancel", "Cancel"),
        Binding("c", "choose('connector')", "Connector only", show=False),
        Binding("a", "choose('tasks')", "With its tasks", show=False),
        Binding("f", "choose('failed')", "Only what failed", show=False),
    ]
    AUTO_FOCUS = "#cancel"  # an Enter typed out of habit restarts nothing

    def __init__(self, connector: Connector, now: Callable[[], Connector | None] | None = None) -> None:
        """`now`: the connector as the view's latest poll has it, followed while the dialog is open."""
        super().__init__(None)
        self.connector = connector
        self.now = now

    def compose(self) -> ComposeResult:
        c = self.connector
        with frame(f"Restart connector {c.name}?", "connector-restart"):
            yield Label(restart_detail(c), id="dialog-detail")
            yield Label("c: connector only · a: with all its tasks · f: only what failed · n or Escape: cancel",
                        id="dialog-keys")  # fmt: skip
            with Horizontal(classes="buttons"):
                yield Button("Connector (c)", id="connector")
                yield Button("+ tasks (a)", variant="warning", id="tasks")
                yield Button("Failed (f)", variant="warning", id="failed", disabled=not has_failed(c))
                yield Button("Cancel (n)", id="cancel", classes="cancel")

    def on_mount(self) -> None:
        if self.now is not None:
            self.set_interval(FOLLOW_S, self._follow)

    def _follow(self) -> None:
        """A poll since it opened (a resume just done, a task failed): the dialog says the state as the table does."""
        now = self.now() if self.now is not None else None
        if now is None or now == self.connector:
            return
        self.connector = now
        self.query_one("#dialog-detail", Label).update(restart_detail(now))
        self.query_one("#failed", Button).disabled = not has_failed(now)

    @on(Button.Pressed, "#connector, #tasks, #failed")
    def _chosen(self, event: Button.Pressed) -> None:
        self.action_choose(str(event.button.id))

    def action_choose(self, how: str) -> None:
        self.dismiss(CHOICES[how])
