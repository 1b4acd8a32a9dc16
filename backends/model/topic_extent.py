"""How far a topic's partition values reach: the highest partition id, leader and watermarks, the distinct replica
lists and ISRs. Worked out with its summary (`Topic.summary`), in the poll's worker: a table of 10,000 partitions
sizes its columns by it without going over them in the UI thread."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol


class _Partition(Protocol):  # cluster.Partition, which imports this module
    @property
    def id(self) -> int: ...
    @property
    def leader(self) -> int: ...
    @property
    def replicas(self) -> tuple[int, ...]: ...
    @property
    def isr(self) -> tuple[int, ...]: ...
    @property
    def low_watermark(self) -> int | None: ...
    @property
    def high_watermark(self) -> int | None: ...


@dataclass(frozen=True, slots=True)
class TopicExtent:
    largest_id: int = -1  # -1: no partitions
    largest_leader: int = -1  # -1 (NO_LEADER): none led
    largest_low: int | None = None  # None: no partition's is known
    largest_high: int | None = None
    replica_lists: frozenset[tuple[int, ...]] = frozenset()
    isr_lists: frozenset[tuple[int, ...]] = frozenset()

    @classmethod
    def of(cls, partitions: Iterable[_Partition]) -> TopicExtent:
        ids, leaders, lows, highs = [], [], [], []
        replica_lists: set[tuple[int, ...]] = set()
        isr_lists: set[tuple[int, ...]] = set()
        for p in partitions:
            ids.append(p.id)
            leaders.append(p.leader)
            if (low := p.low_watermark) is not None:
                lows.append(low)
            if (high := p.high_watermark) is not None:
                highs.append(high)
            replica_lists.add(p.replicas)
            isr_lists.add(p.isr)
        return cls(
            max(ids, default=-1), max(leaders, default=-1), max(lows, default=None), max(highs, default=None),
            frozenset(replica_lists), frozenset(isr_lists),
        )  # fmt: skip
