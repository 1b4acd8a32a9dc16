"""The reassignment screen (`m`) at 80x24 and 120x36 from a recorded-shape snapshot: a topic 6x2 on brokers 1-3 and a
fourth broker just added. Its proposal, a row being edited, and the proposal for replication factor 3. Fixed data and
size, no clock, no network; the reassignments port is NeverSent, a named test double that refuses to send."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import pytest
from textual.widgets import Input

from kafkatop.backends.model.cluster import Broker, ClusterSnapshot, Partition, Topic
from kafkatop.backends.model.reassignment import Ongoing, ReassignmentPlan, TopicPartitionKey
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Settings, Sources
from tests.fixtures.snapshots import TAKEN_AT
from tests.snapshots.test_app_snapshots import settled

SIZES = {"80x24": (80, 24), "120x36": (120, 36)}
PLACED = [(2, 3), (3, 1), (1, 2), (2, 1), (1, 3), (3, 2)]  # as Kafka 4.1 placed a 6x2 topic on brokers 1-3


def four_brokers() -> ClusterSnapshot:
    brokers = tuple(Broker(b, "127.0.0.1", 9091 + b) for b in (1, 2, 3, 4))
    parts = tuple(Partition("t6", i, r[0], r, r, (), 0, 5000, 1) for i, r in enumerate(PLACED))
    return ClusterSnapshot("recorded", TAKEN_AT, "lFovmeBXTLqI7gLN2PyALQ", "kraft", 1, brokers,
                           (Topic("t6", parts, min_insync_replicas=1),))  # fmt: skip


class NeverSent:
    """A TEST DOUBLE for Reassignments: a snapshot test only shows the plan, and never starts one."""

    def execute(
        self, plan: ReassignmentPlan, throttle_bytes: int | None = None, *, every: bool = False
    ) -> tuple[str, ...]:
        raise AssertionError("a snapshot test started a reassignment")

    def ongoing(self, topics: Mapping[str, Sequence[int]] | None = None) -> dict[TopicPartitionKey, Ongoing]:
        return {}

    def cancel(self, keys: Sequence[TopicPartitionKey]) -> tuple[str, ...]:
        raise AssertionError("a snapshot test cancelled a reassignment")

    def clear_throttle(self, topics: Sequence[str], brokers: Sequence[int]) -> list[str]:
        return []

    def close(self) -> None:
        pass


def app() -> KafkatopApp:
    sources = Sources(four_brokers, reassignments=NeverSent())
    return KafkatopApp(sources, Settings(poll_interval_s=86_400, ensemble_interval_s=86_400), clock=lambda: TAKEN_AT)


def pressing(*keys: str) -> Callable[[Any], Awaitable[None]]:
    async def run(pilot: Any) -> None:
        await settled(pilot)
        while pilot.app.snapshot is None:
            await pilot.pause(0.02)
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False
        await pilot.pause()

    return run


SCREENS = {
    "proposal": ("m",),  # broker 4 takes 3 replicas, one from each of 1, 2, 3
    "edit-row": ("m", "enter"),  # t6-0's replicas in the field
    "rf-3": ("m", "tab", "tab", "backspace", "3"),  # every partition gains a replica
}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("screen", list(SCREENS))
def test_the_reassignment_screen(snap_compare: Any, screen: str, size: str) -> None:
    assert snap_compare(app(), terminal_size=SIZES[size], run_before=pressing(*SCREENS[screen]))
