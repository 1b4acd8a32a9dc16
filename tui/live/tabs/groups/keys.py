"""The Groups tab's keys: the highlighted consumer group deleted, or its committed offsets (ClusterActions asks
first)."""

from __future__ import annotations

from functools import partial

from kafkatop.tui.live.action import LiveAction
from kafkatop.tui.live.tabs.groups.pane import GroupsPane
from kafkatop.tui.live.tabs.tab import TabScreen

GROUPS = "tab-groups"
_HERE = frozenset({GROUPS})
_GROUP = partial(LiveAction, section="Groups", tabs=_HERE, needs="group_tools", writes=True, asks_first=True)

# fmt: off
ACTIONS: tuple[LiveAction, ...] = (
    _GROUP("delete-group", ("x",), "delete_group(False)", "Delete group",
        help="Groups: delete the highlighted group (asks first; Kafka refuses while it has members)",
        palette="Delete the highlighted consumer group"),
    _GROUP("delete-offsets", ("X",), "delete_group(True)", "Delete group offsets",
        help="Groups: delete its committed offsets (asks first; Kafka refuses while it consumes the topic)",
        palette="Delete the highlighted group's committed offsets"),
)
# fmt: on


class GroupKeys:
    def __init__(self, screen: TabScreen) -> None:
        self.screen = screen

    def action_delete_group(self, offsets_only: bool) -> None:
        key = "X" if offsets_only else "x"
        if self.screen.in_tab(GROUPS, key, "acts on the group highlighted", "a group"):
            group = self.screen.query_one(GroupsPane).selected_group
            self.screen.host.cluster_actions.delete_group(group, offsets_only)
