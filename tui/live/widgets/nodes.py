"""A pane per cluster process: state in colour, id, pid, ports, CPU, memory, uptime, what it hosts (a broker's leaders
and replicas, a Kafka Connect worker's tasks); and its log."""

from __future__ import annotations

from collections.abc import Mapping

from rich.cells import cell_len
from rich.text import Text

from kafkatop.backends.model.connect import ConnectSnapshot
from kafkatop.backends.model.nodes import NodesSnapshot, NodeState, NodeView, ProcessRole
from kafkatop.tui.format import human_duration, human_size
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.text import DataTable, Static
from kafkatop.tui.live.widgets.pane import LivePane
from kafkatop.tui.live.widgets.tables import VI_KEYS, highlighted_key

STATE_STYLE = {
    "up": "green",
    "starting": "yellow",
    "stopping": "yellow",
    "down": "dim",
    "killed": "bold red",
    "failed": "bold red",
}


class NodeTable(LivePane, DataTable[str | Text]):
    """One row per process. Keys act on the highlighted one (see the app's bindings); `0` brings the keys here.

    In a short terminal (80x24) the table has room for four processes: there, out of focus, a lab's Connect workers
    are one row with their count, so every node is in sight; `0` (focus) shows each worker's own row to act on."""

    BINDINGS = VI_KEYS

    def draw(self, view: LiveView) -> None:
        if view.nodes is None:
            return
        cluster = view.cluster
        leaders = cluster.leaders_by_broker if cluster is not None else {}
        replicas = cluster.replicas_by_broker if cluster is not None else {}
        self.show(view.nodes, view.controller_id, leaders, replicas, view.connect)

    # (name, fixed width or None): fixed widths where a value's length changes (a column sized by content keeps the
    # widest value it ever held: "104%" during a restart, "starting" before "up").
    COLUMNS: tuple[tuple[str, int | None], ...] = (
        ("node", None), ("role", None), ("state", max(len(s.value) for s in NodeState)), ("pid", None),
        ("port", None), ("cpu", 4), ("rss", 5), ("up", 6), ("leads", None), ("replicas", None),
    )  # fmt: skip
    NARROW = 100  # below: no port and cpu columns (the Brokers tab has the addresses), so 80 columns hold the rest
    _narrow: bool | None = None
    _kept: str | None = None  # the highlighted process, across a change of columns

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self._set_columns(self.size.width or self.app.size.width)

    def on_resize(self) -> None:
        self._set_columns(self.size.width)
        self.redraw()  # also when the height changed: the workers fold or unfold

    def on_focus(self) -> None:
        self.redraw()  # the workers' own rows, to act on

    def on_blur(self) -> None:
        self.redraw()

    @property
    def folds_workers(self) -> bool:
        return self.screen.focused is not self and self.screen.has_class("-short")  # (has_focus is set after on_focus)

    def _set_columns(self, width: int) -> bool:
        narrow = width < self.NARROW
        if narrow == self._narrow:
            return False
        self._narrow = narrow
        # Clearing the columns clears the rows and their cursor: the highlighted process is kept, or a resize would
        # leave K aimed at the first row (ZooKeeper or a controller) instead of the one the user picked.
        self._kept = self.selected_name or self._kept
        self.clear(columns=True)
        for name, fixed in self.COLUMNS:
            if not (narrow and name in ("port", "cpu")):
                self.add_column(name, key=name, width=fixed)
        return True

    def show(
        self,
        nodes: NodesSnapshot,
        controller_id: int | None,
        leaders: Mapping[int, int],
        replicas: Mapping[int, int],
        connect: ConnectSnapshot | None = None,
    ) -> None:
        # The process kept while its row was away (folded, or the columns changed) first, else the highlighted one.
        selected, self._kept = self._kept or highlighted_key(self), None
        self.clear()
        shown = [str(key.value) for key in self.columns]
        workers = [n for n in nodes.nodes if n.role is ProcessRole.CONNECT]
        folded = self.folds_workers and len(workers) > 1
        if selected == WORKERS and not folded:
            selected = workers[0].name if workers else None
        for n in nodes.nodes:
            if folded and n.role is ProcessRole.CONNECT:
                if n is workers[0]:
                    fold = _folded(workers, connect)
                    self.add_row(*(fold.get(name, "-") for name in shown), key=WORKERS)
                continue
            role = "combined" if self._narrow and n.role is ProcessRole.COMBINED else n.role.value  # KRaft's word
            if controller_id is not None and n.node_id == controller_id:
                role += " ★"  # the active controller (ZooKeeper mode) or quorum leader (KRaft)
            hosts = n.node_id is not None and n.role.value != "controller"
            cells: dict[str, str | Text] = {
                "node": n.name,
                "role": role,
                "state": Text(n.state.value, style=STATE_STYLE.get(n.state.value, "")),
                "pid": "-" if n.pid is None else str(n.pid),
                "port": "/".join(map(str, n.ports)) or "-",
                "cpu": "-" if n.cpu_percent is None else f"{n.cpu_percent:.0f}%",
                "rss": human_size(n.rss_bytes, compact=True),
                "up": human_duration(n.uptime_s),
                "leads": str(leaders.get(n.node_id, 0)) if hosts and n.node_id is not None else "-",
                "replicas": str(replicas.get(n.node_id, 0)) if hosts and n.node_id is not None else "-",
            }
            if n.role is ProcessRole.CONNECT:
                cells["replicas"] = _tasks(n, connect)
            self.add_row(*(cells[name] for name in shown), key=n.name)
        if selected is not None and selected in self.rows:
            self.move_cursor(row=self.get_row_index(selected))
        elif folded and selected in [w.name for w in workers]:
            self._kept = selected  # back on its own row once the table has the focus again
            self.move_cursor(row=self.get_row_index(WORKERS))

    @property
    def selected_name(self) -> str | None:
        """The highlighted process (None on the folded workers' row: a key acts on one process)."""
        key = highlighted_key(self)
        return None if key == WORKERS else key


