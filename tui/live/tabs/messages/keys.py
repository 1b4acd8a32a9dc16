"""The Messages tab's keys: `b` shows it (from Partitions on the highlighted partition's newest records); the
browser's own keys are its pane's (scope "messages": tabs/messages/browser_keys.py)."""

from __future__ import annotations

from kafkatop.tui.live.action import LiveAction
from kafkatop.tui.live.tabs.messages.browser_keys import BROWSER_ACTIONS
from kafkatop.tui.live.tabs.messages.pane import MessagesPane
from kafkatop.tui.live.tabs.messages.record_table import RecordTable
from kafkatop.tui.live.tabs.partitions.keys import PARTITIONS
from kafkatop.tui.live.tabs.partitions.pane import PartitionTable
from kafkatop.tui.live.tabs.tab import TabScreen

MESSAGES = "tab-messages"

# fmt: off
ACTIONS: tuple[LiveAction, ...] = (
    LiveAction("browse", ("b",), "browse", "Browse messages",
        help="the Messages tab; from Partitions (or Enter on a row) the highlighted partition's newest "
             "records",
        section="Messages", palette="Browse the highlighted partition", needs="browser"),
    *BROWSER_ACTIONS,
)
# fmt: on


class MessageKeys:
    def __init__(self, screen: TabScreen) -> None:
        self.screen = screen

    def action_browse(self) -> None:
        """b (and Enter in Partitions): the highlighted partition's newest records in Messages; elsewhere, the tab."""
        selected = None
        if self.screen.tabs.active == PARTITIONS:
            selected = self.screen.query_one(PartitionTable).selected_partition
        self.screen.show_tab(MESSAGES)
        if selected is not None:  # a partition picked: its records are the work, read with the arrows
            self.screen.query_one(MessagesPane).open(selected.topic, selected.partition)
            self.screen.query_one(RecordTable).focus()
