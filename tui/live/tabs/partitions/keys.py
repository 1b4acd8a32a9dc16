"""The Partitions tab's keys: each acts on the highlighted partition's topic (or, for an election, the highlighted
partition), through the app's ClusterActions, which ask first and run in its action worker."""

from __future__ import annotations

from functools import partial

from kafkatop.backends.model.elections import ElectionType
from kafkatop.tui.live.action import ANY, LiveAction
from kafkatop.tui.live.tabs.partitions.pane import PartitionsPane, PartitionTable
from kafkatop.tui.live.tabs.tab import TabScreen

PARTITIONS = "tab-partitions"
_HERE = frozenset({PARTITIONS})
_TOPIC = partial(LiveAction, section="Topics", tabs=_HERE)

# fmt: off
ACTIONS: tuple[LiveAction, ...] = (
    _TOPIC("create-topic", ("c",), "create_topic", "Create topic",
        help="Partitions: create a topic",
        palette="Create a topic", needs="topic_admin", writes=True, asks_first=True, footer=True),
    _TOPIC("durability", ("v",), "durability", "Durability check",
        help="Partitions: durability check: sequenced records while a leader fails, then read back",
        palette="Durability check", needs="durability", writes=True, asks_first=True),
    _TOPIC("delete-topic", ("d",), "delete_topic", "Delete topic",
        help="Partitions: delete the highlighted topic (a confirmation names it)",
        palette="Delete the highlighted topic", needs="topic_admin", writes=True, asks_first=True),
    _TOPIC("elect-preferred", ("e",), "elect('PREFERRED')", "Elect leaders",
        help="Partitions: preferred leader election for the topic, the moves shown first",
        palette="Elect preferred leaders", needs="elections", writes=True, asks_first=True),
    _TOPIC("elect-unclean", ("E",), "elect('UNCLEAN')", "Unclean election",
        help="Partitions: unclean leader election: says what can be lost, and asks",
        palette="Elect unclean leaders", needs="elections", writes=True, asks_first=True),
    _TOPIC("add-partitions", ("P",), "add_partitions", "Add partitions",
        help="Partitions: add partitions to the topic (Kafka validates the count first)",
        palette="Add partitions to the highlighted topic", needs="topic_admin", writes=True, asks_first=True),
    _TOPIC("topic-rows", ("T",), "topic_rows", "Topic rows",
        help="Partitions: one row per topic (Enter shows its partitions), again: every partition",
        palette="One row per topic, or every partition", launches=ANY),
    _TOPIC("reassign", ("m",), "reassign", "Reassign",
        help="Partitions: move the topic's replicas (as kafka-reassign-partitions); again while it runs: "
             "cancel it",
        palette="Move the highlighted topic's replicas", needs="reassignments", writes=True, asks_first=True),
)
# fmt: on


class PartitionKeys:
    def __init__(self, screen: TabScreen) -> None:
        self.screen = screen

    @property
    def _pane(self) -> PartitionsPane:
        return self.screen.query_one(PartitionsPane)

    def action_create_topic(self) -> None:
        if self.screen.in_tab(PARTITIONS, "c", "creates a topic", "any row"):
            self.screen.host.cluster_actions.create_topic()

    def action_durability(self) -> None:
        if self.screen.in_tab(PARTITIONS, "v", "checks the durability of the highlighted topic", "its row"):
            self.screen.host.cluster_actions.durability(self._pane.selected_topic)

    def action_delete_topic(self) -> None:
        if self.screen.in_tab(PARTITIONS, "d", "deletes the topic highlighted", "its row"):
            self.screen.host.cluster_actions.delete_topic(self._pane.selected_topic)

    def action_elect(self, kind: str) -> None:
        key = "e" if kind == "PREFERRED" else "E"
        if self.screen.in_tab(PARTITIONS, key, "elects leaders for the highlighted partition's topic"):
            table = self.screen.query_one(PartitionTable)
            shown = table.shown_partitions if table.filter_text else ()
            self.screen.host.cluster_actions.elect(ElectionType(kind), table.selected_partition, shown)

    def action_reassign(self) -> None:
        actions = self.screen.host.cluster_actions
        if actions.reassigning is not None or self.screen.in_tab(
            PARTITIONS, "m", "moves the highlighted topic's replicas"
        ):
            actions.reassign(self._pane.selected_topic)

    def action_add_partitions(self) -> None:
        if self.screen.in_tab(PARTITIONS, "P", "adds partitions to the highlighted topic"):
            self.screen.host.cluster_actions.add_partitions(self._pane.selected_topic)

    def action_topic_rows(self) -> None:
        """T: the partition table as one row per topic, or every partition."""
        if self.screen.in_tab(PARTITIONS, "T", "shows one row per topic"):
            self._pane.toggle_topic_rows()
