"""The command palette (ctrl+p): the actions of keymap.py that apply where the user is now — the tab shown, how the
view was launched (lab, attached, demo, replay), the sources it has — each with the key that does it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Protocol, runtime_checkable

from textual.command import DiscoveryHit, Hit, Hits, Provider

from kafkatop.tui.live.action import Launch
from kafkatop.tui.live.keymap import SCREEN_ACTIONS


@runtime_checkable
class Here(Protocol):
    """What the palette asks of the screen it was opened on."""

    def here(self) -> tuple[Launch, str | None, frozenset[str], bool]: ...

    def tab_titles(self) -> list[str]: ...

    def run_command(self, action: str) -> None: ...


@dataclass(frozen=True, slots=True)
class Command:
    title: str
    help: str
    run: Callable[[], None]


def offered(screen: Here) -> list[Command]:
    """What the palette offers on `screen` now: what applies here, then a command per tab on show."""
    launch, tab, sources, read_only = screen.here()
    commands = [
        Command(
            a.palette,
            (f"{a.shown_keys}: {a.help}" if a.keys else a.help).replace("`", ""),
            partial(screen.run_command, a.bound),
        )  # fmt: skip
        for a in SCREEN_ACTIONS
        if a.palette is not None and a.applies(launch, tab, sources, read_only)
    ]
    commands += [
        Command(f"Show {title}", str(i), partial(screen.run_command, f"tab({i})"))
        for i, title in enumerate(screen.tab_titles(), start=1)
    ]
    return commands


class LiveCommands(Provider):
    def _commands(self) -> list[Command]:
        screen = self.screen
        return offered(screen) if isinstance(screen, Here) else []  # a dialog's palette acts on nothing behind it

    async def discover(self) -> Hits:
        for c in self._commands():
            yield DiscoveryHit(c.title, c.run, help=c.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for c in self._commands():
            score = matcher.match(c.title)
            if score > 0:
                yield Hit(score, matcher.highlight(c.title), c.run, help=c.help)
