"""The palette's "Show <tab>" entries: each says which tab, the key that shows it and what it shows — never a bare
number (Connect's read "11", a tab number with no key behind it)."""

from __future__ import annotations

from kafkatop.tui.live.action import Launch
from kafkatop.tui.live.commands import offered
from kafkatop.tui.live.tabs import TABS


class Screen:
    """What the palette asks of the main screen: every tab on show, in order."""

    keys_of: dict[str, object] = {}  # no keys objects: no scenario to open

    def here(self) -> tuple[Launch, str | None, frozenset[str], bool]:
        return "lab", "tab-partitions", frozenset({"control", "connect", "browser"}), False

    def tab_titles(self) -> list[str]:
        return [t.title for t in TABS]

    def tab_ids(self) -> list[str]:
        return [t.id for t in TABS]

    def run_command(self, action: str) -> None:
        pass


def test_every_show_entry_names_its_tab_key_and_purpose() -> None:
    shown = {c.title: c.help for c in offered(Screen()) if c.title.startswith("Show ")}
    assert set(shown) == {f"Show {t.title}" for t in TABS}
    for tab in TABS:
        said = shown[f"Show {tab.title}"]
        assert tab.purpose, f"{tab.id} says what it shows"
        assert not said.isdigit() and said.endswith(tab.purpose), said
        assert said.startswith(f"the {tab.title} tab (key "), said
    assert shown["Show Partitions"].startswith("the Partitions tab (key 1): ")
    assert shown["Show Connect"] == (
        "the Connect tab (key N): Kafka Connect's connectors, their tasks and the worker each runs on"
    )
    assert shown["Show Messages"].startswith("the Messages tab (key b): ")
