"""Contexts in the live view: the picker (`w`), and the switch to another context without restarting — its sources
built in a worker by the composition root (tui/cli/switcher.py), the old ones closed after the new screen is up, and
each context's timeline and history kept for when the view comes back to it; and each context's start-up warnings,
shown once it is on screen. The app owns one ContextSwitch; the screen's `w` is view_keys.ContextKeys'."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Protocol, cast

from textual.app import App
from textual.screen import Screen

from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.tui.live.action import Launch
from kafkatop.tui.live.feed import Feed
from kafkatop.tui.live.host import Host
from kafkatop.tui.live.messages import ContextOpened
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.state import LiveView

WARNING_S = 30.0  # a start-up warning stays on screen this long: read as the view opens, not in a blink


class Adopting(Host, Protocol):
    """The app, as the switch sees it: a context's sources, feed and view adopted, the old one's polls held."""

    def adopt(self, sources: Sources, settings: Settings, feed: Feed, view: LiveView) -> None: ...

    def hold(self) -> None: ...


class ContextSwitch:
    def __init__(self, app: App[None], screen: Callable[[Launch], Screen[None]]) -> None:
        self.textual, self.app = app, cast(Adopting, app)
        self.screen = screen  # the main screen of a context, put up for the one switched to
        self._kept: dict[str | None, tuple[Feed, LiveView]] = {}  # the contexts not shown: their timeline, history

    def show_warnings(self) -> None:
        """The shown context's start-up warnings (Settings.warnings: a context kept read-only, a lab shown as found,
        a file others can read), as notices that stay (text: KafkatopApp.notify). Once per context shown."""
        for warning in self.app.settings.warnings:
            self.app.notify(warning, title="warning", severity="warning", timeout=WARNING_S)

    def switch(self, name: str) -> None:
        """Builds context `name`'s sources in a worker (a lab may take a moment to open); ContextOpened swaps."""
        app = self.app
        assert app.switcher is not None
        switcher = app.switcher

        def open_context() -> None:
            sources, settings = switcher.open(name)
            try:
                first: ClusterSnapshot | None = sources.poll_cluster()
            except Exception:  # noqa: BLE001 - the new screen's poller tells it, with the last good data if any
                first = None
            self.textual.post_message(ContextOpened(name, sources, settings, first))

        app.notify(f"opening context {name} …", timeout=2)
        self.textual.run_worker(open_context, group="switch", thread=True, exclusive=True, exit_on_error=False)

    def opened(self, message: ContextOpened) -> None:
        """The new context's sources are built: the old one's polls stop, its feed and view are kept, a new screen."""
        app, textual = self.app, self.textual
        if app.shutting_down or app.switcher is None:
            return
        old, switcher = app.settings.context, app.switcher
        app.hold()
        textual.workers.cancel_group(textual, "watch-zookeeper")
        app.feed.muted = True
        self._kept[old] = (app.feed, app.view)
        fresh = (Feed(textual.post_message, None, message.settings.lag_rules), LiveView())
        feed, view = self._kept.pop(message.name, fresh)
        feed.muted = False
        if message.first is not None:
            feed.cluster(message.first)  # the timeline and history see it (its Polled follows)
            view = replace(view, cluster=message.first, failure=None)
        app.adopt(message.sources, message.settings, feed, view)
        while len(textual.screen_stack) > 1:
            textual.pop_screen()
        base = textual.screen_stack[0]
        if not base._result_callbacks:  # noqa: SLF001 - the app's first screen was never pushed, so has none
            base._push_result_callback(base, None)  # noqa: SLF001 - what switch_screen gives the screen it puts up
        textual.switch_screen(self.screen(app.settings.launch))  # its panes, mounted, start the new pollers
        self.show_warnings()
        textual.run_worker(partial(switcher.close, str(old)), group="close-context", thread=True, exit_on_error=False)
