"""ZooKeeper as `zktop` showed it in the labs (mode, connections, sessions, znodes), or the KRaft quorum (leader,
epoch, voters and their lag), whichever the cluster has."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from kafkatop.backends.model.cluster import ClusterMode
from kafkatop.backends.model.quorum import QuorumSnapshot
from kafkatop.backends.model.zookeeper import EnsembleSnapshot
from kafkatop.backends.ports import EnsembleView
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.widgets.pane import LivePane


def _cell(value: object) -> str:
    return "-" if value is None else str(value)


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
    table = Table(title="ZooKeeper", title_justify="left", expand=True)
    for column in ("server", "mode", "connections", "outstanding", "znodes", "watches", "ephemerals", "latency"):
        table.add_column(column)
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
    table = Table(title="sessions", title_justify="left", expand=True)
    for column in ("server", "client", "session", "queued", "received", "sent"):
        table.add_column(column)
    for server, x in sessions:
        table.add_row(
            _cell(server.address), _cell(x.client), _cell(x.session_hex), _cell(x.queued), _cell(x.received),
            _cell(x.sent),
        )  # fmt: skip
    return table


class EnsemblePane(LivePane, Static):
    def draw(self, view: LiveView) -> None:
        self.show(view.ensemble, view.ensemble_problem, view.mode)

    def show(self, snapshot: EnsembleView | None, problem: str | None, mode: ClusterMode | None) -> None:
        if snapshot is None:
            what = "ZooKeeper" if mode == "zk" else "the KRaft quorum"
            self.update(Text(problem or f"no data yet about {what}", style="red" if problem else "dim"))
            return
        parts: list[RenderableType] = []
        if isinstance(snapshot, QuorumSnapshot):
            parts.append(quorum_table(snapshot))
        else:
            parts.append(zookeeper_table(snapshot))
            if (sessions := sessions_table(snapshot)) is not None:
                parts.append(sessions)
        if problem:
            parts.append(Text(f"{problem} (showing the last data)", style="red"))
        self.update(Group(*parts))
