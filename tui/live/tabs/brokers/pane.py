"""Brokers as the cluster sees them: address, rack, alive, controller, leaders and replicas hosted; and, from the
brokers' log directories (the `log_dirs` source, every 30 s), each broker's bytes on disk, its share of the bytes and
of the leaders, flagged in yellow past ±25 % of an even share (model/disks.py's SKEW_THRESHOLD).

With the disk columns, below 100 columns the address and rack give way (the Log tab has the processes, `kafkatop
log-dirs` the paths), so 80 columns hold the rest."""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text

from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.disks import SKEW_THRESHOLD, BrokerDisks, BrokerShare, shares
from kafkatop.tui.format import data_size
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.text import DataTable, Static
from kafkatop.tui.live.widgets.pane import LivePane
from kafkatop.tui.live.widgets.tables import VI_KEYS, highlighted_key

BASE = ("broker", "address", "rack", "state", "leaders", "replicas", "leader skew")
DISKS = ("on disk", "bytes %", "leaders %")
NARROW = 100  # below: no address and rack columns
SKEWED = "yellow"


class BrokerTable(LivePane, DataTable[str | Text]):
    BINDINGS = VI_KEYS
    _rows: Mapping[str, tuple[object, ...]] | None = None
    _narrow: bool | None = None

    def __init__(self, disks: bool = False) -> None:
        super().__init__()
        self.disks = disks  # the view reads the brokers' log directories: their columns are shown

    def draw(self, view: LiveView) -> None:
        if view.cluster is not None:
            self.show(view.cluster, view.controller_id, view.log_dirs)

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self._set_columns(self.size.width or self.app.size.width)

    def on_resize(self) -> None:
        if self._set_columns(self.size.width):
            self.redraw()

    def _set_columns(self, width: int) -> bool:
        narrow = self.disks and width < NARROW  # without the disk columns, 80 columns hold them all
        if narrow == self._narrow:
            return False
        self._narrow, self._rows = narrow, None
        self.clear(columns=True)
        for name in (*BASE, *(DISKS if self.disks else ())):
            if not (narrow and name in ("address", "rack")):
                self.add_column(name, key=name)
        return True

    def show(
        self, snapshot: ClusterSnapshot, controller_id: int | None = None, disks: BrokerDisks | None = None
    ) -> None:
        leaders, replicas, skew = snapshot.leaders_by_broker, snapshot.replicas_by_broker, snapshot.leader_skew
        controller = controller_id if controller_id is not None else snapshot.controller_id
        on_disk = disks.bytes_by_broker if disks is not None else {}
        # Shares among the live brokers; the bytes among those whose log directories were read.
        alive = [b.id for b in snapshot.brokers if b.alive]
        byte_shares = shares(on_disk, [b for b in alive if b in on_disk])
        leader_shares = shares(leaders, alive)
        shown = [str(key.value) for key in self.columns]
        rows = {}
        for b in snapshot.brokers:
            if b.id == controller:
                name = f"{b.id} ★" if self._narrow else f"{b.id} (controller)"
            else:
                name = str(b.id)
            cells: dict[str, str | Text] = {
                "broker": name,
                "address": b.address,
                "rack": b.rack or "-",
                "state": Text("up", style="green") if b.alive else Text("DOWN", style="bold red"),
                "leaders": str(leaders.get(b.id, 0)),
                "replicas": str(replicas.get(b.id, 0)),
                "leader skew": f"{skew[b.id]:.0%}" if b.id in skew else "-",
                "on disk": data_size(on_disk[b.id]) if b.id in on_disk else "-",
                "bytes %": share_cell(byte_shares.get(b.id)),
                "leaders %": share_cell(leader_shares.get(b.id)),
            }
            rows[str(b.id)] = tuple(cells[name] for name in shown)
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


def share_cell(share: BrokerShare | None) -> str | Text:
    """A share as "34%"; past the threshold, with how far from an even share, in yellow: "52% +56%"."""
    if share is None:
        return "-"
    if not share.skewed:
        return f"{share.share:.0%}"
    return Text(f"{share.share:.0%} {share.skew:+.0%}", style=SKEWED)


class DisksNote(LivePane, Static):
    """One line under the Brokers table, when its disk columns have something to say: not read here (and why), not
    read yet, the last read failed, or some brokers did not answer."""

    def __init__(self, disks: bool, launch: str) -> None:
        super().__init__("")
        self.disks = disks
        self.launch = launch

    def on_mount(self) -> None:
        self.draw(LiveView())

    def draw(self, view: LiveView) -> None:
        text = disks_note(self.disks, self.launch, view)
        self.update(text)
        self.display = bool(text)


def disks_note(present: bool, launch: str, view: LiveView) -> str:
    threshold = f"±{SKEW_THRESHOLD:.0%}"
    if not present:
        if launch == "demo":
            return "bytes on disk: not read — the demo's mock cluster answers no DescribeLogDirs"
        if launch == "replay":
            return "bytes on disk: not in this recording (recorded by a kafkatop that did not read the log directories)"
        return "bytes on disk: not read here (no DescribeLogDirs source)"
    if view.log_dirs_problem is not None:
        shown = " (the last read's still shown)" if view.log_dirs is not None else ""
        return f"bytes on disk: not read{shown}: {view.log_dirs_problem}"
    if view.log_dirs is None:
        return "bytes on disk: reading the brokers' log directories (DescribeLogDirs, every 30 s)…"
    if view.log_dirs.unread:
        said = "; ".join(u.reason for u in view.log_dirs.unread)
        return f"bytes on disk: {len(view.log_dirs.unread)} broker(s) not read: {said}"
    return f"shares in yellow: more than {threshold} from an even share"
