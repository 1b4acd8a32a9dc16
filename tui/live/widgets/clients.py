"""The producer console, the consumer console and the consumer-group panel.

They replace the labs' kafka-console-producer / kafka-console-consumer tabs and `kafka-consumer-groups --describe`.
Sends, starts and stops run in thread workers; what the clients did arrives batched (ClientsDrained), and at most
a bounded sample of it is written per batch, so 20,000 messages a second never flood the event loop.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import get_args

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Checkbox, DataTable, Input, Label, RichLog, Select, Static

from kafkatop.backends.insight.history import HistorySnapshot
from kafkatop.backends.model.cluster import ClusterSnapshot, TopicPartition
from kafkatop.backends.model.consoles import (
    Acks,
    Compression,
    ConsoleActivity,
    ConsumerView,
    Delivery,
    ProducerSettings,
    ResetTarget,
)
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.ports import Consoles
from kafkatop.tui.format import sparkline
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.widgets.pane import LivePane

LINES_PER_BATCH = 60  # messages written per drain; the rest are counted, not drawn
LOG_LINES = 300  # scrollback per console; each line holds render caches the garbage collector walks


MAX_TEST_MESSAGES = 100_000  # one click; more would hold the producer for minutes


def _error_text(e: BaseException) -> str:
    return str(e) if isinstance(e, KafkatopError) else f"{type(e).__name__}: {e}"


def _choice(value: object, allowed: tuple[str, ...], what: str) -> str:
    """A Select's value, checked against what the model accepts (a Select only offers those)."""
    text = str(value)
    if text not in allowed:
        raise KafkatopError(f"{what}: {text!r} is not one of {', '.join(allowed)}")
    return text


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


class ConsumerPanel(Vertical):
    """Start consumers in one group (they share partitions) or each in its own (each gets everything)."""

    def __init__(self, hub: Consoles | None) -> None:
        super().__init__()
        self.hub = hub
        self._rows: Mapping[str, tuple[object, ...]] | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(classes="options"):
            yield Input(placeholder="topic(s)", id="consume-topics", classes="topic")
            yield Input(placeholder="group (empty: its own)", id="consume-group", classes="topic")
            yield Checkbox("from beginning", True, id="from-beginning")
            yield Button("Start", variant="primary", id="start-consumer")
            yield Button("Stop", id="stop-consumer")
        yield Static("", id="consume-error", classes="error")
        yield DataTable(id="consumers", cursor_type="row")
        yield RichLog(max_lines=LOG_LINES, id="received")

    def on_mount(self) -> None:
        self.query_one("#consumers", DataTable).add_columns("consumer", "group", "state", "assignment", "received")

    def _show_error(self, message: str | None) -> None:
        self.query_one("#consume-error", Static).update(Text(message or "", style="bold red"))

    @on(Button.Pressed, "#start-consumer")
    def _start(self) -> None:
        topics = [t for t in self.query_one("#consume-topics", Input).value.replace(",", " ").split() if t]
        if not topics:
            self._show_error("topic(s): type the topic to consume")
            return
        if self.hub is None:
            self._show_error("no cluster to consume from")
            return
        group = self.query_one("#consume-group", Input).value.strip() or None
        self._show_error(None)
        self._start_worker(self.hub, topics, group, self.query_one("#from-beginning", Checkbox).value)

    @work(thread=True, group="consume", exit_on_error=False)
    def _start_worker(self, hub: Consoles, topics: list[str], group: str | None, from_beginning: bool) -> None:
        try:
            hub.start_consumer(topics, group, from_beginning)
        except Exception as e:  # noqa: BLE001
            self.app.call_from_thread(self._show_error, _error_text(e))

    @on(Button.Pressed, "#stop-consumer")
    def _stop(self) -> None:
        table = self.query_one("#consumers", DataTable)
        if not table.row_count or self.hub is None:
            self._show_error("no consumer to stop")
            return
        name = str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        self._stop_worker(self.hub, name)

    @work(thread=True, group="consume", exit_on_error=False)
    def _stop_worker(self, hub: Consoles, name: str) -> None:
        try:
            hub.stop_consumer(name)
        except Exception as e:  # noqa: BLE001
            self.app.call_from_thread(self._show_error, _error_text(e))

    def show_drained(self, drained: ConsoleActivity) -> None:
        log = self.query_one("#received", RichLog)
        for change in drained.changes:
            parts = ", ".join(f"{tp.topic}-{tp.partition}" for tp in change.partitions) or "nothing"
            log.write(Text(f"⟳ {change.consumer} ({change.group}) {change.kind}: {parts}", style="bold cyan"))
        received = drained.received
        shown = received[-LINES_PER_BATCH:]
        if len(received) > len(shown):
            log.write(Text(f"… {len(received) - len(shown)} more messages", style="dim"))
        for r in shown:
            key = f" key={r.key}" if r.key is not None else ""
            log.write(Text(f"{r.consumer} ← {r.topic}-{r.partition} @{r.offset}{key}  {r.value[:80]}"))
        if drained.dropped:
            log.write(Text(f"… {drained.dropped} messages not shown (arriving faster than drawn)", style="yellow"))
        self._show_consumers(drained.consumers)

    def _show_consumers(self, consumers: tuple[ConsumerView, ...]) -> None:
        table = self.query_one("#consumers", DataTable)
        rows = {
            c.name: (
                c.name,
                c.group,
                Text(c.state, style="green" if c.state == "consuming" else "red" if c.state == "failed" else "yellow"),
                ", ".join(f"{tp.topic}-{tp.partition}" for tp in c.assignment) or "-",
                str(c.received),
            )
            for c in consumers
        }
        if self._rows == rows:
            return
        self._rows = rows
        selected = table.cursor_row
        table.clear()
        for name, row in rows.items():
            table.add_row(*row, key=name)
        if rows:
            table.move_cursor(row=min(selected, len(rows) - 1))


