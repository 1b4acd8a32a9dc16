"""Bounded history of a cluster's figures, for sparklines: ISR size and records/s per partition, records/s per topic,
total lag per consumer group, leaders per broker; and when each partition last changed leader or ISR (insight/changes),
so a view can highlight what just moved whenever it is drawn.

Fed with each metadata poll (ClusterSnapshot); each series keeps its last `window` samples. A sample whose value is
unknown is skipped, not stored as 0: a 0 would draw a drop that did not happen (a failed ListOffsets is not a
stopped producer). So series are None-free, and a series may hold fewer samples than its neighbours. A series whose
partition, topic, group or broker was not in the last `forget_after` polls is dropped, so memory stays bounded as
topics and groups come and go.
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from kafkatop.backends.insight.changes import partition_changes, partition_views
from kafkatop.backends.model.cluster import ClusterSnapshot, PartitionView
from kafkatop.backends.model.topic_partition import TopicPartition

WINDOW = 120  # samples per series: two minutes at one poll a second
# Samples per partition's series (ISR size, records/s): the partition table draws the last ten, and at 10,000
# partitions 120 samples each would hold 2.4 million floats (bench/scale.py: the app's memory).
PARTITION_WINDOW = 16
FORGET_AFTER = 30  # polls without its partition, topic, group or broker before a series is dropped
# Beyond this many partition series (ISR size, rate), no new one until forgotten ones make room. A topic's, a group's
# and a broker's series are not counted: at 39,000 partitions the partitions' 78,000 would leave none for them (the
# Groups tab's lag history, the topic rows' rates were empty).
MAX_SERIES = 50_000
CHANGES_KEPT_S = 60.0  # how long a partition's last leader or ISR change is remembered


class Metric(StrEnum):
    ISR_SIZE = "ISR size"  # per partition
    RECORDS_PER_S = "records/s"  # per partition, from successive high watermarks
    TOPIC_RECORDS_PER_S = "topic records/s"  # per topic
    GROUP_LAG = "lag"  # per consumer group: its total lag
    LEADERS = "leaders"  # per broker: partitions it leads


PER_PARTITION = frozenset({Metric.ISR_SIZE, Metric.RECORDS_PER_S})  # kept for PARTITION_WINDOW samples


SeriesKey = TopicPartition | str | int  # a partition; a topic or group name; a broker id


@dataclass(frozen=True, slots=True)
class Series:
    metric: Metric
    key: SeriesKey
    values: tuple[float, ...]  # oldest first, at most the history's window
    last_at: float  # taken_at of the newest value

    @property
    def last(self) -> float | None:
        return self.values[-1] if self.values else None


@dataclass(frozen=True, slots=True)
class Extent:
    """How far a metric's series reach, worked out with the snapshot (in the poll's worker): what a view sizing a
    column for every series needs, without going over 20,000 of them in the UI thread."""

    longest: int  # the most samples one series holds
    lasts: tuple[float, ...]  # each series' last sample, smallest first

    def largest_below(self, limit: float) -> float | None:
        """The largest last sample below `limit`."""
        at = bisect_left(self.lasts, limit)
        return self.lasts[at - 1] if at else None


@dataclass(frozen=True, slots=True)
class HistorySnapshot:
    taken_at: float | None  # the newest poll observed
    window: int
    series: tuple[Series, ...]
    # When each partition last changed leader or ISR (within CHANGES_KEPT_S): taken_at of the view that showed it.
    changed_at: dict[TopicPartition, float] = field(default_factory=dict, compare=False)
    # By metric, then key: a view reading 9,000 topics' series each poll looks up by the key alone (its hash kept on
    # the string), not by a new (Metric, key) tuple hashed through the enum's __hash__.
    _index: dict[Metric, dict[SeriesKey, Series]] = field(init=False, repr=False, compare=False)
    _extents: dict[Metric, Extent] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index: dict[Metric, dict[SeriesKey, Series]] = {m: {} for m in Metric}
        for s in self.series:
            index[s.metric][s.key] = s
        object.__setattr__(self, "_index", index)
        longest: dict[Metric, int] = dict.fromkeys(Metric, 0)
        lasts: dict[Metric, list[float]] = {m: [] for m in Metric}
        for s in self.series:
            if s.values:
                longest[s.metric] = max(longest[s.metric], len(s.values))
                lasts[s.metric].append(s.values[-1])
        object.__setattr__(self, "_extents", {m: Extent(longest[m], tuple(sorted(lasts[m]))) for m in Metric})

    def extent(self, metric: Metric) -> Extent:
        return self._extents[metric]

    def by_key(self, metric: Metric) -> Mapping[SeriesKey, Series]:
        """The metric's series by key: for a view that reads one per row of thousands."""
        return self._index[metric]

    def values(self, metric: Metric, key: SeriesKey) -> tuple[float, ...]:
        """The series' samples, oldest first; () when there is none (yet)."""
        s = self._index[metric].get(key)
        return s.values if s is not None else ()

    def of(self, metric: Metric) -> tuple[Series, ...]:
        return tuple(s for s in self.series if s.metric is metric)

    def isr_size(self, partition: TopicPartition) -> tuple[float, ...]:
        return self.values(Metric.ISR_SIZE, partition)

    def records_per_s(self, partition: TopicPartition) -> tuple[float, ...]:
        return self.values(Metric.RECORDS_PER_S, partition)

    def topic_records_per_s(self, topic: str) -> tuple[float, ...]:
        return self.values(Metric.TOPIC_RECORDS_PER_S, topic)

    def group_lag(self, group_id: str) -> tuple[float, ...]:
        return self.values(Metric.GROUP_LAG, group_id)

    def leaders(self, broker_id: int) -> tuple[float, ...]:
        return self.values(Metric.LEADERS, broker_id)


