"""Brokers: each broker's address, rack and what it leads."""

from __future__ import annotations

from kafkatop.tui.live.tabs.tab import Tab, showing
from kafkatop.tui.live.widgets.brokers import BrokerTable

TAB = Tab("tab-brokers", "Brokers", showing(lambda _: BrokerTable()))
