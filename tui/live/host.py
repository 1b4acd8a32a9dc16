"""What the screens, the tabs' keys and ClusterActions need of the app (KafkatopApp, app.py): what it was given, what
it shows, and where to send what the user picked. One Protocol, so that none of them imports the app."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from textual.screen import Screen

from kafkatop.tui.live.acting import Acting
from kafkatop.tui.live.actions import ClusterActions
from kafkatop.tui.live.replay import Replay
from kafkatop.tui.live.sources import Switcher


class Host(Acting, Protocol):
    """The app, as the screens, the tabs' keys and M see it."""

    replay: Replay | None
    switcher: Switcher | None
    clock: Callable[[], float]
    cluster_actions: ClusterActions

    @property
    def shutting_down(self) -> bool: ...

    @property
    def screen_stack(self) -> list[Screen[Any]]: ...

    def refresh_bindings(self) -> None: ...

    def present(self) -> frozenset[str]: ...

    def poll_now(self, source: str) -> None: ...

    def select_node(self, name: str | None) -> None: ...

    def panes_mounted(self, panes: list[Any]) -> None: ...  # widgets/pane.py's LivePanes

    def switch_context(self, name: str) -> None: ...

    def action_grant(self) -> None: ...  # M (grant_key.py)
