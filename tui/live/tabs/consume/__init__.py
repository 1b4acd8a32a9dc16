"""Consume: consumers in a group, their records and rebalances; opens in its topics field."""

from __future__ import annotations

from kafkatop.tui.live.tabs.consume.pane import ConsumerPanel
from kafkatop.tui.live.tabs.tab import Tab, showing

TAB = Tab(
    "tab-consume",
    "Consume",
    showing(lambda c: ConsumerPanel(c.sources.consoles, c.settings.refusal)),
    work_field="#consume-topics",
)
