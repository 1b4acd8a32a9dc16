"""The action registry (tui/live/keymap.py) is the one place a key is written: README's table, the main screen's
bindings and the panes' keys must all agree with it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kafkatop.tui.live import keymap
from kafkatop.tui.live.action import LiveAction
from kafkatop.tui.live.main_screen import OWNERS, MainScreen
from kafkatop.tui.live.tabs import TABS
from kafkatop.tui.live.tabs.messages.pane import MessagesPane
from kafkatop.tui.live.tabs.spark.pane import SparkPane
from kafkatop.tui.live.widgets.line_table import LineTable
from kafkatop.tui.live.widgets.tables import KeyedTable

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readmes_key_table_is_the_registrys() -> None:
    text = README.read_text()
    found = re.search(r"<!-- keys:[^\n]*-->\n(.*?)\n<!-- /keys -->", text, re.S)
    assert found is not None, "README.md lost its <!-- keys: … --> … <!-- /keys --> block"
    assert found.group(1) == keymap.readme_table(), (
        "README's key table differs from tui/live/keymap.py: paste the output of "
        "`python -c 'from kafkatop.tui.live.keymap import readme_table; print(readme_table())'`"
    )


def test_every_screen_action_has_its_method_and_no_key_is_bound_twice() -> None:
    """A key is one action wherever it acts: two actions share a key only where their places do not meet (`A` adds
    a connector in Connect and runs a scenario's steps everywhere else)."""
    seen: dict[str, LiveAction] = {}
    for a in keymap.SCREEN_ACTIONS:
        namespace, _, target = a.name.rpartition(".")
        owner = "app" if namespace == "app" else OWNERS[a.owner] if a.owner is not None else MainScreen
        assert owner == "app" or hasattr(owner, f"action_{target}"), f"{a.id}: {owner} has no action_{target}"
        for key in a.keys:
            if (other := seen.get(key)) is not None:
                assert other.tabs and a.tabs and not other.tabs & a.tabs, (
                    f"{key} is bound to both {other.id} and {a.id}"
                )
            seen[key] = a
    # The keys of a place first, then those of everywhere: the footer shows first what acts where the focus is.
    in_order = sorted(keymap.SCREEN_ACTIONS, key=lambda a: not a.tabs)
    assert [b.key for b in MainScreen.BINDINGS] == [k for a in in_order for k in a.keys]


def test_a_tabs_keys_run_on_the_tab_that_declares_them() -> None:
    """A tab's screen keys are routed to its keys object (MainScreen.action_key); the view's own run on the screen."""
    for tab in TABS:
        for a in (a for a in keymap.ACTIONS if a.id in {t.id for t in tab.actions} and a.scope == "screen"):
            assert a.owner == tab.id and a.bound == f"key({a.id!r})", a.id
    assert keymap.by_id("help").bound == "help" and keymap.by_id("help").owner is None


@pytest.mark.parametrize(
    ("scope", "widgets"), [("messages", [MessagesPane]), ("spark", [SparkPane]), ("tables", [LineTable, KeyedTable])]
)
def test_a_panes_keys_in_the_registry_are_the_keys_it_binds(scope: str, widgets: list[type]) -> None:
    bound = {k for w in widgets for cls in w.__mro__ for b in getattr(cls, "BINDINGS", []) for k in b.key.split(",")}
    for a in keymap.ACTIONS:
        if a.scope == scope:
            missing = [k for k in a.keys if k not in bound]
            assert not missing, f"{a.id}: {missing} bound by none of {[w.__name__ for w in widgets]}"


def test_what_writes_to_the_cluster_is_said() -> None:
    """The read-only mode refuses exactly these: every action that signals a process or changes Kafka's state."""
    writes = {a.id for a in keymap.ACTIONS if a.writes}
    assert {"kill", "stop", "start", "restart", "create-topic", "delete-topic", "elect-unclean", "reassign",
            "delete-group", "delete-offsets", "add-partitions", "durability"} <= writes  # fmt: skip
    assert not writes & {"help", "filter", "browse", "topic-rows", "refresh", "order", "search"}


def test_a_binding_that_names_the_screen_or_the_app_reaches_an_action() -> None:
    """A pane's key that acts beyond the pane (Enter in Partitions browses) names an action that exists: on the screen,
    the app, or — through the screen's `key('<id>')` — the keys object of the tab that declares it."""
    import importlib
    import pkgutil

    import kafkatop.tui.live.tabs as tabs
    import kafkatop.tui.live.widgets as widgets
    from kafkatop.tui.live.app import KafkatopApp

    found = 0
    for package in (widgets, tabs):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            module = importlib.import_module(info.name)
            for cls in vars(module).values():
                for b in getattr(cls, "BINDINGS", []) if isinstance(cls, type) else []:
                    namespace, _, name = b.action.partition(".")
                    owner = {"screen": MainScreen, "app": KafkatopApp}.get(namespace)
                    if owner is None:
                        continue
                    found += 1
                    target, _, rest = name.partition("(")
                    assert hasattr(owner, f"action_{target}"), f"{cls.__name__}: {b.key} → {b.action}: no such action"
                    if target == "key":
                        keyed = keymap.by_id(rest.strip("')\""))
                        assert hasattr(OWNERS[str(keyed.owner)], f"action_{keyed.name}"), b.action
    assert found, "no pane binds a key of the screen's or the app's (Enter in Partitions does)"
