"""The Groups tab's keys: the highlighted consumer group deleted, or its committed offsets (ClusterActions asks
first)."""

from __future__ import annotations

from functools import partial

from kafkatop.backends.insight.lag.exact import read_times, unread_heads
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.tui.live.action import LiveAction
from kafkatop.tui.live.tabs.groups.pane import GroupsPane
from kafkatop.tui.live.tabs.tab import TabScreen

GROUPS = "tab-groups"
_HERE = frozenset({GROUPS})
_GROUP = partial(LiveAction, section="Groups", tabs=_HERE, needs="group_tools", writes=True, asks_first=True)
EXACT_AT_MOST = 1_000  # partitions of one group whose oldest unread record `u` reads

# fmt: off
ACTIONS: tuple[LiveAction, ...] = (
    _GROUP("delete-group", ("x",), "delete_group(False)", "Delete group",
        help="Groups: delete the highlighted group (asks first; Kafka refuses while it has members)",
        palette="Delete the highlighted consumer group"),
    _GROUP("delete-offsets", ("X",), "delete_group(True)", "Delete group offsets",
        help="Groups: delete its committed offsets (asks first; Kafka refuses while it consumes the topic)",
        palette="Delete the highlighted group's committed offsets"),
    LiveAction("exact-lag", ("u",), "exact_lag", "Exact lag time", section="Groups", tabs=_HERE, needs="browser",
        help="Groups: the highlighted group's lag time read exactly from each partition's oldest unread record (once)",
        palette="Read the highlighted group's lag in time exactly (its oldest unread records)"),
)
# fmt: on


class GroupKeys:
    def __init__(self, screen: TabScreen) -> None:
        self.screen = screen

    def action_exact_lag(self) -> None:
        """Each partition behind of the highlighted group: its oldest unread record read for its own time (one record
        a partition, in the action worker); the evaluator says those times from the next poll on."""
        if not self.screen.in_tab(GROUPS, "u", "acts on the group highlighted", "a group"):
            return
        app = self.screen.host
        group_id = self.screen.query_one(GroupsPane).selected_group
        judged = app.view.lag.group(group_id) if app.view.lag is not None and group_id is not None else None
        browser = app.sources.browser
        if judged is None or browser is None:
            app.notify("u: highlight a group with committed offsets first", severity="warning")
            return
        heads = unread_heads((judged,), bounds_only=False, at_most=EXACT_AT_MOST)
        if not heads:
            app.notify(f"group {group_id!r}: no partition behind, or each already exact", markup=False)
            return
        feed = app.feed

        def run() -> None:
            times, failures = read_times(browser.first_timestamps, heads)
            feed.lag.learn(times)
            if failures:
                raise KafkatopError("; ".join(failures))

        app.act(f"exact lag time of group {group_id}", run)  # the cluster is polled again once it ends

    def action_delete_group(self, offsets_only: bool) -> None:
        key = "X" if offsets_only else "x"
        if self.screen.in_tab(GROUPS, key, "acts on the group highlighted", "a group"):
            group = self.screen.query_one(GroupsPane).selected_group
            self.screen.host.cluster_actions.delete_group(group, offsets_only)
