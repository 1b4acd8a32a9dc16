"""The Connect tab: Kafka Connect's connectors (source or sink, plugin, state, worker, tasks running and failed,
topics), the highlighted connector's tasks with the worker each runs on (Enter: a failed one's trace), and the
workers asked — or why there is nothing to show: the demo has no Connect, a lab without workers says how to add one,
workers that do not answer are named. Its keys (keymap.py, section Connect) act on the highlighted connector
(tabs/connect/keys.py)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical

from kafkatop.backends.insight.timeline.connect import worker_key
from kafkatop.backends.model.connect import Connector, ConnectSnapshot
from kafkatop.tui.live.action import Launch
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.text import Static
from kafkatop.tui.live.widgets.line_table import LineCells, LineTable
from kafkatop.tui.live.widgets.pane import LivePane

CONNECTOR_COLUMNS = ("connector", "type", "class", "state", "worker", "tasks", "failed", "topics")
DROPPED_FIRST = ("worker", "topics", "class", "type")  # what a narrow terminal leaves out first
TASK_COLUMNS = ("task", "state", "worker", "trace")
CONNECTOR_ROW = "connector"  # the tasks table's first row: the connector itself
STATE_STYLE = {
    "RUNNING": "green",
    "PAUSED": "yellow",
    "STOPPED": "yellow",
    "FAILED": "bold red",
    "UNASSIGNED": "magenta",
    "RESTARTING": "cyan",
    "DESTROYED": "dim",
}
NO_DEMO = "the demo has no Kafka Connect (no emulation): start a lab with `kafkatop up --connect 2`"
NO_WORKERS = (
    "this lab has no Kafka Connect workers: add one with `kafkatop add-connect`, or start the lab with "
    "`kafkatop up --connect N` (connect = N in kafkatop.toml)"
)


def no_workers(lab_flags: str = "") -> str:
    """NO_WORKERS, its commands with the lab's --name and --state-dir where they are not the default."""
    if not lab_flags:
        return NO_WORKERS
    return (f"this lab has no Kafka Connect workers: add one with `kafkatop add-connect {lab_flags}`, or start the "
            f"lab with `kafkatop up --connect N {lab_flags}` (connect = N in kafkatop.toml)")  # fmt: skip


NO_SOURCE = "no Kafka Connect here: give its workers with --connect-url URL (or connect_url in the context)"
KEYS = "Enter: tasks, a trace · A add · Z pause · U resume · S stop · B restart · D delete · O offsets · L plugins"


def state_text(state: str) -> Text:
    return Text(state, style=STATE_STYLE.get(state, ""))


def first_line(trace: str | None) -> str:
    return trace.strip().splitlines()[0] if trace and trace.strip() else ""


def trace_text(trace: str) -> Text:
    """A Java stack trace: its frames indented, the exceptions in bold."""
    text = Text()
    for line in trace.expandtabs(2).splitlines():
        text.append(line + "\n", style="" if line.startswith("  at ") else "bold")
    return text


def connector_row(c: Connector) -> LineCells:
    failed = c.failed
    state = state_text(c.state)
    if c.waiting_for is not None:  # RUNNING, and its task waits for its file (its tasks' row says which)
        state.append(" waiting for its file", style="yellow")
    return (
        c.name,
        c.type,
        c.class_name.rpartition(".")[2],
        state,
        c.worker_id or "-",
        f"{c.running}/{len(c.tasks)}",
        Text(str(failed), style="bold red") if failed else "0",
        ",".join(c.topics) or "-",
    )


def task_rows(c: Connector) -> dict[str, LineCells]:
    # The connector's own row is named: which connector these tasks are of, whatever the table above highlights.
    waiting = Text(c.waiting, style="yellow") if c.waiting else None  # the path as text: the table escapes it
    rows: dict[str, LineCells] = {CONNECTOR_ROW: (c.name, state_text(c.state), c.worker_id or "-",
                                                  waiting or first_line(c.trace))}  # fmt: skip
    for t in c.tasks:
        said = first_line(t.trace) or (waiting if waiting is not None and t.state == "RUNNING" else "")
        rows[str(t.task)] = (f"task {t.task}", state_text(t.state), t.worker_id or "-", said)
    return rows


def workers_text(snapshot: ConnectSnapshot, cluster_id: str | None = None) -> Text:
    """Each worker asked: its version and how many tasks it runs, or why it did not answer; when none answered, that
    (naming each), and the time of the connectors still shown."""
    if snapshot.problem is not None:
        at = datetime.fromtimestamp(snapshot.taken_at, UTC).strftime("%H:%M:%S")
        kept = f"; the connectors below as read at {at}" if snapshot.connectors else ""
        return Text(f"{snapshot.problem}{kept}", style="bold red")
    text = Text("workers ", style="bold")
    for i, w in enumerate(snapshot.workers):
        key = worker_key(w.url)
        text.append(" · " if i else "")
        if w in snapshot.foreign(cluster_id):
            text.append(key, style="bold red")
            text.append(f" is Kafka Connect of cluster {w.kafka_cluster_id}, not this one: not acted on", style="red")
        elif w.reachable:
            text.append(key, style="green")
            tasks = snapshot.tasks_on(key)
            text.append(f" {w.version or '?'}, {tasks} task{'s' * (tasks != 1)}")
        else:
            text.append(key, style="bold red")
            text.append(f" {w.problem}", style="red")
    return text


