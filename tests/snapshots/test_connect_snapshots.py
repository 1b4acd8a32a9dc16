"""The Connect tab at 80x24 and 160x45, from REST answers recorded on a real Kafka 4.1 lab with two workers
(RecordedConnect, a named test double): connectors with a failed task, its trace, the worker-per-task counts in the
process table, workers that do not answer, a file the worker refuses; and what the tab says where there is no
Connect (the demo, a lab without workers). Fixed data and size, no clock, no network, no processes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import pytest

from kafkatop.backends.model.connect import ConnectSnapshot
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.connect.pane import NO_DEMO, NO_WORKERS
from tests.fixtures.connect_views import RecordedConnect, connect_lab, connect_snapshot, unreachable
from tests.fixtures.snapshots import TAKEN_AT, RecordedControl, kraft_lab
from tests.snapshots.test_small_terminal import pressing as press

ROOT = Path(__file__).resolve().parents[2]
SIZES = {"80x24": (80, 24), "160x45": (160, 45)}
FROZEN = Settings(poll_interval_s=86_400, ensemble_interval_s=86_400, connect_interval_s=86_400, launch="lab")


def connect_app(*snapshots: ConnectSnapshot, mode: Literal["lab", "demo"] = "lab") -> KafkatopApp:
    cluster, nodes, quorum = connect_lab() if snapshots else kraft_lab()
    connect = RecordedConnect(*snapshots) if snapshots else None
    sources = Sources(lambda: cluster, RecordedControl(nodes), lambda: quorum, connect=connect)
    return KafkatopApp(sources, replace(FROZEN, launch=mode), clock=lambda: TAKEN_AT)


# Each: the snapshots the workers answer (none: no Connect source) and the mode, then the keys pressed.
SCREENS: dict[str, tuple[tuple[ConnectSnapshot, ...], Literal["lab", "demo"], tuple[str, ...]]] = {
    "connectors": ((connect_snapshot(),), "lab", ("N",)),
    "failed-task-trace": ((connect_snapshot(),), "lab", ("N", "enter", "enter")),
    "workers-down": ((unreachable(),), "lab", ("N",)),
    "demo-has-none": ((), "demo", ("N",)),
    "lab-without-workers": ((), "lab", ("N",)),
    "worker-tasks-in-process-table": ((connect_snapshot(),), "lab", ("N", "0", "G")),
    "workers-folded-out-of-focus": ((connect_snapshot(),), "lab", ()),  # 80x24: one row, every node in sight
    "restart-asks-how": ((connect_snapshot(),), "lab", ("N", "B")),
    "offsets-of-a-sink": ((connect_snapshot(),), "lab", ("N", "O")),
    "offsets-reset-refused-while-running": ((connect_snapshot(),), "lab", ("N", "j", "O", "x")),
    "plugins": ((connect_snapshot(),), "lab", ("N", "L")),
}


def pressing(*keys: str) -> Callable[[Any], Awaitable[None]]:
    """The keys, then what their screens asked (offsets, plugins, a validation) answered and drawn."""
    pressed = press(*keys)

    async def run(pilot: Any) -> None:
        await pressed(pilot)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    return run


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("screen", list(SCREENS))
def test_the_connect_tab(snap_compare: Any, screen: str, size: str) -> None:
    snapshots, mode, keys = SCREENS[screen]
    assert snap_compare(connect_app(*snapshots, mode=mode), terminal_size=SIZES[size], run_before=pressing(*keys))


@pytest.mark.parametrize("size", list(SIZES))
def test_a_file_the_worker_refuses_shows_its_errors_per_field(
    snap_compare: Any, size: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # the path typed is relative, as a user types it
    keys = ("N", "A", *"tests/fixtures/connect/bad-sink.properties", "enter")
    assert snap_compare(connect_app(connect_snapshot()), terminal_size=SIZES[size], run_before=pressing(*keys))


def test_the_texts_where_there_is_no_connect_say_what_to_do() -> None:
    assert "the demo has no Kafka Connect (no emulation): start a lab with `kafkatop up --connect 2`" == NO_DEMO
    assert "`kafkatop add-connect`" in NO_WORKERS and "`kafkatop up --connect N`" in NO_WORKERS
