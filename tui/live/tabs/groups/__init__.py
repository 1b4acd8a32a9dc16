"""Groups: the consumer groups, their lag and members, offset resets (in the pane) and the keys that delete."""

from __future__ import annotations

from kafkatop.tui.live.tabs.groups.keys import ACTIONS, GROUPS, GroupKeys
from kafkatop.tui.live.tabs.groups.pane import GroupsPane
from kafkatop.tui.live.tabs.tab import Tab, showing

TAB = Tab(
    GROUPS,
    "Groups",
    showing(lambda c: GroupsPane(c.sources.consoles, c.settings.read_only_reason, c.settings.typed_name)),
    ACTIONS,
    GroupKeys,
    purpose="the groups, their lag, members and committed offsets; offset resets",
)
