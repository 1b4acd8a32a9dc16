"""Sparkline history from frozen snapshots built by hand: rates from watermarks, lag, ISR size, leaders, bounds."""

from __future__ import annotations

import pytest

from kafkatop.backends.insight.history import History, Metric
from kafkatop.backends.model.cluster import NO_LEADER, Broker, ClusterSnapshot, Partition, Topic
from kafkatop.backends.model.groups import ConsumerGroup, GroupPartitionOffset
from kafkatop.backends.model.topic_partition import TopicPartition

T0 = 1_700_000_000.0
P0 = TopicPartition("purchases", 0)
P1 = TopicPartition("purchases", 1)


def snap(
    at: float,
    hws: tuple[int | None, ...] = (100, 200),
    isr: tuple[int, ...] = (1, 2, 3),
    groups: tuple[ConsumerGroup, ...] = (),
    topic: str = "purchases",
    alive: tuple[int, ...] = (1, 2, 3),
    leaders: tuple[int, ...] = (1, 2),
) -> ClusterSnapshot:
    parts = tuple(
        Partition(topic, p, leaders[p % len(leaders)], (1, 2, 3), isr, low_watermark=0, high_watermark=hw)
        for p, hw in enumerate(hws)
    )
    brokers = tuple(Broker(b, "127.0.0.1", 9091 + b, alive=b in alive) for b in (1, 2, 3))
    return ClusterSnapshot("admin", at, "c", "zk", 1, brokers, (Topic(topic, parts),), groups)


def group(committed: tuple[int | None, ...], hws: tuple[int | None, ...] = (100, 200)) -> ConsumerGroup:
    offsets = tuple(
        GroupPartitionOffset("purchases", p, c, hw) for p, (c, hw) in enumerate(zip(committed, hws, strict=True))
    )
    return ConsumerGroup("billing", offsets=offsets)


def test_records_per_second_from_successive_high_watermarks() -> None:
    history = History()
    history.observe_cluster(snap(T0, (100, 200)))
    history.observe_cluster(snap(T0 + 2, (140, 200)))
    history.observe_cluster(snap(T0 + 4, (140, 230)))
    h = history.snapshot()
    # The first poll is only a baseline: a rate needs two watermarks.
    assert h.records_per_s(P0) == (20.0, 0.0)
    assert h.records_per_s(P1) == (0.0, 15.0)
    assert h.topic_records_per_s("purchases") == (20.0, 15.0)
    assert h.taken_at == T0 + 4 and h.window == 120


def test_an_unknown_watermark_skips_a_sample_and_the_next_rate_spans_the_gap() -> None:
    history = History()
    history.observe_cluster(snap(T0, (100, 200)))
    history.observe_cluster(snap(T0 + 1, (None, 210)))  # ListOffsets failed for purchases-0 (its leader just died)
    history.observe_cluster(snap(T0 + 3, (160, 230)))
    h = history.snapshot()
    assert h.records_per_s(P0) == (20.0,)  # 60 records over 3 s, not a 0 at +1 s
    assert h.records_per_s(P1) == (10.0, 10.0)
    # A topic's rate only when every partition's is known: no false dip at +1 s.
    assert h.topic_records_per_s("purchases") == (30.0,)


def test_a_watermark_that_goes_back_restarts_the_count() -> None:
    history = History()
    history.observe_cluster(snap(T0, (500, 200)))
    history.observe_cluster(snap(T0 + 1, (10, 200)))  # recreated, or truncated by an unclean election
    history.observe_cluster(snap(T0 + 2, (30, 200)))
    assert history.snapshot().records_per_s(P0) == (20.0,)


def test_isr_size_and_leaders_per_broker() -> None:
    history = History()
    history.observe_cluster(snap(T0))
    history.observe_cluster(snap(T0 + 1, isr=(2, 3), alive=(2, 3), leaders=(2, 2)))
    history.observe_cluster(snap(T0 + 2, isr=(1, 2, 3), leaders=(1, 2)))
    h = history.snapshot()
    assert h.isr_size(P0) == h.isr_size(P1) == (3.0, 2.0, 3.0)
    assert h.leaders(1) == (1.0, 0.0, 1.0)  # down at +1 s: it led nothing, a known 0
    assert h.leaders(2) == (1.0, 2.0, 1.0)
    assert h.leaders(3) == (0.0, 0.0, 0.0)
    assert {s.key for s in h.of(Metric.LEADERS)} == {1, 2, 3}


def test_offline_partitions_lead_nothing() -> None:
    history = History()
    history.observe_cluster(snap(T0, leaders=(NO_LEADER, NO_LEADER)))
    assert history.snapshot().leaders(1) == (0.0,)


