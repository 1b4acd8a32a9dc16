"""What the Connect tab's keys do (section Connect): a connector created from a file, paused, resumed,
stopped, restarted or deleted; its offsets shown and reset; the workers' plugins. Each asks what it needs first (a
dialog, a confirmation where it destroys), then runs in the app's action worker, told on the timeline as an operation
and, at its end, as a notice (ActionFinished); the reads (offsets, plugins, a file's validation) are asked by their
screens (`ask`). As actions.py, a dialog's module is imported when it is first opened."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from kafkatop.backends.insight.timeline.connect import worker_key
from kafkatop.backends.model.connect import Connector
from kafkatop.backends.model.connect_files import ConnectorFile
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.operations import OperationKind, OperationPhase, OperationStep
from kafkatop.backends.ports import ConnectCluster
from kafkatop.tui.live.action import ANY, LiveAction
from kafkatop.tui.live.screens.confirm import ConfirmScreen
from kafkatop.tui.live.tabs.connect.pane import NO_SOURCE, ConnectPane
from kafkatop.tui.live.tabs.tab import TabScreen

CONNECT = "tab-connect"
_HERE = frozenset({CONNECT})
_CONNECTOR = partial(LiveAction, section="Connect", tabs=_HERE, needs="connect")

# fmt: off
ACTIONS: tuple[LiveAction, ...] = (
    # Kafka Connect: capitals, as the keys of the process table and the topics leave none of the words' letters.
    LiveAction("connect-tab", ("N",), "connect_tab", "Connect",
        help="the Connect tab: connectors, their tasks and the worker each runs on, the workers (Kafka Connect's "
             "REST API, read every 2 s); Enter on a connector: its tasks, on a task: its trace",
        section="Connect", launches=ANY),
    _CONNECTOR("connect-create", ("A",), "connect('create')", "Add connector",
        help="Connect: add a connector from a file (Connect's JSON, or connect-standalone's .properties), validated "
             "first: the worker's errors are shown per field and nothing is created",
        palette="Create a connector from a file", writes=True, asks_first=True),
    _CONNECTOR("connect-pause", ("Z",), "connect('pause')", "Pause connector",
        help="Connect: pause the highlighted connector and its tasks",
        palette="Pause the highlighted connector", writes=True),
    _CONNECTOR("connect-resume", ("U",), "connect('resume')", "Resume connector",
        help="Connect: resume it (paused or stopped)",
        palette="Resume the highlighted connector", writes=True),
    _CONNECTOR("connect-stop", ("S",), "connect('stop')", "Stop connector",
        help="Connect: stop it: its tasks shut down, its config stays (its offsets can then be reset)",
        palette="Stop the highlighted connector", writes=True),
    _CONNECTOR("connect-restart", ("B",), "connect('restart')", "Restart connector",
        help="Connect: restart it, asking first whether with its tasks or only what failed",
        palette="Restart the highlighted connector", writes=True, asks_first=True),
    _CONNECTOR("connect-delete", ("D",), "connect('delete')", "Delete connector",
        help="Connect: delete the highlighted connector (a confirmation names it)",
        palette="Delete the highlighted connector", writes=True, asks_first=True),
    _CONNECTOR("connect-offsets", ("O",), "connect_view('offsets')", "Connector offsets",
        help="Connect: the highlighted connector's offsets (KIP-875); once it is stopped, `x` there resets them "
             "(asks first; refused in a read-only context)",
        palette="The highlighted connector's offsets"),
    _CONNECTOR("connect-plugins", ("L",), "connect_view('plugins')", "Connect plugins",
        help="Connect: the plugins the workers have (connectors, converters, transformations) and their versions",
        palette="Kafka Connect's plugins"),
)
# fmt: on

KEYS = {"pause": "Z", "resume": "U", "stop": "S", "restart": "B", "delete": "D", "offsets": "O"}
# The actions that ask nothing first: the word of the notice, and what the timeline says it did.
PLAIN = {
    "pause": ("paused", "paused (its tasks stop processing and stay assigned)"),
    "resume": ("resumed", "resumed"),
    "stop": ("stopped", "stopped (its tasks shut down; its config and offsets stay)"),
}


class ConnectKeys:
    """Three action names, as a read-only context refuses those that write and a replay those that ask the workers."""

    def __init__(self, screen: TabScreen) -> None:
        self.screen = screen
        self.app = screen.host

    @property
    def panel(self) -> ConnectPane:
        return self.screen.query_one(ConnectPane)

    def action_connect(self, what: str = "tab") -> None:
        self.run(what)

    action_connect_tab = action_connect_view = action_connect

    def run(self, what: str) -> None:
        app = self.app
        if what == "tab":
            launch, _, present, _ = self.screen.here()
            if "connect" not in present and launch not in ("lab", "demo"):
                app.notify(NO_SOURCE if launch != "replay" else "the recording holds no Kafka Connect", timeout=5)
            else:
                self.screen.show_tab(CONNECT)
            return
        connect = app.sources.connect
        if connect is None:
            app.notify(self.panel.missing.plain, severity="warning", timeout=6)
            return
        cluster = app.view.cluster
        foreign = app.view.connect.foreign(cluster.cluster_id if cluster else None) if app.view.connect else ()
        if foreign and what != "plugins":
            app.notify(f"{worker_key(foreign[0].url)} answers as Kafka Connect of cluster {foreign[0].kafka_cluster_id}"
                       ", not this one (another Connect on its port?): nothing was asked of it", severity="error",
                       timeout=8)  # fmt: skip
            return
        if what == "create":
            self.create(connect)
            return
        if what == "plugins":
            from kafkatop.tui.live.tabs.connect.plugins import ConnectPluginsScreen

            app.push_screen(ConnectPluginsScreen(connect))
            return
        key = KEYS[what]
        if self.screen.tabs.active != CONNECT:  # the tab, wherever its focus is
            app.notify(f"{key} acts on the connector highlighted in Connect: press N, pick a connector, then {key}",
                       severity="warning", timeout=5)  # fmt: skip
            return
        # As the view's latest poll has it, not as the table was last drawn: a dialog says the state of now.
        highlighted = self.panel.selected_connector
        connector = (self.latest(highlighted.name) or highlighted) if highlighted is not None else None
        if connector is None:
            app.notify(f"{key}: highlight a connector first (A adds one)", severity="warning")
        elif what in PLAIN:
            done, said = PLAIN[what]
            self._act(connector.name, done, lambda: getattr(connect, what)(connector.name), said)
        else:
            {"restart": self.restart, "delete": self.delete, "offsets": self.offsets}[what](connect, connector)

    def latest(self, name: str) -> Connector | None:
        """The connector as the view's latest poll has it (None: not listed there)."""
        view = self.app.view.connect
        return view.connector(name) if view is not None else None

    def _act(self, name: str, done: str, call: Callable[[], object], said: str | None = None) -> None:
        """`call` in the action worker; once a worker accepted it, the timeline tells what it did (`said`), and its
        end is a notice: "connector NAME `done`"."""
        feed = self.app.feed

        def run() -> None:
            kind = OperationKind.CONNECTOR_CHANGE
            try:
                answer = call()
            except KafkatopError as e:
                feed.operation(OperationStep(kind, OperationPhase.FAILED, f"connector {name} not {done}: {e}"))
                raise
            tail = f": {answer}" if isinstance(answer, str) and answer else ""  # the worker's own words, if any
            text = f"connector {name} {said or done} from kafkatop{tail}"
            feed.operation(OperationStep(kind, OperationPhase.DONE, text))

        self.app.act(f"connector {name} {done}", run)

    # --- the actions that ask first -----------------------------------------------------------------------------
    def create(self, connect: ConnectCluster) -> None:
        """A file's connector, validated by a worker first (its errors per field, nothing created), then created."""

        def chosen(file: ConnectorFile | None) -> None:
            if file is not None:
                config = dict(file.config)
                self._act(file.name, "created", lambda: connect.create(file.name, config),
                          f"created ({file.class_name}) from a file")  # fmt: skip

        from kafkatop.tui.live.tabs.connect.connector_create import CreateConnectorScreen

        self.app.push_screen(CreateConnectorScreen(connect), chosen)

    def restart(self, connect: ConnectCluster, connector: Connector) -> None:
        name = connector.name

        def chosen(how: tuple[bool, bool] | None) -> None:
            if how is not None:
                tasks, failed = how
                said = "restarted" + (" (what failed)" if failed else " with its tasks" if tasks else "")
                self._act(name, said, lambda: connect.restart(name, include_tasks=tasks, only_failed=failed))

        from kafkatop.tui.live.tabs.connect.connector_restart import RestartConnectorScreen

        self.app.push_screen(RestartConnectorScreen(connector, partial(self.latest, name)), chosen)

    def delete(self, connect: ConnectCluster, connector: Connector) -> None:
        name = connector.name

        def answered(yes: bool | None) -> None:
            if yes:
                self._act(name, "deleted", lambda: connect.delete(name))

        kept = (f"its consumer group connect-{name} keeps its committed offsets" if connector.type == "sink" else
                "its offsets stay in the workers' offsets topic")  # fmt: skip
        detail = (f"Its {len(connector.tasks)} task(s) stop and its config goes; {kept}, so a connector created again "
                  "with this name starts from them.")  # fmt: skip
        self.app.push_screen(ConfirmScreen(f"Delete connector {name!r}?", detail=detail,
                                           typed=self.app.settings.typed_name), answered)  # fmt: skip

    def offsets(self, connect: ConnectCluster, connector: Connector) -> None:
        """Its offsets (KIP-875); the screen returns True when a reset was asked and confirmed."""
        name = connector.name

        def chosen(reset: bool | None) -> None:
            if reset:
                self._act(name, "offsets reset", lambda: connect.reset_offsets(name), "offsets reset (KIP-875)")

        from kafkatop.tui.live.tabs.connect.connector_offsets import ConnectorOffsetsScreen

        def state() -> str | None:  # as the tab's last poll saw it: `S` may have stopped it since the screen opened
            now = self.latest(name)
            return now.state if now is not None else None

        settings = self.app.settings
        screen = ConnectorOffsetsScreen(connect, connector, settings.read_only_reason, settings.typed_name, state)
        self.app.push_screen(screen, chosen)