class TaskTable(LineTable):
    """The highlighted connector's tasks; Escape goes back to the connectors (the footer says so)."""

    BINDINGS = [Binding("escape", "back", "Back to connectors")]

    def action_back(self) -> None:
        self.screen.set_focus(self.screen.query_one("#connectors", LineTable))


class ConnectPane(LivePane, Vertical):
    """Connectors, the highlighted one's tasks, and the workers; see the module's docstring."""

    def __init__(self, launch: Launch, has_source: bool, lab_flags: str = "") -> None:
        super().__init__()
        self.launch = launch
        self.lab_flags = lab_flags  # the lab's --name and --state-dir, where not the default
        self.has_source = has_source  # a ConnectCluster was given (live), or a replay recorded one
        self.snapshot: ConnectSnapshot | None = None
        self._rows: Mapping[str, LineCells] | None = None
        self._task_rows: Mapping[str, LineCells] | None = None
        self._said: Text | None = None  # the workers line shown, and how many lines it took
        self._said_lines: int | None = None

    def compose(self) -> ComposeResult:
        yield Static(self.missing, id="connect-workers")
        yield LineTable(CONNECTOR_COLUMNS, dropped_first=DROPPED_FIRST, id="connectors")
        yield TaskTable(TASK_COLUMNS, filterable=False, uncut=("trace",), id="connect-tasks")
        yield Static(Text(KEYS, style="dim"), id="connect-keys")

    def on_mount(self) -> None:
        for part in ("#connectors", "#connect-tasks", "#connect-keys"):
            self.query_one(part).display = self.has_source  # without a source: only what to do about it

    @property
    def missing(self) -> Text:
        """What the tab says before the first poll: asking, or why there is no Connect to ask."""
        if self.has_source:
            return Text("asking the Connect workers …", style="dim")
        return Text(
            NO_DEMO if self.launch == "demo" else no_workers(self.lab_flags) if self.launch == "lab" else NO_SOURCE,
            style="yellow",
        )

    @property
    def selected_connector(self) -> Connector | None:
        name = self.query_one("#connectors", LineTable).selected_key
        return self.snapshot.connector(name) if self.snapshot is not None and name is not None else None

    @property
    def selected_task(self) -> str | None:
        """The tasks table's highlighted row: a task's number, or CONNECTOR_ROW."""
        return self.query_one("#connect-tasks", LineTable).selected_key

    def draw(self, view: LiveView) -> None:
        snapshot = view.connect
        line = self.query_one("#connect-workers", Static)
        if snapshot is None:
            line.update(Text(view.connect_problem, style="bold red") if view.connect_problem else self.missing)
            return
        said = workers_text(snapshot, view.cluster.cluster_id if view.cluster is not None else None)
        if view.connect_problem:
            said.append(f"\n{view.connect_problem}", style="bold red")
        if said != self._said:
            # Laid out again (the whole screen is) only when its height changes: a frame, not two, per poll.
            width = line.content_region.width
            lines = len(said.wrap(self.app.console, width)) if width > 0 else None
            line.update(said, layout=lines is None or lines != self._said_lines)
            self._said, self._said_lines = said, lines
        if snapshot is self.snapshot:
            return
        self.snapshot = snapshot
        rows = {c.name: connector_row(c) for c in snapshot.connectors}
        if rows != self._rows:
            self._rows = rows
            self.query_one("#connectors", LineTable).set_rows(rows)  # the highlighted one stays; `/` keeps its filter
        self._show_tasks()

    @on(LineTable.Highlighted, "#connectors")
    def _connector_highlighted(self) -> None:
        self._show_tasks()

    def _show_tasks(self) -> None:
        c = self.selected_connector
        rows = task_rows(c) if c is not None else {}
        if rows != self._task_rows:
            self._task_rows = rows
            self.query_one("#connect-tasks", LineTable).set_rows(rows)

    @on(LineTable.Chosen, "#connectors")
    def _connector_chosen(self) -> None:
        """Enter on a connector: its tasks, the first failed one highlighted."""
        c, tasks = self.selected_connector, self.query_one("#connect-tasks", LineTable)
        failed = next((str(t.task) for t in c.tasks if t.state == "FAILED"), None) if c is not None else None
        tasks.focus()
        tasks.move_to(failed or (str(c.tasks[0].task) if c is not None and c.tasks else CONNECTOR_ROW))

    @on(LineTable.Chosen, "#connect-tasks")
    def _task_chosen(self) -> None:
        """Enter on a task (or the connector's row): its trace, scrollable."""
        c, key = self.selected_connector, self.selected_task
        if c is None or key is None:
            return
        task = None if key == CONNECTOR_ROW else next((t for t in c.tasks if str(t.task) == key), None)
        trace, state = (c.trace, c.state) if task is None else (task.trace, task.state)
        what = f"{c.name}" if task is None else f"{c.name} task {task.task}"
        if not trace:
            said = c.waiting if c.waiting and state == "RUNNING" else "no trace (a FAILED one has its Java stack trace)"
            self.notify(f"{what} is {state}: {said}", timeout=4)
            return
        from kafkatop.tui.live.screens.record import RecordScreen

        self.app.push_screen(RecordScreen(trace_text(trace), f"{what}: {state} — Escape closes", word_wrap=False))
