"""The kafkatop app: composes widgets, runs workers, routes their messages. It never fetches data itself: every
source and actuator comes in through `Sources`, and blocking calls run in thread workers."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Footer, Select, Static, TabbedContent, TabPane

from kafkatop.backends.errors import KafkatopError
from kafkatop.backends.history import History
from kafkatop.backends.model import ClusterSnapshot
from kafkatop.backends.quorum import QuorumSnapshot
from kafkatop.backends.timeline import Timeline
from kafkatop.tui.messages import (
    ActionFinished,
    ClientsDrained,
    ClusterPolled,
    ClusterPollFailed,
    EnsemblePolled,
    NodesPolled,
)
from kafkatop.tui.screens.confirm import ConfirmScreen
from kafkatop.tui.screens.create_topic import CreateTopicScreen, NewTopicRequest
from kafkatop.tui.screens.help import HelpScreen
from kafkatop.tui.widgets.brokers import BrokerTable
from kafkatop.tui.widgets.clients import ConsumerPanel, GroupsPanel, ProducerPanel
from kafkatop.tui.widgets.ensemble import EnsemblePane
from kafkatop.tui.widgets.nodes import NodeLog, NodeTable
from kafkatop.tui.widgets.partitions import PartitionsPane
from kafkatop.tui.widgets.spark import SparkPanel
from kafkatop.tui.widgets.status_bar import StatusBar
from kafkatop.tui.widgets.timeline import TimelinePane

TAB_IDS = (
    "tab-partitions", "tab-brokers", "tab-produce", "tab-consume", "tab-groups", "tab-log", "tab-ensemble", "tab-spark",
    "tab-timeline",
)  # fmt: skip
NODE_ACTIONS = {"kill": "killed (kill -9)", "stop": "stopped", "start": "started", "restart": "restarted"}


@dataclass(frozen=True)
class Settings:
    poll_interval_s: float = 1.0
    banner: str | None = None  # e.g. the DEMO notice
    drain_interval_s: float = 0.1  # producer/consumer output: one UI update per drain, not one per message
    ensemble_interval_s: float = 2.0


@dataclass(frozen=True)
class Sources:
    """Everything the app reads from or acts on. Tests pass recorded data; the CLI passes the real backends."""

    poll_cluster: Callable[[], ClusterSnapshot]
    control: Any = None  # backends.control.ClusterControl: process panes and kill/stop/start/restart
    poll_ensemble: Callable[[], Any] | None = None  # ZooKeeper stats or the KRaft quorum
    topic_admin: Callable[[], Any] | None = None  # a TopicAdmin factory: create/delete topics
    clients: Any = None  # backends.consoles.Consoles: producer, consumers, group admin
    startup: Callable[[], object] | None = None  # e.g. start the lab cluster: run once, in a worker, after mount
    spark: Any = None  # kafkatop.spark.client.SparkCounts: the Spark panel's counts (a separate Spark process)
    durability: Callable[[Any, Callable[[Any], None]], Any] | None = None  # (settings, on_progress) -> a check


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
        self.snapshot: ClusterSnapshot | None = None
        self.nodes: Any = None
        self.ensemble: Any = None
        self.ensemble_problem: str | None = None
        self.failure: str | None = None
        self.last_action: ActionFinished | None = None
        self._next_poll: Timer | None = None
        self._next_nodes_poll: Timer | None = None
        # Fed by the poll workers (thread-safe, bounded); the UI draws their snapshots.
        self.timeline = Timeline()
        self.history = History()
        self.history_view: Any = None  # the HistorySnapshot of the last poll

    @property
    def shutting_down(self) -> bool:
        """Quitting: the screens are gone, and a worker's last message has nothing to draw on."""
        return not self.screen_stack

    @property
    def main_screen(self) -> Screen[Any]:
        """The screen with the tabs: polls keep drawing it while a dialog is open on top (where `self.query_one`
        would look, and find nothing)."""
        return self.screen_stack[0]

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
        if self.sources.poll_ensemble is None:
            # The demo's mock has no ZooKeeper or quorum.
            self.main_screen.query_one(TabbedContent).hide_tab("tab-ensemble")
        if self.sources.control is None:
            self.main_screen.query_one(TabbedContent).hide_tab("tab-log")
        # Textual's startup leaves a large, long-lived heap: without this, a full collection lands in the middle
        # of a refresh every few polls and costs more than the refresh (bench/tui_refresh.py). Frozen objects
        # are never collected, so this runs once, here.
        gc.freeze()
        self.main_screen.query_one(StatusBar).show(None, None, None)
        if self.sources.startup is not None:
            self._act("cluster started", self.sources.startup)
        self.poll_cluster()
        if self.sources.control is not None:
            self.poll_nodes()
        if self.sources.poll_ensemble is not None:
            self.poll_ensemble()
        if self.sources.clients is not None:
            self.set_interval(self.settings.drain_interval_s, self.drain_clients)

    # --- polling: one worker per source at a time; the next poll is scheduled when the last one ended -------------
    @work(thread=True, group="poll-admin", exclusive=False, exit_on_error=False)
    def poll_cluster(self) -> None:
        try:
            snapshot = self.sources.poll_cluster()
            self.timeline.observe_cluster(snapshot)
            self.history.observe_cluster(snapshot)
            self.post_message(ClusterPolled(snapshot, self.history.snapshot()))
        except KafkatopError as e:
            self.post_message(ClusterPollFailed(str(e), self._clock()))
        except Exception as e:  # noqa: BLE001 - a library surprise must not end the app; show it instead
            self.post_message(ClusterPollFailed(f"{type(e).__name__}: {e}", self._clock()))

    @work(thread=True, group="poll-nodes", exclusive=True, exit_on_error=False)
    def poll_nodes(self) -> None:
        try:
            snapshot = self.sources.control.poll()
            self.timeline.observe_nodes(snapshot)
        except Exception:  # noqa: BLE001 - the panes keep their last state; the next poll tries again
            snapshot = None
        self.post_message(NodesPolled(snapshot))

    @work(thread=True, group="poll-ensemble", exclusive=True, exit_on_error=False)
    def poll_ensemble(self) -> None:
        assert self.sources.poll_ensemble is not None
        try:
            ensemble = self.sources.poll_ensemble()
            if isinstance(ensemble, QuorumSnapshot):
                self.timeline.observe_quorum(ensemble)
            self.post_message(EnsemblePolled(ensemble))
        except KafkatopError as e:
            self.post_message(EnsemblePolled(None, str(e)))
        except Exception as e:  # noqa: BLE001
            self.post_message(EnsemblePolled(None, f"{type(e).__name__}: {e}"))

    def _schedule_next_poll(self) -> None:
        # One pending poll at most: a manual refresh must not start a second chain of timers.
        if self._next_poll is not None:
            self._next_poll.stop()
        self._next_poll = self.set_timer(self.settings.poll_interval_s, self.poll_cluster)

    def on_cluster_polled(self, message: ClusterPolled) -> None:
        if self.shutting_down:
            return
        self.snapshot, self.failure = message.snapshot, None
        self.history_view = message.history
        self._render_cluster()
        self._schedule_next_poll()

    def on_cluster_poll_failed(self, message: ClusterPollFailed) -> None:
        if self.shutting_down:
            return
        # Keep the last good data on screen, with its age.
        self.failure = message.reason
        self._render_status(message.at)
        self._schedule_next_poll()

    def on_nodes_polled(self, message: NodesPolled) -> None:
        if self.shutting_down:
            return
        if message.snapshot is not None:
            self.nodes = message.snapshot
            self._render_nodes()
        # One pending nodes poll at most: an action's immediate poll must not start a second chain of timers.
        if self._next_nodes_poll is not None:
            self._next_nodes_poll.stop()
        self._next_nodes_poll = self.set_timer(self.settings.poll_interval_s, self.poll_nodes)

    def on_ensemble_polled(self, message: EnsemblePolled) -> None:
        if self.shutting_down:
            return
        self.ensemble = message.snapshot if message.snapshot is not None else self.ensemble
        self.ensemble_problem = message.problem
        self._render_ensemble()
        self._render_status(self._clock())
        self._render_nodes()  # the quorum leader is KRaft's active controller: its ★ moves with it
        self.set_timer(self.settings.ensemble_interval_s, self.poll_ensemble)

    # --- rendering ---------------------------------------------------------------------------------------------
    def _mode(self) -> str | None:
        return self.snapshot.mode if self.snapshot is not None else None

    def _controller_id(self) -> int | None:
        if self.snapshot is not None and self.snapshot.controller_id is not None:
            return self.snapshot.controller_id
        return getattr(self.ensemble, "leader_id", None)  # KRaft: the quorum leader is the active controller

    def _render_status(self, now: float) -> None:
        age = now - self.snapshot.taken_at if self.snapshot is not None and self.failure else None
        self.main_screen.query_one(StatusBar).show(
            self.snapshot, self.failure, age, controller_id=self._controller_id(), last_action=self.last_action
        )

    def _render_cluster(self) -> None:
        assert self.snapshot is not None
        if self.snapshot.mode == "zk":
            self.main_screen.query_one(TabbedContent).get_tab("tab-ensemble").label = "ZooKeeper"  # type: ignore[assignment]
        self._render_status(self.snapshot.taken_at)
        # Tabs out of sight are brought up to date when shown (TabActivated): a hidden table that changes would
        # still re-lay out the screen, which at 1,000 partitions costs as much as the visible refresh.
        active = self.main_screen.query_one(TabbedContent).active
        self.main_screen.query_one(PartitionsPane).show(self.snapshot, self.snapshot.taken_at, self.history_view)
        if active == "tab-brokers":
            self.main_screen.query_one(BrokerTable).show(self.snapshot, self._controller_id())
        if active == "tab-groups":
            self.main_screen.query_one(GroupsPanel).show_groups(self.snapshot, self.history_view)
        if active == "tab-spark":
            self.main_screen.query_one(SparkPanel).show_topics([t.name for t in self.snapshot.topics])
        self._render_nodes()

    def _render_nodes(self) -> None:
        self._render_timeline()
        if self.nodes is None or self.sources.control is None:
            return
        leaders = self.snapshot.leaders_by_broker if self.snapshot is not None else {}
        replicas = self.snapshot.replicas_by_broker if self.snapshot is not None else {}
        table = self.main_screen.query_one(NodeTable)
        table.show(self.nodes, self._controller_id(), leaders, replicas)
        self._render_log()

    def _render_timeline(self) -> None:
        if self.main_screen.query_one(TabbedContent).active == "tab-timeline":
            self.main_screen.query_one(TimelinePane).show(self.timeline.snapshot())

    def _render_log(self) -> None:
        if self.main_screen.query_one(TabbedContent).active != "tab-log":
            return  # drawn when its tab is shown
        name = self.main_screen.query_one(NodeTable).selected_name if self.sources.control is not None else None
        node = next((n for n in getattr(self.nodes, "nodes", ()) if n.name == name), None)
        self.main_screen.query_one(NodeLog).show(name, node.log_tail if node else (), node.detail if node else None)

    def _render_ensemble(self) -> None:
        if self.main_screen.query_one(TabbedContent).active == "tab-ensemble":
            self.main_screen.query_one(EnsemblePane).show(self.ensemble, self.ensemble_problem, self._mode())

    @on(TabbedContent.TabActivated)
    def _tab_shown(self) -> None:
        if self.main_screen.query_one(TabbedContent).active == "tab-spark":
            self.main_screen.query_one(SparkPanel).warm_up()
        if self.snapshot is not None:
            self._render_cluster()
        self._render_log()
        self._render_ensemble()

    @on(DataTable.RowHighlighted, "#nodes")
    def _node_highlighted(self) -> None:
        self._render_log()

    @on(Select.Changed, "#topic-picker")
    def _topic_picked(self) -> None:
        if self.snapshot is not None:
            pane = self.main_screen.query_one(PartitionsPane)
            pane.show(self.snapshot, self.snapshot.taken_at, self.history_view)

    # --- actions -----------------------------------------------------------------------------------------------
    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Every action is also a command-palette command (ctrl+p), with the key that does it in its help."""
        yield from super().get_system_commands(screen)
        commands = [
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
        panes = TAB_IDS
        # Focus moves into the new tab: left in the old one, it would pull that tab back to the front.
        self.set_focus(None)
        self.main_screen.query_one(TabbedContent).active = panes[index - 1]
        pane = self.main_screen.query_one(f"#{panes[index - 1]}", TabPane)
        first = next((w for w in pane.query("*") if w.focusable), None)
        if first is not None:
            self.set_focus(first)

    def action_refresh(self) -> None:
        if not any(w.group == "poll-admin" and w.is_running for w in self.workers):
            if self._next_poll is not None:
                self._next_poll.stop()
            self.poll_cluster()

    def action_node(self, action: str) -> None:
        if self.sources.control is None:
            self.notify(
                "no cluster processes here: attach to a lab cluster or start one (kafkatop up)", severity="warning"
            )
            return
        name = self.main_screen.query_one(NodeTable).selected_name
        if name is None:
            self.notify("highlight a node first (arrow keys in the process table)", severity="warning")
            return
        self.notify(f"{action} {name} …", timeout=2)
        view = self.nodes.node(name) if self.nodes is not None else None

        def act() -> None:
            self.timeline.record_action(action, name, broker_id=view.node_id if view is not None else None)
            getattr(self.sources.control, action)(name)

        self._act(f"{name} {NODE_ACTIONS[action]}", act)

    def action_add_broker(self) -> None:
        if self.sources.control is None:
            return
        self._act("broker added", lambda: self.sources.control.add_broker())

    def action_create_topic(self) -> None:
        if self.sources.topic_admin is None:
            self.notify("topics cannot be created here", severity="warning")
            return
        live = len(self.snapshot.brokers_alive) if self.snapshot is not None else None
        self.push_screen(CreateTopicScreen(live), self._create_topic)

    def _create_topic(self, request: NewTopicRequest | None) -> None:
        if request is None or self.sources.topic_admin is None:
            return
        factory = self.sources.topic_admin

        def create() -> None:
            with factory() as admin:
                admin.create_topic(request.name, request.partitions, request.replication_factor, request.configs)

        self._act(f"topic {request.name} created", create)

    def action_durability(self) -> None:
        from kafkatop.tui.screens.durability import DurabilityScreen
        from kafkatop.tui.widgets.partitions import PartitionTable

        if self.sources.durability is None:
            self.notify("the durability check needs a cluster kafkatop can reach", severity="warning")
            return
        kind = getattr(self.nodes, "kind", None)
        topic = self.main_screen.query_one(PartitionTable).selected_topic
        self.push_screen(DurabilityScreen(self.sources.durability, topic, can_restart=kind != "attach"))

    def action_delete_topic(self) -> None:
        from kafkatop.tui.widgets.partitions import PartitionTable

        topic = self.main_screen.query_one(PartitionTable).selected_topic
        if topic is None or self.sources.topic_admin is None:
            self.notify("highlight a row of the topic to delete", severity="warning")
            return
        factory = self.sources.topic_admin

        def answered(yes: bool | None) -> None:
            if not yes:
                return

            def delete() -> None:
                with factory() as admin:
                    admin.delete_topic(topic)

            self._act(f"topic {topic} deleted", delete)

        self.push_screen(ConfirmScreen(f"Delete topic {topic!r} and all its messages?"), answered)

    def _act(self, what: str, call: Callable[[], object]) -> None:
        self._run_action(what, call)

    @work(thread=True, group="action", exit_on_error=False)
    def _run_action(self, what: str, call: Callable[[], object]) -> None:
        try:
            call()
        except KafkatopError as e:
            self.post_message(ActionFinished(what, str(e)))
        except Exception as e:  # noqa: BLE001 - a failed action is reported, never a crash
            self.post_message(ActionFinished(what, f"{type(e).__name__}: {e}"))
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
        if self.sources.control is not None:
            self.poll_nodes()
        self.action_refresh()

    # --- producer and consumers --------------------------------------------------------------------------------
    @work(thread=True, group="drain-clients", exclusive=True, exit_on_error=False)
    def drain_clients(self) -> None:
        try:
            activity = self.sources.clients.drain()
            if activity is not None:
                self.timeline.observe_consoles(activity)
        except Exception:  # noqa: BLE001 - a broken client shows in its panel, not as a crash
            return
        if activity is not None:
            self.post_message(
                ClientsDrained(
                    list(activity.deliveries),
                    list(activity.received),
                    list(activity.changes),
                    activity.dropped,
                    activity.consumers,
                )
            )

    def on_clients_drained(self, message: ClientsDrained) -> None:
        if self.shutting_down:
            return
        self.main_screen.query_one(ProducerPanel).show_deliveries(message.deliveries)
        self.main_screen.query_one(ConsumerPanel).show_drained(message)
