"""The create-topic dialog: name, partitions, replication factor, configs; every field checked where it is typed."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button

from kafkatop.backends.model.topics import NewTopicRequest, check_new_topic
from kafkatop.tui.live.screens.dialog import Dialog, buttons, frame
from kafkatop.tui.live.text import Input, Label, Static


class CreateTopicScreen(Dialog[NewTopicRequest | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    AUTO_FOCUS = "#topic-name"

    def __init__(self, live_brokers: int | None, default_rf: int = 3) -> None:
        super().__init__(None)
        self.live_brokers = live_brokers
        self.default_rf = min(default_rf, live_brokers) if live_brokers else default_rf

    def compose(self) -> ComposeResult:
        with frame("Create topic"):
            yield Input(placeholder="name, e.g. purchases", id="topic-name")
            with Horizontal(classes="row"):
                yield Label("partitions")
                yield Input("3", id="partitions", classes="number")
                yield Label("replication factor")
                yield Input(str(self.default_rf), id="replication-factor", classes="number")
            yield Input(placeholder="configs: min.insync.replicas=2 cleanup.policy=compact", id="configs")
            yield Static("", id="dialog-errors")
            yield buttons(Button("Create", variant="primary", id="create"))

    def _values(self) -> tuple[str, str, str, str]:
        return tuple(  # type: ignore[return-value]
            self.query_one(f"#{i}", Input).value for i in ("topic-name", "partitions", "replication-factor", "configs")
        )

    def validate(self) -> NewTopicRequest | None:
        request, problems = check_new_topic(*self._values(), live_brokers=self.live_brokers)
        self.say("\n".join(problems))
        return request

    @on(Input.Submitted)
    @on(Button.Pressed, "#create")
    def _submit(self) -> None:
        request = self.validate()
        if request is not None:
            self.dismiss(request)
