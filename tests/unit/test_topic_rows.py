"""The topic rows (T): a row is made again only when what it shows changed, so a poll of thousands of topics hands
the table the rows of the rest unchanged — the same tuples, which the table does not go over again."""

from __future__ import annotations

from dataclasses import replace

from kafkatop.backends.insight.history import History
from kafkatop.backends.model.cluster import Broker, ClusterSnapshot, Partition, Topic
from kafkatop.backends.model.groups import ConsumerGroup, GroupPartitionOffset, GroupState
from kafkatop.tui.live.tabs.partitions.rows import TopicRows


def topic(name: str, high: int = 10) -> Topic:
    return Topic(name, tuple(Partition(name, p, 1, (1,), (1,), low_watermark=0, high_watermark=high) for p in range(3)))


def cluster(at: float, *topics: Topic, groups: tuple[ConsumerGroup, ...] = ()) -> ClusterSnapshot:
    return ClusterSnapshot("test", at, "c", "kraft", 1, (Broker(1, "h", 1),), topics, groups)


def test_unchanged_topics_keep_their_row_and_a_written_one_is_made_again() -> None:
    a, b = topic("a"), topic("b")
    rows = TopicRows()
    first = rows(cluster(1.0, a, b), None)
    again = rows(cluster(3.0, a, b), None)
    assert again["a"] is first["a"] and again["b"] is first["b"]
    written = topic("a", high=25)  # a new Topic object: AdminSource hands on a new one when it changed
    after = rows(cluster(5.0, written, b), None)
    assert after["b"] is first["b"]
    assert after["a"] is not first["a"] and after["a"][6] == "75"  # messages: 3 partitions x 25
    assert list(after) == ["a", "b"]


def test_a_row_follows_its_groups_lag_and_its_rate() -> None:
    a = topic("a")
    rows = TopicRows()
    lagging = ConsumerGroup("g", GroupState.EMPTY, offsets=(GroupPartitionOffset("a", 0, 4, 10),))
    first = rows(cluster(1.0, a, groups=(lagging,)), None)
    assert first["a"][8] == "6"
    caught_up = replace(lagging, offsets=(GroupPartitionOffset("a", 0, 10, 10),))
    second = rows(cluster(3.0, a, groups=(caught_up,)), None)
    assert second["a"][8] == "0"
    history = History()
    for at, high in ((10.0, 10), (12.0, 30), (14.0, 50)):
        history.observe_cluster(cluster(at, topic("a", high)))
    rated = rows(cluster(14.0, topic("a", 50), groups=(caught_up,)), history.snapshot())
    assert "30" in str(rated["a"][7])  # 3 partitions x 20 records in 2 s
