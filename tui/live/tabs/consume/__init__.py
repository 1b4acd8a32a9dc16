"""Consume: consumers in a group, their records and rebalances; opens in its topics field."""

from __future__ import annotations

from kafkatop.tui.live.tabs.consume.pane import ConsumerPane
from kafkatop.tui.live.tabs.tab import Tab, showing

TAB = Tab(
    "tab-consume",
    "Consume",
    showing(lambda c: ConsumerPane(c.sources.consoles, c.settings.read_only_reason)),
    work_field="#consume-topics",
    purpose="consumers in a group, their records and rebalances",
)
