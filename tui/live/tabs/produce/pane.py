"""The producer console: type a line and Enter sends it, paste several lines and each is sent, in order — as
kafka-console-producer, with its options.

A key and headers, when filled, go with every line sent; lines are encoded in the topic's formats (the RecordCodec
port's, changed in the Messages tab or kafkatop.toml: said beside the fields) in the sending worker
(producer_fields.py), and sent as bytes. An auto topic (lines go as text) whose value subject the registry has says
so there: asked through `ask` once per topic the cluster has, and again when the tab is shown again.

A send is checked here first (the topic among the cluster's, the partition in range, every line's key, the headers),
so a refusal — or a line its format refuses — leaves what was typed in place with the reason beside it. Sends are
asked of the Consoles port through `ask` (widgets/pane.py) one at a time, in the order they were asked for; delivery
reports arrive with the LiveView, one drain at a time (`view.consoles`, taken once each, on screen or not), and at
most a bounded sample of them is written.
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
from textual.widgets import Button, Checkbox

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
from kafkatop.backends.model.formats import Format, RegisteredSchema, TopicFormat
from kafkatop.backends.ports import Consoles, RecordCodec, SchemaRegistry
from kafkatop.tui.live.granting import GrantAwaiting, GrantsMet, grants_text
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.tabs.produce.fields import (
    Header,
    LinesSent,
    Typed,
    format_said,
    line_placeholder,
    parse_headers,
    send_lines,
    value_subject,
)
from kafkatop.tui.live.text import Input, Label, RichLog, Select, Static
from kafkatop.tui.live.widgets.fields import LINES_PER_BATCH, LOG_LINES, choice
from kafkatop.tui.live.widgets.pane import Asking, LivePane, ask
from kafkatop.tui.live.widgets.topic_input import TopicInput

MAX_TEST_MESSAGES = 100_000  # one click; more would hold the producer for minutes
TYPED_KEPT = 100  # typed lines sent and not reported yet, kept to put back in the field if Kafka refuses them
CODED_KEPT = 1_000  # records a codec encoded, not reported yet: their delivery lines show them as typed


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
    lines: tuple[str, ...]  # what was typed or pasted; () for the test messages
    key: str | None  # the key field: every line's key
    headers: tuple[Header, ...]
    count: int  # test messages m1…mN
    done: str | None  # the summary once sent
    typed: str | None  # the line to put back in the field if Kafka refuses it
    refused: str  # said after the reason when nothing was sent


class ProducerPane(GrantAwaiting, Asking, LivePane, Vertical):
    """Type a line, Enter sends it — as kafka-console-producer, with its options."""

    def __init__(
        self,
        consoles: Consoles | None,
        read_only_reason: str | None = None,
        codec: RecordCodec | None = None,
        schemas: SchemaRegistry | None = None,
    ) -> None:
        super().__init__()
        self.consoles = consoles
        self.read_only_reason = read_only_reason  # a read-only context: why nothing is sent
        self.codec = codec  # each topic's formats; None: lines are sent as UTF-8 text
        self.schemas = schemas  # asked whether an auto topic's values have a subject (a hint beside the fields)
        self._subjects: dict[str, RegisteredSchema | None] = {}  # each topic's value subject, as the registry answered
        self.snapshot: ClusterSnapshot | None = None
        self._outbox: deque[_Outgoing] = deque()
        self._sending = False  # a send is asked and not answered yet (only touched on the UI thread)
        self._taken: ConsoleActivity | None = None  # the last drain shown: a view carries it until the next one
        self._typed: dict[int, str] = {}  # a typed line sent, by its delivery's seq: put back if its report refuses it
        self._coded: dict[int, Typed] = {}  # a record a codec encoded, by seq: its delivery line shows it as typed
        self._format_said = (format_said(None), line_placeholder(None))  # what the fields say of the topic's formats
        self._refused: tuple[Grant, ...] = ()  # the grants the status line asks for (M), until it says something else
        self._met: tuple[Grant, ...] = ()  # those of the send being refused (its GrantsMet comes before its answer)

    def compose(self) -> ComposeResult:
        with Horizontal(classes="options", id="produce-target"):
            yield TopicInput("topic", id="produce-topic")
            yield Input(placeholder="partition", id="target-partition", classes="short")
            yield Input(placeholder="key sep", id="key-separator", classes="short",
                        tooltip="a separator: each line's key before it, its value after (parse.key)")  # fmt: skip
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
        with Horizontal(id="produce-record"):  # one row, as the settings: the key and headers of every line sent
            yield Label("key")
            # Not select-all on focus either (see #produce-line): a key typed must add to what is there.
            yield Input(placeholder="every line's key", id="produce-key", compact=True, select_on_focus=False)
            yield Label("headers")
            yield Input(placeholder="name=value,… on every line", id="produce-headers", compact=True,
                        select_on_focus=False)  # fmt: skip
            yield Static(format_said(None), id="produce-format")
        with Horizontal(classes="options", id="produce-send"):
            yield LineInput(
                placeholder=line_placeholder(None), id="produce-line",
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
        self._show_format()  # changed in the Messages tab, maybe: the codec says

    @on(Input.Changed, "#produce-topic")
    def _show_format(self) -> None:
        """The topic's formats beside the fields, and what the message field asks for in them."""
        topic = self.query_one("#produce-topic", Input).value.strip()
        fmt: TopicFormat | None = None
        if self.codec is not None and topic:
            fmt = self.codec.format_of(topic)
        registered = self._value_subject(topic) if fmt is not None and fmt.value.format is Format.AUTO else None
        said = (format_said(fmt, registered), line_placeholder(fmt))
        if said != self._format_said:  # drawn with every view: the labels change only when the formats do
            self._format_said = said
            shown = self.query_one("#produce-format", Static)
            shown.update(said[0])
            shown.tooltip = said[0]  # whole, where the row cuts it
            self.query_one("#produce-line", Input).placeholder = said[1]

    def _value_subject(self, topic: str) -> RegisteredSchema | None:
        """The topic's value subject in the registry, once answered; asked for a topic the cluster has, not a prefix."""
        registry = self.schemas
        if registry is None or topic in self._subjects:
            return self._subjects.get(topic)
        if self.snapshot is None or self.snapshot.topic(topic) is None:
            return None
        self._subjects[topic] = None  # asked: not again until the tab is shown again

        def answered(schema: RegisteredSchema) -> None:
            self._subjects[topic] = schema
            self._show_format()

        # A subject the registry does not have (or a registry not answering) says nothing: lines go as text.
        ask(self, "produce-subject", lambda _tell: registry.schema(value_subject(topic)), answered, lambda _: None,
            exclusive=False)  # fmt: skip
        return None

    def on_show(self) -> None:
        self._subjects.clear()  # registered meanwhile, maybe: asked again (LivePane's on_show redraws)

    @on(Input.Submitted, "#produce-topic, #produce-key, #produce-headers")
    def _to_line(self) -> None:
        self.query_one("#produce-line", Input).focus()  # the topic, key or headers typed: the message next

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
        if self._send((line,), None, typed=line):
            event.input.value = ""  # refused here, the line stays, to be sent once the field in error is fixed

    @on(LineInput.LinesPasted)
    def _send_pasted(self, event: LineInput.LinesPasted) -> None:
        lines = [line for line in event.lines if line.strip()]
        if not lines:
            return
        count = f"{len(lines)} pasted line{'s' if len(lines) != 1 else ''}"
        # Refused, the lines are not put in the one-line field: the clipboard still holds them.
        if self._send(tuple(lines), f"{count} sent to {{topic}}", refused=f" ({count} not sent: paste them again)"):
            self.query_one("#produce-line", Input).value = ""

    @on(Input.Submitted, "#test-count")
    @on(Button.Pressed, "#send-test")
    def _send_test(self) -> None:
        count_text = self.query_one("#test-count", Input).value.strip()
        if not count_text.isdigit() or not 1 <= int(count_text) <= MAX_TEST_MESSAGES:
            self._show_status(f"count: {count_text!r} is not a number of messages (1 to {MAX_TEST_MESSAGES:,})")
            return
        count = int(count_text)
        self._send((), f"{count} test messages sent to {{topic}}", count=count)  # as the labs': no key, no headers

    def _send(
        self, lines: tuple[str, ...], done: str | None, typed: str | None = None, refused: str = "", count: int = 0
    ) -> bool:
        """Queue a send of lines (or of `count` test messages); False, and the reason shown (with `refused` after it),
        when the fields or a line are wrong. `done` is the summary once sent ({topic} in it replaced); `typed` goes
        back in the field if Kafka, or the topic's format, refuses it."""
        if self.consoles is None:
            self._show_status("no cluster to produce to")
            return False
        if self.read_only_reason is not None:
            self._show_status(f"{self.read_only_reason}: producing writes to the cluster; nothing was sent")
            return False
        try:
            settings = self._settings()
            topic = self._topic(settings)
            key, headers = self._key_and_headers(settings) if lines else (None, ())
            for number, line in enumerate(lines, start=1):
                split_key(line, settings.key_separator, number if len(lines) > 1 else None)
        except KafkatopError as e:
            self._show_status(f"{e}{refused}")
            return False
        self._show_status(None)
        summary = done and done.format(topic=topic)
        self._outbox.append(_Outgoing(topic, settings, lines, key, headers, count, summary, typed, refused))
        self._send_next()
        return True

    def _key_and_headers(self, settings: ProducerSettings) -> tuple[str | None, tuple[Header, ...]]:
        """The key and headers fields, for every line sent; KafkatopError saying what is wrong in them."""
        key = self.query_one("#produce-key", Input).value
        if key and settings.key_separator is not None:
            raise KafkatopError(
                "key: a key separator is set too, and each line's key comes from it: empty the key or the key sep field"
            )
        return key or None, parse_headers(self.query_one("#produce-headers", Input).value)

    def _send_next(self) -> None:
        """Asks for the oldest queued send once the one before it is answered: one at a time keeps the order."""
        consoles = self.consoles
        if self._sending or not self._outbox or consoles is None:
            return
        outgoing = self._outbox.popleft()
        self._sending = True
        codec = self.codec

        def send(_: Callable[[object], None]) -> object:
            consoles.configure_producer(outgoing.settings)
            if not outgoing.lines:
                return consoles.send_test_messages(outgoing.topic, outgoing.count)
            o = outgoing  # each record's seq comes back, which its delivery report carries
            return send_lines(consoles, codec, o.topic, o.lines, o.key, o.settings.key_separator, o.headers)

        # Not exclusive: every line asked for is sent, or its refusal shown.
        ask(self, "produce", send, lambda seq: self._sent(outgoing, seq),
            lambda reason: self._not_sent(outgoing, reason), exclusive=False)  # fmt: skip

    def _sent(self, outgoing: _Outgoing, sent: object) -> None:
        self._sending = False
        if isinstance(sent, LinesSent):
            if outgoing.typed is not None and sent.seqs:
                self._typed[sent.seqs[0]] = outgoing.typed  # its report may be a refusal (the authorizer's): back then
                if len(self._typed) > TYPED_KEPT:
                    del self._typed[next(iter(self._typed))]
            self._coded.update((seq, typed) for seq, typed in zip(sent.seqs, sent.typed, strict=True) if typed)
            while len(self._coded) > CODED_KEPT:
                del self._coded[next(iter(self._coded))]
            if sent.failed is not None:
                self._show_status(sent.failed)
                self._send_next()
                return
        if outgoing.done is not None:
            self._show_status(outgoing.done, False)
        self._send_next()

    @on(GrantsMet)
    def _grants_met(self, message: GrantsMet) -> None:
        if self._sending:  # the send asked was refused by the authorizer (the message goes on to the app, for M)
            self._met = message.grants

    def _not_sent(self, outgoing: _Outgoing, reason: str) -> None:
        self._sending = False
        self._show_status(reason + outgoing.refused, refused=self._met)
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
        coded: dict[int, Typed] = {}
        for d in deliveries:
            typed = self._typed.pop(d.seq, None)
            if d.error:
                self._put_back(typed)
            if (as_typed := self._coded.pop(d.seq, None)) is not None:
                coded[d.seq] = as_typed
        shown = deliveries[-LINES_PER_BATCH:]
        if len(deliveries) > len(shown):
            log.write(Text(f"… {len(deliveries) - len(shown)} more deliveries", style="dim"))
        for d in shown:
            as_typed = coded.get(d.seq)  # encoded by the topic's format: shown as typed, not as its bytes
            value = d.value if as_typed is None else as_typed.value
            if d.error:
                log.write(Text(f"✗ {d.topic}: {d.error}  ({value[:60]})", style="red"))
            else:
                key = d.key if as_typed is None else as_typed.key
                said = (f" key={key}" if key is not None else "") + (f" headers={d.headers}" if d.headers else "")
                log.write(Text(f"✓ {d.topic}-{d.partition} @{d.offset}{said}  {value[:80]}"))
        refused = next((d for d in reversed(errors) if d.grants), None)
        if refused is not None:  # the authorizer's: the line that grants it, once per batch, and M
            said = grants_text(refused.error.partition(":")[0] if refused.error else "", refused.grants, self.app)
            log.write(Text(f"  {said}", style="bold red"))
            self._show_status(f"{len(errors)} message(s) not delivered: {said}", refused=refused.grants)
            self.post_message(GrantsMet(refused.grants))
        elif errors:
            self._show_status(f"{len(errors)} message(s) not delivered: {errors[-1].error}")
