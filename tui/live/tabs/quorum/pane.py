"""ZooKeeper as `zktop` showed it in the labs (mode, connections, sessions, znodes), or the KRaft quorum (leader,
epoch, voters and their lag), whichever the cluster has; below, the cluster's feature levels (features.py)."""

from __future__ import annotations

from rich import box
from rich.console import Group, RenderableType
from rich.text import Text

from kafkatop.backends.model.cluster import ClusterMode
from kafkatop.backends.model.features import FeatureLevels
from kafkatop.backends.model.quorum import QuorumSnapshot
from kafkatop.backends.model.zookeeper import EnsembleSnapshot
from kafkatop.backends.ports import EnsembleView
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.text import Static, Table
from kafkatop.tui.live.widgets.features import features_table
from kafkatop.tui.live.widgets.pane import LivePane


def _cell(value: object) -> str:
    return "-" if value is None else str(value)


# A rule under the header only: the columns keep the room borders took (80 columns hold a server's address).
BOX = box.SIMPLE_HEAD
PADDING = (0, 1, 0, 0)  # one space between columns, none at the edges


def _ms(value: int | None) -> str:
    if value is None or value < 0:
        return "-"
    return f"{value} ms ago" if value < 10_000 else f"{value / 1000:.0f} s ago"


def quorum_table(q: QuorumSnapshot) -> Table:
    table = Table(
        title=f"KRaft quorum · leader {q.leader_id} · epoch {q.leader_epoch} · high watermark "
        f"{_cell(q.high_watermark)}",
        title_justify="left",
        expand=True,
        box=BOX,
        padding=PADDING,
        pad_edge=False,
    )
    for column in ("replica", "role", "log end offset", "lag", "last fetch", "last caught up"):
        table.add_column(column)
    for role, replicas in (("voter", q.voters), ("observer", q.observers)):
        for r in replicas:
            leader = r.replica_id == q.leader_id
            table.add_row(
                Text(f"{r.replica_id}{' ★' if leader else ''}", style="bold" if leader else ""),
                "leader" if leader else role,
                _cell(r.log_end_offset),
                Text(_cell(r.lag), style="yellow" if r.lag else ""),
                _ms(r.last_fetch_ms_ago),
                _ms(r.last_caught_up_ms_ago),
            )
    return table


def zookeeper_table(e: EnsembleSnapshot) -> Table:
    table = Table(title="ZooKeeper", title_justify="left", expand=True, box=BOX, padding=PADDING, pad_edge=False)
    # mntr's names, shortened where a narrow terminal would cut them; the address and mode are never cut.
    table.add_column("server", no_wrap=True, min_width=15)
    table.add_column("mode", no_wrap=True, min_width=10)
    for column in ("conns", "queue", "znodes", "watches", "ephem", "latency"):
        table.add_column(column, no_wrap=True, min_width=len(column))
    for s in e.servers:
        if s.problem and not s.serving:
            table.add_row(_cell(s.address), Text(s.problem, style="red"), "", "", "", "", "", "")
            continue
        latency = "/".join(_cell(v) for v in (s.latency_min_ms, s.latency_avg_ms, s.latency_max_ms))
        table.add_row(
            _cell(s.address),
            Text(_cell(s.mode), style="green"),
            _cell(s.connections),
            _cell(s.outstanding),
            _cell(s.znode_count),
            _cell(s.watch_count),
            _cell(s.ephemerals_count),
            latency,
        )
    return table


def sessions_table(e: EnsembleSnapshot) -> Table | None:
    sessions = [(s, x) for s in e.servers for x in s.sessions]
    if not sessions:
        return None
    table = Table(title="sessions", title_justify="left", expand=True, box=BOX, padding=PADDING, pad_edge=False)
    table.add_column("server", no_wrap=True, min_width=15)
    table.add_column("client", no_wrap=True, min_width=15)
    table.add_column("session", no_wrap=True, min_width=18)
    for column in ("queued", "received", "sent"):
        table.add_column(column, no_wrap=True, min_width=len(column))
    for server, x in sessions:
        table.add_row(
            _cell(server.address), _cell(x.client), _cell(x.session_hex), _cell(x.queued), _cell(x.received),
            _cell(x.sent),
        )  # fmt: skip
    return table


class QuorumPane(LivePane, Static):
    def draw(self, view: LiveView) -> None:
        features = view.cluster.features if view.cluster is not None else None
        self.show(view.ensemble, view.ensemble_problem, view.mode, features)

    def show(
        self,
        snapshot: EnsembleView | None,
        problem: str | None,
        mode: ClusterMode | None,
        features: FeatureLevels | None = None,
    ) -> None:
        parts: list[RenderableType] = []
        if snapshot is None:
            what = "ZooKeeper" if mode == "zk" else "the KRaft quorum"
            parts.append(Text(problem or f"no data yet about {what}", style="red" if problem else "dim"))
        elif isinstance(snapshot, QuorumSnapshot):
            parts.append(quorum_table(snapshot))
        else:
            parts.append(zookeeper_table(snapshot))
            if (sessions := sessions_table(snapshot)) is not None:
                parts.append(sessions)
        if problem and snapshot is not None:
            parts.append(Text(f"{problem} (showing the last data)", style="red"))
        if features is not None and features.features:
            parts.append(features_table(features))
        self.update(Group(*parts))
