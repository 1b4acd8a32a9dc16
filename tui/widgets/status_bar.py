"""One line that says how the cluster is: id, mode, controller, brokers, under-replicated and offline partitions."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from kafkatop.backends.model import ClusterSnapshot


def status_text(snapshot: ClusterSnapshot | None, failure: str | None, age_s: float | None) -> Text:
    text = Text()
    if snapshot is None:
        text.append("connecting…" if failure is None else "no data", style="bold")
    else:
        up, down = len(snapshot.brokers_alive), len(snapshot.brokers_down)
        text.append(f"cluster {snapshot.cluster_id or '?'}", style="bold")
        controller = snapshot.controller_id if snapshot.controller_id is not None else "-"
        text.append(f"  mode {snapshot.mode}  controller {controller}")
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


class StatusBar(Static):
    def show(self, snapshot: ClusterSnapshot | None, failure: str | None, age_s: float | None) -> None:
        self.update(status_text(snapshot, failure, age_s))
