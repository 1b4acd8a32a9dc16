"""Brokers: each broker's address, rack and what it leads, and its bytes on disk (the brokers' log directories)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from textual.widget import Widget

from kafkatop.tui.live.tabs.brokers.pane import BrokerTable, DisksNote
from kafkatop.tui.live.tabs.tab import Tab, TabContext

BROKERS = "tab-brokers"
CSS = Path(__file__).with_name("brokers.tcss")  # its rules: layout and colour beside the tab


def _panes(context: TabContext) -> Iterator[Widget]:
    disks = "log_dirs" in context.present
    yield BrokerTable(disks)
    yield DisksNote(disks, context.launch)


TAB = Tab(
    BROKERS, "Brokers", _panes, css=CSS, purpose="each broker's address, rack, what it leads and its bytes on disk"
)
