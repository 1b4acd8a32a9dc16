"""The keys objects of the view's own keys that are no tab's (keymap.py's `owner`): the process table's, the replay's,
the contexts'. Each acts on the screen it is given; the app is reached as the Host."""

from __future__ import annotations

from typing import cast

from textual.screen import Screen

from kafkatop.backends.model.nodes import NodeAction
from kafkatop.tui.live.host import Host
from kafkatop.tui.live.widgets.nodes import NodeTable
from kafkatop.tui.live.widgets.replay import ReplayBar


class ProcessKeys:
    """The process table's keys (K t s R a, 0): the highlighted node acted on by the app's ClusterActions."""

    def __init__(self, screen: Screen[None]) -> None:
        self.screen = screen

    def action_node(self, action: NodeAction) -> None:
        cast(Host, self.screen.app).cluster_actions.node(action, self.screen.query_one(NodeTable).selected_name)

    def action_add_broker(self) -> None:
        cast(Host, self.screen.app).cluster_actions.add_broker()

    def action_processes(self) -> None:
        if "control" not in cast(Host, self.screen.app).present():
            self.screen.notify("no process table here: it shows a lab cluster's processes or the demo's brokers",
                               timeout=4)  # fmt: skip
            return
        self.screen.app.set_focus(self.screen.query_one(NodeTable))


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
