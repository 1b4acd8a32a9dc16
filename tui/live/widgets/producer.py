"""The producer console: type a line and Enter sends it, paste several lines and each is sent, in order — as
kafka-console-producer, with its options.

A send is checked here first (the topic among the cluster's, the partition in range, every line's key), so a refusal
leaves what was typed in place with the reason beside it. Sends are asked of the Consoles port through `ask`
(widgets/pane.py) one at a time, in the order they were asked for; delivery reports arrive with the LiveView, one
drain at a time (`view.consoles`, taken once each, on screen or not), and at most a bounded sample of them is
written.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import get_args

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Checkbox, Input, Label, RichLog, Select, Static

from kafkatop.backends.model.acls import Grant
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.consoles import (
    Acks,
    Compression,
    ConsoleActivity,
    Delivery,
    ProducerSettings,
    check_partition,
    split_key,
)
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.ports import Consoles
from kafkatop.tui.live.granting import GrantAwaiting, GrantsMet, grants_text
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.widgets.fields import LINES_PER_BATCH, LOG_LINES, choice
from kafkatop.tui.live.widgets.pane import Asking, LivePane, ask
from kafkatop.tui.live.widgets.topic_input import TopicInput

MAX_TEST_MESSAGES = 100_000  # one click; more would hold the producer for minutes
TYPED_KEPT = 100  # typed lines sent and not reported yet, kept to put back in the field if Kafka refuses them


Send = Callable[[Consoles, str], object]  # (the consoles, the topic) -> sends


class LineInput(Input):
    """The message field: a paste of several lines is handed to the panel whole (an Input keeps only the first)."""

    @dataclass
    class LinesPasted(Message):
        lines: list[str]

    def _on_paste(self, event: events.Paste) -> None:
        if "\n" not in event.text and "\r" not in event.text:
            return  # one line: the Input inserts it
        event.stop()
        event.prevent_default()
        typed = self.value[: self.cursor_position] + event.text + self.value[self.cursor_position :]
        self.post_message(self.LinesPasted(typed.splitlines()))


@dataclass(frozen=True, slots=True)
class _Outgoing:
    topic: str
    settings: ProducerSettings
    call: Send
    done: str | None  # the summary once sent
    typed: str | None  # the line to put back in the field if Kafka refuses it


class ProducerPanel(GrantAwaiting, Asking, LivePane, Vertical):
    """Type a line, Enter sends it — as kafka-console-producer, with its options."""

    def __init__(self, consoles: Consoles | None, refusal: str | None = None) -> None:
        super().__init__()
        self.consoles = consoles
        self.refusal = refusal  # a read-only context: why nothing is sent
        self.snapshot: ClusterSnapshot | None = None
        self._outbox: deque[_Outgoing] = deque()
        self._sending = False  # a send is asked and not answered yet (only touched on the UI thread)
        self._taken: ConsoleActivity | None = None  # the last drain shown: a view carries it until the next one
        self._typed: dict[int, str] = {}  # a typed line sent, by its delivery's seq: put back if its report refuses it
        self._refused: tuple[Grant, ...] = ()  # the grants the status line asks for (M), until it says something else
        self._met: tuple[Grant, ...] = ()  # those of the send being refused (its GrantsMet comes before its answer)

    def compose(self) -> ComposeResult:
        with Horizontal(classes="options", id="produce-target"):
            yield TopicInput("topic", id="produce-topic")
            yield Input(placeholder="partition", id="target-partition", classes="short")
            yield Input(placeholder="key sep", id="key-separator", classes="short")
        with Horizontal(id="produce-settings"):  # one row: compact, so 80×24 leaves the log room
            yield Label("acks")
            yield Select(
                [("all", "all"), ("1", "1"), ("0", "0")], value="all", allow_blank=False, compact=True, id="acks"
            )
            yield Checkbox("idempotent", True, compact=True, id="idempotence")
            yield Label("compression")
            yield Select(
                [(c, c) for c in ("none", "gzip", "snappy", "lz4", "zstd")], value="none", allow_blank=False,
                compact=True, id="compression",
            )  # fmt: skip
        with Horizontal(classes="options", id="produce-send"):
            yield LineInput(
                placeholder="a message; Enter sends it (paste several lines to send them all)", id="produce-line",
                select_on_focus=False,  # a refused line put back and focused: a key typed must not replace it
            )  # fmt: skip
            yield Input("7", id="test-count", classes="count", tooltip="how many test messages; Enter sends them")
            yield Button("send m1…mN", id="send-test")
        yield Static("", id="produce-status", classes="status")
        yield RichLog(max_lines=LOG_LINES, wrap=True, id="deliveries")  # a long message wraps, never cut

    def take(self, view: LiveView) -> None:
        if view.consoles is not None and view.consoles is not self._taken:
            self._taken = view.consoles
            self.show_deliveries(view.consoles.deliveries)

    def draw(self, view: LiveView) -> None:
        if view.cluster is not None and view.cluster is not self.snapshot:
            self.snapshot = view.cluster
            self.query_one(TopicInput).follow(view.cluster)

    # --- what the fields say ---------------------------------------------------------------------------------------
    def _settings(self) -> ProducerSettings:
        partition_text = self.query_one("#target-partition", Input).value.strip()
        if partition_text and not partition_text.isdigit():
            raise KafkatopError(f"partition: {partition_text!r} is not a partition number (leave it empty for any)")
        separator = self.query_one("#key-separator", Input).value
        acks = choice(self.query_one("#acks", Select).value, get_args(Acks), "acks")
        compression = choice(self.query_one("#compression", Select).value, get_args(Compression), "compression")
        return ProducerSettings(
            acks=acks,  # type: ignore[arg-type]  # one of Acks, checked above
            idempotence=self.query_one("#idempotence", Checkbox).value,
            compression=compression,  # type: ignore[arg-type]  # one of Compression, checked above
            key_separator=separator or None,
            partition=int(partition_text) if partition_text else None,
        )

    def _topic(self, settings: ProducerSettings) -> str:
        """The topic, its partition checked against the last poll. One the poll does not list is the producer's to
        check: it may be one the authorizer hides from kafkatop's user, and only asking for it by name tells."""
        topic = self.query_one("#produce-topic", Input).value.strip()
        if not topic:
            raise KafkatopError("topic: pick the topic to send to (↓ lists them)")
        known = self.snapshot.topic(topic) if self.snapshot is not None else None
        if known is not None:
            check_partition(topic, settings.partition, len(known.partitions))
        return topic

    def _show_status(self, message: str | None, error: bool = True, refused: tuple[Grant, ...] = ()) -> None:
        self._refused = refused
        self.query_one("#produce-status", Static).update(Text(message or "", style="bold red" if error else "green"))

    # --- sending ----------------------------------------------------------------------------------------------------
    @on(Input.Submitted, "#produce-line")
    def _send_line(self, event: Input.Submitted) -> None:
        line = event.value
        if not line.strip():
            return
        if self._send(lambda consoles, topic: consoles.send(topic, line), [line], None, typed=line):
            event.input.value = ""  # refused here, the line stays, to be sent once the field in error is fixed

    @on(LineInput.LinesPasted)
    def _send_pasted(self, event: LineInput.LinesPasted) -> None:
        lines = [line for line in event.lines if line.strip()]
        if not lines:
            return
        count = f"{len(lines)} pasted line{'s' if len(lines) != 1 else ''}"
        # Refused, the lines are not put in the one-line field: the clipboard still holds them.
        if self._send(lambda consoles, topic: consoles.send_many(topic, lines), lines, f"{count} sent to {{topic}}",
                      refused=f" ({count} not sent: paste them again)"):  # fmt: skip
            self.query_one("#produce-line", Input).value = ""

    @on(Input.Submitted, "#test-count")
    @on(Button.Pressed, "#send-test")
    def _send_test(self) -> None:
        count_text = self.query_one("#test-count", Input).value.strip()
        if not count_text.isdigit() or not 1 <= int(count_text) <= MAX_TEST_MESSAGES:
            self._show_status(f"count: {count_text!r} is not a number of messages (1 to {MAX_TEST_MESSAGES:,})")
            return
        count = int(count_text)
        self._send(
            lambda consoles, topic: consoles.send_test_messages(topic, count),
            [],
            f"{count} test messages sent to {{topic}}",
        )

    def _send(
        self, call: Send, lines: Sequence[str], done: str | None, typed: str | None = None, refused: str = ""
    ) -> bool:
        """Queue a send; False, and the reason shown (with `refused` after it), when the fields or a line are wrong.
        `done` is the summary once sent ({topic} in it replaced); `typed` goes back in the field if Kafka refuses."""
        if self.consoles is None:
            self._show_status("no cluster to produce to")
            return False
        if self.refusal is not None:
            self._show_status(f"{self.refusal}: producing writes to the cluster; nothing was sent")
            return False
        try:
            settings = self._settings()
            topic = self._topic(settings)
            for number, line in enumerate(lines, start=1):
                split_key(line, settings.key_separator, number if len(lines) > 1 else None)
        except KafkatopError as e:
            self._show_status(f"{e}{refused}")
            return False
        self._show_status(None)
        self._outbox.append(_Outgoing(topic, settings, call, done and done.format(topic=topic), typed))
        self._send_next()
        return True

    def _send_next(self) -> None:
        """Asks for the oldest queued send once the one before it is answered: one at a time keeps the order."""
        consoles = self.consoles
        if self._sending or not self._outbox or consoles is None:
            return
        outgoing = self._outbox.popleft()
        self._sending = True

        def send(_: Callable[[object], None]) -> object:
            consoles.configure_producer(outgoing.settings)
            return outgoing.call(consoles, outgoing.topic)  # send()'s seq, which its delivery report carries

        # Not exclusive: every line asked for is sent, or its refusal shown.
        ask(self, "produce", send, lambda seq: self._sent(outgoing, seq),
            lambda reason: self._not_sent(outgoing, reason), exclusive=False)  # fmt: skip

    def _sent(self, outgoing: _Outgoing, seq: object) -> None:
        self._sending = False
        if outgoing.typed is not None and isinstance(seq, int):
            self._typed[seq] = outgoing.typed  # its report may be a refusal (the authorizer's): back in the field then
            if len(self._typed) > TYPED_KEPT:
                del self._typed[next(iter(self._typed))]
        if outgoing.done is not None:
            self._show_status(outgoing.done, False)
        self._send_next()

    @on(GrantsMet)
    def _grants_met(self, message: GrantsMet) -> None:
        if self._sending:  # the send asked was refused by the authorizer (the message goes on to the app, for M)
            self._met = message.grants

    def _not_sent(self, outgoing: _Outgoing, reason: str) -> None:
        self._sending = False
        self._show_status(reason, refused=self._met)
        self._met = ()
        self._put_back(outgoing.typed)
        self._send_next()

    def _put_back(self, typed: str | None) -> None:
        line = self.query_one("#produce-line", Input)
        if typed is not None and not line.value:
            line.value = typed  # Kafka refused it: back in the field, to send again once fixed
            line.cursor_position = len(typed)  # a key typed then adds to it

    def granted(self, grants: tuple[Grant, ...], said: str) -> None:
        """M granted what the status line asked for: it says so, and the refused line (back in the field) can go."""
        if not self._refused or not set(self._refused) <= set(grants):
            return
        line = self.query_one("#produce-line", Input)
        self._show_status(f"{said} · Enter sends the line again" if line.value else said, False)
        if line.value and self.is_on_screen and not isinstance(self.screen.focused, Input):
            line.focus()

    def show_deliveries(self, deliveries: Sequence[Delivery]) -> None:
        if not deliveries:
            return
        log = self.query_one("#deliveries", RichLog)
        errors = [d for d in deliveries if d.error]
        for d in deliveries:
            typed = self._typed.pop(d.seq, None)
            if d.error:
                self._put_back(typed)
        shown = deliveries[-LINES_PER_BATCH:]
        if len(deliveries) > len(shown):
            log.write(Text(f"… {len(deliveries) - len(shown)} more deliveries", style="dim"))
        for d in shown:
            if d.error:
                log.write(Text(f"✗ {d.topic}: {d.error}  ({d.value[:60]})", style="red"))
            else:
                key = f" key={d.key}" if d.key is not None else ""
                log.write(Text(f"✓ {d.topic}-{d.partition} @{d.offset}{key}  {d.value[:80]}"))
        refused = next((d for d in reversed(errors) if d.grants), None)
        if refused is not None:  # the authorizer's: the line that grants it, once per batch, and M
            said = grants_text(refused.error.partition(":")[0] if refused.error else "", refused.grants, self.app)
            log.write(Text(f"  {said}", style="bold red"))
            self._show_status(f"{len(errors)} message(s) not delivered: {said}", refused=refused.grants)
            self.post_message(GrantsMet(refused.grants))
        elif errors:
            self._show_status(f"{len(errors)} message(s) not delivered: {errors[-1].error}")
