"""Connect: Kafka Connect's connectors, their tasks and workers. Out of the tab bar for an attached cluster or a replay
without Connect; a lab or the demo shows it, to say why it has none."""

from __future__ import annotations

from pathlib import Path

from kafkatop.tui.live.tabs.connect.keys import ACTIONS, CONNECT, ConnectKeys
from kafkatop.tui.live.tabs.connect.pane import ConnectPane
from kafkatop.tui.live.tabs.tab import Tab, showing

CSS = Path(__file__).with_name("connect.tcss")  # its rules: layout and colour beside the tab
TAB = Tab(
    CONNECT,
    "Connect",
    showing(lambda c: ConnectPane(c.launch, "connect" in c.present, c.settings.lab_flags)),
    ACTIONS,
    ConnectKeys,
    hidden=lambda c: "connect" not in c.present and c.launch not in ("lab", "demo"),
    css=CSS,
    purpose="Kafka Connect's connectors, their tasks and the worker each runs on",
    shown_by="connect-tab",
)
