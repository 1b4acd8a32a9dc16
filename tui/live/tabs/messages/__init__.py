"""Messages: a partition's records, page by page, decoded, searched and exported, read in no group. After the nine
tabs with digits: `b` shows it from anywhere (a lab's tenth tab has no digit)."""

from __future__ import annotations

from pathlib import Path

from kafkatop.tui.live.tabs.messages.keys import ACTIONS, MESSAGES, MessageKeys
from kafkatop.tui.live.tabs.messages.pane import MessagesPane
from kafkatop.tui.live.tabs.tab import Tab, showing

CSS = Path(__file__).with_name("messages.tcss")  # its rules: layout and colour beside the tab
TAB = Tab(
    MESSAGES,
    "Messages",
    showing(
        lambda c: MessagesPane(c.sources.browser, clock=c.clock, codec=c.sources.codec, masking=c.settings.masking)
    ),  # fmt: skip
    ACTIONS,
    MessageKeys,
    work_field="#browse-topic",
    css=CSS,
    purpose="a partition's records, page by page, decoded, searched, exported",
    shown_by="browse",
)
