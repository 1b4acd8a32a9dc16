"""The failover timeline: each incident (a kill -9, a controlled stop, a start, a broker lost) with its steps and the
time between them, and the latest kill -9 beside the latest controlled shutdown, milestone by milestone.

After kill -9 in ZooKeeper mode the broker stays registered until its ZooKeeper session expires, and in KRaft until
its broker session times out; after a controlled shutdown, leaders move before the process exits. The comparison
shows both as numbers."""

from __future__ import annotations

from datetime import UTC, datetime

from rich import box
from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll

from kafkatop.backends.insight.timeline.model import EventKind, Incident, TimelineSnapshot, Trigger
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.text import DataTable, Static, Table, shown
from kafkatop.tui.live.widgets.pane import LivePane
from kafkatop.tui.live.widgets.tables import KeyedTable

# The milestones a failover goes through, in the order they usually happen, as the comparison lists them.
MILESTONES: tuple[tuple[EventKind, str], ...] = (
    (EventKind.PROCESS_GONE, "process gone"),
    (EventKind.BROKER_DEREGISTERED, "broker deregistered (ZooKeeper)"),
    (EventKind.BROKER_FENCED, "broker fenced (KRaft)"),
    (EventKind.BROKER_LEFT, "broker left the metadata"),
    (EventKind.CONTROLLER_CHANGED, "controller changed"),
    (EventKind.QUORUM_LEADER_CHANGED, "quorum leader changed"),
    (EventKind.LEADER_CHANGED, "first leader moved"),
    (EventKind.ISR_SHRUNK, "first ISR shrunk"),
    (EventKind.PARTITION_OFFLINE, "a partition offline"),
    (EventKind.PRODUCER_ERROR, "first producer error"),
    (EventKind.PROCESS_STARTED, "process started"),
    (EventKind.BROKER_REGISTERED, "broker registered"),
    (EventKind.ISR_EXPANDED, "first ISR expanded"),
    (EventKind.RECOVERED, "recovered: every ISR full"),
)
KIND_STYLE = {
    EventKind.ACTION: "bold",
    EventKind.PROCESS_GONE: "bold red",
    EventKind.BROKER_DEREGISTERED: "red",
    EventKind.BROKER_FENCED: "red",
    EventKind.BROKER_LEFT: "red",
    EventKind.PARTITION_OFFLINE: "bold red",
    EventKind.ISR_SHRUNK: "yellow",
    EventKind.PRODUCER_ERROR: "magenta",
    EventKind.CONSUMER_ERROR: "magenta",
    EventKind.RECOVERED: "bold green",
    EventKind.ISR_EXPANDED: "green",
    EventKind.PROCESS_STARTED: "green",
    EventKind.BROKER_REGISTERED: "green",
    EventKind.OPERATION: "bold cyan",
    EventKind.WORKER_LOST: "bold red",
    EventKind.WORKER_BACK: "green",
    EventKind.TASKS_WAITING: "yellow",
    EventKind.TASK_MOVED: "green",
    EventKind.TASK_STATE: "yellow",
    EventKind.CONNECTOR_CHANGED: "cyan",
    EventKind.GROUP_STATUS: "yellow",
}


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:6.2f} s"


