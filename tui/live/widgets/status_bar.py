"""One line that says how the cluster is: id, mode, controller, brokers, under-replicated and offline partitions, the
groups whose lag status is not OK, its authorizer and super users (the ACLs tab's poll) — and, when a source fails,
the age of the data still on screen."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from kafkatop.backends.model.acls import AuthorizerInfo
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.lag import LagSnapshot, LagStatus, worst
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.text import shown
from kafkatop.tui.live.widgets.pane import LivePane

MODES = {"zk": "ZooKeeper mode", "kraft": "KRaft", "demo": "demo (librdkafka mock)", "unknown": "mode unknown"}
SHORT_MODES = {"zk": "ZooKeeper", "kraft": "KRaft", "demo": "demo", "unknown": "mode unknown"}
Badge = tuple[str | None, str | None, bool]  # the context's name, its colour, read-only
NARROW = 110  # below: no cluster id and short mode names, so the line fits 80 columns
MIN_WIDTH = 80  # a default terminal, a tmux split
MAX_ROWS = 3  # a failure quoting a 10 KB name must not push the tabs off the screen
FAILURE_CHARS = 200  # of a failure's text shown; a recording keeps it whole


def status_text(
    snapshot: ClusterSnapshot | None,
    failure: str | None,
    age_s: float | None,
    controller_id: int | None = None,
    narrow: bool = False,
    badge: Badge | None = None,
    authorizer: AuthorizerInfo | None = None,
    lag: LagSnapshot | None = None,
) -> Text:
    text = Text()
    if badge is not None:
        name, colour, read_only = badge
        if name:
            text.append(f" {name} ", style=f"bold reverse {colour}" if colour else "bold reverse")
        if read_only:
            text.append(" READ-ONLY ", style="bold white on red")
        text.append(" ")
    if snapshot is None:
        text.append("connecting…" if failure is None else "no data", style="bold")
    else:
        up, down = len(snapshot.brokers_alive), len(snapshot.brokers_down)
        if narrow:
            text.append(SHORT_MODES.get(snapshot.mode, snapshot.mode), style="bold")
        else:
            text.append(f"cluster {snapshot.cluster_id or '?'}", style="bold")
            text.append(f"  {MODES.get(snapshot.mode, snapshot.mode)}")
        controller = controller_id if controller_id is not None else snapshot.controller_id
        text.append(f"  controller {controller if controller is not None else '-'}")
        text.append(f"  brokers {up} up")
        if down:
            text.append(f" {down} down", style="bold red")
        # Counted in the poll's worker (ClusterSnapshot.totals), not over 9,000 topics on the UI thread.
        urp, offline = snapshot.totals.under_replicated, snapshot.totals.offline
        # With a context's badges an 80-column line has no room for the word: URP, as Kafka's metric names it.
        text.append("  URP " if narrow and badge is not None else "  under-replicated ")
        text.append(str(urp), style="bold yellow" if urp else "")
        text.append("  offline ")
        text.append(str(offline), style="bold red" if offline else "")
        if lag is not None and (not_ok := lag.not_ok):
            alarm = worst([g.status for g in lag.groups]).severity >= LagStatus.STALL.severity
            text.append("  lag " if narrow else "  groups not OK ")
            text.append(str(not_ok), style="bold red" if alarm else "bold yellow")
        if authorizer is not None and authorizer.class_name is not None:
            # Narrow, the word alone (the ACLs tab says the rest), where 80 columns still hold it.
            supers = f", super users {', '.join(authorizer.super_users)}" if authorizer.super_users else ""
            said = "  authorizer" if narrow else f"  authorizer {authorizer.short}{supers}"
            if not narrow or len(text) + len(said) <= MIN_WIDTH:
                text.append(said)
    if failure is not None:
        age = f" (data {age_s:.0f} s old)" if snapshot is not None and age_s is not None else ""
        said = failure if len(failure) <= FAILURE_CHARS else f"{failure[: FAILURE_CHARS - 1]}…"
        text.append(f"\n{said}{age}", style="red")
    return text


class StatusBar(LivePane, Widget):
    """As tall as its text (a narrow terminal wraps it), up to MAX_ROWS. A new text repaints the bar; only a new height
    re-lays out the screen, so a failover's changed counts cost no second frame (bench/tui_refresh.py). The height is
    set in rows rather than left to `height: auto`: a text that grew before the first layout kept its old height under
    load (the auto height's pending layout ran with the shorter text, and nothing asked again)."""

    text: reactive[Text] = reactive(Text, layout=False)

    def __init__(
        self, context: str | None = None, colour: str | None = None, read_only: bool = False, bell: bool = False
    ) -> None:
        super().__init__()
        self.badge: Badge | None = (context, colour, read_only) if context or read_only else None
        self.bell = bell  # --bell: rung when a group turns STOP or ERR
        self._rung: LagSnapshot | None = None  # the lag evaluation last rung for: each one rings once
        self._rows: int | None = None  # the height set, in rows (none yet: the stylesheet's auto)

    def render(self) -> Text:
        return shown(self.text)  # it names topics, a cluster, a failure: text from outside

    def draw(self, view: LiveView) -> None:
        width = self.size.width or self.app.size.width - 2  # the bar's padding
        authorizer = view.acls.authorizer if view.acls is not None else None
        text = status_text(view.cluster, view.failure, view.data_age_s, view.controller_id, width < NARROW, self.badge,
                           authorizer, view.lag)  # fmt: skip
        lag = view.lag
        if self.bell and lag is not None and lag is not self._rung:
            self._rung = lag
            if any(c.now in (LagStatus.STOP, LagStatus.ERR) for c in lag.changes):
                self.app.bell()
        self.text = text
        rows = min(MAX_ROWS, len(shown(text).wrap(self.app.console, max(1, width))))
        if rows != self._rows:
            self._rows = rows
            self.styles.height = rows  # a style change lays the screen out again; same rows, same layout

    def on_resize(self) -> None:
        self.redraw()
