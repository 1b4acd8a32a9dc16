"""Contexts in the live view: the picker (`w`), and the switch to another context without restarting — its sources
built in a worker by the composition root (tui/cli/switcher.py), the old ones closed after the new screen is up, and
each context's timeline and history kept for when the view comes back to it; and each context's start-up warnings,
shown once it is on screen."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import cast

from textual.app import App

from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.tui.live.actions import ClusterActions
from kafkatop.tui.live.actions import Host as ActionsHost
from kafkatop.tui.live.feed import Feed
from kafkatop.tui.live.main_screen import MainScreen
from kafkatop.tui.live.messages import ContextOpened
from kafkatop.tui.live.polling import Poller
from kafkatop.tui.live.sources import Settings, Sources, Switcher
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.widgets.pane import LivePane

WARNING_S = 30.0  # a start-up warning stays on screen this long: read as the view opens, not in a blink


class ContextSwitching(App[None]):
    """The app's half that switches contexts (KafkatopApp is the other)."""

    switcher: Switcher | None
    sources: Sources
    settings: Settings
    feed: Feed
    view: LiveView
    cluster_actions: ClusterActions
    _kept: dict[str | None, tuple[Feed, LiveView]]  # the contexts not shown: their timeline and history
    _pollers: dict[str, Poller]
    _panes: list[LivePane]

    # --- start-up warnings: what the command line said on stderr before the screen hid it -------------------------
    def on_mount(self) -> None:
        self.show_warnings()

    def show_warnings(self) -> None:
        """The shown context's start-up warnings (Settings.warnings: a context kept read-only, a lab shown as found,
        a file others can read), as notices that stay (text: KafkatopApp.notify). Once per context shown."""
        for warning in self.settings.warnings:
            self.notify(warning, title="warning", severity="warning", timeout=WARNING_S)

    @property
    def shutting_down(self) -> bool:
        """Quitting: the screens are being taken down (children before their parents), and a worker's last message
        has nothing to draw on."""
        return not self.is_running or not self.screen_stack

    # --- contexts: another cluster in the same view, each keeping its timeline and history ----------------------
    def switch_context(self, name: str) -> None:
        """Builds context `name`'s sources in a worker (a lab may take a moment to open); ContextOpened swaps."""
        assert self.switcher is not None
        switcher = self.switcher

        def open_context() -> None:
            sources, settings = switcher.open(name)
            try:
                first: ClusterSnapshot | None = sources.poll_cluster()
            except Exception:  # noqa: BLE001 - the new screen's poller tells it, with the last good data if any
                first = None
            self.post_message(ContextOpened(name, sources, settings, first))

        self.notify(f"opening context {name} …", timeout=2)
        self.run_worker(open_context, group="switch", thread=True, exclusive=True, exit_on_error=False)

    def on_context_opened(self, message: ContextOpened) -> None:
        if self.shutting_down or self.switcher is None:
            return
        old, switcher = self.settings.context, self.switcher
        for poller in self._pollers.values():
            poller.hold()
        self.workers.cancel_group(self, "watch-zookeeper")
        self.feed.muted = True
        self._kept[old] = (self.feed, self.view)
        self.sources, self.settings = message.sources, message.settings
        self.feed, self.view = self._kept.pop(message.name, (Feed(self.post_message, None), LiveView()))
        self.feed.muted = False
        if message.first is not None:
            self.feed.cluster(message.first)  # the timeline and history see it (its ClusterPolled follows)
            self.view = replace(self.view, cluster=message.first, failure=None)
        self._pollers, self._panes, self.cluster_actions = {}, [], ClusterActions(cast(ActionsHost, self))
        while len(self.screen_stack) > 1:
            self.pop_screen()
        base = self.screen_stack[0]
        if not base._result_callbacks:  # noqa: SLF001 - the app's first screen was never pushed, so has none
            base._push_result_callback(base, None)  # noqa: SLF001 - what switch_screen gives the screen it puts up
        self.switch_screen(MainScreen(self.settings.mode))  # its panes, mounted, start the new pollers
        self.show_warnings()
        self.run_worker(partial(switcher.close, str(old)), group="close-context", thread=True, exit_on_error=False)
