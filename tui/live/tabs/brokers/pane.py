"""Brokers as the cluster sees them: address, rack, alive, controller, leaders and replicas hosted."""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text

from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.text import DataTable
from kafkatop.tui.live.widgets.pane import LivePane
from kafkatop.tui.live.widgets.tables import VI_KEYS, highlighted_key


class BrokerTable(LivePane, DataTable[str | Text]):
    BINDINGS = VI_KEYS
    _rows: Mapping[str, tuple[object, ...]] | None = None

    def draw(self, view: LiveView) -> None:
        if view.cluster is not None:
            self.show(view.cluster, view.controller_id)

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.add_columns("broker", "address", "rack", "state", "leaders", "replicas", "leader skew")

    def show(self, snapshot: ClusterSnapshot, controller_id: int | None = None) -> None:
        leaders, replicas, skew = snapshot.leaders_by_broker, snapshot.replicas_by_broker, snapshot.leader_skew
        controller = controller_id if controller_id is not None else snapshot.controller_id
        rows = {}
        for b in snapshot.brokers:
            name = f"{b.id} (controller)" if b.id == controller else str(b.id)
            state = Text("up", style="green") if b.alive else Text("DOWN", style="bold red")
            rows[str(b.id)] = (
                name,
                b.address,
                b.rack or "-",
                state,
                str(leaders.get(b.id, 0)),
                str(replicas.get(b.id, 0)),
                f"{skew[b.id]:.0%}" if b.id in skew else "-",
            )
        if rows == self._rows:
            return  # rebuilding a table re-lays out the screen: only when something changed
        self._rows = rows
        self.clear()
        for key, row in rows.items():
            self.add_row(*row, key=key)

    @property
    def selected_broker(self) -> int | None:
        key = highlighted_key(self)
        return int(key) if key is not None else None
