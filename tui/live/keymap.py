"""Every action of the live view, once: its keys, its words, where it applies, and whether it writes to the cluster.
The view's own keys are listed here; each tab's are declared in its package (tabs/<tab>/keys.py) and come in through
the tab list, the screen's scope of them routed to the tab's keys object (MainScreen.action_key).

The main screen's bindings (and so the footer), the command palette (commands.py), the help screen and README's key
table are all made from this list; a test fails when README's table and this list differ. A new key of the view is
one entry here and, if it does something new, one `action_*` method on the screen (or pane) named in `action`; a new
key of a tab's, one entry in its keys.py and its method on the tab's keys object.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from functools import partial

from textual.binding import BindingType

from kafkatop.tui.live import action
from kafkatop.tui.live.action import ANY, LIVE, PROCESSES, REPLAY, Launch, LiveAction, Scope
from kafkatop.tui.live.tabs import TABS
from kafkatop.tui.live.tabs.brokers import BROKERS
from kafkatop.tui.live.tabs.connect.keys import CONNECT
from kafkatop.tui.live.tabs.partitions.keys import PARTITIONS

# What the process table's keys and the replay's share, said once (their keys objects: view_keys.py). The process
# keys act where a node is highlighted: the process table (focused: 0) and Brokers; a topic's in Partitions.
_NODE_PLACES = frozenset({PROCESSES, BROKERS})
_PROCESS = partial(LiveAction, section="Processes", needs="control", writes=True, owner="processes", tabs=_NODE_PLACES)
_TOPIC_PLACES = frozenset({PARTITIONS})  # (the Partitions tab's own keys: tabs/partitions/keys.py)
_REPLAY = partial(LiveAction, section="Replay", launches=REPLAY, footer=True, owner="replay")

# fmt: off
_VIEW: tuple[LiveAction, ...] = (
    LiveAction("quit", ("q", "ctrl+c"), "app.quit", "Quit",
        help="quit (a lab cluster kafkatop started is stopped, unless started with `--detach`); in a text "
             "field `q` is typed, `ctrl+q` quits",
        section="View", launches=ANY, footer=True),
    LiveAction("palette", ("ctrl+p",), "command_palette", "Palette",
        help="every command that applies here, and themes",
        section="View", scope="app", launches=ANY),
    LiveAction("help", ("question_mark",), "help", "Help",
        help="this help",
        section="View", palette="Help", launches=ANY, footer=True),
    LiveAction("switch-context", ("w",), "switch_context", "Contexts",
        help="switch to another context (a cluster named in kafkatop.toml or ~/.config/kafkatop/config.toml): "
             "each keeps its timeline; a read-only one refuses every key that writes",
        section="View", palette="Switch to another context (cluster)", needs="switcher", footer=True, owner="contexts"),
    LiveAction("leave", ("escape",), "leave_field", "Leave field",
        help="out of a text field, back to its tab's table (on a filtered table: every row again; in Connect's "
             "tasks: back to the connectors)",
        section="View", launches=ANY),
    LiveAction("filter", ("slash",), "filter", "Filter",
        help="filter the table's rows: topic, partition, group, key or value (in Messages the decoded key and "
             "value, or a path: `.customer.id == 42`); Enter keeps it, Escape clears it",
        section="Tables", palette="Filter the table's rows", launches=ANY, footer=True, priority=True),
    LiveAction("refresh", ("r",), "refresh", "Refresh",
        help="poll the cluster now",
        section="View", palette="Refresh now"),
    # K, not k: k moves up in every table (j/k as in less and vi), and a kill -9 is never one slip away.
    _PROCESS("kill", ("K",), "node('kill')", "Kill -9",
        help="kill -9 the highlighted process (SIGKILL: no controlled shutdown), after a confirmation naming "
             "it; in the process table (0) or Brokers",
        palette="Kill -9 the highlighted node", asks_first=True, footer=True),
    _PROCESS("stop", ("t",), "node('stop')", "Stop",
        help="stop it (SIGTERM: controlled shutdown, leaders move first), after a confirmation",
        palette="Stop the highlighted node", asks_first=True, footer=True),
    _PROCESS("start", ("s",), "node('start')", "Start",
        help="start a stopped or killed node",
        palette="Start the highlighted node", footer=True),
    _PROCESS("restart", ("R",), "node('restart')", "Restart",
        help="restart it (a stop, confirmed first, then a start)",
        palette="Restart the highlighted node", asks_first=True, footer=True),
    _PROCESS("add-broker", ("a",), "add_broker", "Add broker",
        help="add a broker (lab clusters)",
        palette="Add a broker", launches=frozenset({"lab"})),
    LiveAction("configs", ("C",), "configs", "Configs",
        help="configs of the topic highlighted in Partitions or the broker highlighted in Brokers or the "
             "process table: set, delete (as kafka-configs)",
        section="Topics", palette="Configs of the highlighted topic or broker", tabs=_NODE_PLACES | _TOPIC_PLACES,
        needs="configs", owner="resources"),
    LiveAction("transactions", ("i",), "transactions", "Transactions",
        help="the transactions not ended yet: state, producer, age against the timeout, partitions held back from "
             "read_committed consumers (as kafka-transactions.sh list and describe), read every 2 s",
        section="Topics", palette="Transactions not ended yet", needs="transactions", owner="resources"),
    # M (perMit): after a refusal of the authorizer's, shown in the footer; an app action, on any tab (grant_key.py).
    LiveAction("grant", ("M",), "app.grant", "Grant refused",
        help="grant what Kafka's authorizer refused last (once a refusal named it): a confirmation lists the ACL "
             "bindings and who adds them (on a lab with an authorizer, User:admin, its super user), then they are "
             "added — exactly what was refused, never Kafka's wildcard `*` (said, with the line to grant it on "
             "purpose)",
        section="ACLs", palette="Grant what the authorizer refused", needs="granting", writes=True, asks_first=True,
        footer=True),
    # The scenario pane's (scenario_desk.py), shown while a scenario is open and not over (MainScreen.check_action
    # asks its keys object). In a text field a space is typed; in Connect, A adds a connector (its tab's key).
    LiveAction("scenario-next", ("space",), "next", "Next step",
        help="scenario: do the next step and watch its expectations; while a step waits for your key (K, t or s "
             "on the node it names), do it for you",
        section="Scenario", needs="scenarios", writes=True, footer=True, owner="scenario"),
    LiveAction("scenario-all", ("A",), "all", "Run all",
        help="scenario: run the rest of its steps, every one done by kafkatop (not in Connect, where A adds a "
             "connector)",
        section="Scenario", needs="scenarios", writes=True, footer=True, owner="scenario",
        tabs=frozenset(t.id for t in TABS if t.id != CONNECT) | {PROCESSES}),
    LiveAction("processes", ("0",), "processes", "Processes",
        help="the process table",
        section="View", palette="Go to the process table", launches=ANY, needs="control", owner="processes"),
    *(LiveAction(f"tab-{i}", (str(i),), f"tab({i})", f"Tab {i}", "", "View", launches=ANY) for i in range(1, 10)),
    _REPLAY("replay-toggle", ("p",), "replay('toggle')", "Pause/play",
        help="replay: pause and play",
        palette="Pause or play the replay"),
    _REPLAY("replay-step", ("n",), "replay('step')", "Step",
        help="replay: one step",
        palette="Step the replay"),
    _REPLAY("replay-faster", ("plus",), "replay('faster')", "Faster",
        help="replay: faster",
        palette="Replay faster"),
    _REPLAY("replay-slower", ("minus",), "replay('slower')", "Slower",
        help="replay: slower",
        palette="Replay slower"),
    # The panes' own keys: bound in the pane named by `scope`, active while it has focus.
    LiveAction("rows", ("j", "k", "g", "G"), "", "",
        help="down, up, first, last row (and the arrows, Home, End, PgUp, PgDn)",
        section="Tables", scope="tables", launches=ANY),
    LiveAction("order", ("o",), "order", "Order rows",
        help="order the rows: partitions faults first, most messages first, by leader, largest first (where "
             "the sizes are read); topics and groups by the next column",
        section="Tables", scope="tables", launches=ANY),
)
# fmt: on

ACTIONS: tuple[LiveAction, ...] = _VIEW + tuple(
    replace(a, owner=tab.id) if a.scope == "screen" else a for tab in TABS for a in tab.actions
)
SCREEN_ACTIONS = tuple(a for a in ACTIONS if a.scope == "screen")
TAB_IDS = frozenset(t.id for t in TABS)


def by_id(action_id: str) -> LiveAction:
    return next(a for a in ACTIONS if a.id == action_id)


def bindings(scope: Scope = "screen") -> list[BindingType]:
    """The Textual bindings of `scope` (action.bindings over every action): the keys of a place before the keys of
    everywhere, so that the footer shows first what acts where the focus is."""
    return action.bindings(sorted(ACTIONS, key=lambda a: not a.tabs), scope)


def key_rows() -> Iterator[tuple[LiveAction, str, str]]:
    """(action, keys, help) of every action that has a key and a line to say: README's table, the help screen."""
    for a in ACTIONS:
        if a.id == "tab-1":
            beyond = "Messages `b`, Connect `N`, ACLs `W`, Schemas `H`"
            yield a, "`1`–`9`", f"the tabs, as numbered in the tab bar (beyond nine: {beyond})"
        elif a.keys and a.help:
            yield a, a.shown_keys, a.help


