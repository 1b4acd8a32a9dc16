"""The console consumers' buffer (backends/kafka/records/consumed.py): batches kept as consumed, the oldest dropped
beyond its limit and counted, drained oldest first in at most the number asked for. Plain values stand in for
librdkafka's messages: the buffer never looks into them."""

from __future__ import annotations

from kafkatop.backends.kafka.records.consumed import Taken


def test_the_oldest_records_are_dropped_beyond_the_limit_and_counted() -> None:
    taken = Taken(limit=5)
    assert taken.add("c1", "g", [1, 2, 3]) == 0
    assert taken.add("c2", "h", [4, 5, 6, 7]) == 2  # 1 and 2 go
    assert taken.count == 5
    assert taken.add("c1", "g", [8, 9, 10, 11, 12, 13]) == 6  # more than the limit at once: 3, 4..7 and 8 go
    assert taken.take(100) == [("c1", "g", [9, 10, 11, 12, 13])]
    assert taken.count == 0 and taken.take(10) == []


def test_drained_oldest_first_across_batches_in_at_most_the_number_asked() -> None:
    taken = Taken(limit=100)
    taken.add("c1", "g", [1, 2, 3])
    taken.add("c2", "h", [4, 5])
    taken.add("c1", "g", [])  # an empty batch is not kept
    assert taken.take(4) == [("c1", "g", [1, 2, 3]), ("c2", "h", [4])]
    assert taken.count == 1
    assert taken.take(4) == [("c2", "h", [5])]
