"""Quorum: the KRaft quorum's voters and their lag, or ZooKeeper's ensemble (the tab is then called so); hidden
where there is neither (the demo's mock)."""

from __future__ import annotations

from pathlib import Path

from kafkatop.tui.live.tabs.quorum.pane import QuorumPane
from kafkatop.tui.live.tabs.tab import Tab, showing

CSS = Path(__file__).with_name("quorum.tcss")  # its rules: layout and colour beside the tab
TAB = Tab(
    "tab-quorum",
    "Quorum",
    showing(lambda _: QuorumPane()),
    hidden=lambda c: "poll_ensemble" not in c.present,
    css=CSS,
    purpose="the KRaft quorum's voters and their lag, or ZooKeeper's ensemble",
)
