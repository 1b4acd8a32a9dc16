"""The keys objects of the view's own keys that are no tab's (keymap.py's `owner`): the process table's, the screens
on a broker or a topic, the replay's, the contexts'. Each acts on the screen it is given; the app is reached as the
Host."""

from __future__ import annotations

from typing import cast

from textual.screen import Screen
from textual.widgets import TabbedContent

from kafkatop.backends.model.nodes import NodeAction, NodesSnapshot, NodeState, NodeView, ProcessRole
from kafkatop.backends.model.recording import ActionTaken
from kafkatop.tui.live.host import Host
from kafkatop.tui.live.screens.confirm import ConfirmScreen
from kafkatop.tui.live.tabs.brokers import BROKERS
from kafkatop.tui.live.tabs.brokers.pane import BrokerTable
from kafkatop.tui.live.tabs.partitions.keys import PARTITIONS
from kafkatop.tui.live.tabs.partitions.pane import PartitionsPane
from kafkatop.tui.live.widgets.nodes import NodeTable
from kafkatop.tui.live.widgets.replay import ReplayBar

# The confirmation's button and what it says the action does to the process (a start asks nothing).
ASKED: dict[NodeAction, tuple[str, str]] = {
    "kill": ("Kill -9", "SIGKILL: no controlled shutdown"),
    "stop": ("Stop", "SIGTERM: a controlled shutdown"),
    "restart": ("Restart", "SIGTERM (a controlled shutdown), then a start"),
}
_LOGS_IN = (ProcessRole.BROKER, ProcessRole.COMBINED, ProcessRole.CONNECT)  # an OAuth lab's nodes that need tokens
# What an OAuth lab loses with its issuer (backends/lab/oauth.py): logins, not sessions.
_ISSUER = "; until it is back no client logs in anew (sessions open now stay), and no broker starts"
NODE_ACTIONS: dict[NodeAction, str] = {
    "kill": "killed (kill -9)",
    "stop": "stopped",
    "start": "started",
    "restart": "restarted",
}


class ProcessKeys:
    """The process table's keys (K t s R a, 0): they act on the node highlighted there, or on the broker highlighted
    in Brokers; a kill, a stop or a restart asks first, naming the node and what it takes along."""

    def __init__(self, screen: Screen[None]) -> None:
        self.screen = screen

    @property
    def _app(self) -> Host:
        return cast(Host, self.screen.app)

    def _selected(self) -> str | None:
        """The node the keys act on: the process table's row, or in Brokers (not in the table) the highlighted
        broker's process."""
        screen, nodes = self.screen, self._app.view.nodes
        if isinstance(screen.focused, NodeTable) or screen.query_one(TabbedContent).active != BROKERS:
            return screen.query_one(NodeTable).selected_name
        broker = screen.query_one(BrokerTable).selected_broker
        hosting = [n for n in nodes.nodes if n.node_id == broker and n.role is not ProcessRole.CONTROLLER] if (
            nodes is not None and broker is not None) else []  # fmt: skip
        return hosting[0].name if hosting else None

    def action_node(self, action: NodeAction) -> None:
        app, name = self._app, self._selected()
        control = app.sources.control
        if control is None:
            app.notify("no cluster processes here: attach to a lab cluster or start one (kafkatop up)",
                       severity="warning")  # fmt: skip
            return
        if name is None:
            app.notify("highlight a node first (arrow keys in the process table, or a broker in Brokers)",
                       severity="warning")  # fmt: skip
            return
        view = app.view.nodes.node(name) if app.view.nodes is not None else None
        if view is not None and action not in view.actions:  # said, not done: no action taken, no incident opened
            app.notify(f"cannot {action} {name} now: it is {view.state.value}", severity="warning", timeout=4)
            return
        refused = _needs_issuer(action, view, app.view.nodes)
        if refused is not None:  # said before asking: the supervisor would refuse it once asked (cluster.py)
            app.notify(refused, severity="warning", timeout=6)
            return
        taken = ActionTaken(action, name, view.node_id if view is not None else None)

        def act() -> None:
            app.feed.action(taken)  # before acting: the action's effects are seen after it
            getattr(control, action)(name)

        def go(yes: bool | None = True) -> None:
            if yes:
                app.notify(f"{action} {name} …", timeout=2)
                app.act(f"{name} {NODE_ACTIONS[action]}", act)

        if action == "start" or (action == "restart" and view is not None and view.state is not NodeState.UP):
            go()  # a restart of a node that is down is a start
            return
        verb = ASKED[action][0]
        pid = f" (pid {view.pid})" if view is not None and view.pid is not None else ""
        app.push_screen(ConfirmScreen(f"{verb} {name}{pid}?", yes=verb, detail=self._stopping(action, view)), go)

    def _stopping(self, action: NodeAction, node: NodeView | None) -> str:
        """What a node's kill, stop or restart does, with what it takes along: partitions it leads, Connect tasks."""
        view, leads, tasks = self._app.view, 0, 0
        if node is not None and view.cluster is not None and node.node_id is not None:
            leads = view.cluster.leaders_by_broker.get(node.node_id, 0)
        if node is not None and view.connect is not None and node.role is ProcessRole.CONNECT and node.ports:
            tasks = view.connect.tasks_on(f"127.0.0.1:{node.ports[0]}")
        moved = "which go leaderless until the controller notices" if action == "kill" else "which move first"
        return (
            ASKED[action][1]
            + (f"; it leads {leads} partition(s), {moved}" if leads else "")
            + (f"; its {tasks} task(s) wait for the group to give them to another worker" if tasks else "")
            + (_ISSUER if node is not None and node.role is ProcessRole.ISSUER else "")
        )

    def action_add_broker(self) -> None:
        control = self._app.sources.control
        if control is not None:
            self._app.act("broker added", control.add_broker)

    def action_processes(self) -> None:
        if "control" not in self._app.present():
            self.screen.notify("no process table here: it shows a lab cluster's processes or the demo's brokers",
                               timeout=4)  # fmt: skip
            return
        self.screen.app.set_focus(self.screen.query_one(NodeTable))