def _clock(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%H:%M:%S")


def comparison(kill: Incident | None, stop: Incident | None) -> Table:
    """Milestones of the latest kill -9 and the latest controlled shutdown, in seconds after each began."""
    table = Table(
        title="kill -9 vs controlled shutdown (seconds after the signal)", title_justify="left", expand=True,
        box=box.SIMPLE_HEAD,
    )  # fmt: skip
    table.add_column("milestone")
    table.add_column(kill.title if kill else "kill -9: none yet (K)", justify="right")
    table.add_column(stop.title if stop else "controlled shutdown: none yet (t)", justify="right")
    for kind, label in MILESTONES:
        a = kill.after_s(kind) if kill else None
        b = stop.after_s(kind) if stop else None
        if a is None and b is None:
            continue
        table.add_row(label, _s(a), _s(b))
    return table


class TimelinePane(LivePane, Vertical):
    """Incidents (newest first) on the left, the highlighted incident's steps on the right, the comparison below."""

    def __init__(self) -> None:
        super().__init__()
        self.timeline: TimelineSnapshot | None = None
        self._revision = -1
        self._selected: int | None = None  # incident number
        self._comparison: Table | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="timeline-top"):
            yield KeyedTable(id="incidents")
            with VerticalScroll(id="incident-steps-box"):
                yield Static("no incident yet: kill -9 (K), stop (t) or start (s) a node, or let one fail", id="steps")
        yield Static("", id="comparison")

    def on_mount(self) -> None:
        table = self.query_one("#incidents", DataTable)
        for column in ("#", "incident", "at", "steps", "recovered after"):
            table.add_column(column, key=column)

    def draw(self, view: LiveView) -> None:
        self.show(view.timeline)

    def show(self, timeline: TimelineSnapshot | None) -> None:
        if timeline is None or timeline.revision == self._revision:
            return
        self.timeline, self._revision = timeline, timeline.revision
        table = self.query_one("#incidents", DataTable)
        selected = self._selected
        table.clear()
        for incident in reversed(timeline.incidents):
            if incident.open:
                recovered, style = "in progress", "yellow"
            elif incident.operation and incident.ended_at is not None:
                recovered, style = f"done, {incident.ended_at - incident.started_at:.2f} s", "cyan"
            elif incident.recovered:
                recovered, style = _s(incident.recovered_after_s).strip(), "green"
            else:
                recovered, style = "not recovered", "dim"
            table.add_row(
                str(incident.number),
                shown(incident.title, style="bold" if incident.announced else ""),  # it may name a group
                _clock(incident.started_at),
                str(len(incident.steps) + incident.omitted_steps),
                Text(recovered, style=style),
                key=str(incident.number),
            )
        if timeline.incidents:
            numbers = [i.number for i in timeline.incidents]
            keep = selected if selected in numbers else numbers[-1]
            table.move_cursor(row=list(reversed(numbers)).index(keep))
            self._show_steps(keep)
        kill = next((i for i in reversed(timeline.incidents) if i.trigger is Trigger.KILL), None)
        stop = next((i for i in reversed(timeline.incidents) if i.trigger is Trigger.STOP), None)
        self._comparison = comparison(kill, stop) if kill or stop else None
        self.query_one("#comparison", Static).update(self._comparison or "")
        if self._selected is not None or timeline.incidents:
            self._show_steps(self._selected if self._selected is not None else timeline.incidents[-1].number)

    def on_resize(self) -> None:
        if self._selected is not None:
            self._show_steps(self._selected)

    @on(DataTable.RowHighlighted, "#incidents")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is not None:
            self._selected = int(event.row_key.value)
            self._show_steps(self._selected)

    def _show_steps(self, number: int) -> None:
        incident = next((i for i in self.timeline.incidents if i.number == number), None) if self.timeline else None
        if incident is None:
            return
        text = Text()
        text.append(f"{incident.title} at {_clock(incident.started_at)} UTC\n", style="bold")
        text.append("   after    step\n", style="dim")
        for step in incident.steps:
            e = step.event
            since = f"+{step.since_start_s:6.2f} s"
            delta = f"(Δ {step.since_previous_s:5.2f})" if step.since_previous_s else " " * 10
            text.append(f"{since} {delta}  ")
            text.append(e.kind.value.replace("_", " ").lower(), style=KIND_STYLE.get(e.kind, ""))
            text.append(f"  {e.text}")
            if e.leader_epoch is not None and "epoch" not in e.text:
                text.append(f"  (leader epoch {e.leader_epoch})", style="dim")
            if e.count > 1:
                text.append(f"  ×{e.count}", style="dim")
            text.append("\n")
        if incident.omitted_steps:
            text.append(f"… {incident.omitted_steps} more steps not kept\n", style="dim")
        # A short terminal has no room for the comparison below: it follows the steps, in their scrolling box.
        below = self._comparison if self.screen.has_class("-short") else None
        self.query_one("#steps", Static).update(Group(text, below) if below is not None else text)

    def selected_incident(self) -> int | None:
        return self._selected
