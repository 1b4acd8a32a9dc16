"""Lag in time exactly, on demand: the oldest unread record of each partition behind, read for its own timestamp
(one record a partition, never every poll). Which partitions, and what their records said; the reading itself is a
port's (MessageBrowser.first_timestamps: assign() at the committed offset, no group joined)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.lag import GroupLag

# ({(topic, partition): first offset}, {(topic, partition): end}) -> {(topic, partition): its first record's time, ms}
FirstTimestamps = Callable[[dict[tuple[str, int], int], dict[tuple[str, int], int]], dict[tuple[str, int], int]]
Heads = dict[str, dict[int, tuple[int, int]]]  # topic -> partition -> (committed offset, high watermark)


def unread_heads(groups: Iterable[GroupLag], *, bounds_only: bool, at_most: int) -> Heads:
    """The partitions behind whose lag in time is not exact yet (`bounds_only`: only those said as "≥", older than
    the first poll), at most `at_most` of them."""
    heads: Heads = {}
    count = 0
    for g in groups:
        for p in g.partitions:
            if not p.lag or p.exact or (bounds_only and not p.at_least) or count >= at_most:
                continue
            if p.partition not in heads.setdefault(p.topic, {}):
                heads[p.topic][p.partition] = (p.committed, p.high_watermark)
                count += 1
    return heads


def read_times(first_timestamps: FirstTimestamps, heads: Heads) -> tuple[dict[tuple[str, int, int], float], list[str]]:
    """Each head's record time (seconds since the epoch) by (topic, partition, offset); and, per topic that could not
    be read, why. Every topic in one read (at 300 topics a read each took a fetch cycle each: minutes); where that
    read fails (a topic deleted since the poll), topic by topic, so that the others are still read."""
    starts = {(t, p): committed for t, parts in heads.items() for p, (committed, _) in parts.items()}
    ends = {(t, p): high for t, parts in heads.items() for p, (_, high) in parts.items()}
    failures: list[str] = []
    try:
        found = first_timestamps(starts, ends)
    except KafkatopError:
        found = {}
        for topic in heads:
            mine = [h for h in starts if h[0] == topic]
            try:
                found |= first_timestamps({h: starts[h] for h in mine}, {h: ends[h] for h in mine})
            except KafkatopError as e:
                failures.append(f"{topic}: {e}")
    return {(t, p, starts[(t, p)]): ms / 1000 for (t, p), ms in found.items()}, failures
