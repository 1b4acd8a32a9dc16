"""Brokers: each broker's address, rack and what it leads."""

from __future__ import annotations

from kafkatop.tui.live.tabs.brokers.pane import BrokerTable
from kafkatop.tui.live.tabs.tab import Tab, showing

BROKERS = "tab-brokers"
TAB = Tab(BROKERS, "Brokers", showing(lambda _: BrokerTable()), purpose="each broker's address, rack and what it leads")
