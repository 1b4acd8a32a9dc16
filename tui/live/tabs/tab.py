"""What a tab of the live view is, declared once in its own package (tabs/<tab>/__init__.py): its id and title, what
it shows, its keys and the object that runs them, and when it is in the tab bar. The main screen composes the tabs
from the list in tabs/__init__.py and routes each key of a tab's to that tab's keys object."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

from textual.css.query import DOMQuery
from textual.notifications import SeverityLevel
from textual.widget import Widget
from textual.widgets import TabbedContent

from kafkatop.tui.live.action import Launch, LiveAction
from kafkatop.tui.live.host import Host
from kafkatop.tui.live.sources import Settings, Sources

W = TypeVar("W", bound=Widget)


class TabScreen(Protocol):
    """The main screen, as a tab's keys object sees it."""

    @property
    def host(self) -> Host: ...

    @property
    def tabs(self) -> TabbedContent: ...

    def here(self) -> tuple[Launch, str | None, frozenset[str], bool]: ...

    def show_tab(self, tab_id: str) -> None: ...

    def in_tab(self, tab_id: str, key: str, does: str, pick: str = "a row") -> bool: ...

    def query_one(self, selector: type[W]) -> W: ...

    def query(self, selector: type[W]) -> DOMQuery[W]: ...

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...  # fmt: skip


@dataclass(frozen=True, slots=True)
class TabContext:
    """What a tab is built from: how the view was launched, its sources (those a replay recorded, in `present`)."""

    launch: Launch
    sources: Sources
    settings: Settings
    present: frozenset[str]  # the Sources members the view has, or a replay had (KafkatopApp.present)
    clock: Callable[[], float]


def showing(pane: Callable[[TabContext], Widget]) -> Callable[[TabContext], Iterator[Widget]]:
    """A tab that shows one pane."""

    def panes(context: TabContext) -> Iterator[Widget]:
        yield pane(context)

    return panes


def _always(_: TabContext) -> bool:
    return True


def _never(_: TabContext) -> bool:
    return False


@dataclass(frozen=True, slots=True)
class Tab:
    id: str  # the TabPane's id: "tab-<name>"
    title: str
    panes: Callable[[TabContext], Iterator[Widget]]  # what it shows
    actions: tuple[LiveAction, ...] = ()  # its keys: those of the screen's scope run on `keys`, a pane's on the pane
    keys: Callable[[TabScreen], object] | None = None  # the object whose action_* methods its keys run
    composed: Callable[[TabContext], bool] = _always  # in the view at all
    hidden: Callable[[TabContext], bool] = _never  # composed, but out of the tab bar until a key shows it
    work_field: str | None = None  # focused when the tab is shown (a topic typed there is text, not a key)
    css: Path | None = None  # its stylesheet, beside it: after the app's own (app.tcss), in the tabs' order
    purpose: str = ""  # what it shows, in a few words: the palette's line for "Show <title>"
    shown_by: str | None = None  # the action whose key shows it from anywhere (beyond the nine with digits)