WORKERS = "connect workers"  # the key of the folded workers' row


def _folded(workers: list[NodeView], connect: ConnectSnapshot | None) -> dict[str, str | Text]:
    """The Connect workers as one row: how many, how many are up, their memory and tasks together."""
    up = sum(w.state is NodeState.UP for w in workers)
    counted = [n for w in workers if (n := _task_count(w, connect)) is not None]
    rss = [w.rss_bytes for w in workers if w.rss_bytes is not None]
    return {
        "node": f"connect ×{len(workers)}",
        "role": "connect",
        "state": Text(f"{up}/{len(workers)} up", style="green" if up == len(workers) else "yellow"),
        "rss": human_size(sum(rss), compact=True) if rss else "-",
        "replicas": _counted(sum(counted) if counted else None),
    }


def _task_count(worker: NodeView, connect: ConnectSnapshot | None) -> int | None:
    """How many tasks a Kafka Connect worker runs (its REST port is its id in Connect: `127.0.0.1:PORT`)."""
    if connect is None or worker.state is not NodeState.UP:
        return None
    return sum(connect.tasks_on(f"{host}:{port}") for port in worker.ports for host in ("127.0.0.1", "localhost"))


def _tasks(worker: NodeView, connect: ConnectSnapshot | None) -> str:
    return _counted(_task_count(worker, connect))


def _counted(tasks: int | None) -> str:
    return "-" if tasks is None else f"{tasks} task{'s' * (tasks != 1)}"


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
            for line in _newest_that_fit(lines, self.size.width, self.size.height - _rows(text.plain, self.size.width)):
                style = "red" if " ERROR " in line or "Exception" in line else "yellow" if " WARN " in line else ""
                text.append("\n" + line, style=style)
            if not lines:
                text.append("\n(no log lines)", style="dim")
        self.update(text)


def _rows(line: str, width: int) -> int:
    """The rows `line` takes, wrapped at `width` cells."""
    return max(1, -(-cell_len(line) // width)) if width > 0 else 1


def _newest_that_fit(lines: tuple[str, ...], width: int, height: int) -> tuple[str, ...]:
    """The newest lines that fit `height` rows once wrapped, as `tail` would show them (all of them before the pane
    has a size): a long line takes several rows, and counting it as one pushed the newest off the bottom."""
    if width <= 0 or height <= 0:
        return lines if width <= 0 else lines[-1:]
    taken, left = 0, height
    for line in reversed(lines):
        left -= _rows(line, width)
        if left < 0 and taken:
            break
        taken += 1
    return lines[len(lines) - taken :]
