"""The kafkatop live view: composes the panes, polls each source in one generic loop (polling.py), turns what the
workers post into one LiveView that every pane draws itself from, and runs the user's actions in workers. It never
fetches data itself: every source and actuator comes in through `Sources` (ports), and blocking calls run in thread
workers."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable, Footer, TabbedContent, TabPane, Tabs
from textual.worker import Worker, WorkerState, get_current_worker

from kafkatop.backends.insight.history import History
from kafkatop.backends.insight.timeline.model import TimelineSnapshot
from kafkatop.backends.insight.timeline.timeline import Timeline
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.elections import ElectionType
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.nodes import NodeAction, NodesSnapshot
from kafkatop.backends.model.recording import ActionDone, Recorded
from kafkatop.tui.live.actions import ClusterActions, palette
from kafkatop.tui.live.feed import Feed
from kafkatop.tui.live.messages import (
    ActionFinished,
    ClientsDrained,
    ClusterPolled,
    EnsemblePolled,
    NodesPolled,
    OperationRecorded,
    PollFailed,
    ReplayProgressed,
)
from kafkatop.tui.live.polling import Poller
from kafkatop.tui.live.replay import Replay
from kafkatop.tui.live.screens.help import HelpScreen
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.widgets.banner import Banner
from kafkatop.tui.live.widgets.brokers import BrokerTable
from kafkatop.tui.live.widgets.consumer import ConsumerPanel
from kafkatop.tui.live.widgets.ensemble import EnsemblePane
from kafkatop.tui.live.widgets.filter import Filterable, FilterBar
from kafkatop.tui.live.widgets.groups import GroupsPanel
from kafkatop.tui.live.widgets.line_table import LineTable
from kafkatop.tui.live.widgets.messages import MessagesPanel
from kafkatop.tui.live.widgets.nodes import NodeLog, NodeTable
from kafkatop.tui.live.widgets.pane import LivePane
from kafkatop.tui.live.widgets.partitions import PartitionsPane, PartitionTable
from kafkatop.tui.live.widgets.producer import ProducerPanel
from kafkatop.tui.live.widgets.replay import ReplayBar
from kafkatop.tui.live.widgets.spark import SparkPanel
from kafkatop.tui.live.widgets.status_bar import StatusBar
from kafkatop.tui.live.widgets.tables import KeyedTable, MessageLog
from kafkatop.tui.live.widgets.timeline import TimelinePane

TAB_IDS = (
    "tab-partitions", "tab-brokers", "tab-produce", "tab-consume", "tab-groups", "tab-log", "tab-ensemble", "tab-spark",
    "tab-timeline", "tab-messages",
)  # fmt: skip


# The widgets focus rests on in a tab (see KafkatopApp.home): tables, whose keys are the app's keys.
HOME_WIDGETS = (DataTable, PartitionTable, LineTable)

SMALL_WIDTH = 120  # below: layouts that stack and columns that drop (80x24 is a default terminal and a tmux split)
SMALL_HEIGHT = 32


def _failure_text(error: BaseException) -> str:
    return str(error) if isinstance(error, KafkatopError) else f"{type(error).__name__}: {error}"


class KafkatopApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "kafkatop"
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        # As in top and k9s (Textual's default only says to press ctrl+q); a focused field copies with it first.
        Binding("ctrl+c", "quit", "Quit", show=False, system=True),
        Binding("question_mark", "help", "Help"),
        # Out of a text field, back to its tab's table, where every key below is a key again.
        Binding("escape", "leave_field", "Leave field", show=False),
        Binding("slash", "filter", "Filter"),
        Binding("r", "refresh", "Refresh", show=False),
        # K, not k: k moves up in every table (j/k as in less and vi), and a kill -9 is never one slip away.
        Binding("K", "node('kill')", "Kill -9"),
        Binding("t", "node('stop')", "Stop"),
        Binding("s", "node('start')", "Start"),
        Binding("R", "node('restart')", "Restart"),
        Binding("a", "add_broker", "Add broker", show=False),
        Binding("c", "create_topic", "Create topic"),
        Binding("d", "delete_topic", "Delete topic", show=False),
        Binding("v", "durability", "Durability check", show=False),
        Binding("C", "configs", "Configs", show=False),
        Binding("e", "elect('PREFERRED')", "Elect leaders", show=False),
        Binding("E", "elect('UNCLEAN')", "Unclean election", show=False),
        Binding("P", "add_partitions", "Add partitions", show=False),
        Binding("T", "topic_rows", "Topic rows", show=False),
        Binding("m", "reassign", "Reassign", show=False),
        Binding("x", "delete_group(False)", "Delete group", show=False),
        Binding("X", "delete_group(True)", "Delete group offsets", show=False),
        Binding("b", "browse", "Browse messages", show=False),
        Binding("0", "processes", "Processes", show=False),
        *(Binding(str(i), f"tab({i})", show=False) for i in range(1, min(len(TAB_IDS), 9) + 1)),
        Binding("p", "replay('toggle')", "Pause/play"),
        Binding("n", "replay('step')", "Step"),
        Binding("plus", "replay('faster')", "Faster"),
        Binding("minus", "replay('slower')", "Slower"),
    ]
    REPLAY_ACTIONS = frozenset({"replay"})
    LIVE_ACTIONS = frozenset(
        {"node", "add_broker", "create_topic", "delete_topic", "durability", "refresh", "configs", "elect",
         "add_partitions", "reassign", "delete_group", "browse"}
    )  # fmt: skip

    def __init__(
        self,
        sources: Sources | Callable[[], ClusterSnapshot],
        settings: Settings | None = None,
        clock: Callable[[], float] = time.time,
        replay: Replay | None = None,
    ) -> None:
        super().__init__()
        self.sources = sources if isinstance(sources, Sources) else Sources(poll_cluster=sources)
        self.settings = settings if settings is not None else Settings()
        self.replay = replay
        self._clock = replay.clock if replay is not None else clock
        self.view = LiveView()
        self.last_action: ActionFinished | None = None
        # Fed by the workers (the timeline and history are thread-safe and bounded); the panes draw their snapshots.
        self.feed = Feed(self.post_message, self.sources.recorder if replay is None else None)
        self.cluster_actions = ClusterActions(self)
        self._pollers: dict[str, Poller] = {}
        self._panes: list[LivePane] = []

    # --- what tests and the command line read ----------------------------------------------------------------------
    @property
    def snapshot(self) -> ClusterSnapshot | None:
        return self.view.cluster

    @property
    def nodes(self) -> NodesSnapshot | None:
        return self.view.nodes

    @property
    def failure(self) -> str | None:
        return self.view.failure

    @property
    def timeline(self) -> Timeline:
        return self.feed.timeline

    @property
    def history(self) -> History:
        return self.feed.history

    def _has(self, source: str) -> bool:
        """Whether the view has this source beside the cluster poll: live, from the Sources; replayed, from the
        recording's header."""
        if self.replay is not None:
            return source in self.replay.recording.header.sources
        return {
            "control": self.sources.control,
            "ensemble": self.sources.poll_ensemble,
            "clients": self.sources.clients,
            "zookeeper": self.sources.zookeeper,
        }[source] is not None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The replay's keys only in a replay; the keys that act on a cluster only live."""
        if action in self.REPLAY_ACTIONS:
            return self.replay is not None
        if action in self.LIVE_ACTIONS and self.replay is not None:
            return False  # a replay acts on nothing
        return True

    @property
    def shutting_down(self) -> bool:
        """Quitting: the screens are being taken down (children before their parents), and a worker's last message
        has nothing to draw on."""
        return not self.is_running or not self.screen_stack

    @property
    def main_screen(self) -> Screen[Any]:
        """The screen with the tabs: polls keep drawing it while a dialog is open on top."""
        return self.screen_stack[0]

    def hold(self) -> None:
        """No further poll (a screenshot held still)."""
        for poller in self._pollers.values():
            poller.hold()

    # --- layout ------------------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        if self.replay is not None:
            yield ReplayBar(self.replay, id="banner")
        elif self.settings.banner:
            yield Banner(self.settings.banner, id="banner")
        yield StatusBar()
        if self._has("control"):
            yield NodeTable(id="nodes")
        with TabbedContent(id="tabs"):
            with TabPane("Partitions", id="tab-partitions"):
                yield PartitionsPane()
            with TabPane("Brokers", id="tab-brokers"):
                yield BrokerTable()
            with TabPane("Produce", id="tab-produce"):
                yield ProducerPanel(self.sources.clients)
            with TabPane("Consume", id="tab-consume"):
                yield ConsumerPanel(self.sources.clients)
            with TabPane("Groups", id="tab-groups"):
                yield GroupsPanel(self.sources.clients)
            with TabPane("Log", id="tab-log"):
                yield NodeLog()
            with TabPane("Quorum", id="tab-ensemble"):
                yield EnsemblePane()
            with TabPane("Spark", id="tab-spark"):
                yield SparkPanel(self.sources.spark, clock=self._clock)
            with TabPane("Timeline", id="tab-timeline"):
                yield TimelinePane()
            # Last, so the tabs before keep their numbers; `b` shows it from anywhere (a lab's tenth tab has no digit).
            with TabPane("Messages", id="tab-messages"):
                yield MessagesPanel(self.sources.browser, clock=self._clock)
        yield FilterBar()
        yield Footer()

    def on_mount(self) -> None:
        tabs = self.main_screen.query_one(TabbedContent)
        if not self._has("ensemble"):
            tabs.hide_tab("tab-ensemble")  # the demo's mock has no ZooKeeper or quorum
        if not self._has("control"):
            tabs.hide_tab("tab-log")
        # Textual's startup leaves a large, long-lived heap: without this, a full collection lands in the middle
        # of a refresh every few polls and costs more than the refresh (bench/tui_refresh.py). Frozen objects
        # are never collected, so this runs once, here.
        gc.freeze()
        self._panes = [w for w in self.main_screen.query("*") if isinstance(w, LivePane)]
        self._fit(self.size.width, self.size.height)
        self.set_focus(self.home())
        self._show()
        if self.replay is not None:
            self.run_worker(self._play, group="replay", thread=True, exit_on_error=False)
            return
        if self.sources.startup is not None:
            self.act("cluster started", self.sources.startup)
        s = self.settings
        self._add_poller("admin", s.poll_interval_s, self._poll_cluster, self._cluster_failed)
        if self.sources.control is not None:
            self._add_poller("nodes", s.poll_interval_s, self._poll_nodes, lambda _: None)  # panes keep their state
        if self.sources.poll_ensemble is not None:
            self._add_poller("ensemble", s.ensemble_interval_s, self._poll_ensemble, self._ensemble_failed)
        if self.sources.clients is not None:
            self._add_poller("clients", s.drain_interval_s, self._drain_clients, lambda _: None)
        if self.sources.zookeeper is not None:
            self.run_worker(self._watch_zookeeper, group="watch-zookeeper", thread=True, exit_on_error=False)

    def _add_poller(
        self, source: str, interval_s: float, poll: Callable[[], None], on_failure: Callable[[BaseException], None]
    ) -> None:
        poller = self._pollers[source] = Poller(self, source, interval_s, poll, on_failure)
        poller.now()

    # --- the view: one value, drawn by every pane that is on screen ------------------------------------------------
    def _show(self, **changes: Any) -> None:
        if self.shutting_down:
            return
        self.view = replace(self.view, **changes)
        for pane in self._panes:
            pane.feed(self.view)

    def _timeline(self, current: TimelineSnapshot | None) -> TimelineSnapshot | None:
        """The newer of the view's timeline and `current` (a worker's snapshot, possibly older than another's)."""
        shown = self.view.timeline
        return current if current is not None and (shown is None or current.revision > shown.revision) else shown

    # --- sources, each in a thread worker; what they deliver goes through the feed ---------------------------------
    def _poll_cluster(self) -> None:
        self.feed.cluster(self.sources.poll_cluster())

    def _poll_nodes(self) -> None:
        assert self.sources.control is not None
        self.feed.nodes(self.sources.control.poll())

    def _poll_ensemble(self) -> None:
        assert self.sources.poll_ensemble is not None
        self.feed.ensemble(self.sources.poll_ensemble())

    def _drain_clients(self) -> None:
        assert self.sources.clients is not None
        activity = self.sources.clients.drain()
        if activity is not None:
            self.feed.consoles(activity)

    def _watch_zookeeper(self) -> None:
        assert self.sources.zookeeper is not None
        worker = get_current_worker()
        self.feed.follow_zookeeper(self.sources.zookeeper, lambda: worker.is_cancelled)

    def _play(self) -> None:
        assert self.replay is not None
        worker = get_current_worker()

        def deliver(entry: Recorded) -> None:
            self.feed.replayed(entry)
            self.post_message(ReplayProgressed())

        self.replay.run(deliver, lambda: worker.is_cancelled)
        self.post_message(ReplayProgressed())

    # --- workers' ends: the one place a failed worker is handled ---------------------------------------------------
    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        state = event.state
        if state not in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            return
        error = event.worker.error if state is WorkerState.ERROR else None
        poller = self._pollers.get(event.worker.group.removeprefix("poll-"))
        if poller is not None and event.worker.group == poller.group:
            if not self.shutting_down:
                poller.finished(error)
        elif error is not None and event.worker.group == "watch-zookeeper" and not self.shutting_down:
            self.notify(
                f"ZooKeeper's watches stopped ({_failure_text(error)}): changes are seen at the next poll",
                severity="warning",
                timeout=8,
            )

    def _cluster_failed(self, error: BaseException) -> None:
        self._poll_failed("admin", _failure_text(error), self._clock())

    def _ensemble_failed(self, error: BaseException) -> None:
        self._poll_failed("ensemble", _failure_text(error), self._clock())

    def _poll_failed(self, source: str, reason: str, at: float) -> None:
        self.feed.failed(source, reason, at)
        if source == "admin":
            self._show(failure=reason, failed_at=at)  # the last good data stays on screen, with its age
        else:
            self._show(ensemble_problem=reason)

    def on_poll_failed(self, message: PollFailed) -> None:
        self._poll_failed(message.source, message.reason, message.at)

    def on_replay_progressed(self) -> None:
        if self.replay is not None and not self.shutting_down:
            self.main_screen.query_one(ReplayBar).refresh_state()

    # --- messages from the workers -----------------------------------------------------------------------------
    def on_cluster_polled(self, message: ClusterPolled) -> None:
        if self.shutting_down:
            return
        if message.snapshot.mode == "zk":
            tabs = self.main_screen.query_one(TabbedContent)
            tabs.get_tab("tab-ensemble").label = "ZooKeeper"
        self._show(
            cluster=message.snapshot,
            history=message.history,
            failure=None,
            timeline=self._timeline(message.timeline),
        )

    def on_nodes_polled(self, message: NodesPolled) -> None:
        self._show(nodes=message.snapshot, timeline=self._timeline(message.timeline))

    def on_ensemble_polled(self, message: EnsemblePolled) -> None:
        self._show(ensemble=message.snapshot, ensemble_problem=None, timeline=self._timeline(message.timeline))

    def on_clients_drained(self, message: ClientsDrained) -> None:
        if self.shutting_down:
            return
        self.main_screen.query_one(ProducerPanel).show_deliveries(message.activity.deliveries)
        self.main_screen.query_one(ConsumerPanel).show_drained(message.activity)
        if message.timeline is not None and message.timeline is not self.view.timeline:
            self._show(timeline=self._timeline(message.timeline))

    def on_operation_recorded(self, message: OperationRecorded) -> None:
        if not self.shutting_down and message.timeline is not self.view.timeline:
            self._show(timeline=self._timeline(message.timeline))

    @on(DataTable.RowHighlighted, "#nodes")
    def _node_highlighted(self) -> None:
        if self.shutting_down:
            return  # the table's last highlight, delivered after its screen was taken down
        name = self.main_screen.query_one(NodeTable).selected_name
        if name != self.view.selected_node:
            self._show(selected_node=name)

    # --- actions -----------------------------------------------------------------------------------------------
    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Every action is also a command-palette command (ctrl+p), with the key that does it in its help."""
        yield from super().get_system_commands(screen)
        yield from palette(self)

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.tab_titles()))

    def spark_count(self) -> None:
        self.show_tab("tab-spark")
        self.main_screen.query_one(SparkPanel).action_count()

    # --- focus: keys act from every table; a field is entered on purpose and left with Escape ---------------------
    def visible_tabs(self) -> list[TabPane]:
        """The tabs on show, in order: the number keys, help and the palette all count these."""
        tabs = self.main_screen.query_one(TabbedContent)
        return [pane for pane in tabs.query(TabPane) if pane.id is not None and tabs.get_tab(pane.id).display]

    def action_tab(self, index: int) -> None:
        shown = self.visible_tabs()
        if not 1 <= index <= len(shown):
            self.notify(f"no tab {index} here: 1–{len(shown)} are {self._tab_names()}", timeout=4)
            return
        self.show_tab(str(shown[index - 1].id))

    def show_tab(self, tab_id: str) -> None:
        # Focus moves into the new tab: left in the old one, it would pull that tab back to the front.
        self.set_focus(None)
        self.main_screen.query_one(TabbedContent).active = tab_id
        self.set_focus(self.home())

    def tab_titles(self) -> list[str]:
        tabs = self.main_screen.query_one(TabbedContent)
        return [str(tabs.get_tab(str(p.id)).label) for p in self.visible_tabs()]

    def _tab_names(self) -> str:
        return ", ".join(f"{i} {t}" for i, t in enumerate(self.tab_titles(), start=1))

    def home(self) -> Widget:
        """Where focus rests in the active tab: its table, or else the tab bar (arrow keys switch tabs there); never
        a text field, where q, the numbers and the node keys would be typed instead."""
        tabs = self.main_screen.query_one(TabbedContent)
        pane = tabs.active_pane
        if pane is not None:
            for widget in pane.query("*"):
                if isinstance(widget, HOME_WIDGETS) and widget.focusable and widget.display:
                    return widget
        return tabs.query_one(Tabs)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        """Layouts for a small terminal (app.tcss): `-narrow` stacks what sits side by side, `-short` folds the
        banner to one line and shortens the process table."""
        if not self.screen_stack:
            return
        self.main_screen.set_class(width < SMALL_WIDTH, "-narrow")
        self.main_screen.set_class(height < SMALL_HEIGHT, "-short")

    @on(TabbedContent.TabActivated)
    def _tab_shown(self) -> None:
        self.main_screen.query_one(FilterBar).follow(self.filter_target())

    def on_key(self, event: events.Key) -> None:
        """A replay acts on nothing: a key that would act on a cluster says so instead of doing nothing."""
        if self.replay is None or self.shutting_down:
            return
        for binding in self.BINDINGS:
            if isinstance(binding, Binding) and event.key in binding.key.split(","):
                name = binding.action.split("(")[0]
                if name in self.LIVE_ACTIONS:
                    self.notify(f"{binding.key}: {binding.description.lower()} acts on a live cluster; "
                                "a replay only plays back what was recorded", timeout=4)  # fmt: skip
                    event.stop()
                return

    def action_leave_field(self) -> None:
        focused, home = self.focused, self.home()
        if isinstance(focused, Filterable) and focused.filter_text:
            self.main_screen.query_one(FilterBar).clear()  # Escape on a filtered table: every row again
        elif focused is not home:
            self.set_focus(home)

    def action_processes(self) -> None:
        if not self._has("control"):
            self.notify("no process table here: it shows a lab cluster's processes or the demo's brokers", timeout=4)
            return
        self.set_focus(self.main_screen.query_one(NodeTable))

    def action_filter(self) -> None:
        """`/`: the active tab's table, narrowed to the rows holding what is typed."""
        target = self.filter_target()
        if target is None:
            self.notify("/ filters the partitions, the groups and the consumed messages: this tab has none", timeout=4)
            return
        self.main_screen.query_one(FilterBar).open(target)

    def filter_target(self) -> Filterable | None:
        """What `/` narrows in the active tab: the consumed messages in Consume, else the tab's table."""
        pane = self.main_screen.query_one(TabbedContent).active_pane
        log = next(iter(pane.query(MessageLog)), None) if pane is not None else None
        if log is not None:
            return log
        home = self.home()
        if isinstance(home, PartitionTable) or (isinstance(home, KeyedTable | LineTable) and home.filterable):
            return home
        return None

    def action_replay(self, what: str) -> None:
        if self.replay is None:
            return
        if what in ("toggle", "step") and self.replay.state().ended:
            self.notify("The end of the recording: nothing more to play. q quits.", timeout=4)
            return
        {"toggle": self.replay.toggle, "step": self.replay.step, "faster": self.replay.faster,
         "slower": self.replay.slower}[what]()  # fmt: skip
        self.main_screen.query_one(ReplayBar).refresh_state()

    def action_refresh(self) -> None:
        if "admin" in self._pollers:
            self._pollers["admin"].now()

    def action_node(self, action: NodeAction) -> None:
        self.cluster_actions.node(action, self.main_screen.query_one(NodeTable).selected_name)

    def action_add_broker(self) -> None:
        self.cluster_actions.add_broker()

    def action_create_topic(self) -> None:
        self.cluster_actions.create_topic()

    def action_delete_topic(self) -> None:
        if self.main_screen.query_one(TabbedContent).active != "tab-partitions":
            number = next(i for i, p in enumerate(self.visible_tabs(), start=1) if p.id == "tab-partitions")
            self.notify(f"d deletes the topic highlighted in Partitions: press {number}, pick its row, then d",
                        severity="warning", timeout=5)  # fmt: skip
            return
        self.cluster_actions.delete_topic(self.main_screen.query_one(PartitionsPane).selected_topic)

    def action_durability(self) -> None:
        self.cluster_actions.durability(self.main_screen.query_one(PartitionsPane).selected_topic)

    def action_configs(self) -> None:
        """C: the configs of the broker highlighted in the process table or Brokers, or of the topic in Partitions."""
        focused, tab = self.focused, self.main_screen.query_one(TabbedContent).active
        self.cluster_actions.configs(
            node=focused.selected_name if isinstance(focused, NodeTable) else None,
            broker=self.main_screen.query_one(BrokerTable).selected_broker if tab == "tab-brokers" else None,
            topic=self.main_screen.query_one(PartitionsPane).selected_topic if tab == "tab-partitions" else None,
        )

    def _in_partitions(self, key: str, does: str) -> bool:
        """Whether the Partitions tab is shown; if not, says how to get there (its keys act on its rows)."""
        if self.main_screen.query_one(TabbedContent).active == "tab-partitions":
            return True
        number = next(i for i, p in enumerate(self.visible_tabs(), start=1) if p.id == "tab-partitions")
        self.notify(
            f"{key} {does} in Partitions: press {number}, pick a row, then {key}", severity="warning", timeout=5
        )
        return False

    def action_elect(self, kind: str) -> None:
        key = "e" if kind == "PREFERRED" else "E"
        if self._in_partitions(key, "elects leaders for the highlighted partition's topic"):
            table = self.main_screen.query_one(PartitionTable)
            shown = table.shown_partitions if table.filter_text else ()
            self.cluster_actions.elect(ElectionType(kind), table.selected_partition, shown)

    def action_delete_group(self, offsets_only: bool) -> None:
        if self.main_screen.query_one(TabbedContent).active != "tab-groups":
            key = "X" if offsets_only else "x"
            number = next(i for i, p in enumerate(self.visible_tabs(), start=1) if p.id == "tab-groups")
            self.notify(f"{key} acts on the group highlighted in Groups: press {number}, pick a group, then {key}",
                        severity="warning", timeout=5)  # fmt: skip
            return
        self.cluster_actions.delete_group(self.main_screen.query_one(GroupsPanel).selected_group, offsets_only)

    def action_reassign(self) -> None:
        if self.cluster_actions.reassigning is not None or self._in_partitions("m", "moves the highlighted topic's "
                                                                                "replicas"):  # fmt: skip
            self.cluster_actions.reassign(self.main_screen.query_one(PartitionsPane).selected_topic)

    def action_browse(self) -> None:
        """b (and Enter in Partitions): the highlighted partition's newest records in Messages; elsewhere, the tab."""
        selected = None
        if self.main_screen.query_one(TabbedContent).active == "tab-partitions":
            selected = self.main_screen.query_one(PartitionTable).selected_partition
        self.show_tab("tab-messages")
        if selected is not None:
            self.main_screen.query_one(MessagesPanel).open(selected.topic, selected.partition)

    def action_topic_rows(self) -> None:
        """T: the partition table as one row per topic, or every partition."""
        if self._in_partitions("T", "shows one row per topic"):
            self.main_screen.query_one(PartitionsPane).toggle_topic_rows()

    def action_add_partitions(self) -> None:
        if self._in_partitions("P", "adds partitions to the highlighted topic"):
            self.cluster_actions.add_partitions(self.main_screen.query_one(PartitionsPane).selected_topic)

    def act(self, what: str, call: Callable[[], object]) -> None:
        """Runs `call` in the action worker; its end is an ActionFinished, told as a notice."""
        self._run_action(what, call)

    @work(thread=True, group="action", exit_on_error=False)
    def _run_action(self, what: str, call: Callable[[], object]) -> None:
        try:
            call()
        except Exception as e:  # noqa: BLE001 - a failed action is reported, never a crash
            self.post_message(ActionFinished(what, _failure_text(e)))
        else:
            self.post_message(ActionFinished(what))

    def on_action_finished(self, message: ActionFinished) -> None:
        if self.shutting_down:
            return
        self.feed.action_done(ActionDone(message.what, message.error), self._clock())
        self.last_action = message
        if message.error:
            self.notify(message.error, title="failed", severity="error", timeout=8)
        else:
            self.notify(message.what, timeout=3)
        for source in ("nodes", "admin"):
            if source in self._pollers:
                self._pollers[source].now()
