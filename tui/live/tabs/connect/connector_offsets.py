"""`O` in Connect: a connector's offsets (KIP-875, `GET /connectors/{name}/offsets`) — a source's partitions and
positions as its plugin writes them (any JSON), a sink's topic-partitions and the offsets it committed. Connect resets
them only while the connector is STOPPED: `x` says so otherwise; once stopped it asks first, then the screen is
dismissed with True and the reset runs as the user's action (tabs/connect/keys.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message

from kafkatop.backends.model.connect import Connector, ConnectorOffset
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.ports import ConnectCluster
from kafkatop.tui.live.screens.confirm import ConfirmScreen
from kafkatop.tui.live.screens.dialog import Dialog
from kafkatop.tui.live.tabs.connect.connector_restart import FOLLOW_S
from kafkatop.tui.live.text import Label, Static

NOT_STOPPED = "Connect resets a connector's offsets only while it is STOPPED: close this, press S to stop it, then O, x"


@dataclass
class OffsetsRead(Message):
    offsets: tuple[ConnectorOffset, ...]
    error: str | None = None  # why they could not be read


def _json(value: object) -> str:
    return json.dumps(value, separators=(", ", ": "), sort_keys=True)


def offsets_text(connector: Connector, offsets: tuple[ConnectorOffset, ...]) -> Text:
    if not offsets:
        return Text(f"{connector.name} has no offsets committed yet", style="dim")
    text = Text()
    for o in offsets:
        p = o.partition
        if connector.type == "sink" and "kafka_topic" in p:
            text.append(f"{p['kafka_topic']}-{p.get('kafka_partition')}", style="bold")
            text.append(f"  offset {o.offset.get('kafka_offset') if o.offset else '-'}\n")
        else:
            text.append(_json(p), style="bold")
            text.append(f"  →  {_json(o.offset) if o.offset is not None else 'none'}\n")
    return text


class ConnectorOffsetsScreen(Dialog[bool | None]):
    BINDINGS = [Binding("escape,q", "cancel", "Close"), Binding("x", "reset", "Reset offsets"),
                Binding("r", "reload", "Reload")]  # fmt: skip
    AUTO_FOCUS = "#connector-offsets-list"

    def __init__(
        self, connect: ConnectCluster, connector: Connector, read_only_reason: str | None, typed: str | None,
        state: Callable[[], str | None] | None = None,
    ) -> None:  # fmt: skip
        super().__init__(None)
        self.connect = connect
        self.connector = connector
        self.read_only_reason = read_only_reason  # a read-only context: why nothing is reset
        self.typed = typed  # on a cluster not kafkatop's: the name typed to confirm a reset
        self.state = state or (lambda: connector.state)  # its state now (the tab's last poll)
        self._shown_title: Text | None = None

    def compose(self) -> ComposeResult:
        self._shown_title = self._title()
        with Vertical(id="connector-offsets"):
            yield Label(self._shown_title, id="connector-offsets-title")
            with VerticalScroll(id="connector-offsets-list"):
                yield Static("reading its offsets …", id="connector-offsets-text")
            yield Static("", id="connector-offsets-status")
            yield Label("x reset (the connector STOPPED) · r reload · Escape close", classes="keys")

    def _title(self) -> Text:
        c = self.connector
        return Text(f"Offsets of connector {c.name} ({c.type}, {self.state() or c.state})", style="bold")

    def on_mount(self) -> None:
        self.action_reload()
        self.set_interval(FOLLOW_S, self._follow)

    def _follow(self) -> None:
        """Its state as the view's latest poll has it (a read of a snapshot): `S` pressed before, a poll since."""
        title = self._title()
        label = self.query_one("#connector-offsets-title", Label)
        if title != self._shown_title:
            self._shown_title = title
            label.update(title)

    @work(thread=True, exclusive=True, group="connector-offsets", exit_on_error=False)
    def action_reload(self) -> None:
        try:
            self.post_message(OffsetsRead(self.connect.offsets(self.connector.name)))
        except KafkatopError as e:
            self.post_message(OffsetsRead((), str(e)))
        except Exception as e:  # noqa: BLE001 - shown in the screen, never a crash
            self.post_message(OffsetsRead((), f"{type(e).__name__}: {e}"))

    def on_offsets_read(self, message: OffsetsRead) -> None:
        said = Text(message.error, style="bold red") if message.error else offsets_text(self.connector, message.offsets)
        self.query_one("#connector-offsets-text", Static).update(said)

    def _status(self, text: str) -> None:
        self.query_one("#connector-offsets-status", Static).update(Text(text, style="bold yellow"))

    def action_reset(self) -> None:
        name = self.connector.name
        if self.read_only_reason is not None:
            self._status(f"{self.read_only_reason}: resetting a connector's offsets writes to the cluster")
            return
        if self.state() != "STOPPED":
            self._status(NOT_STOPPED)
            return
        detail = ("When it is resumed, a source starts again from the beginning of what it reads, a sink from its "
                  "consumer group's auto.offset.reset.")  # fmt: skip

        def answered(yes: bool | None) -> None:
            if yes:
                self.dismiss(True)

        question = f"Reset the offsets of connector {name!r}?"
        self.app.push_screen(ConfirmScreen(question, yes="Reset", detail=detail, typed=self.typed), answered)
