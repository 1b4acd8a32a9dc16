"""Partitions: every partition's leader, replicas and ISR (or one row per topic), the keys that act on a topic."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from textual.widget import Widget

from kafkatop.tui.live.tabs.partitions.keys import ACTIONS, PARTITIONS, PartitionKeys
from kafkatop.tui.live.tabs.partitions.pane import PartitionsPane
from kafkatop.tui.live.tabs.tab import Tab, TabContext


def _panes(_: TabContext) -> Iterator[Widget]:
    yield PartitionsPane()


CSS = Path(__file__).with_name("partitions.tcss")  # its rules: layout and colour beside the tab
TAB = Tab(
    PARTITIONS,
    "Partitions",
    _panes,
    ACTIONS,
    PartitionKeys,
    css=CSS,
    purpose="each partition's leader, replicas and ISR, or one row per topic",
)
