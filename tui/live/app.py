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

from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static, TabbedContent, TabPane
from textual.worker import Worker, WorkerState, get_current_worker

from kafkatop.backends.insight.history import History
from kafkatop.backends.insight.merge import with_zookeeper
from kafkatop.backends.insight.timeline.model import TimelineSnapshot
from kafkatop.backends.insight.timeline.timeline import Timeline
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.nodes import NodeAction, NodesSnapshot
from kafkatop.backends.model.quorum import QuorumSnapshot
from kafkatop.backends.model.topics import NewTopicRequest
from kafkatop.tui.live.messages import ActionFinished, ClientsDrained, ClusterPolled, EnsemblePolled, NodesPolled
from kafkatop.tui.live.polling import Poller
from kafkatop.tui.live.screens.confirm import ConfirmScreen
from kafkatop.tui.live.screens.create_topic import CreateTopicScreen
from kafkatop.tui.live.screens.durability import DurabilityScreen
from kafkatop.tui.live.screens.help import HelpScreen
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.widgets.brokers import BrokerTable
from kafkatop.tui.live.widgets.clients import ConsumerPanel, GroupsPanel, ProducerPanel
from kafkatop.tui.live.widgets.ensemble import EnsemblePane
from kafkatop.tui.live.widgets.nodes import NodeLog, NodeTable
from kafkatop.tui.live.widgets.pane import LivePane
from kafkatop.tui.live.widgets.partitions import PartitionsPane, PartitionTable
from kafkatop.tui.live.widgets.spark import SparkPanel
from kafkatop.tui.live.widgets.status_bar import StatusBar
from kafkatop.tui.live.widgets.timeline import TimelinePane

TAB_IDS = (
    "tab-partitions", "tab-brokers", "tab-produce", "tab-consume", "tab-groups", "tab-log", "tab-ensemble", "tab-spark",
    "tab-timeline",
)  # fmt: skip
NODE_ACTIONS: dict[NodeAction, str] = {
    "kill": "killed (kill -9)",
    "stop": "stopped",
    "start": "started",
    "restart": "restarted",
}
ZOOKEEPER_WAIT_S = 0.5  # how long the watch worker waits for events before it looks whether it should stop


def _failure_text(error: BaseException) -> str:
    return str(error) if isinstance(error, KafkatopError) else f"{type(error).__name__}: {error}"


class KafkatopApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "kafkatop"
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "help", "Help"),
        Binding("r", "refresh", "Refresh"),
        Binding("k", "node('kill')", "Kill -9"),
        Binding("t", "node('stop')", "Stop"),
        Binding("s", "node('start')", "Start"),
        Binding("R", "node('restart')", "Restart"),
        Binding("a", "add_broker", "Add broker", show=False),
        Binding("c", "create_topic", "Create topic"),
        Binding("d", "delete_topic", "Delete topic", show=False),
        Binding("v", "durability", "Durability check", show=False),
        *(Binding(str(i), f"tab({i})", show=False) for i in range(1, len(TAB_IDS) + 1)),
    ]

    def __init__(
        self,
        sources: Sources | Callable[[], ClusterSnapshot],
        settings: Settings = Settings(),
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__()
        self.sources = sources if isinstance(sources, Sources) else Sources(poll_cluster=sources)
        self.settings = settings
        self._clock = clock
        self.view = LiveView()
        self.last_action: ActionFinished | None = None
        # Fed by the workers (thread-safe, bounded); the panes draw their snapshots.
        self.timeline = Timeline()
        self.history = History()
        self._polled: ClusterSnapshot | None = None  # the last metadata poll, before ZooKeeper's state is laid over
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
    def shutting_down(self) -> bool:
        """Quitting: the screens are gone, and a worker's last message has nothing to draw on."""
        return not self.screen_stack

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
        if self.settings.banner:
            yield Static(self.settings.banner, id="banner")
        yield StatusBar()
        if self.sources.control is not None:
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
        yield Footer()

    def on_mount(self) -> None:
        tabs = self.main_screen.query_one(TabbedContent)
        if self.sources.poll_ensemble is None:
            tabs.hide_tab("tab-ensemble")  # the demo's mock has no ZooKeeper or quorum
        if self.sources.control is None:
            tabs.hide_tab("tab-log")
        # Textual's startup leaves a large, long-lived heap: without this, a full collection lands in the middle
        # of a refresh every few polls and costs more than the refresh (bench/tui_refresh.py). Frozen objects
        # are never collected, so this runs once, here.
        gc.freeze()
        self._panes = [w for w in self.main_screen.query("*") if isinstance(w, LivePane)]
        self._show()
        if self.sources.startup is not None:
            self._act("cluster started", self.sources.startup)
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

    # --- sources, each in a thread worker ------------------------------------------------------------------------
    def _poll_cluster(self) -> None:
        polled = self.sources.poll_cluster()
        self._polled = polled
        self.timeline.observe_cluster(polled)
        watch = self.sources.zookeeper
        snapshot = with_zookeeper(polled, watch.snapshot()) if watch is not None and watch.connected else polled
        self.history.observe_cluster(snapshot)
        self.post_message(ClusterPolled(snapshot, self.history.snapshot(), self.timeline.snapshot()))

    def _poll_nodes(self) -> None:
        assert self.sources.control is not None
        snapshot = self.sources.control.poll()
        self.timeline.observe_nodes(snapshot)
        self.post_message(NodesPolled(snapshot, self.timeline.snapshot()))

    def _poll_ensemble(self) -> None:
        assert self.sources.poll_ensemble is not None
        ensemble = self.sources.poll_ensemble()
        if isinstance(ensemble, QuorumSnapshot):
            self.timeline.observe_quorum(ensemble)
        self.post_message(EnsemblePolled(ensemble, self.timeline.snapshot()))

    def _drain_clients(self) -> None:
        assert self.sources.clients is not None
        activity = self.sources.clients.drain()
        if activity is not None:
            self.timeline.observe_consoles(activity)
            self.post_message(ClientsDrained(activity, self.timeline.snapshot()))

    def _watch_zookeeper(self) -> None:
        """ZooKeeper mode: a broker deregistering, a controller moving, a leader or ISR changing reaches the screen
        from the watch's event, before the next poll."""
        watch = self.sources.zookeeper
        assert watch is not None
        watch.start()
        worker = get_current_worker()
        while not worker.is_cancelled:
            events = watch.next_events(ZOOKEEPER_WAIT_S)
            if not events:
                continue
            for event in events:
                self.timeline.observe_zookeeper(event)
            pushed = watch.snapshot()
            snapshot = with_zookeeper(self._polled, pushed) if self._polled is not None else pushed
            self.history.observe_changes(snapshot)
            self.post_message(ClusterPolled(snapshot, self.history.snapshot(), self.timeline.snapshot()))

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
        # Keep the last good data on screen, with its age.
        self._show(failure=_failure_text(error), failed_at=self._clock())

    def _ensemble_failed(self, error: BaseException) -> None:
        self._show(ensemble_problem=_failure_text(error))

    # --- messages from the workers -----------------------------------------------------------------------------
    def on_cluster_polled(self, message: ClusterPolled) -> None:
        if self.shutting_down:
            return
        if message.snapshot.mode == "zk":
            tabs = self.main_screen.query_one(TabbedContent)
            tabs.get_tab("tab-ensemble").label = "ZooKeeper"  # type: ignore[assignment]
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

    @on(DataTable.RowHighlighted, "#nodes")
    def _node_highlighted(self) -> None:
        name = self.main_screen.query_one(NodeTable).selected_name
        if name != self.view.selected_node:
            self._show(selected_node=name)

    # --- actions -----------------------------------------------------------------------------------------------
    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Every action is also a command-palette command (ctrl+p), with the key that does it in its help."""
        yield from super().get_system_commands(screen)
        commands: list[tuple[str, str, Callable[[], object]]] = [
            ("Kill -9 the highlighted node", "k: SIGKILL, no controlled shutdown", lambda: self.action_node("kill")),
            ("Stop the highlighted node", "t: SIGTERM, controlled shutdown", lambda: self.action_node("stop")),
            ("Start the highlighted node", "s", lambda: self.action_node("start")),
            ("Restart the highlighted node", "R", lambda: self.action_node("restart")),
            ("Add a broker", "a: lab clusters", self.action_add_broker),
            ("Create a topic", "c", self.action_create_topic),
            ("Delete the highlighted topic", "d", self.action_delete_topic),
            ("Durability check", "v: sequenced records while a leader fails, then read back", self.action_durability),
            ("Count the topic with Spark", "g in the Spark tab: per-partition counts", self._spark_count),
            ("Refresh now", "r", self.action_refresh),
            ("Help", "?", self.action_help),
        ]
        tabs = [
            "Partitions", "Brokers", "Produce", "Consume", "Groups", "Log", "ZooKeeper / quorum", "Spark", "Timeline",
        ]  # fmt: skip
        for title, help_text, callback in commands:
            yield SystemCommand(title, help_text, callback)
        for i, tab in enumerate(tabs, start=1):
            yield SystemCommand(f"Show {tab}", str(i), lambda i=i: self.action_tab(i))  # type: ignore[misc]

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def _spark_count(self) -> None:
        self.action_tab(TAB_IDS.index("tab-spark") + 1)
        self.main_screen.query_one(SparkPanel).action_count()

    def action_tab(self, index: int) -> None:
        # Focus moves into the new tab: left in the old one, it would pull that tab back to the front.
        self.set_focus(None)
        self.main_screen.query_one(TabbedContent).active = TAB_IDS[index - 1]
        pane = self.main_screen.query_one(f"#{TAB_IDS[index - 1]}", TabPane)
        first = next((w for w in pane.query("*") if w.focusable), None)
        if first is not None:
            self.set_focus(first)

    def action_refresh(self) -> None:
        if "admin" in self._pollers:
            self._pollers["admin"].now()

    def action_node(self, action: NodeAction) -> None:
        control = self.sources.control
        if control is None:
            self.notify(
                "no cluster processes here: attach to a lab cluster or start one (kafkatop up)", severity="warning"
            )
            return
        name = self.main_screen.query_one(NodeTable).selected_name
        if name is None:
            self.notify("highlight a node first (arrow keys in the process table)", severity="warning")
            return
        self.notify(f"{action} {name} …", timeout=2)
        view = self.view.nodes.node(name) if self.view.nodes is not None else None

        def act() -> None:
            self.timeline.record_action(action, name, broker_id=view.node_id if view is not None else None)
            getattr(control, action)(name)

        self._act(f"{name} {NODE_ACTIONS[action]}", act)

    def action_add_broker(self) -> None:
        control = self.sources.control
        if control is not None:
            self._act("broker added", control.add_broker)

    def action_create_topic(self) -> None:
        factory = self.sources.topic_admin
        if factory is None:
            self.notify("topics cannot be created here", severity="warning")
            return
        live = len(self.view.cluster.brokers_alive) if self.view.cluster is not None else None

        def create(request: NewTopicRequest | None) -> None:
            if request is None:
                return

            def run() -> None:
                admin = factory()
                try:
                    admin.create_topic(request.name, request.partitions, request.replication_factor, request.configs)
                finally:
                    admin.close()

            self._act(f"topic {request.name} created", run)

        self.push_screen(CreateTopicScreen(live), create)

    def action_durability(self) -> None:
        if self.sources.durability is None:
            self.notify("the durability check needs a cluster kafkatop can reach", severity="warning")
            return
        kind = self.view.nodes.kind if self.view.nodes is not None else None
        topic = self.main_screen.query_one(PartitionTable).selected_topic
        self.push_screen(DurabilityScreen(self.sources.durability, topic, can_restart=kind != "attach"))

    def action_delete_topic(self) -> None:
        topic = self.main_screen.query_one(PartitionTable).selected_topic
        factory = self.sources.topic_admin
        if topic is None or factory is None:
            self.notify("highlight a row of the topic to delete", severity="warning")
            return

        def answered(yes: bool | None) -> None:
            if not yes:
                return

            def delete() -> None:
                admin = factory()
                try:
                    admin.delete_topic(topic)
                finally:
                    admin.close()

            self._act(f"topic {topic} deleted", delete)

        self.push_screen(ConfirmScreen(f"Delete topic {topic!r} and all its messages?"), answered)

    def _act(self, what: str, call: Callable[[], object]) -> None:
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
        self.last_action = message
        if message.error:
            self.notify(message.error, title="failed", severity="error", timeout=8)
        else:
            self.notify(message.what, timeout=3)
        for source in ("nodes", "admin"):
            if source in self._pollers:
                self._pollers[source].now()
