"""What the keys do to the cluster: a node killed, stopped, started, restarted or added; a topic created or deleted;
the durability check. Each asks what it needs first (a dialog, a confirmation), then runs in the app's action worker;
its end comes back as an ActionFinished."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol

from textual.app import SystemCommand
from textual.notifications import SeverityLevel
from textual.screen import Screen

from kafkatop.backends.model.configs import ConfigResource
from kafkatop.backends.model.nodes import NodeAction
from kafkatop.backends.model.operations import OperationKind, OperationPhase, OperationStep
from kafkatop.backends.model.processes import ProcessRole
from kafkatop.backends.model.recording import ActionTaken
from kafkatop.backends.model.topics import NewTopicRequest
from kafkatop.tui.live.feed import Feed
from kafkatop.tui.live.screens.configs import ConfigsScreen
from kafkatop.tui.live.screens.confirm import ConfirmScreen
from kafkatop.tui.live.screens.create_topic import CreateTopicScreen
from kafkatop.tui.live.screens.durability import DurabilityScreen
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

    def configs(self, *, node: str | None, broker: int | None, topic: str | None) -> None:
        """The Configs screen of a broker (by the process highlighted, or the broker in Brokers) or a topic."""
        app = self.app
        if app.sources.configs is None:
            app.notify("configs cannot be read here", severity="warning")
            return
        if node is not None:
            view = app.view.nodes.node(node) if app.view.nodes is not None else None
            if view is None or view.node_id is None or view.role not in (ProcessRole.BROKER, ProcessRole.COMBINED):
                app.notify(f"{node} is not a broker: C shows a broker's configs, or a topic's in Partitions",
                           severity="warning")  # fmt: skip
                return
            broker = view.node_id
        if broker is not None:
            resource = ConfigResource.broker(broker)
        elif topic is not None:
            resource = ConfigResource.topic(topic)
        else:
            app.notify("C shows the configs of the topic highlighted in Partitions, or of the broker highlighted in "
                       "Brokers or in the process table (0)", severity="warning", timeout=5)  # fmt: skip
            return
        subject = topic if broker is None else None

        def changed(said: str) -> None:
            app.feed.operation(OperationStep(OperationKind.CONFIG_CHANGE, OperationPhase.DONE, said, subject))

        app.push_screen(ConfigsScreen(app.sources.configs, resource, changed))


class PaletteHost(Protocol):
    def action_node(self, action: NodeAction) -> None: ...
    def action_add_broker(self) -> None: ...
    def action_create_topic(self) -> None: ...
    def action_delete_topic(self) -> None: ...
    def action_durability(self) -> None: ...
    def action_configs(self) -> None: ...
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
        ("Configs of the highlighted topic or broker", "C: view, set, delete (as kafka-configs)", app.action_configs),
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
