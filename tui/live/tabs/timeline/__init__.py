"""Timeline: what happened, as incidents and their recoveries."""

from __future__ import annotations

from kafkatop.tui.live.tabs.tab import Tab, showing
from kafkatop.tui.live.widgets.timeline import TimelinePane

TAB = Tab("tab-timeline", "Timeline", showing(lambda _: TimelinePane()))
