"""Timeline: what happened, as incidents and their recoveries."""

from __future__ import annotations

from pathlib import Path

from kafkatop.tui.live.tabs.tab import Tab, showing
from kafkatop.tui.live.tabs.timeline.pane import TimelinePane

CSS = Path(__file__).with_name("timeline.tcss")  # its rules: layout and colour beside the tab
TAB = Tab(
    "tab-timeline",
    "Timeline",
    showing(lambda _: TimelinePane()),
    css=CSS,
    purpose="what happened: incidents and their recoveries",
)
