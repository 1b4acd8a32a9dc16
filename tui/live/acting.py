"""What an action of the user's needs of the app: its sources and settings, what it shows, the feed that tells the
timeline, a notice, a dialog, and the action worker. ClusterActions (actions.py) is given this part; the screens and
the tabs' keys see all of the app as Host (host.py), which extends it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from textual.notifications import SeverityLevel
from textual.screen import Screen

from kafkatop.tui.live.feed import Feed
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.state import LiveView


class Acting(Protocol):
    """The app, as an action sees it."""

    sources: Sources
    settings: Settings
    view: LiveView
    feed: Feed

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None: ...  # fmt: skip

    def push_screen(self, screen: Screen[Any], callback: Any = None) -> Any: ...

    def act(self, what: str, call: Callable[[], object]) -> None: ...