@dataclass(slots=True)
class _Series:
    """A tuple, not a deque: 39,000 partitions keep 78,000 series, and a tuple of ten samples is a fifth of a deque's
    memory; the snapshot hands on the same tuple, where a deque was copied into one each poll."""

    values: tuple[float, ...]
    window: int
    last_seen: int  # the poll number that last had its partition, topic, group or broker
    last_at: float = 0.0
    frozen: Series | None = None  # the last snapshot's copy, while no sample came since

    def append(self, value: float) -> None:
        self.values = (*self.values, value)[-self.window :]

    def freeze(self, metric: Metric, key: SeriesKey) -> Series:
        if self.frozen is None:
            self.frozen = Series(metric, key, self.values, self.last_at)
        return self.frozen


# The samples most series repeat (an ISR of 1 to 5, an idle partition's rate, a caught-up group's lag), one float
# object each: 39,000 partitions' ten samples were 780,000 floats of these few values.
_SHARED = {float(v): float(v) for v in range(6)}


class History:
    """Sparkline series of one cluster. Thread-safe; feed it one source's polls (the admin poll), in order."""

    def __init__(
        self,
        window: int = WINDOW,
        *,
        forget_after: int = FORGET_AFTER,
        max_series: int = MAX_SERIES,
        partition_window: int = PARTITION_WINDOW,
    ) -> None:
        if min(window, forget_after, max_series, partition_window) < 1:
            raise ValueError("window, forget_after, max_series and partition_window must be at least 1")
        self.window = window
        self.partition_window = min(partition_window, window)
        self.forget_after = forget_after
        self.max_series = max_series
        self._lock = threading.Lock()
        self._series: dict[tuple[Metric, SeriesKey], _Series] = {}
        self._partition_series = 0  # of _series, those of PER_PARTITION metrics (max_series caps them)
        self._watermarks: dict[TopicPartition, tuple[int, float]] = {}  # last known high watermark and its time
        self._polls = 0
        self._taken_at: float | None = None
        self._views: dict[TopicPartition, PartitionView] = {}
        self._changed_at: dict[TopicPartition, float] = {}
        self._views_at = float("-inf")

    def observe_changes(self, snapshot: ClusterSnapshot) -> None:
        """A view that carries leaders and ISRs but no new figures (ZooKeeper's pushed state): changes only."""
        with self._lock:
            self._track_changes(snapshot)

    def _track_changes(self, snapshot: ClusterSnapshot) -> None:
        at = snapshot.taken_at
        if at < self._views_at:
            return  # older than the view already compared against: it would undo newer changes
        self._views_at = at
        for change in partition_changes(self._views, snapshot):
            self._changed_at[change.partition] = at
        self._views = partition_views(snapshot)
        for tp in [tp for tp, when in self._changed_at.items() if at - when > CHANGES_KEPT_S]:
            del self._changed_at[tp]

    def observe_cluster(self, snapshot: ClusterSnapshot) -> None:
        with self._lock:
            self._track_changes(snapshot)
            at = snapshot.taken_at
            if self._taken_at is not None and at <= self._taken_at:
                return  # a poll that finished late: rates from it would run backwards
            self._taken_at = at
            self._polls += 1
            n = self._polls
            for topic in snapshot.topics:
                total: float | None = 0.0
                for p in topic.partitions:
                    tp = TopicPartition(p.topic, p.id)
                    self._sample(Metric.ISR_SIZE, tp, float(len(p.isr)), n, at)
                    rate = self._rate(tp, p.high_watermark, at)
                    self._sample(Metric.RECORDS_PER_S, tp, rate, n, at)
                    # A topic's rate only when every partition's is known: a partial sum would draw a false dip.
                    total = None if rate is None or total is None else total + rate
                self._sample(Metric.TOPIC_RECORDS_PER_S, topic.name, total if topic.partitions else None, n, at)
            for group in snapshot.groups:
                lag = group.total_lag
                self._sample(Metric.GROUP_LAG, group.group_id, None if lag is None else float(lag), n, at)
            leaders = snapshot.leaders_by_broker
            for broker in snapshot.brokers:
                # A broker that is down leads nothing: 0 is a known value here, not a gap.
                self._sample(Metric.LEADERS, broker.id, float(leaders.get(broker.id, 0)), n, at)
            self._forget(n)

    def _sample(self, metric: Metric, key: SeriesKey, value: float | None, n: int, at: float) -> None:
        """Marks the series seen; appends `value` unless it is unknown (None: the sample is skipped)."""
        s = self._series.get((metric, key))
        if s is None:
            per_partition = metric in PER_PARTITION
            if per_partition and self._partition_series >= self.max_series:
                return  # full: the series there keep their history rather than take turns losing it
            self._partition_series += per_partition
            window = self.partition_window if metric in PER_PARTITION else self.window
            s = self._series[(metric, key)] = _Series((), window, n)
        s.last_seen = n
        if value is not None:
            s.append(_SHARED.get(value, value))
            s.last_at = at
            s.frozen = None

    def _rate(self, tp: TopicPartition, high_watermark: int | None, at: float) -> float | None:
        """Records/s since the last known high watermark; None on the first sight, or when it is unknown now."""
        if high_watermark is None:
            return None  # the last known one stays: the next rate spans the gap, which is still a true average
        last = self._watermarks.get(tp)
        self._watermarks[tp] = (high_watermark, at)
        if last is None:
            return None
        last_hw, last_at = last
        # Lower than before: the topic was deleted and created again, or an unclean election truncated the log.
        # Counting starts again from here.
        if high_watermark < last_hw or at <= last_at:
            return None
        return (high_watermark - last_hw) / (at - last_at)

    def _forget(self, n: int) -> None:
        gone = [k for k, s in self._series.items() if n - s.last_seen >= self.forget_after]
        for key in gone:
            del self._series[key]
            self._partition_series -= key[0] in PER_PARTITION
        if gone:
            # A watermark outlives nothing that could use it: only partitions with a rate series keep theirs.
            for tp in [tp for tp in self._watermarks if (Metric.RECORDS_PER_S, tp) not in self._series]:
                del self._watermarks[tp]

    def last_high_watermarks(self) -> dict[TopicPartition, int]:
        """The last high watermark known of each partition, also of one whose high watermark cannot be read now (no
        leader): what an unclean election's loss is counted up to."""
        with self._lock:
            return {tp: high for tp, (high, _) in self._watermarks.items()}

    def snapshot(self) -> HistorySnapshot:
        with self._lock:
            return HistorySnapshot(
                taken_at=self._taken_at,
                window=self.window,
                series=tuple(s.freeze(metric, key) for (metric, key), s in self._series.items()),
                changed_at=dict(self._changed_at),
            )
