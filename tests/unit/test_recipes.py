"""ARCHITECTURE.md's recipes, proved: a throwaway tab (one package's worth: a Tab with a pane, a key and its keys
object, one line in TABS) and a throwaway source (one row of SOURCES) are added at test time, in a fresh interpreter
so that the registry, the bindings and the table are made with them, and found where the recipes say they appear.
The command recipe is proved by tests/unit/test_command_table.py."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

TAB_SCRIPT = """
import asyncio
from collections.abc import Iterator

from kafkatop.tui.live import tabs
from kafkatop.tui.live.action import LiveAction
from kafkatop.tui.live.tabs.tab import Tab, TabContext, showing
from kafkatop.tui.live.text import Static

ran = []


class QuotaKeys:
    def __init__(self, screen):
        self.screen = screen

    def action_quotas(self, what):
        ran.append((what, self.screen.tabs.active))


QUOTAS = Tab(
    "tab-quotas", "Quotas", showing(lambda c: Static("no quotas here", id="quotas-pane")),
    (LiveAction("quota-alter", ("Q",), "quotas('alter')", "Alter quota", help="Quotas: alter the highlighted quota",
                section="Topics", palette="Alter a client quota", tabs=frozenset({"tab-quotas"}), writes=True),),
    QuotaKeys,
)
tabs.TABS = (*tabs.TABS, QUOTAS)

from kafkatop.tui.live import keymap
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.commands import offered
from kafkatop.tui.live.main_screen import MainScreen
from kafkatop.tui.live.screens.help import help_text
from kafkatop.tui.live.sources import Settings, Sources
from tests.fixtures.snapshots import failover_snapshot


async def main():
    assert "Q" in [b.key for b in MainScreen.BINDINGS], "bindings"
    assert "| `Q` | Topics | Quotas: alter the highlighted quota | yes |" in keymap.readme_table(), "README table"
    assert "Quotas: alter the highlighted quota" in help_text("", list(keymap.key_rows())), "help"
    snapshot = failover_snapshot()
    app = KafkatopApp(Sources(lambda: snapshot), Settings(poll_interval_s=3600))
    async with app.run_test(size=(160, 45)) as pilot:
        screen = app.main_screen
        assert screen.tab_titles()[-1] == "Quotas", screen.tab_titles()
        assert "Alter a client quota" not in [c.title for c in offered(screen)], "palette elsewhere"
        screen.action_tab(len(screen.tab_titles()))
        await pilot.pause()
        assert str(screen.query_one("#quotas-pane").render()) == "no quotas here", "pane"
        assert "Alter a client quota" in [c.title for c in offered(screen)], "palette in its tab"
        await pilot.press("Q")
        await pilot.pause()
        assert ran == [("alter", "tab-quotas")], ran
    print("tab found")


asyncio.run(main())
"""

SOURCE_SCRIPT = """
import asyncio
from dataclasses import dataclass

from kafkatop.backends.model.recording import Recorded, SourceFailed
from kafkatop.tui.live import feed as feed_module


@dataclass(frozen=True)
class QuotasSnapshot:
    taken_at: float


delivered = []
polls = []


def poll_quotas():
    polls.append(1)
    return QuotasSnapshot(1.0)


row = feed_module.LiveSource("quotas", lambda s: poll_quotas, lambda s: 3600.0, QuotasSnapshot,
                             lambda feed, snapshot, at: delivered.append((snapshot, at)))
feed_module.SOURCES = (*feed_module.SOURCES, row)

from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Settings, Sources
from tests.fixtures.snapshots import failover_snapshot

recorded = []


class Recorder:
    def record(self, at, kind, payload):
        recorded.append((kind, payload))


async def main():
    snapshot = failover_snapshot()
    app = KafkatopApp(Sources(lambda: snapshot, recorder=Recorder()), Settings(poll_interval_s=3600))
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "quotas" in app.polls.pollers and polls, "polled by the app"
        assert delivered == [(QuotasSnapshot(1.0), None)], delivered
        app.feed.failed("quotas", "timed out", 2.0)
        assert ("quotas-failed", SourceFailed("timed out")) in recorded, recorded
    replayed = feed_module.Feed(lambda message: None)
    replayed.replayed(Recorded(3.0, "quotas", QuotasSnapshot(3.0)))
    assert delivered[-1] == (QuotasSnapshot(3.0), 3.0), "replayed to it"
    print("source found")


asyncio.run(main())
"""


def _run(script: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_a_new_tab_is_a_declaration_and_one_line_in_the_list() -> None:
    assert "tab found" in _run(TAB_SCRIPT)


def test_a_new_source_is_one_row_of_the_table() -> None:
    assert "source found" in _run(SOURCE_SCRIPT)
