"""ZooKeeper as `zktop` showed it in the labs (mode, connections, sessions, znodes), or the KRaft quorum (leader,
epoch, voters and their lag), whichever the cluster has."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.widgets import Static


def _get(obj: Any, *names: str) -> Any:
    for name in names:
        value = getattr(obj, name, None)
        if value is not None:
            return value
    return None


def _cell(value: Any) -> str:
    return "-" if value is None else str(value)


def quorum_table(q: Any) -> Table:
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
            lag = _get(r, "lag")
            table.add_row(
                Text(f"{r.replica_id}{' ★' if leader else ''}", style="bold" if leader else ""),
                "leader" if leader else role,
                _cell(_get(r, "log_end_offset")),
                Text(_cell(lag), style="yellow" if lag else ""),
                _ms(_get(r, "last_fetch_ms_ago")),
                _ms(_get(r, "last_caught_up_ms_ago")),
            )
    return table


def _ms(value: Any) -> str:
    if value is None or value < 0:
        return "-"
    return f"{value} ms ago" if value < 10_000 else f"{value / 1000:.0f} s ago"


def zookeeper_table(e: Any) -> Table:
    table = Table(title="ZooKeeper", title_justify="left", expand=True)
    for column in ("server", "mode", "connections", "outstanding", "znodes", "watches", "ephemerals", "latency"):
        table.add_column(column)
    for s in e.servers:
        problem = _get(s, "problem")
        if problem and not s.serving:
            table.add_row(_cell(s.address), Text(problem, style="red"), "", "", "", "", "", "")
            continue
        latency = "/".join(_cell(_get(s, f"latency_{k}_ms")) for k in ("min", "avg", "max"))
        table.add_row(
            _cell(s.address),
            Text(_cell(_get(s, "mode")), style="green"),
            _cell(_get(s, "connections")),
            _cell(_get(s, "outstanding")),
            _cell(_get(s, "znode_count")),
            _cell(_get(s, "watch_count")),
            _cell(_get(s, "ephemerals_count")),
            latency,
        )
    return table


class EnsemblePane(Static):
    def show(self, snapshot: Any, problem: str | None, mode: str | None) -> None:
        if snapshot is None:
            what = "ZooKeeper" if mode == "zk" else "the KRaft quorum"
            self.update(Text(problem or f"no data yet about {what}", style="red" if problem else "dim"))
            return
        parts: list[Any] = []
        if hasattr(snapshot, "voters"):
            parts.append(quorum_table(snapshot))
        else:
            parts.append(zookeeper_table(snapshot))
            sessions = [(s, x) for s in snapshot.servers for x in (_get(s, "sessions") or ())]
            if sessions:
                table = Table(title="sessions", title_justify="left", expand=True)
                for column in ("server", "client", "session", "queued", "received", "sent"):
                    table.add_column(column)
                for server, x in sessions:
                    table.add_row(
                        _cell(server.address),
                        _cell(_get(x, "client")),
                        _cell(_get(x, "session_hex")),
                        _cell(_get(x, "queued")),
                        _cell(_get(x, "received")),
                        _cell(_get(x, "sent")),
                    )
                parts.append(table)
        if problem:
            parts.append(Text(f"{problem} (showing the last data)", style="red"))
        from rich.console import Group

        self.update(Group(*parts))
