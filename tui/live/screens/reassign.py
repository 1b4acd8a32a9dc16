"""`m` in Partitions: move the highlighted topic's replicas — to other brokers, a new replication factor — from a
proposed plan (balanced, rack-aware, the fewest replicas moved: the same proposal as `kafkatop reassign`) that the
user can edit row by row before it runs, with an optional replication throttle.

The plan is recomputed as the fields are typed; a field that cannot be used says why and keeps the last plan.
Enter on a row edits its replicas (checked as `--plan` is). `r` runs it: the screen is dismissed with the plan,
and the reassignment is followed on the timeline. Escape leaves a field, then closes."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical

from kafkatop.backends.insight.reassign_plan import check_targets, propose
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.reassignment import PartitionMove, ReassignmentPlan
from kafkatop.tui.live.screens.dialog import Dialog
from kafkatop.tui.live.text import DataTable, Input, Label, Static

KEYS = "Enter edit a row · r run · Tab next field · Esc close"


@dataclass(frozen=True)
class ReassignRequest:
    plan: ReassignmentPlan
    throttle_bytes: int | None


def _ids(ids: tuple[int, ...]) -> str:
    return ",".join(map(str, ids))


def _parse_ids(text: str, what: str) -> tuple[int, ...]:
    try:
        ids = tuple(int(x) for x in text.replace(" ", "").split(",") if x)
    except ValueError:
        raise KafkatopError(f"{what}: broker ids separated by commas, such as 1,2,3") from None
    if not ids:
        raise KafkatopError(f"{what}: at least one broker id")
    return ids


class ReassignScreen(Dialog[ReassignRequest | None]):
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("r", "run", "Run"),
    ]
    AUTO_FOCUS = "#reassign-plan"

    def __init__(self, cluster: ClusterSnapshot, topic: str) -> None:
        super().__init__(None)
        self.cluster = cluster
        self.topic = topic
        found = cluster.topic(topic)
        self.partitions = len(found.partitions) if found else 0
        self.rf = max((len(p.replicas) for p in found.partitions), default=1) if found else 1
        self.alive = tuple(sorted(b.id for b in cluster.brokers if b.alive))
        self.plan: ReassignmentPlan | None = None
        self.editing: PartitionMove | None = None
        self.problem: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="reassign-dialog"):
            yield Label(
                f"Reassign {self.topic} · {self.partitions} partition(s), replication factor {self.rf} · live brokers "
                f"{_ids(self.alive)}",
                id="reassign-title",
            )
            with Horizontal(id="reassign-fields"):
                yield Label("brokers")
                yield Input(_ids(self.alive), id="reassign-brokers")
                yield Label("replication factor")
                yield Input(str(self.rf), id="reassign-rf", classes="number")
                yield Label("throttle B/s")
                yield Input("", placeholder="none", id="reassign-throttle", classes="number")
            yield DataTable(id="reassign-plan", cursor_type="row", zebra_stripes=True)
            with Horizontal(id="reassign-edit"):
                yield Label("", id="reassign-edit-name")
                yield Input("", id="reassign-row")
            yield Static("", id="reassign-status")
            yield Static(KEYS, id="reassign-keys")

    def on_mount(self) -> None:
        table = self.query_one("#reassign-plan", DataTable)
        for column in ("partition", "replicas now", "proposed", "change"):
            table.add_column(column, key=column)
        self.query_one("#reassign-edit").display = False
        self._propose()

    # --- the plan ---------------------------------------------------------------------------------------------
    def _propose(self) -> None:
        try:
            brokers = _parse_ids(self.query_one("#reassign-brokers", Input).value, "brokers")
            rf_text = self.query_one("#reassign-rf", Input).value.strip()
            if not rf_text.isdigit():
                raise KafkatopError("replication factor: a whole number from 1")
            self.plan = propose(self.cluster, self.topic, brokers, int(rf_text))
            self.problem = None
        except KafkatopError as e:
            self.problem = str(e)  # the last good plan stays on screen
        self._show()

    def _show(self) -> None:
        table = self.query_one("#reassign-plan", DataTable)
        row = table.cursor_row
        table.clear()
        for m in self.plan.moves if self.plan else ():
            change = Text()
            if m.adding:
                change.append(f"+{_ids(m.adding)} ", style="green")
            if m.removing:
                change.append(f"-{_ids(m.removing)} ", style="red")
            if m.changed and not m.adding and not m.removing:
                change.append("new preferred leader", style="cyan")
            table.add_row(
                m.name, _ids(m.current), Text(_ids(m.target), style="bold" if m.changed else "dim"), change,
                key=m.name,
            )  # fmt: skip
        if table.row_count:
            table.move_cursor(row=min(row, table.row_count - 1))
        self._status()

    def _status(self) -> None:
        status = self.query_one("#reassign-status", Static)
        if self.problem:
            status.update(Text(self.problem, style="bold red"))
        elif self.plan is not None:
            changes = self.plan.changes
            text = (
                f"{len(changes)} of {len(self.plan.moves)} partition(s) change, {self.plan.replicas_moved} "
                "replica(s) to copy: r runs it"
                if changes
                else "nothing to move: every partition is already where this plan puts it"
            )
            status.update(Text(text))

    @on(Input.Changed, "#reassign-brokers, #reassign-rf")
    def _fields_changed(self) -> None:
        self._propose()

    @on(Input.Changed, "#reassign-throttle")
    def _throttle_changed(self) -> None:
        self.problem = None if self._throttle() is not False else "throttle: bytes per second, a whole number"
        self._status()

    def _throttle(self) -> int | None | bool:
        text = self.query_one("#reassign-throttle", Input).value.strip()
        if not text:
            return None
        return int(text) if text.isdigit() and int(text) > 0 else False

    # --- editing a row ----------------------------------------------------------------------------------------
    @on(DataTable.RowSelected, "#reassign-plan")
    def _edit(self, event: DataTable.RowSelected) -> None:
        if self.plan is None or event.row_key.value is None:
            return
        move = next((m for m in self.plan.moves if m.name == event.row_key.value), None)
        if move is None:
            return
        self.editing = move
        self.query_one("#reassign-edit").display = True
        self.query_one("#reassign-edit-name", Label).update(f"replicas of {move.name} (first: preferred leader)")
        field = self.query_one("#reassign-row", Input)
        field.value = _ids(move.target)
        self.set_focus(field)  # at once: the ids typed next are the field's

    @on(Input.Submitted, "#reassign-row")
    def _row_submitted(self, event: Input.Submitted) -> None:
        move, plan = self.editing, self.plan
        if move is None or plan is None:
            return
        try:
            target = _parse_ids(event.value, f"replicas of {move.name}")
            check_targets(self.cluster, {move.key: target})
        except KafkatopError as e:
            self.problem = str(e)  # the field keeps what was typed
            self._status()
            return
        self.plan, self.problem = plan.with_target(move.topic, move.partition, target), None
        self._leave_row()
        self._show()

    def _leave_row(self) -> None:
        self.editing = None
        self.query_one("#reassign-edit").display = False
        self.query_one("#reassign-plan", DataTable).focus()

    # --- leaving ----------------------------------------------------------------------------------------------
    def action_back(self) -> None:
        if self.editing is not None:
            self.problem = None
            self._leave_row()
            self._status()
        elif isinstance(self.focused, Input):
            self.query_one("#reassign-plan", DataTable).focus()
        else:
            self.action_cancel()

    def action_run(self) -> None:
        throttle = self._throttle()
        if self.plan is None or self.problem or throttle is False:
            self._status()
            return
        if not self.plan.changes:
            self.notify("nothing to move: every partition is already where this plan puts it", severity="warning")
            return
        self.dismiss(ReassignRequest(self.plan, throttle if isinstance(throttle, int) else None))
