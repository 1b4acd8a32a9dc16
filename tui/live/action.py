"""What one action of the live view is: its keys, its words, where it applies, whether it writes to the cluster, and
the tab whose keys object runs it. The keymap (keymap.py) lists the view's own; each tab declares its own beside it
(tabs/<tab>/keys.py). Panes bind theirs from here, never from the keymap, which is made from the tabs."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from textual.binding import Binding, BindingType

# How the live view was launched: a lab cluster kafkatop runs, a cluster it attached to, the demo, a recording (not
# the cluster's mode, KRaft or ZooKeeper: ClusterSnapshot.mode).
Launch = Literal["lab", "attach", "demo", "replay"]
LIVE: frozenset[Launch] = frozenset({"lab", "attach", "demo"})
REPLAY: frozenset[Launch] = frozenset({"replay"})
ANY: frozenset[Launch] = LIVE | REPLAY

# Where a binding lives: the main screen, or a pane's own (active while that pane has focus).
Scope = Literal["app", "screen", "tables", "messages", "spark", "schemas"]

# The process table, as a place a key acts in (while it has focus), beside the tabs' ids.
PROCESSES = "processes"


@dataclass(frozen=True, slots=True)
class LiveAction:
    id: str
    keys: tuple[str, ...]  # Textual's key names; the first is the one shown
    action: str  # the Textual action run in `scope` ("node('kill')" runs action_node("kill"))
    label: str  # the footer's word, and the binding's description
    help: str  # one line for the help screen and README
    section: str  # the help screen's heading
    palette: str | None = None  # the command palette's title; None: not offered there
    scope: Scope = "screen"
    # Where its key acts, and is shown in the footer and offered in the palette: tabs' ids, or PROCESSES (the process
    # table focused); pressed elsewhere it does nothing and says where it belongs. Empty: everywhere.
    tabs: frozenset[str] = frozenset()
    launches: frozenset[Launch] = LIVE  # how the view was launched, where it applies
    needs: str | None = None  # the Sources member it needs; without it, the palette does not offer it
    writes: bool = False  # changes the cluster (a process signalled, a topic, a record, a group, a leader, replicas)
    asks_first: bool = False  # a dialog or a confirmation comes before anything is done
    footer: bool = False
    # Run when the key arrives, before the keys typed after it are given to a widget: a key that moves the focus to a
    # field (`/`), so that what is typed next is the field's. In a text field it is text (MainScreen.check_action).
    priority: bool = False
    # The keys object that runs it (MainScreen.keys): a tab's id (its Tab declares it), or "replay" or "contexts";
    # None: the screen itself, or the pane of its scope.
    owner: str | None = None

    @property
    def bound(self) -> str:
        """The Textual action a key runs: a tab's own goes through the screen's router (MainScreen.action_key)."""
        return f"key({self.id!r})" if self.owner is not None else self.action

    @property
    def name(self) -> str:
        """The action's name without its parameters: `node` of `node('kill')`."""
        return self.action.split("(")[0]

    @property
    def shown_keys(self) -> str:
        """The keys as README and the help screen write them."""
        return " ".join(f"`{_KEY_NAMES.get(k, k)}`" for k in self.keys)

    def acts(self, launch: Launch, present: frozenset[str], read_only: bool) -> bool:
        """Whether its key acts here (the screen's check_action): the replay's keys only in a replay, those that act
        on a cluster only live, none that writes in a read-only context (its key says why, keymap.refused), the
        context switcher where there are contexts."""
        if self.launches == {"replay"}:
            return launch == "replay"
        if self.writes and read_only:
            return False
        if self.id == "switch-context":
            return "switcher" in present
        return launch != "replay" if self.launches <= LIVE else True

    def acts_in(self, place: str | None) -> bool:
        """Whether its key acts in `place`: the active tab's id, or PROCESSES while the process table has focus."""
        return not self.tabs or place in self.tabs

    def applies(self, launch: Launch, place: str | None, sources: frozenset[str], read_only: bool = False) -> bool:
        """Whether it does something here and now (the palette's test)."""
        return (
            launch in self.launches
            and not (read_only and self.writes)
            and self.acts_in(place)
            and (self.needs is None or self.needs in sources or launch == "replay")
        )


_KEY_NAMES = {
    "question_mark": "?",
    "slash": "/",
    "escape": "Escape",
    "enter": "Enter",
    "plus": "+",
    "minus": "-",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "less_than_sign": "<",
    "greater_than_sign": ">",
    "ctrl+c": "ctrl+c",
}


def bindings(actions: Iterable[LiveAction], scope: Scope = "screen") -> list[BindingType]:
    """The Textual bindings of `scope`: a key beyond an action's first is a hidden alias (ctrl+c for q)."""
    made: list[BindingType] = []
    for a in actions:
        if a.scope != scope or not a.keys or not a.action:
            continue
        first, *more = a.keys
        made.append(Binding(first, a.bound, a.label, show=a.footer, priority=a.priority))
        made.extend(Binding(k, a.bound, a.label, show=False, system=True) for k in more)
    return made
