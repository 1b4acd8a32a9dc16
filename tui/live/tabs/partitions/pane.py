"""The partitions tab: a topic picker (or all topics), a one-line summary of their faults, and the partition table
(partition_table.py), or one row per topic (T)."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.widget import Widget

from kafkatop.backends.insight.history import HistorySnapshot
from kafkatop.backends.model.cluster import ClusterSnapshot, Topic
from kafkatop.backends.model.disks import BrokerDisks
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.tabs.partitions.cells import UNDER_MIN_ISR
from kafkatop.tui.live.tabs.partitions.rows import (
    TOPIC_COLUMNS,
    TOPIC_COLUMNS_DROPPED_FIRST,
    TOPIC_ROWS_ABOVE,
    Sizes,
    TopicRows,
)
from kafkatop.tui.live.tabs.partitions.table import PartitionTable
from kafkatop.tui.live.text import Select, shown
from kafkatop.tui.live.widgets.line_table import LineTable
from kafkatop.tui.live.widgets.pane import LivePane

__all__ = ["PartitionTable", "PartitionsPane", "Summary"]  # the app and the tests import the table from here too

ALL_TOPICS = "\x00all"  # the picker's value for every topic (no topic can be named so)


class Summary(Widget):
    """One line repainted in place (a Static's update would re-lay out the screen on every count change)."""

    text: reactive[Text] = reactive(Text, layout=False)

    def render(self) -> Text:
        return shown(self.text)  # it names topics, a cluster, a failure: text from outside


class PartitionsPane(LivePane, Vertical):
    """A topic picker (or all topics), a one-line summary, and the table: every partition, or one row per topic
    (T switches; Enter on a topic shows its partitions)."""

    # `o` on the partition table (the topic rows' own `o` orders them by column): bound here, not in the table, so
    # that the rows and the summary saying their order change in one step, and so in one frame.
    BINDINGS = [Binding("o", "order", "Order rows", show=False)]

    def __init__(self) -> None:
        super().__init__()
        self.by_topic: bool | None = None  # None: as the cluster's size says (TOPIC_ROWS_ABOVE)
        self._summary = Text()
        self._shown: tuple[ClusterSnapshot, float, HistorySnapshot | None, BrokerDisks | None] | None = None
        self._sizes: tuple[BrokerDisks | None, Sizes | None] = (None, None)  # the replicas' bytes, by read
        self._names: list[str] | None = None  # the topic picker's, as last set
        self._topic_rows = TopicRows()

    def draw(self, view: LiveView) -> None:
        if view.cluster is not None:
            self.show(view.cluster, view.cluster.taken_at, view.history, view.log_dirs)

    def _sizes_of(self, disks: BrokerDisks | None) -> Sizes | None:
        """The replicas' bytes of a read of the log directories, worked out once per read (every 30 s)."""
        if disks is not self._sizes[0]:
            self._sizes = (disks, disks.replica_sizes() if disks is not None else None)
        return self._sizes[1]

    def redraw(self) -> None:
        """The last view fed, or else the last snapshot shown, again (a topic picked, T)."""
        if self._fed is None and self._shown is not None:
            self.show(*self._shown)
        else:
            super().redraw()

    def action_order(self) -> None:
        table = self.query_one(PartitionTable)
        if table.display:
            table.next_order()
            self.query_one("#topic-summary", Summary).text = self._with_order(self._summary, self.showing_topics)

    def _with_order(self, summary: Text, by_topic: bool) -> Text:
        order = self.query_one(PartitionTable).order
        if by_topic or order == "topic":
            return summary
        said = {"leader": "  by leader (o)", "size": "  largest first (o)"}.get(order, f"  {order} first (o)")
        return summary + Text(said, style="dim")

    @on(Select.Changed, "#topic-picker")
    def _topic_picked(self) -> None:
        self.redraw()

    @on(LineTable.Chosen, "#topic-table")
    def _topic_chosen(self, event: LineTable.Chosen) -> None:
        """Enter on a topic: its partitions."""
        self.query_one("#topic-picker", Select).value = event.key
        self.query_one(PartitionTable).focus()

    def compose(self) -> ComposeResult:
        with Horizontal(id="topic-bar"):
            yield Select(
                [("all topics", ALL_TOPICS)], value=ALL_TOPICS, allow_blank=False, id="topic-picker", compact=True
            )
            yield Summary(id="topic-summary")
        yield PartitionTable()
        yield LineTable(TOPIC_COLUMNS, id="topic-table", dropped_first=TOPIC_COLUMNS_DROPPED_FIRST)

    @property
    def topic(self) -> str | None:
        value = self.query_one("#topic-picker", Select).value
        return None if value == ALL_TOPICS or not isinstance(value, str) else value

    @property
    def showing_topics(self) -> bool:
        """Whether the table shows one row per topic (every topic picked, and T or the cluster's size says so)."""
        if self.topic is not None or self._shown is None:
            return False
        if self.by_topic is not None:
            return self.by_topic
        return sum(len(t.partitions) for t in self._shown[0].topics) > TOPIC_ROWS_ABOVE

    @property
    def selected_topic(self) -> str | None:
        if self.showing_topics:
            return self.query_one("#topic-table", LineTable).selected_key
        return self.query_one(PartitionTable).selected_topic

    def toggle_topic_rows(self) -> None:
        """T: one row per topic, or every partition; from a topic's partitions, back to the topics."""
        showing = self.showing_topics
        if self.topic is not None:
            self.by_topic = True
            self.query_one("#topic-picker", Select).value = ALL_TOPICS
        else:
            self.by_topic = not showing
        self.redraw()
        table = self.query_one("#topic-table", LineTable) if self.showing_topics else self.query_one(PartitionTable)
        table.focus()

    def show(
        self,
        snapshot: ClusterSnapshot,
        now: float,
        history: HistorySnapshot | None = None,
        disks: BrokerDisks | None = None,
    ) -> None:
        self._shown = (snapshot, now, history, disks)
        sizes = self._sizes_of(disks)
        picker = self.query_one("#topic-picker", Select)
        names = sorted([t.name for t in snapshot.topics])
        if self._names != names:
            options = [("all topics", ALL_TOPICS), *((n, n) for n in names)]
            current = picker.value
            picker.set_options(options)
            picker.value = current if current == ALL_TOPICS or current in set(names) else ALL_TOPICS
            self._names = names
        topic = self.topic
        if topic is None:  # every topic: counted in the poll's worker (ClusterSnapshot.totals)
            shown: list[Topic] = list(snapshot.topics)
            totals = snapshot.totals
            partitions, urp, offline = totals.partitions, totals.under_replicated, totals.offline
            under_min_isr = totals.under_min_isr
        else:
            shown = [t for t in snapshot.topics if t.name == topic]
            partitions = sum(len(t.partitions) for t in shown)
            urp = sum(len(t.under_replicated) for t in shown)
            offline = sum(len(t.offline) for t in shown)
            under_min_isr = sum(len(t.under_min_isr) for t in shown)
        summary = Text(f"{len(shown)} topic(s), {partitions} partition(s)")
        if urp:
            summary.append(f"  {urp} under-replicated", style="bold yellow")
        if under_min_isr:
            summary.append(f"  {under_min_isr} under min ISR (acks=all refused)", style=f"{UNDER_MIN_ISR}")
        if offline:
            summary.append(f"  {offline} offline", style="bold red")
        if topic is not None and shown:
            t = shown[0]
            summary.append(f"  RF {t.replication_factor}")
            if t.min_insync_replicas is not None:
                summary.append(f"  min.insync.replicas {t.min_insync_replicas}")
        by_topic = self.showing_topics
        if by_topic:
            summary.append("  one row per topic: Enter shows its partitions, T every partition", style="dim")
        elif topic is not None or partitions > TOPIC_ROWS_ABOVE:
            summary.append("  T one row per topic", style="dim")
        self._summary = summary
        self.query_one("#topic-summary", Summary).text = self._with_order(summary, by_topic)
        table, topics = self.query_one(PartitionTable), self.query_one("#topic-table", LineTable)
        table.display, topics.display = not by_topic, by_topic
        if by_topic:
            topics.set_rows(self._topic_rows(snapshot, history, sizes))
        else:
            table.show(snapshot, topic, now, history, sizes)
