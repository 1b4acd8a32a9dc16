"""The consumer-group panel: `kafka-consumer-groups --describe` live, and its offset resets."""

from __future__ import annotations

from collections.abc import Mapping
from typing import get_args

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, DataTable, Input, Label, Select, Static

from kafkatop.backends.insight.history import HistorySnapshot
from kafkatop.backends.model.cluster import ClusterSnapshot, TopicPartition
from kafkatop.backends.model.consoles import ResetTarget
from kafkatop.backends.ports import Consoles
from kafkatop.tui.format import sparkline
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.widgets.fields import choice as _choice
from kafkatop.tui.live.widgets.fields import error_text as _error_text
from kafkatop.tui.live.widgets.pane import LivePane


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
