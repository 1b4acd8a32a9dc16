"""What the keys do to the cluster: a node killed, stopped, started, restarted or added; a topic created or deleted;
the durability check. Each asks what it needs first (a dialog, a confirmation), then runs in the app's action worker;
its end comes back as an ActionFinished."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, Protocol

from textual.app import SystemCommand
from textual.notifications import SeverityLevel
from textual.screen import Screen

from kafkatop.backends.insight.elections import finished_text, plan_topic, started_text
from kafkatop.backends.model.cluster import TopicPartition
from kafkatop.backends.model.elections import ElectionPlan, ElectionType
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.nodes import NodeAction
from kafkatop.backends.model.operations import OperationKind, OperationPhase, OperationStep
from kafkatop.backends.model.recording import ActionTaken
from kafkatop.backends.model.topics import NewTopicRequest
from kafkatop.backends.ports import LeaderElections
from kafkatop.tui.live.feed import Feed
from kafkatop.tui.live.screens.add_partitions import AddPartitionsScreen
from kafkatop.tui.live.screens.confirm import ConfirmScreen
from kafkatop.tui.live.screens.create_topic import CreateTopicScreen
from kafkatop.tui.live.screens.durability import DurabilityScreen
from kafkatop.tui.live.screens.elect_leaders import ElectionScopes, ElectLeadersScreen
from kafkatop.tui.live.sources import Sources
from kafkatop.tui.live.state import LiveView

NODE_ACTIONS: dict[NodeAction, str] = {
    "kill": "killed (kill -9)",
    "stop": "stopped",
    "start": "started",
    "restart": "restarted",
}


class Host(Protocol):
    """What the actions need of the app."""

    sources: Sources
    view: LiveView
    feed: Feed

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...  # fmt: skip

    def push_screen(self, screen: Screen[Any], callback: Any = None) -> Any: ...

    def act(self, what: str, call: Callable[[], object]) -> None: ...


class ClusterActions:
    def __init__(self, app: Host) -> None:
        self.app = app

    def node(self, action: NodeAction, name: str | None) -> None:
        app = self.app
        control = app.sources.control
        if control is None:
            app.notify("no cluster processes here: attach to a lab cluster or start one (kafkatop up)",
                       severity="warning")  # fmt: skip
            return
        if name is None:
            app.notify("highlight a node first (arrow keys in the process table)", severity="warning")
            return
        view = app.view.nodes.node(name) if app.view.nodes is not None else None
        taken = ActionTaken(action, name, view.node_id if view is not None else None)

        def act() -> None:
            app.feed.action(taken)  # before acting: the action's effects are seen after it
            getattr(control, action)(name)

        def go(yes: bool | None = True) -> None:
            if yes:
                app.notify(f"{action} {name} …", timeout=2)
                app.act(f"{name} {NODE_ACTIONS[action]}", act)

        if action != "kill":
            go()
            return
        pid = f" (pid {view.pid})" if view is not None and view.pid is not None else ""
        leads = app.view.cluster.leaders_by_broker.get(view.node_id, 0) if (
            app.view.cluster is not None and view is not None and view.node_id is not None) else 0  # fmt: skip
        detail = "SIGKILL: no controlled shutdown" + (
            f"; it leads {leads} partition(s), which go leaderless until the controller notices" if leads else ""
        )
        app.push_screen(ConfirmScreen(f"Kill -9 {name}{pid}?", yes="Kill -9", detail=detail), go)

    def add_broker(self) -> None:
        control = self.app.sources.control
        if control is not None:
            self.app.act("broker added", control.add_broker)

    def create_topic(self) -> None:
        app = self.app
        factory = app.sources.topic_admin
        if factory is None:
            app.notify("topics cannot be created here", severity="warning")
            return
        live = len(app.view.cluster.brokers_alive) if app.view.cluster is not None else None

        def create(request: NewTopicRequest | None) -> None:
            if request is None:
                return

            def run() -> None:
                admin = factory()
                try:
                    admin.create_topic(request.name, request.partitions, request.replication_factor, request.configs)
                finally:
                    admin.close()

            app.act(f"topic {request.name} created", run)

        app.push_screen(CreateTopicScreen(live), create)

    def delete_topic(self, topic: str | None) -> None:
        app = self.app
        factory = app.sources.topic_admin
        if topic is None or factory is None:
            app.notify("highlight a row of the topic to delete", severity="warning")
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

            app.act(f"topic {topic} deleted", delete)

        about = app.view.cluster.topic(topic) if app.view.cluster is not None else None
        detail = "This cannot be undone."
        if about is not None:
            messages = sum(p.messages or 0 for p in about.partitions)
            detail = f"{len(about.partitions)} partition(s), {messages} message(s). This cannot be undone."
        app.push_screen(ConfirmScreen(f"Delete topic {topic!r} and all its messages?", detail=detail), answered)

    def durability(self, topic: str | None) -> None:
        app = self.app
        if app.sources.durability is None:
            app.notify("the durability check needs a cluster kafkatop can reach", severity="warning")
            return
        kind = app.view.nodes.kind if app.view.nodes is not None else None
        app.push_screen(DurabilityScreen(app.sources.durability, topic, can_restart=kind != "attach"))

    # --- leader elections and new partitions ----------------------------------------------------------------------
    def elect(
        self, election_type: ElectionType, partition: TopicPartition | None, shown: tuple[TopicPartition, ...] = ()
    ) -> None:
        """The election screen for the highlighted partition's topic (the scope and kind can change there); what it
        returns is sent, told to the timeline before and after."""
        app = self.app
        factory = app.sources.elections
        snapshot = app.view.cluster
        if factory is None or snapshot is None:
            app.notify("leader elections need a cluster kafkatop can reach", severity="warning")
            return
        if partition is None:
            app.notify("no partition here to elect a leader for", severity="warning")
            return
        try:
            elections = factory()
        except KafkatopError as e:
            app.notify(str(e), title="leader election", severity="error", timeout=8)
            return
        note = elections.note

        def read_log_ends(wanted: Mapping[TopicPartition, int]) -> tuple[dict[TopicPartition, int], list[str]]:
            return elections.log_ends(snapshot, wanted)

        def chosen(plan: ElectionPlan | None) -> None:
            if plan is None or not plan.moving:
                elections.close()
                return
            app.act(started_text(plan), lambda: self._elect(elections, plan, note))

        screen = ElectLeadersScreen(
            snapshot, election_type, ElectionScopes(partition, shown if len(shown) > 0 else ()),
            high_watermarks=app.feed.history.last_high_watermarks(), read_log_ends=read_log_ends, note=note,
        )  # fmt: skip
        app.push_screen(screen, chosen)

    def _elect(self, elections: LeaderElections, plan: ElectionPlan, note: str | None) -> None:
        feed, kind = self.app.feed, OperationKind.LEADER_ELECTION
        topic = plan_topic(plan)
        by = " (the demo's controller)" if note else ""
        try:
            feed.operation(OperationStep(kind, OperationPhase.STARTED, started_text(plan) + by, topic))
            try:
                results = elections.elect(plan.election_type, [c.partition for c in plan.moving])
            except KafkatopError as e:
                feed.operation(OperationStep(kind, OperationPhase.FAILED, f"{plan.election_type.word} leader "
                                             f"election failed: {e}", topic))  # fmt: skip
                raise
            phase = OperationPhase.FAILED if results.failed and not results.elected else OperationPhase.DONE
            feed.operation(OperationStep(kind, phase, finished_text(results), topic))
            if results.failed:
                raise KafkatopError(finished_text(results))
        finally:
            elections.close()

    def add_partitions(self, topic: str | None) -> None:
        app = self.app
        factory = app.sources.topic_admin
        about = app.view.cluster.topic(topic) if app.view.cluster is not None and topic is not None else None
        if factory is None or about is None:
            app.notify("highlight a row of the topic to add partitions to", severity="warning")
            return
        current = len(about.partitions)

        def validate(total: int) -> None:
            admin = factory()
            try:
                admin.add_partitions(about.name, total, validate_only=True)
            finally:
                admin.close()

        def chosen(total: int | None) -> None:
            if total is None:
                return
            kind = OperationKind.ADD_PARTITIONS

            def run() -> None:
                text = f"add partitions: {about.name} {current} → {total}"
                app.feed.operation(OperationStep(kind, OperationPhase.STARTED, text, about.name))
                admin = factory()
                try:
                    admin.add_partitions(about.name, total)
                except KafkatopError as e:
                    app.feed.operation(OperationStep(kind, OperationPhase.FAILED, f"{text} failed: {e}", about.name))
                    raise
                finally:
                    admin.close()
                app.feed.operation(OperationStep(kind, OperationPhase.DONE, f"{text}: done", about.name))

            app.act(f"topic {about.name}: {current} → {total} partitions", run)

        app.push_screen(AddPartitionsScreen(about.name, current, validate), chosen)


class PaletteHost(Protocol):
    def action_node(self, action: NodeAction) -> None: ...
    def action_add_broker(self) -> None: ...
    def action_create_topic(self) -> None: ...
    def action_delete_topic(self) -> None: ...
    def action_durability(self) -> None: ...
    def action_elect(self, kind: str) -> None: ...
    def action_add_partitions(self) -> None: ...
    def action_refresh(self) -> None: ...
    def action_help(self) -> None: ...
    def action_tab(self, index: int) -> None: ...
    def action_processes(self) -> None: ...
    def action_filter(self) -> None: ...
    def spark_count(self) -> None: ...
    def tab_titles(self) -> list[str]: ...


def palette(app: PaletteHost) -> Iterator[SystemCommand]:
    """The command palette's commands (ctrl+p): every action, with the key that does it in its help."""
    commands: list[tuple[str, str, Callable[[], object]]] = [
        ("Kill -9 the highlighted node", "K: SIGKILL, no controlled shutdown", lambda: app.action_node("kill")),
        ("Stop the highlighted node", "t: SIGTERM, controlled shutdown", lambda: app.action_node("stop")),
        ("Start the highlighted node", "s", lambda: app.action_node("start")),
        ("Restart the highlighted node", "R", lambda: app.action_node("restart")),
        ("Add a broker", "a: lab clusters", app.action_add_broker),
        ("Create a topic", "c", app.action_create_topic),
        ("Delete the highlighted topic", "d in Partitions", app.action_delete_topic),
        ("Durability check", "v: sequenced records while a leader fails, then read back", app.action_durability),
        ("Elect preferred leaders", "e in Partitions: the moves shown first", lambda: app.action_elect("PREFERRED")),
        ("Elect unclean leaders", "E in Partitions: says what can be lost, asks", lambda: app.action_elect("UNCLEAN")),
        ("Add partitions to the highlighted topic", "P in Partitions", app.action_add_partitions),
        ("Count the topic with Spark", "g in the Spark tab: per-partition counts", app.spark_count),
        ("Filter the table's rows", "/: topic, partition, group, key or value", app.action_filter),
        ("Go to the process table", "0", app.action_processes),
        ("Refresh now", "r", app.action_refresh),
        ("Help", "?", app.action_help),
    ]
    for title, help_text, callback in commands:
        yield SystemCommand(title, help_text, callback)
    for i, tab in enumerate(app.tab_titles(), start=1):
        yield SystemCommand(f"Show {tab}", str(i), lambda i=i: app.action_tab(i))  # type: ignore[misc]
