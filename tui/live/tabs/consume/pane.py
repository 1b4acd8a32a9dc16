"""The consumer console: consumers started in one group (they share partitions) or each in its own (each gets
everything), as the labs' kafka-console-consumer tabs.

Pause/Resume keeps the highlighted consumer in its group, fetching nothing: its group's lag grows while its committed
offsets hold, Burrow's STALL in the Groups tab. Starts, pauses and stops are asked of the Consoles port through `ask`
(widgets/pane.py), each one carried out; what the consumers received arrives with the LiveView, one drain at a time
(`view.consoles`, taken once each, on screen or not), and at most a bounded sample of it is written per drain, so
20,000 messages a second never flood the event loop.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Checkbox

from kafkatop.backends.model.acls import Grant
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.consoles import ConsoleActivity, ConsumerView
from kafkatop.backends.ports import Consoles
from kafkatop.tui.live.granting import GrantAwaiting, GrantsMet, grants_text
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.text import DataTable, Input, Static
from kafkatop.tui.live.widgets.fields import LINES_PER_BATCH, LOG_LINES
from kafkatop.tui.live.widgets.pane import Asking, LivePane, ask
from kafkatop.tui.live.widgets.tables import KeyedTable, MessageLog
from kafkatop.tui.live.widgets.topic_input import TopicInput, split_topics


class ConsumerPane(GrantAwaiting, Asking, LivePane, Vertical):
    """Start consumers in one group (they share partitions) or each in its own (each gets everything)."""

    def __init__(self, consoles: Consoles | None, read_only_reason: str | None = None) -> None:
        super().__init__()
        self.consoles = consoles
        self.read_only_reason = read_only_reason  # a read-only context: why no consumer starts
        self.snapshot: ClusterSnapshot | None = None
        self._rows: Mapping[str, tuple[object, ...]] | None = None
        self._consumers: tuple[ConsumerView, ...] = ()  # as last drained: what Pause/Resume acts on
        self._taken: ConsoleActivity | None = None  # the last drain shown: a view carries it until the next one
        self._refusals: dict[str, str | None] = {}  # per consumer, the authorizer's refusal last written
        self._asked: list[tuple[Grant, ...]] = []  # the grants its refusals asked M for, until granted

    def compose(self) -> ComposeResult:
        with Horizontal(classes="options", id="consume-what"):
            yield TopicInput("topic(s)", several=True, id="consume-topics")
            yield Input(placeholder="group (empty: its own)", id="consume-group")
        with Horizontal(id="consume-how"):  # one row: compact, so 80×24 leaves the log room
            yield Checkbox("from beginning", True, compact=True, id="from-beginning")
            yield Button("Start", variant="primary", compact=True, id="start-consumer")
            yield Button("Pause/Resume", compact=True, id="pause-consumer")
            yield Button("Stop", compact=True, id="stop-consumer")
        yield Static("", id="consume-status", classes="status")
        yield KeyedTable(id="consumers")
        yield MessageLog(max_lines=LOG_LINES, wrap=True, id="received")  # a long message wraps, never cut

    def take(self, view: LiveView) -> None:
        if view.consoles is not None and view.consoles is not self._taken:
            self._taken = view.consoles
            self.show_drained(view.consoles)

    def draw(self, view: LiveView) -> None:
        if view.cluster is not None and view.cluster is not self.snapshot:
            self.snapshot = view.cluster
            self.query_one(TopicInput).follow(view.cluster)

    def on_mount(self) -> None:
        self.query_one("#consumers", DataTable).add_columns("consumer", "group", "state", "assignment", "received")

    def _show_status(self, message: str | None, error: bool = True) -> None:
        self.query_one("#consume-status", Static).update(Text(message or "", style="bold red" if error else "green"))

    @on(Input.Submitted, "#consume-topics, #consume-group")
    @on(Button.Pressed, "#start-consumer")
    def _start(self) -> None:
        topics = split_topics(self.query_one("#consume-topics", Input).value)
        if not topics:
            self._show_status("topic(s): pick the topic to consume (↓ lists them)")
            return
        # A topic the poll does not list is the pool's to check: the authorizer may hide it from kafkatop's user.
        consoles = self.consoles
        if consoles is None:
            self._show_status("no cluster to consume from")
            return
        if self.read_only_reason is not None:
            self._show_status(f"{self.read_only_reason}: a console consumer joins a group and commits offsets; `b` "
                              "browses a partition's records in no group")  # fmt: skip
            return
        group = self.query_one("#consume-group", Input).value.strip() or None
        from_beginning = self.query_one("#from-beginning", Checkbox).value
        joined = f"group '{group}'" if group else "a group of its own"
        self._show_status(None)
        # Not exclusive: every start asked for is a consumer started, and said so.
        ask(self, "consume", lambda _: consoles.start_consumer(topics, group, from_beginning),
            lambda name: self._show_status(f"{name} started on {', '.join(topics)}, in {joined}", False),
            self._show_status, exclusive=False)  # fmt: skip

    @on(Button.Pressed, "#stop-consumer")
    def _stop(self) -> None:
        name, consoles = self._highlighted(), self.consoles
        if name is None or consoles is None:
            self._show_status("no consumer to stop")
            return
        ask(self, "consume", lambda _: consoles.stop_consumer(name), lambda _: None, self._show_status, exclusive=False)

    @on(Button.Pressed, "#pause-consumer")
    def _pause(self) -> None:
        """The highlighted consumer stops fetching, or fetches again: in its group all along, so its group's lag grows
        while its committed offsets hold — the Groups tab's STALL, on purpose."""
        highlighted, consoles = self._highlighted(), self.consoles
        view = next((c for c in self._consumers if c.name == highlighted), None)
        if view is None or consoles is None:
            self._show_status("no consumer to pause: start one first")
            return
        name, paused = view.name, view.state != "paused"
        said = (f"{name} paused: still in group '{view.group}', holding its partitions; its lag grows, its offsets "
                "hold (Groups: STALL once the window passes)" if paused else f"{name} resumed")  # fmt: skip
        ask(self, "consume", lambda _: consoles.pause_consumer(name, paused), lambda _: self._show_status(said, False),
            self._show_status, exclusive=False)  # fmt: skip

    def _highlighted(self) -> str | None:
        table = self.query_one("#consumers", DataTable)
        if not table.row_count:
            return None
        return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    def show_drained(self, drained: ConsoleActivity) -> None:
        log = self.query_one("#received", MessageLog)
        for change in drained.changes:
            parts = ", ".join(f"{tp.topic}-{tp.partition}" for tp in change.partitions) or "nothing"
            log.add(Text(f"⟳ {change.consumer} ({change.group}) {change.kind}: {parts}", style="bold cyan"))
        received = drained.received
        shown = received[-LINES_PER_BATCH:]
        if len(received) > len(shown):
            log.add(Text(f"… {len(received) - len(shown)} more messages", style="dim"))
        for r in shown:
            key = f" key={r.key}" if r.key is not None else ""
            log.add(Text(f"{r.consumer} ← {r.topic}-{r.partition} @{r.offset}{key}  {r.value[:80]}"))
        if drained.dropped:
            log.add(Text(f"… {drained.dropped} messages not shown (arriving faster than drawn)", style="yellow"))
        self._show_consumers(drained.consumers)
        self._show_refusals(drained.consumers)

    def _show_refusals(self, consumers: tuple[ConsumerView, ...]) -> None:
        """A consumer the authorizer refuses (its group, its topic): who may not do what, the line that grants it,
        and M — once per refusal, in the log."""
        for c in consumers:
            if not c.grants or self._refusals.get(c.name) == c.error:
                continue
            self._refusals[c.name] = c.error
            said = grants_text((c.error or "").partition(":")[0], c.grants, self.app)
            self.query_one("#received", MessageLog).add(Text(f"✗ {c.name} ({c.group}): {said}", style="bold red"))
            self._asked.append(c.grants)
            self.post_message(GrantsMet(c.grants))

    def granted(self, grants: tuple[Grant, ...], said: str) -> None:
        """M granted what a consumer's refusal asked for: the log says so under the refusal."""
        if set(grants) & {g for c in self._asked for g in c}:
            self._asked.clear()
            self.query_one("#received", MessageLog).add(Text(f"✓ {said}", style="green"))

    def _show_consumers(self, consumers: tuple[ConsumerView, ...]) -> None:
        self._consumers = consumers
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
