"""When each offset of a partition was written, as far as the polls saw it: a bounded table of (high watermark, time)
points per partition, kept from the polls kafkatop already makes (no request of its own), as kafka-lag-exporter
keeps its "lookup tables". The time a record at offset o was written is interpolated between the last point whose
high watermark was at or below o and the first that was above it: the record arrived between those two polls. A point
is added where the high watermark moved, and one for the last poll that saw it still, when that poll was not the one
that moved it: a burst after a quiet minute arrived after that minute, not spread over it (seen on the demo: records
written 20 s before read as 1m35s old).

A partition keeps at most POINTS points: when full, every second point of the older half goes, so recent times stay
poll-fine and older ones thin out (the table reaches back further the longer kafkatop runs). An offset older than the
first point was written before kafkatop first saw the partition: its time is not known here (`before`), only a bound.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from typing import NamedTuple

from kafkatop.backends.model.cluster import Topic

POINTS = 64  # per partition: 64 × 16 bytes; 10,000 partitions ≈ 10 MB at the most
EXACT_KEPT = 8  # records' own times kept per partition: the committed offsets of the groups asked about


class WrittenAt(NamedTuple):  # a tuple: made for every partition behind, every poll that moved it
    """When the record at an offset was written: `at` (seconds since the epoch); `before` True when the offset is
    older than anything seen, and `at` is only the latest it can have been (the first poll that saw past it)."""

    at: float
    before: bool = False
    exact: bool = False  # the record's own timestamp


class _Points:
    __slots__ = ("offsets", "times", "exact")

    def __init__(self, offset: int, at: float) -> None:
        self.offsets = array("q", (offset,))
        self.times = array("d", (at,))
        self.exact: dict[int, float] = {}  # offsets whose time was read from the record (learn), in the order learnt

    def add(self, offset: int, at: float) -> None:
        if len(self.offsets) >= POINTS:
            half = len(self.offsets) // 2
            keep = list(range(0, half, 2)) + list(range(half, len(self.offsets)))
            self.offsets = array("q", (self.offsets[i] for i in keep))
            self.times = array("d", (self.times[i] for i in keep))
        self.offsets.append(offset)
        self.times.append(at)


class OffsetTimes:
    """Offset→time points of every partition, fed one poll at a time (in order). Not thread-safe: its owner's lock
    guards it."""

    def __init__(self) -> None:
        self._points: dict[tuple[str, int], _Points] = {}
        self._topics: dict[str, Topic] = {}  # the Topic object last seen: a poll hands the same object when unchanged
        self._seen_at: dict[str, float] = {}  # when each topic was last polled: its watermarks were still then

    def observe(self, topics: tuple[Topic, ...], at: float) -> None:
        """A poll's high watermarks at `at`: a point where a partition's high watermark moved (or first seen)."""
        seen: dict[str, Topic] = {}
        for topic in topics:
            seen[topic.name] = topic
            still = self._seen_at.get(topic.name)
            self._seen_at[topic.name] = at
            if self._topics.get(topic.name) is topic:
                continue  # the poll reused the topic: no watermark moved
            for p in topic.partitions:
                high = p.high_watermark
                if high is None:
                    continue
                key = (p.topic, p.id)
                points = self._points.get(key)
                if points is None:
                    self._points[key] = _Points(high, at)
                elif high > points.offsets[-1]:
                    if still is not None and still > points.times[-1]:
                        points.add(points.offsets[-1], still)  # the last poll that saw it unmoved
                    points.add(high, at)
                elif high < points.offsets[-1]:  # truncated, or deleted and created again: start over
                    self._points[key] = _Points(high, at)
        for name in set(self._topics) - set(seen):
            self._seen_at.pop(name, None)
            for key in [k for k in self._points if k[0] == name]:
                del self._points[key]
        self._topics = seen

    def learn(self, topic: str, partition: int, offset: int, at: float) -> bool:
        """The record at `offset` was written at `at` (its own timestamp, read on demand): said exactly from now on.
        A few offsets per partition are kept (EXACT_KEPT, the last learnt); False when the partition is not known."""
        points = self._points.get((topic, partition))
        if points is None:
            return False
        points.exact[offset] = at
        while len(points.exact) > EXACT_KEPT:
            del points.exact[next(iter(points.exact))]
        return True

    def written_at(self, topic: str, partition: int, offset: int) -> WrittenAt | None:
        """When the record at `offset` was written; None when the partition was never seen or `offset` is not
        written yet (at or past the last high watermark seen)."""
        points = self._points.get((topic, partition))
        if points is None or offset >= points.offsets[-1]:
            return None
        exact = points.exact.get(offset)
        if exact is not None:
            return WrittenAt(exact, exact=True)
        # The first point whose high watermark is past `offset`: the poll that first saw the record.
        after = bisect_right(points.offsets, offset)
        if after == 0:
            return WrittenAt(points.times[0], before=True)
        o0, t0 = points.offsets[after - 1], points.times[after - 1]
        o1, t1 = points.offsets[after], points.times[after]
        # Records o0 .. o1-1 arrived between the two polls; spread evenly over the interval.
        return WrittenAt(t0 + (t1 - t0) * (offset - o0 + 1) / (o1 - o0))

    def __len__(self) -> int:
        return len(self._points)