class GroupsPanel(LivePane, Vertical):
    """Consumer groups as the cluster reports them: state, members and their assignment, committed offsets, lag."""

    def __init__(self, hub: Consoles | None) -> None:
        super().__init__()
        self.hub = hub
        self.snapshot: ClusterSnapshot | None = None
        self._rows: Mapping[str, tuple[object, ...]] | None = None
        self._offset_rows: list[tuple[str, str, str, str, str, str]] | None = None

    def draw(self, view: LiveView) -> None:
        if view.cluster is not None:
            self.show_groups(view.cluster, view.history)

    def compose(self) -> ComposeResult:
        yield DataTable(id="groups", cursor_type="row")
        yield DataTable(id="group-offsets", cursor_type="row")
        with Horizontal(classes="options"):
            yield Label("reset offsets of the highlighted group to")
            yield Select(
                [("earliest", "earliest"), ("latest", "latest"), ("offset", "offset"), ("timestamp (ms)", "timestamp")],
                value="earliest", allow_blank=False, id="reset-to",
            )  # fmt: skip
            yield Input(placeholder="value", id="reset-value", classes="short")
            yield Button("Reset", id="reset-offsets")
        yield Static("", id="group-error", classes="error")

    def on_mount(self) -> None:
        self.query_one("#groups", DataTable).add_columns("group", "state", "protocol", "members", "lag", "lag history")
        self.query_one("#group-offsets", DataTable).add_columns(
            "partition", "member", "host", "committed", "end", "lag"
        )

    @property
    def selected_group(self) -> str | None:
        table = self.query_one("#groups", DataTable)
        if not table.row_count:
            return None
        return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    def show_groups(self, snapshot: ClusterSnapshot, history: HistorySnapshot | None = None) -> None:
        """`history` adds each group's lag over the last polls."""
        self.snapshot = snapshot
        table = self.query_one("#groups", DataTable)
        selected = self.selected_group
        rows = {
            g.group_id: (
                g.group_id,
                Text(g.state.value, style="green" if g.state.value == "Stable" else "yellow"),
                g.protocol,
                str(len(g.members)),
                "-" if g.total_lag is None else str(g.total_lag),
                Text(sparkline(history.group_lag(g.group_id), 16) if history is not None else "", style="yellow"),
            )
            for g in snapshot.groups
        }
        if self._rows != rows:
            self._rows = rows
            table.clear()
            for gid, row in rows.items():
                table.add_row(*row, key=gid)
            if selected in rows:
                table.move_cursor(row=list(rows).index(selected))
        self._show_offsets()

    @on(DataTable.RowHighlighted, "#groups")
    def _group_highlighted(self) -> None:
        self._show_offsets()

    def _show_offsets(self) -> None:
        table = self.query_one("#group-offsets", DataTable)
        gid = self.selected_group
        group = next((g for g in self.snapshot.groups if g.group_id == gid), None) if self.snapshot else None
        rows = []
        if group is not None:
            owner = {tp: m for m in group.members for tp in m.assignment}
            members = {m.member_id: m for m in group.members}
            for o in group.offsets:
                tp = TopicPartition(o.topic, o.partition)
                member = members.get(o.member_id) if o.member_id else owner.get(tp)
                rows.append((
                    str(tp),
                    member.client_id if member else "-",
                    member.host if member else "-",
                    "-" if o.committed is None else str(o.committed),
                    "-" if o.high_watermark is None else str(o.high_watermark),
                    "-" if o.lag is None else str(o.lag),
                ))  # fmt: skip
        if rows == self._offset_rows:
            return  # rebuilding a table re-lays out the screen: only when something changed
        self._offset_rows = rows
        table.clear()
        for row in rows:
            table.add_row(*row)

    @on(Button.Pressed, "#reset-offsets")
    def _reset(self) -> None:
        gid = self.selected_group
        error = self.query_one("#group-error", Static)
        if gid is None or self.hub is None:
            error.update(Text("highlight a group first", style="bold red"))
            return
        to = _choice(self.query_one("#reset-to", Select).value, get_args(ResetTarget), "reset to")
        raw = self.query_one("#reset-value", Input).value.strip()
        value: int | None = None
        if to in ("offset", "timestamp"):
            if not raw.isdigit():  # offsets and timestamps (ms since the epoch) are 0 or more
                error.update(Text(f"value: {to} needs a whole number, 0 or more; got {raw!r}", style="bold red"))
                return
            value = int(raw)
        group = next((g for g in self.snapshot.groups if g.group_id == gid), None) if self.snapshot else None
        topics = list(group.topics) if group else []
        if not topics:
            error.update(Text(f"group {gid!r} has no committed offsets to reset", style="bold red"))
            return
        error.update("")
        self._reset_worker(self.hub, gid, topics, to, value)  # type: ignore[arg-type]  # one of ResetTarget

    @work(thread=True, group="reset", exit_on_error=False)
    def _reset_worker(self, hub: Consoles, group: str, topics: list[str], to: ResetTarget, value: int | None) -> None:
        try:
            for topic in topics:
                hub.reset_offsets(group, topic, to, value)
            message, style = f"offsets of {group} reset to {to}{'' if value is None else f' {value}'}", "green"
        except Exception as e:  # noqa: BLE001
            message, style = _error_text(e), "bold red"
        self.app.call_from_thread(self.query_one("#group-error", Static).update, Text(message, style=style))
