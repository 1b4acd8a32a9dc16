"""Log: the highlighted process's log; only where kafkatop sees the processes (a lab, the demo)."""

from __future__ import annotations

from pathlib import Path

from kafkatop.tui.live.tabs.tab import Tab, showing
from kafkatop.tui.live.widgets.nodes import NodeLog

CSS = Path(__file__).with_name("log.tcss")  # its rules: layout and colour beside the tab
TAB = Tab(
    "tab-log",
    "Log",
    showing(lambda _: NodeLog()),
    hidden=lambda c: "control" not in c.present,
    css=CSS,
    purpose="the highlighted process's log",
)