def test_consumer_group_lag() -> None:
    history = History()
    history.observe_cluster(snap(T0, groups=(group((50, 150)),)))  # lag 50 + 50
    history.observe_cluster(snap(T0 + 1, groups=(group((None, None)),)))  # nothing committed: lag unknown, skipped
    history.observe_cluster(snap(T0 + 2, groups=(group((90, 200), (100, 210)),)))  # 10 + 10
    h = history.snapshot()
    assert h.group_lag("billing") == (100.0, 20.0)
    assert h.group_lag("nobody") == ()
    (series,) = h.of(Metric.GROUP_LAG)
    assert (series.key, series.last, series.last_at) == ("billing", 20.0, T0 + 2)


def test_each_series_keeps_its_last_window_samples() -> None:
    history = History(window=5)
    for i in range(12):
        history.observe_cluster(snap(T0 + i, (100 + 10 * i * i, 200)))
    rates = history.snapshot().records_per_s(P0)
    # Rate i (from poll i-1 to i) is 10 * (2i - 1): the last five are for i = 7..11.
    assert rates == tuple(10.0 * (2 * i - 1) for i in range(7, 12))
    assert history.snapshot().isr_size(P0) == (3.0,) * 5


def test_series_of_deleted_topics_and_gone_groups_are_dropped() -> None:
    history = History(forget_after=3)
    history.observe_cluster(snap(T0, (100, 200), groups=(group((50, 150)),)))
    history.observe_cluster(snap(T0 + 1, (110, 200), groups=(group((50, 150)),)))
    for i in range(2, 4):  # "purchases" deleted, "orders" created; the group is gone too
        history.observe_cluster(snap(T0 + i, (5, 6), topic="orders"))
        assert history.snapshot().records_per_s(P0) == (10.0,)  # kept for a while: it may be a failed poll
    history.observe_cluster(snap(T0 + 4, (5, 6), topic="orders"))
    h = history.snapshot()
    assert {s.key for s in h.series if isinstance(s.key, TopicPartition)} == {
        TopicPartition("orders", 0),
        TopicPartition("orders", 1),
    }
    assert h.topic_records_per_s("purchases") == () and h.group_lag("billing") == ()
    # Its watermark went with it: "purchases" created again starts from a baseline, not from the old 110.
    history.observe_cluster(snap(T0 + 5, (900, 200)))
    history.observe_cluster(snap(T0 + 6, (905, 200)))
    assert history.snapshot().records_per_s(P0) == (5.0,)


def test_the_number_of_partition_series_is_capped_and_leaves_the_topics_theirs() -> None:
    history = History(max_series=10)
    history.observe_cluster(snap(T0, tuple(range(10))))  # 10 partitions: ISR and rate series would be 20
    history.observe_cluster(snap(T0 + 1, tuple(range(1, 11))))
    h = history.snapshot()
    per_partition = [s for s in h.series if s.metric in (Metric.ISR_SIZE, Metric.RECORDS_PER_S)]
    assert len(per_partition) == 10
    assert h.isr_size(TopicPartition("purchases", 0)) == (3.0, 3.0)
    assert h.topic_records_per_s("purchases") == (10.0,)  # every partition moved by one in 1 s: still kept


def test_a_poll_that_finishes_late_is_ignored() -> None:
    history = History()
    history.observe_cluster(snap(T0 + 2, (100, 200)))
    history.observe_cluster(snap(T0 + 1, (50, 200)))
    history.observe_cluster(snap(T0 + 3, (110, 200)))
    assert history.snapshot().records_per_s(P0) == (10.0,)


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        History(window=0)


def test_a_partition_keeps_fewer_samples_than_a_topic_or_a_group() -> None:
    """At 10,000 partitions every sample counts: a partition's series keep `partition_window` samples (the table
    draws ten), a topic's, a group's and a broker's keep `window`."""
    h = History(window=40, partition_window=12)
    lagging = ConsumerGroup("g", offsets=(GroupPartitionOffset("purchases", 0, 1, 100),))
    for i in range(60):
        h.observe_cluster(snap(T0 + i, hws=(100 + i, 200 + 2 * i), groups=(lagging,)))
    s = h.snapshot()
    assert len(s.isr_size(P0)) == 12 and len(s.records_per_s(P1)) == 12
    assert s.records_per_s(P1)[-1] == pytest.approx(2.0)
    assert len(s.topic_records_per_s("purchases")) == 40 and len(s.group_lag("g")) == 40 and len(s.leaders(1)) == 40
