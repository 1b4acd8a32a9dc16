"""Every tab and every dialog at 80x24 (a default terminal, a tmux split) and at 120x36, from recorded snapshots: a
lab in ZooKeeper mode with a consumer group, fixed data and size, no clock, no network, no processes (process panes
come from RecordedControl, a named test double)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from textual.widgets import Input

from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Sources
from tests.fixtures.snapshots import TAKEN_AT, RecordedControl, group_snapshot, zk_lab
from tests.snapshots.test_app_snapshots import FROZEN, settled
from tests.unit.test_timeline import T0, baseline, controlled_shutdown, kill_9_in_zookeeper_mode, restart_broker_2

SIZES = {"80x24": (80, 24), "120x36": (120, 36)}
TABS = ["Partitions", "Brokers", "Produce", "Consume", "Groups", "Log", "ZooKeeper", "Spark", "Timeline"]


class NeverCalled:
    """A TEST DOUBLE for the topic admin and the durability check: the dialogs are shown, never submitted."""

    def __call__(self, *args: object) -> Any:
        raise AssertionError("a snapshot test submitted a dialog")


def lab_app() -> KafkatopApp:
    cluster = group_snapshot()
    _, nodes, zk = zk_lab()
    sources = Sources(
        lambda: cluster, RecordedControl(nodes), lambda: zk, topic_admin=NeverCalled(), durability=NeverCalled()
    )
    app = KafkatopApp(sources, FROZEN, clock=lambda: TAKEN_AT)
    # The Timeline tab's incidents: a kill -9 of broker 2, its start, then a controlled shutdown.
    baseline(app.timeline)
    kill_9_in_zookeeper_mode(app.timeline)
    restart_broker_2(app.timeline, T0 + 30)
    controlled_shutdown(app.timeline, T0 + 60)
    return app


def pressing(*keys: str) -> Callable[[Any], Awaitable[None]]:
    async def run(pilot: Any) -> None:
        await settled(pilot)
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False  # a blinking cursor would make the screenshot depend on the moment
        await pilot.pause()

    return run


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("tab", range(1, len(TABS) + 1), ids=TABS)
def test_every_tab(snap_compare: Any, tab: int, size: str) -> None:
    assert snap_compare(lab_app(), terminal_size=SIZES[size], run_before=pressing(str(tab)))


DIALOGS = {
    "help": ("question_mark",),
    "create-topic": ("c",),
    "kill-confirmation": ("0", "j", "K"),
    "delete-confirmation": ("1", "d"),
    "durability": ("v",),
    "filter": ("slash", "p", "a", "y"),
}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("dialog", list(DIALOGS))
def test_every_dialog(snap_compare: Any, dialog: str, size: str) -> None:
    assert snap_compare(lab_app(), terminal_size=SIZES[size], run_before=pressing(*DIALOGS[dialog]))
