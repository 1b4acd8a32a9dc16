"""The producer console: type a line and Enter sends it, as kafka-console-producer, with its options.

Sends run in a thread worker; delivery reports arrive batched (ClientsDrained) and at most a bounded sample of them is
written per batch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import get_args

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Checkbox, Input, Label, RichLog, Select, Static

from kafkatop.backends.model.consoles import Acks, Compression, Delivery, ProducerSettings
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.ports import Consoles
from kafkatop.tui.live.widgets.fields import LINES_PER_BATCH, LOG_LINES
from kafkatop.tui.live.widgets.fields import choice as _choice
from kafkatop.tui.live.widgets.fields import error_text as _error_text

MAX_TEST_MESSAGES = 100_000  # one click; more would hold the producer for minutes


Send = Callable[[Consoles, str], object]  # (the consoles, the topic) -> sends


class ProducerPanel(Vertical):
    """Type a line, Enter sends it — as kafka-console-producer, with its options."""

    def __init__(self, hub: Consoles | None) -> None:
        super().__init__()
        self.hub = hub

    def compose(self) -> ComposeResult:
        with Horizontal(classes="options"):
            yield Input(placeholder="topic", id="produce-topic", classes="topic")
            yield Label("acks")
            yield Select([("all", "all"), ("1", "1"), ("0", "0")], value="all", allow_blank=False, id="acks")
            yield Checkbox("idempotent", True, id="idempotence")
            yield Select(
                [(c, c) for c in ("none", "gzip", "snappy", "lz4", "zstd")], value="none", allow_blank=False,
                id="compression",
            )  # fmt: skip
            yield Input(placeholder="key sep", id="key-separator", classes="short")
            yield Input(placeholder="partition", id="target-partition", classes="short")
        yield Input(placeholder="a message; Enter sends it (paste several lines to send them all)", id="produce-line")
        with Horizontal(classes="options"):
            yield Input("7", id="test-count", classes="short")
            yield Button("send test messages m1…mN", id="send-test")
            yield Static("", id="produce-error", classes="error")
        yield RichLog(max_lines=LOG_LINES, id="deliveries")

    def _settings(self) -> ProducerSettings:
        partition_text = self.query_one("#target-partition", Input).value.strip()
        if partition_text and not partition_text.isdigit():
            raise KafkatopError(f"partition: {partition_text!r} is not a partition number (leave it empty for any)")
        separator = self.query_one("#key-separator", Input).value
        acks = _choice(self.query_one("#acks", Select).value, get_args(Acks), "acks")
        compression = _choice(self.query_one("#compression", Select).value, get_args(Compression), "compression")
        return ProducerSettings(
            acks=acks,  # type: ignore[arg-type]  # one of Acks, checked above
            idempotence=self.query_one("#idempotence", Checkbox).value,
            compression=compression,  # type: ignore[arg-type]  # one of Compression, checked above
            key_separator=separator or None,
            partition=int(partition_text) if partition_text else None,
        )

    def _topic(self) -> str:
        topic = self.query_one("#produce-topic", Input).value.strip()
        if not topic:
            raise KafkatopError("topic: type the topic to send to")
        return topic

    def _show_error(self, message: str | None) -> None:
        self.query_one("#produce-error", Static).update(Text(message or "", style="bold red"))

    @on(Input.Submitted, "#produce-line")
    def _send_line(self, event: Input.Submitted) -> None:
        line = event.value
        if not line.strip():
            return
        sent = self._send(
            lambda hub, topic: hub.send_many(topic, line.splitlines()) if "\n" in line else hub.send(topic, line)
        )
        if sent:  # refused here: the line stays, to be sent once the field in error is fixed
            event.input.value = ""

    @on(Button.Pressed, "#send-test")
    def _send_test(self) -> None:
        count_text = self.query_one("#test-count", Input).value.strip()
        if not count_text.isdigit() or not 1 <= int(count_text) <= MAX_TEST_MESSAGES:
            self._show_error(f"count: {count_text!r} is not a number of messages (1 to {MAX_TEST_MESSAGES:,})")
            return
        self._send(lambda hub, topic: hub.send_test_messages(topic, int(count_text)))

    def _send(self, call: Send) -> bool:
        """Send in a worker; False, and the error shown, when the fields are wrong."""
        if self.hub is None:
            self._show_error("no cluster to produce to")
            return False
        try:
            topic, settings = self._topic(), self._settings()
        except KafkatopError as e:
            self._show_error(str(e))
            return False
        self._show_error(None)
        self._send_worker(topic, settings, call)
        return True

    @work(thread=True, group="produce", exit_on_error=False)
    def _send_worker(self, topic: str, settings: ProducerSettings, call: Send) -> None:
        hub = self.hub
        assert hub is not None  # checked by _send
        try:
            hub.configure_producer(settings)
            call(hub, topic)
        except Exception as e:  # noqa: BLE001 - shown where the user typed
            self.app.call_from_thread(self._show_error, _error_text(e))

    def show_deliveries(self, deliveries: Sequence[Delivery]) -> None:
        if not deliveries:
            return
        log = self.query_one("#deliveries", RichLog)
        errors = [d for d in deliveries if d.error]
        shown = deliveries[-LINES_PER_BATCH:]
        if len(deliveries) > len(shown):
            log.write(Text(f"… {len(deliveries) - len(shown)} more deliveries", style="dim"))
        for d in shown:
            if d.error:
                log.write(Text(f"✗ {d.topic}: {d.error}  ({d.value[:60]})", style="red"))
            else:
                key = f" key={d.key}" if d.key is not None else ""
                log.write(Text(f"✓ {d.topic}-{d.partition} @{d.offset}{key}  {d.value[:80]}"))
        if errors:
            self._show_error(f"{len(errors)} message(s) not delivered: {errors[-1].error}")
