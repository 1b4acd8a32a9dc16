"""Screenshots of the app from recorded snapshots (pytest-textual-snapshot): fixed data and size, no clock."""

from __future__ import annotations

from typing import Any

from kafkatop.backends.errors import SourceUnavailable
from kafkatop.backends.model import ClusterSnapshot
from kafkatop.tui.app import KafkatopApp, Settings
from tests.fixtures.snapshots import TAKEN_AT, failover_snapshot

# Polls never repeat during a snapshot test: the next one is a day away.
FROZEN = Settings(poll_interval_s=86_400)


def test_failover_moment(snap_compare: Any) -> None:
    app = KafkatopApp(failover_snapshot, FROZEN, clock=lambda: TAKEN_AT)
    assert snap_compare(app, terminal_size=(100, 24))


def test_source_down_keeps_last_data_with_its_age(snap_compare: Any) -> None:
    polls = iter([failover_snapshot()])

    def poll() -> ClusterSnapshot:
        for snap in polls:
            return snap
        raise SourceUnavailable("kafka", "no metadata from bootstrap server 127.0.0.1:9092 within 2 s")

    app = KafkatopApp(poll, Settings(poll_interval_s=0.01), clock=lambda: TAKEN_AT + 42)

    async def second_poll_failed(pilot: Any) -> None:
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        while pilot.app.failure is None:
            await pilot.pause(0.02)
        pilot.app._next_poll.stop()  # hold the screen still for the screenshot

    assert snap_compare(app, terminal_size=(100, 24), run_before=second_poll_failed)
