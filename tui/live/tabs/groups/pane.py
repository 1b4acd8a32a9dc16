"""The consumer-group panel: `kafka-consumer-groups --describe` live, and its offset resets — previewed per partition
first (`--dry-run`, in tabs/groups/reset_offsets.py), executed once confirmed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import get_args

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button

from kafkatop.backends.insight.group_lines import epochs_text
from kafkatop.backends.insight.history import HistorySnapshot, Metric
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.groups import ConsumerGroup
from kafkatop.backends.model.lag import LagSnapshot, LagStatus
from kafkatop.backends.model.resets import ResetPlan, ResetTarget, parse_reset_value
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.ports import Consoles
from kafkatop.tui.format import human_duration, sparkline
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.tabs.groups.reset_offsets import ResetPreviewScreen, reset_summary
from kafkatop.tui.live.text import Input, Label, Select, Static
from kafkatop.tui.live.widgets.fields import choice as _choice
from kafkatop.tui.live.widgets.line_table import LineCells, LineTable
from kafkatop.tui.live.widgets.pane import Asking, LivePane, ask

GROUP_COLUMNS = ("group", "state", "type", "members", "lag", "lag time", "status", "lag history")
OFFSET_COLUMNS = ("partition", "member", "host", "committed", "end", "lag", "lag time", "status")
STATUS_STYLES = {
    LagStatus.OK: "green", LagStatus.WARN: "yellow", LagStatus.REWIND: "magenta", LagStatus.STALL: "bold red",
    LagStatus.STOP: "bold red", LagStatus.ERR: "bold red reverse",
}  # fmt: skip
HOW = "lag time from the polls' high watermarks"
BEFORE = ", ≥: written before the first poll (u reads it)"
EXACT = "lag time read from the records themselves"

# The reset targets offered, as kafka-consumer-groups' options, and what the value field then takes.
RESET_CHOICES: dict[str, tuple[str, str]] = {
    "earliest": ("to-earliest", "(no value: the log start)"),
    "latest": ("to-latest", "(no value: the log end)"),
    "current": ("to-current", "(no value: the committed offset)"),
    "offset": ("to-offset", "offset, e.g. 120"),
    "shift": ("shift-by", "±N from the committed offset, e.g. -10"),
    "timestamp": ("to-datetime", "2026-01-31T09:00 (UTC) or epoch ms"),
    "duration": ("by-duration", "back from now, ISO-8601: PT30M, P1DT12H"),
}


def lag_time(seconds: float | None, at_least: bool) -> str:
    return "-" if seconds is None else ("≥" if at_least else "") + human_duration(seconds)


def group_kind(g: ConsumerGroup) -> str:
    """Its type, and its protocol type where that is not a consumer's: "classic (connect)", a Kafka Connect
    worker's group (kafka-consumer-groups.sh --list's TYPE and PROTOCOL)."""
    protocol = g.protocol_type
    return g.group_type if protocol in ("consumer", "simple", "", g.group_type) else f"{g.group_type} ({protocol})"


# A group's row, and what it shows: the group, its lag's time and status, its lag's samples.
_Made = tuple[ConsumerGroup, str, LagStatus | None, tuple[float, ...], LineCells]


def _group_row(
    g: ConsumerGroup, behind: str, status: LagStatus | None, samples: tuple[float, ...], trend: bool
) -> LineCells:
    return (
        g.group_id,
        Text(g.state.value, style="green" if g.state.value == "Stable" else "yellow"),
        group_kind(g),
        str(len(g.members)),
        "-" if g.total_lag is None else str(g.total_lag),
        behind,
        "-" if status is None else Text(status.value, style=STATUS_STYLES[status]),
        Text(sparkline(samples, 16) if trend else "", style="yellow"),
    )


class GroupsPane(Asking, LivePane, Vertical):
    """Consumer groups as the cluster reports them: state, members and their assignment, committed offsets, lag."""

    def __init__(
        self, consoles: Consoles | None, read_only_reason: str | None = None, typed: str | None = None
    ) -> None:
        super().__init__()
        self.consoles = consoles
        self.read_only_reason = read_only_reason  # a read-only context: why no offset is reset
        self.typed = typed  # on a cluster not kafkatop's: the name typed to confirm a reset
        self.snapshot: ClusterSnapshot | None = None
        self._rows: Mapping[str, LineCells] | None = None
        # Each group's row with what it was made from (the group, its lag's time and status, its lag's samples):
        # kept while those are the same, so a poll of 2,200 groups remakes the rows of the groups that moved.
        self._made: dict[str, _Made] = {}
        self._offset_rows: dict[str, LineCells] | None = None
        self._note: str | None = None  # what the group note says
        self.lag: LagSnapshot | None = None

    def draw(self, view: LiveView) -> None:
        if view.cluster is not None:
            self.show_groups(view.cluster, view.history, view.lag)

    def compose(self) -> ComposeResult:
        groups = LineTable(GROUP_COLUMNS, id="groups", dropped_first=("lag history", "type", "members"))
        # `o` on status: the worst first, then the oldest unread record; on lag time: the oldest first
        groups.order_keys = {GROUP_COLUMNS.index("status"): self._worst_first,
                             GROUP_COLUMNS.index("lag time"): self._oldest_first}  # fmt: skip
        yield groups
        yield Static("", id="group-note")  # where the group's members come from, when not from this poll
        yield LineTable(OFFSET_COLUMNS, id="group-offsets", filterable=False, dropped_first=("host", "member"))
        with Horizontal(classes="options", id="reset-row"):
            yield Label("reset to")
            yield Select([(label, to) for to, (label, _) in RESET_CHOICES.items()], value="earliest",
                         allow_blank=False, id="reset-to")  # fmt: skip
            yield Input(placeholder=RESET_CHOICES["earliest"][1], id="reset-value", disabled=True)
            yield Button("Reset…", id="reset-offsets", tooltip="preview the reset, then confirm it")
        yield Static("", id="group-status", classes="status")

    @property
    def selected_group(self) -> str | None:
        return self.query_one("#groups", LineTable).selected_key

    def show_groups(
        self, snapshot: ClusterSnapshot, history: HistorySnapshot | None = None, lag: LagSnapshot | None = None
    ) -> None:
        """`history` adds each group's lag over the last polls; `lag` its lag in time and status."""
        self.snapshot, self.lag = snapshot, lag
        table = self.query_one("#groups", LineTable)
        judged = {g.group_id: g for g in lag.groups} if lag is not None else {}
        now = lag.taken_at if lag is not None else 0.0
        lags = history.by_key(Metric.GROUP_LAG) if history is not None else {}
        rows: dict[str, LineCells] = {}
        made: dict[str, _Made] = {}
        last = self._made
        for g in snapshot.groups:
            gid = g.group_id
            j = judged.get(gid)
            behind = "-" if j is None else lag_time(j.lag_seconds(now), j.at_least)
            status = None if j is None else j.status
            series = lags.get(gid)
            samples = series.values[-16:] if series is not None else ()
            known = last.get(gid)
            if known is None or (known[0], known[1], known[2]) != (g, behind, status) or known[3] != samples:
                known = (g, behind, status, samples, _group_row(g, behind, status, samples, history is not None))
            made[gid] = known
            rows[gid] = known[4]
        self._made = made
        if self._rows != rows:
            self._rows = rows
            table.set_rows(rows)  # the highlighted group stays highlighted; `/` keeps its filter
        self._show_offsets()

    @on(LineTable.Highlighted, "#groups")
    def _group_highlighted(self) -> None:
        self._show_offsets()

    def _show_offsets(self) -> None:
        table = self.query_one("#group-offsets", LineTable)
        gid = self.selected_group
        group = next((g for g in self.snapshot.groups if g.group_id == gid), None) if self.snapshot else None
        note = self.query_one("#group-note", Static)
        judged = self.lag.group(gid) if self.lag is not None and gid is not None else None
        how = None
        if judged is not None:
            behind = [p for p in judged.partitions if p.lag]
            if behind and all(p.exact for p in behind):
                how = f"{judged.status}: {judged.why} · {EXACT}"
            else:
                bound = any(p.at_least for p in behind)
                how = f"{judged.status}: {judged.why} · {HOW}{BEFORE if bound else ''}"
        said = None if group is None else "\n".join(t for t in (group.note, epochs_text(group), how) if t)
        note.display = bool(said)
        if said and said != self._note:  # an update lays the screen out again: only when it says something new
            note.update(Text(said, style="dim"))
        self._note = said
        rows: dict[str, LineCells] = {}
        if group is not None:
            owner = {tp: m for m in group.members for tp in m.assignment}
            members = {m.member_id: m for m in group.members}
            parts = {(p.topic, p.partition): p for p in judged.partitions} if judged is not None else {}
            now = self.lag.taken_at if self.lag is not None else 0.0
            for o in group.offsets:
                tp = TopicPartition(o.topic, o.partition)
                member = members.get(o.member_id) if o.member_id else owner.get(tp)
                p = parts.get((o.topic, o.partition))
                rows[str(tp)] = (
                    str(tp),
                    member.client_id if member else "-",
                    member.host if member else "-",
                    "-" if o.committed is None else str(o.committed),
                    "-" if o.high_watermark is None else str(o.high_watermark),
                    "-" if o.lag is None else str(o.lag),
                    "-" if p is None else lag_time(p.lag_seconds(now), p.at_least),
                    "-" if p is None else Text(p.status.value, style=STATUS_STYLES[p.status]),
                )
        if rows == self._offset_rows:
            return
        self._offset_rows = rows
        table.set_rows(rows)

    def _worst_first(self, group_id: str) -> tuple[int, float]:
        judged = self.lag.group(group_id) if self.lag is not None else None
        if judged is None or self.lag is None:
            return (1, 0.0)
        return (-judged.status.severity, -(judged.lag_seconds(self.lag.taken_at) or 0.0))

    def _oldest_first(self, group_id: str) -> float:
        judged = self.lag.group(group_id) if self.lag is not None else None
        seconds = judged.lag_seconds(self.lag.taken_at) if judged is not None and self.lag is not None else None
        return -seconds if seconds is not None else 1.0

    def _show_status(self, message: str | None, error: bool = True) -> None:
        self.query_one("#group-status", Static).update(Text(message or "", style="bold red" if error else "green"))

    @on(Select.Changed, "#reset-to")
    def _target_changed(self, event: Select.Changed) -> None:
        field = self.query_one("#reset-value", Input)
        to = str(event.value)
        field.placeholder = RESET_CHOICES.get(to, ("", ""))[1]
        field.disabled = to in ("earliest", "latest", "current")

    @on(Input.Submitted, "#reset-value")
    @on(Button.Pressed, "#reset-offsets")
    def _reset(self) -> None:
        """Plan the reset (nothing changes yet); the preview asks to confirm it."""
        gid, consoles = self.selected_group, self.consoles
        if self.read_only_reason is not None:
            self._show_status(f"{self.read_only_reason}: resetting a group's offsets writes to the cluster")
            return
        if gid is None or consoles is None:
            self._show_status("highlight a group first")
            return
        try:
            to = _choice(self.query_one("#reset-to", Select).value, get_args(ResetTarget), "reset to")
            value = parse_reset_value(to, self.query_one("#reset-value", Input).value)  # type: ignore[arg-type]
        except KafkatopError as e:
            self._show_status(str(e))
            return
        group = next((g for g in self.snapshot.groups if g.group_id == gid), None) if self.snapshot else None
        if group is not None and group.group_type == "share":
            self._show_status(f"{gid} is a share group: its start offsets are no consumer group's committed offsets "
                              "(kafka-share-groups.sh --reset-offsets moves them while it is empty)")  # fmt: skip
            return
        topics = list(group.topics) if group else []
        if not topics:
            self._show_status(f"group {gid!r} has no committed offsets to reset")
            return
        self._show_status(f"reading the offsets of group '{gid}'…", error=False)
        target: ResetTarget = to  # type: ignore[assignment]  # one of ResetTarget, checked above
        # Exclusive: a preview asked for again replaces the one before it.
        ask(self, "reset", lambda _: consoles.plan_reset(gid, topics, target, value), self._preview, self._show_status)

    def _preview(self, plan: ResetPlan) -> None:
        self._show_status(None)
        self.app.push_screen(ResetPreviewScreen(plan, self.typed), lambda confirmed: self._confirmed(plan, confirmed))

    def _confirmed(self, plan: ResetPlan, confirmed: bool | None) -> None:
        if not confirmed:
            self._show_status(f"reset of group '{plan.group}' cancelled: nothing changed", error=False)
            return
        consoles = self.consoles
        assert consoles is not None  # a plan came from it
        self._show_status(f"resetting the offsets of group '{plan.group}'…", error=False)
        # Not exclusive: a confirmed reset is carried out and its outcome shown, whatever is asked after it.
        ask(self, "reset", lambda _: consoles.execute_reset(plan),
            lambda done: self._show_status(f"done: {reset_summary(done, done=True)}", False), self._show_status,
            exclusive=False)  # fmt: skip
