"""The command palette (ctrl+p): the actions of keymap.py that apply where the user is now — the tab shown, how the
view was launched (lab, attached, demo, replay), the sources it has — each with the key that does it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Protocol, cast, runtime_checkable

from textual.command import DiscoveryHit, Hit, Hits, Provider

from kafkatop.backends.checks.scenario.builtin import builtin_scenarios
from kafkatop.tui.live import tabs
from kafkatop.tui.live.action import Launch
from kafkatop.tui.live.keymap import ACTIONS, SCREEN_ACTIONS


class ScenarioOpener(Protocol):
    def action_open(self, name: str) -> None: ...


@runtime_checkable
class Here(Protocol):
    """What the palette asks of the screen it was opened on."""

    keys_of: dict[str, object]  # the keys objects by owner (keymap.py)

    def here(self) -> tuple[Launch, str | None, frozenset[str], bool]: ...

    def tab_titles(self) -> list[str]: ...

    def tab_ids(self) -> list[str]: ...

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
    desk = cast(ScenarioOpener | None, screen.keys_of.get("scenario"))  # scenario_desk.py: on the cluster in view
    if "scenarios" in sources and launch != "replay" and not read_only and desk is not None:
        commands += [
            Command(
                f"Scenario: {name} — {s.title}",
                "open it in the scenario pane: space does a step, A runs them all",
                partial(desk.action_open, name),
            )  # fmt: skip
            for name, s in builtin_scenarios().items()
        ]
    commands += [
        Command(f"Show {title}", tab_help(title, tab_id, i), partial(screen.run_command, f"tab({i})"))
        for i, (title, tab_id) in enumerate(zip(screen.tab_titles(), screen.tab_ids(), strict=True), start=1)
    ]
    return commands


def tab_help(title: str, tab_id: str, number: int) -> str:
    """A "Show <tab>" entry's line: the tab, the key that shows it (its digit among the first nine, else its own
    key, if it has one), and what it shows."""
    tab = next((t for t in tabs.TABS if t.id == tab_id), None)
    key = str(number) if number <= 9 else None
    if key is None and tab is not None and tab.shown_by is not None:
        key = next((a.shown_keys.replace("`", "") for a in ACTIONS if a.id == tab.shown_by), None)
    said = f"the {title} tab" + (f" (key {key})" if key else "")
    return f"{said}: {tab.purpose}" if tab is not None and tab.purpose else said


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