def readme_table() -> str:
    """README's key table, as it must read."""
    lines = ["| keys | in | what it does | writes to the cluster |", "|---|---|---|---|"]
    lines += [f"| {keys} | {a.section} | {text} | {'yes' if a.writes else ''} |" for a, keys, text in key_rows()]
    return "\n".join(lines)


def place_name(place: str) -> str:
    """A place keys act in, as a notice names it: the process table (with the key that goes there), or a tab."""
    return "the process table (0)" if place == PROCESSES else next(t.title for t in TABS if t.id == place)


ANYTHING = frozenset({"scenarios"})  # refused()'s `present` when not told: every key counts


def refused(
    key: str, launch: Launch, read_only_reason: str | None, place: str | None = None, present: frozenset[str] = ANYTHING
) -> str | None:
    """What a key says when it would do nothing here: one that writes in a read-only context (`read_only_reason`),
    one that acts on a live cluster in a replay, one that acts elsewhere than `place`; None
    where the key acts (or is no key of the screen's). A tab's key out of place is not said here (misplaced). The
    scenario's keys are no keys where no scenario can run (`present` without "scenarios": read-only, attached)."""
    keyed = [a for a in SCREEN_ACTIONS if key in a.keys and (a.owner != "scenario" or "scenarios" in present)]
    for a in keyed:
        if read_only_reason is not None and launch != "replay" and a.writes:
            return f"{read_only_reason}: {a.shown_keys.replace('`', '')} ({a.label.lower()}) writes to the cluster"
        if launch == "replay" and a.launches <= LIVE:
            return f"{a.keys[0]}: {a.label.lower()} acts on a live cluster; a replay only plays back what was recorded"
    if place is not None and keyed and not any(a.acts_in(place) or a.owner in TAB_IDS for a in keyed):
        where = " or ".join(sorted(place_name(p) for p in keyed[0].tabs))
        return f"{keyed[0].keys[0]} ({keyed[0].label.lower()}) acts in {where}: nothing was done here"
    return None


def misplaced(key: str, place: str) -> LiveAction | None:
    """The tab's key pressed outside the places it acts in, if `key` is one: its keys object says where it acts."""
    keyed = [a for a in SCREEN_ACTIONS if key in a.keys]
    owned = [a for a in keyed if a.owner in TAB_IDS]
    return owned[0] if owned and not any(a.acts_in(place) for a in keyed) else None
