"""One line that says how the cluster is: id, mode, controller, brokers, under-replicated and offline partitions —
and, when a source fails, the age of the data still on screen."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.widgets.pane import LivePane

MODES = {"zk": "ZooKeeper mode", "kraft": "KRaft", "demo": "demo (librdkafka mock)", "unknown": "mode unknown"}
SHORT_MODES = {"zk": "ZooKeeper", "kraft": "KRaft", "demo": "demo", "unknown": "mode unknown"}
NARROW = 110  # below: no cluster id and short mode names, so the line fits 80 columns


def status_text(
    snapshot: ClusterSnapshot | None,
    failure: str | None,
    age_s: float | None,
    controller_id: int | None = None,
    narrow: bool = False,
) -> Text:
    text = Text()
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
        urp, offline = len(snapshot.under_replicated), len(snapshot.offline)
        text.append("  under-replicated ")
        text.append(str(urp), style="bold yellow" if urp else "")
        text.append("  offline ")
        text.append(str(offline), style="bold red" if offline else "")
    if failure is not None:
        age = f" (data {age_s:.0f} s old)" if snapshot is not None and age_s is not None else ""
        text.append(f"\n{failure}{age}", style="red")
    return text


class StatusBar(LivePane, Widget):
    """As tall as its text (a narrow terminal wraps it); set only when it changed, so a steady poll costs no
    layout."""

    text: reactive[Text] = reactive(Text, layout=True)

    def render(self) -> Text:
        return self.text

    def draw(self, view: LiveView) -> None:
        narrow = (self.size.width or self.app.size.width) < NARROW
        self.text = status_text(view.cluster, view.failure, view.data_age_s, view.controller_id, narrow)

    def on_resize(self) -> None:
        self.redraw()
