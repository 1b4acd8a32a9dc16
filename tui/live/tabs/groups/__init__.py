"""Groups: the consumer groups, their lag and members, offset resets (in the pane) and the keys that delete."""

from __future__ import annotations

from kafkatop.tui.live.tabs.groups.keys import ACTIONS, GROUPS, GroupKeys
from kafkatop.tui.live.tabs.groups.pane import GroupsPanel
from kafkatop.tui.live.tabs.tab import Tab, showing

TAB = Tab(
    GROUPS,
    "Groups",
    showing(lambda c: GroupsPanel(c.sources.consoles, c.settings.refusal, c.settings.typed_name)),
    ACTIONS,
    GroupKeys,
)
