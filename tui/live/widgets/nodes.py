"""A pane per cluster process: state in colour, id, pid, ports, CPU, memory, uptime, what it hosts; and its log."""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual.widgets import DataTable, Static

from kafkatop.backends.model.nodes import NodesSnapshot, NodeState
from kafkatop.tui.format import human_duration, human_size
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.widgets.pane import LivePane
from kafkatop.tui.live.widgets.tables import VI_KEYS

STATE_STYLE = {
    "up": "green",
    "starting": "yellow",
    "stopping": "yellow",
    "down": "dim",
    "killed": "bold red",
    "failed": "bold red",
}


class NodeTable(LivePane, DataTable[str | Text]):
    """One row per process. Keys act on the highlighted one (see the app's bindings); `0` brings the keys here."""

    BINDINGS = VI_KEYS

    def draw(self, view: LiveView) -> None:
        if view.nodes is None:
            return
        cluster = view.cluster
        leaders = cluster.leaders_by_broker if cluster is not None else {}
        replicas = cluster.replicas_by_broker if cluster is not None else {}
        self.show(view.nodes, view.controller_id, leaders, replicas)

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.add_columns("node", "role")
        # As wide as the longest state from the start, so columns do not jump as a node goes starting -> up.
        self.add_column("state", width=max(len(s.value) for s in NodeState))
        self.add_columns("pid", "port")
        # Fixed too: a column sized by content keeps the widest value it ever held ("104%" during a restart).
        self.add_column("cpu", width=4)
        self.add_column("rss", width=5)
        self.add_column("up", width=6)
        self.add_columns("leads", "replicas")

    def show(
        self,
        nodes: NodesSnapshot,
        controller_id: int | None,
        leaders: Mapping[int, int],
        replicas: Mapping[int, int],
    ) -> None:
        selected = self.selected_name
        self.clear()
        for n in nodes.nodes:
            role = n.role.value
            if controller_id is not None and n.node_id == controller_id:
                role += " ★"  # the active controller (ZooKeeper mode) or quorum leader (KRaft)
            state = Text(n.state.value, style=STATE_STYLE.get(n.state.value, ""))
            hosts = n.node_id is not None and n.role.value != "controller"
            self.add_row(
                n.name,
                role,
                state,
                "-" if n.pid is None else str(n.pid),
                "/".join(map(str, n.ports)) or "-",
                "-" if n.cpu_percent is None else f"{n.cpu_percent:.0f}%",
                human_size(n.rss_bytes, compact=True),
                human_duration(n.uptime_s),
                str(leaders.get(n.node_id, 0)) if hosts and n.node_id is not None else "-",
                str(replicas.get(n.node_id, 0)) if hosts and n.node_id is not None else "-",
                key=n.name,
            )
        if selected is not None and selected in self.rows:
            self.move_cursor(row=self.get_row_index(selected))

    @property
    def selected_name(self) -> str | None:
        if not self.row_count:
            return None
        try:
            key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        except Exception:  # noqa: BLE001 - no valid cursor while the table is rebuilt
            return None
        return None if key.value is None else str(key.value)


class NodeLog(LivePane, Static):
    """The log tail of the highlighted node (bounded by the source: the last lines only)."""

    def draw(self, view: LiveView) -> None:
        name = view.selected_node
        node = view.nodes.node(name) if view.nodes is not None and name is not None else None
        self.show(name, node.log_tail if node else (), node.detail if node else None)

    def show(self, name: str | None, lines: tuple[str, ...], detail: str | None) -> None:
        text = Text()
        if name is None:
            text.append("no node selected", style="dim")
        else:
            text.append(f"{name}", style="bold")
            if detail:
                text.append(f"  {detail}", style="yellow")
            room = max(1, self.size.height - 1) if self.size.height else len(lines)
            for line in lines[-room:]:  # the newest lines that fit, as `tail` would show them
                style = "red" if " ERROR " in line or "Exception" in line else "yellow" if " WARN " in line else ""
                text.append("\n" + line, style=style)
            if not lines:
                text.append("\n(no log lines)", style="dim")
        self.update(text)
