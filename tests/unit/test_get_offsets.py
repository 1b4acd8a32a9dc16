"""kafka-get-offsets.sh's choices and lines (backends/model/get_offsets.py): --time, the topic and partition filters
as GetOffsetShell parses them, and its output order (a TreeMap by "topic-partition" as text)."""

from __future__ import annotations

import pytest

from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.get_offsets import (
    EARLIEST,
    LATEST,
    MAX_TIMESTAMP,
    chosen,
    offset_lines,
    parse_time,
    topic_and_partitions,
    topic_partition_rules,
)

TOPICS = [("orders", False, (0, 1, 2)), ("many", False, tuple(range(12))), ("__consumer_offsets", True, (0, 1))]


@pytest.mark.parametrize(
    ("text", "time"),
    [("latest", LATEST), ("-1", LATEST), ("earliest", EARLIEST), ("-2", EARLIEST), ("max-timestamp", MAX_TIMESTAMP),
     ("-3", MAX_TIMESTAMP), ("1700000000000", 1700000000000), ("0", 0)],
)  # fmt: skip
def test_time(text: str, time: int) -> None:
    assert parse_time(text) == time


@pytest.mark.parametrize("text", ["x", "Latest", "1.5", "", " 1", str(2**63)])
def test_a_time_that_does_not_read_is_refused_in_the_tools_words(text: str) -> None:
    with pytest.raises(BadInput) as raised:
        parse_time(text)
    assert str(raised.value) == (
        f"Malformed time argument {text}. Please use -1 or latest / -2 or earliest / -3 or max-timestamp, or a "
        "specified long format timestamp"
    )


def test_topic_and_partitions() -> None:
    assert chosen(TOPICS, topic_and_partitions(None, None), False) == [
        *(("orders", p) for p in range(3)), *(("many", p) for p in range(12)), ("__consumer_offsets", 0),
        ("__consumer_offsets", 1),
    ]  # fmt: skip
    assert chosen(TOPICS, topic_and_partitions(None, None), True)[-1] == ("many", 11)
    assert chosen(TOPICS, topic_and_partitions("ord.*", "0,2,7"), False) == [("orders", 0), ("orders", 2)]
    assert chosen(TOPICS, topic_and_partitions("orders,__.*", "1"), False) == [("orders", 1), ("__consumer_offsets", 1)]
    assert chosen(TOPICS, topic_and_partitions("order", None), False) == []  # matched whole
    assert chosen(TOPICS, topic_and_partitions(" 'orders' ", None), False)[0] == ("orders", 0)  # as IncludeList


def test_topic_partition_patterns() -> None:
    def taken(text: str) -> list[tuple[str, int]]:
        return chosen(TOPICS, topic_partition_rules(text), False)

    assert taken("many:3-5") == [("many", 3), ("many", 4)]  # upper bound exclusive
    assert taken("many:10-") == [("many", 10), ("many", 11)]
    assert taken("many:-2,orders:1") == [("orders", 1), ("many", 0), ("many", 1)]
    assert taken(":11") == [("many", 11)]
    assert taken("orders:") == [("orders", 0), ("orders", 1), ("orders", 2)]


@pytest.mark.parametrize(
    ("call", "said"),
    [
        (lambda: topic_partition_rules("orders:a"), "Invalid rule specification: orders:a"),
        (lambda: topic_partition_rules("orders:1-2-3"), "Invalid rule specification: orders:1-2-3"),
        (lambda: topic_and_partitions("orders", "1,x"),
         "--partitions expects a comma separated list of numeric partition ids, but received: 1,x"),
        (lambda: topic_and_partitions("(", None),
         "'(' is not a regular expression (missing ), unterminated subpattern at position 0): give a topic name or "
         "a pattern such as 'orders.*'"),
    ],
)  # fmt: skip
def test_bad_filters_are_refused(call: object, said: str) -> None:
    with pytest.raises(BadInput) as raised:
        call()  # type: ignore[operator]
    assert str(raised.value) == said


def test_lines_sorted_as_text_without_unknown_offsets() -> None:
    offsets = {("many", 2): 5, ("many", 10): 7, ("m", 1): 0, ("many", 1): -1, ("Z", 0): 3}
    assert offset_lines(offsets) == ["Z:0:3", "m:1:0", "many:10:7", "many:2:5"]