class ResourceKeys:
    """The keys that open a screen on a broker or a topic (C) or on the cluster (i): the row found here, the screen
    opened by ClusterActions."""

    def __init__(self, screen: Screen[None]) -> None:
        self.screen = screen

    def action_configs(self) -> None:
        """C: the configs of the broker highlighted in the process table or Brokers, or of the topic in Partitions."""
        screen, tab = self.screen, self.screen.query_one(TabbedContent).active
        cast(Host, screen.app).cluster_actions.configs(
            node=screen.focused.selected_name if isinstance(screen.focused, NodeTable) else None,
            broker=screen.query_one(BrokerTable).selected_broker if tab == BROKERS else None,
            topic=screen.query_one(PartitionsPane).selected_topic if tab == PARTITIONS else None,
        )

    def action_transactions(self) -> None:
        """i: the transactions not ended yet, read again every 2 s (the screen's own worker)."""
        cast(Host, self.screen.app).cluster_actions.transactions()


class ReplayKeys:
    """The replay's keys (p, n, +, -): the screen's, as the bar takes no focus."""

    def __init__(self, screen: Screen[None]) -> None:
        self.screen = screen

    def action_replay(self, what: str) -> None:
        replay = cast(Host, self.screen.app).replay
        if replay is None:
            return
        if what in ("toggle", "step") and replay.state().ended:
            self.screen.notify("The end of the recording: nothing more to play. q quits.", timeout=4)
            return
        {"toggle": replay.toggle, "step": replay.step, "faster": replay.faster, "slower": replay.slower}[what]()
        self.screen.query_one(ReplayBar).refresh_state()


class ContextKeys:
    """`w`: the contexts; the one picked is opened, this one closed (each keeps its timeline)."""

    def __init__(self, screen: Screen[None]) -> None:
        self.screen = screen

    def action_switch_context(self) -> None:
        from kafkatop.tui.live.screens.contexts import ContextsScreen

        host = cast(Host, self.screen.app)
        switcher, current = host.switcher, host.settings.context
        if switcher is None:
            return

        def picked(name: str | None) -> None:
            if name is not None and name != current:
                host.switch_context(name)

        self.screen.app.push_screen(ContextsScreen(switcher.choices(), current), picked)


def _needs_issuer(action: NodeAction, view: NodeView | None, nodes: NodesSnapshot | None) -> str | None:
    """Why a broker or Connect worker of an OAuth lab cannot start now (its issuer down), or None."""
    if action not in ("start", "restart") or view is None or nodes is None:
        return None
    issuer = next((n for n in nodes.nodes if n.role is ProcessRole.ISSUER), None)
    if issuer is None or issuer.state is NodeState.UP or view.role not in _LOGS_IN:
        return None
    return (f"cannot {action} {view.name}: it logs in with a token from the lab's OIDC issuer, which is "
            f"{issuer.state.value}: start it first (s on its row)")  # fmt: skip
