"""The leader election screen (`e`, `E`) and the add-partitions dialog (`P`) at 80x24 and 120x36, from recorded
snapshots: a KRaft lab after broker 1 was killed and started again (its partitions led elsewhere), and a topic whose
only in-sync replica, broker 2, is down, with broker 3 alive and behind. Fixed data and size, no clock, no network;
the elections and the topic admin are RecordedElections and ValidatingAdmin, named test doubles."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest
from textual.widgets import Input

from kafkatop.backends.model.cluster import NO_LEADER, Broker, ClusterSnapshot, Partition, Topic
from kafkatop.backends.model.elections import ElectionResults, ElectionType
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.screens.elect_leaders import ElectLeadersScreen
from kafkatop.tui.live.sources import Settings, Sources
from tests.fixtures.snapshots import TAKEN_AT
from tests.snapshots.test_app_snapshots import settled

SIZES = {"80x24": (80, 24), "120x36": (120, 36)}


def _orders(leaders: Sequence[int]) -> Topic:
    replicas = [(1, 2), (2, 3), (3, 1), (1, 3), (2, 1), (3, 2)]
    parts = tuple(
        Partition("orders", i, leader, r, tuple(sorted(r)), (), 0, 40 + i, 3)
        for i, (leader, r) in enumerate(zip(leaders, replicas, strict=True))
    )
    return Topic("orders", parts, min_insync_replicas=1)


def healthy() -> ClusterSnapshot:
    """Before: every partition led by its preferred leader; `risky` led by 2 with a high watermark of 140."""
    brokers = tuple(Broker(b, "127.0.0.1", 9091 + b) for b in (1, 2, 3))
    risky = Topic("risky", (Partition("risky", 0, 2, (2, 3), (2,), (), 0, 140, 1),))
    return ClusterSnapshot("recorded", TAKEN_AT - 5, "lFovmeBXTLqI7gLN2PyALQ", "kraft", None, brokers,
                           (_orders([1, 2, 3, 1, 2, 3]), risky))  # fmt: skip


def after_restart() -> ClusterSnapshot:
    """Broker 1 killed and started again: back in every ISR, leading none; broker 2 down since, so `risky` (2,3)
    has no leader, and 3, alive, is out of sync. orders-4's preferred leader, 2, is down too."""
    before = healthy()
    brokers = tuple(replace(b, alive=b.id != 2) for b in before.brokers)
    orders = _orders([2, 3, 3, 3, 1, 3])
    orders = replace(orders, partitions=tuple(
        replace(p, isr=tuple(r for r in p.isr if r != 2), offline_replicas=tuple(r for r in p.replicas if r == 2))
        for p in orders.partitions))  # fmt: skip
    orders = replace(orders, partitions=tuple(replace(p, leader=3) if p.id == 0 else p for p in orders.partitions))
    risky = Topic("risky", (Partition("risky", 0, NO_LEADER, (2, 3), (), (2,), None, None, None),))
    return replace(before, taken_at=TAKEN_AT, brokers=brokers, topics=(orders, risky))


class RecordedElections:
    """A TEST DOUBLE for LeaderElections: broker 3's recorded log end for risky-0 (100, as a real Kafka answered);
    never sends an election (a snapshot test only shows the plan)."""

    note = None

    def elect(self, election_type: ElectionType, partitions: Sequence[TopicPartition] | None) -> ElectionResults:
        raise AssertionError("a snapshot test sent an election")

    def log_ends(
        self, snapshot: ClusterSnapshot, replicas: Mapping[TopicPartition, int]
    ) -> tuple[dict[TopicPartition, int], list[str]]:
        return {tp: 100 for tp in replicas if tp == TopicPartition("risky", 0)}, []

    def close(self) -> None:
        pass


class ValidatingAdmin:
    """A TEST DOUBLE for the topic admin: Kafka's validation accepts every count; nothing is ever added."""

    def add_partitions(self, name: str, total: int, *, validate_only: bool = False) -> None:
        if not validate_only:
            raise AssertionError("a snapshot test added partitions")

    def close(self) -> None:
        pass


def app() -> KafkatopApp:
    polls: Iterator[ClusterSnapshot] = iter([healthy(), after_restart()])
    last = after_restart()
    sources = Sources(
        lambda: next(polls, last),
        topic_admin=ValidatingAdmin,
        elections=RecordedElections,  # type: ignore[arg-type]
    )
    return KafkatopApp(sources, Settings(poll_interval_s=0.01, ensemble_interval_s=86_400), clock=lambda: TAKEN_AT)


def pressing(*keys: str, row: int = 0) -> Callable[[Any], Awaitable[None]]:
    async def run(pilot: Any) -> None:
        await settled(pilot)
        while pilot.app.snapshot is None or pilot.app.snapshot.taken_at != TAKEN_AT:
            await pilot.pause(0.02)
        pilot.app.hold()  # the second poll is the last: the screen holds still
        await pilot.pause()
        for _ in range(row):
            await pilot.press("j")
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        screen = pilot.app.screen
        if isinstance(screen, ElectLeadersScreen):
            await pilot.app.workers.wait_for_complete()  # the log ends read
            await pilot.pause()
        for field in screen.query(Input):
            field.cursor_blink = False
        await pilot.pause()

    return run


SCREENS = {
    "preferred": (("e",), 0),  # orders: 0, 1, 3 go back to 1; 4 waits for 2
    "unclean": (("E",), 6),  # risky-0: 3 leads, 40 records lost (offsets 100-139)
    "add-partitions": (("P",), 0),
    "add-partitions-validated": (("P", "backspace", "8", "enter"), 0),  # 6 → 8: validated, awaiting the last yes
}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("screen", list(SCREENS))
def test_elections_and_new_partitions(snap_compare: Any, screen: str, size: str) -> None:
    keys, row = SCREENS[screen]
    assert snap_compare(app(), terminal_size=SIZES[size], run_before=pressing(*keys, row=row))
