"""The live view's garbage collection (tui/live/gc_pacing.py): what survives a frame is frozen, a cycle dropped later is
still collected at the next full collection, and automatic full collections do not come every few polls."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from kafkatop.tui.live.gc_pacing import FULL_EVERY_S, Collector


@pytest.fixture
def restored_gc() -> Iterator[None]:
    """CPython's defaults for the test (a live view run earlier in this process may have settled the collector), and
    the state before it back afterwards."""
    threshold, enabled = gc.get_threshold(), gc.isenabled()
    gc.set_threshold(700, 10, 10)
    gc.enable()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)
        if not enabled:
            gc.disable()


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


def test_a_cycle_frozen_while_alive_is_collected_at_the_next_full_collection(restored_gc: None) -> None:
    now = [0.0]
    collector = Collector(clock=lambda: now[0])
    node = Node()
    dropped = weakref.ref(node)
    collector.settled()
    assert gc.get_freeze_count() > 0
    del node
    gc.collect()
    assert dropped() is not None  # frozen: out of every collection, the explicit one too
    now[0] += FULL_EVERY_S / 2
    collector.settled()
    assert dropped() is not None
    now[0] += FULL_EVERY_S / 2
    collector.settled()
    assert dropped() is None


def test_once_frozen_the_young_objects_of_a_poll_do_not_start_a_full_collection_every_few_polls(
    restored_gc: None,
) -> None:
    """A poll at 10,000 partitions makes a few hundred thousand objects that live on; with CPython's default
    threshold, once the rest is frozen, they started a full collection every ~70,000."""
    full: list[int] = []

    def counted(phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["generation"] == 2:
            full.append(info["collected"])

    Collector().settled()
    gc.callbacks.append(counted)
    try:
        kept = [[i] for i in range(400_000)]  # tracked containers that survive, as a poll's snapshot
    finally:
        gc.callbacks.remove(counted)
    assert len(kept) == 400_000
    assert full == []
