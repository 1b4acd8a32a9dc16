"""kafka-topics.sh's topic choice (--topic REGEX, --exclude-internal) and its describe health filters, as pure
functions: model/topic_filter.py and insight/topic_health.py (Kafka 4.1's TopicCommand)."""

from __future__ import annotations

import pytest

from kafkatop.backends.insight.topic_health import HealthFilter
from kafkatop.backends.model.cluster import NO_LEADER, Partition
from kafkatop.backends.model.topic_filter import matching_topics, regex_problem, topic_regex

NAMES = ["orders", "orders-dlq", "Orders", "a.b", "axb", "__consumer_offsets", "__transaction_state", "_private"]


def test_topic_regex_is_the_tools_include_list() -> None:
    assert topic_regex(" 'a, b' ") == "a|b"
    assert topic_regex('"orders.*"') == "orders.*"
    assert regex_problem("a(b") is not None and regex_problem("a.*") is None


def test_matching_topics_sorted_whole_names_and_internal_left_out_on_request() -> None:
    assert matching_topics(NAMES, None, False) == sorted(NAMES)  # Java's String order: uppercase first
    assert matching_topics(NAMES, "orders", False) == ["orders"]  # the whole name, not a search
    assert matching_topics(NAMES, "a.b", False) == ["a.b", "axb"]  # '.' is any character, as the tool's
    assert matching_topics(NAMES, "__.*", True) == []
    assert matching_topics(NAMES, None, True, internal=["_private"]) == ["Orders", "a.b", "axb", "orders", "orders-dlq"]
    assert matching_topics(["x", "x"], None, False) == ["x"]


def partition(leader: int, replicas: tuple[int, ...], isr: tuple[int, ...]) -> Partition:
    return Partition("t", 0, leader, replicas, isr)


HEALTHY = partition(1, (1, 2, 3), (1, 2, 3))
SHRUNK = partition(1, (1, 2, 3), (1, 2))
AT_ONE = partition(1, (1, 2, 3), (1,))
LEADERLESS = partition(NO_LEADER, (1, 2, 3), (3,))
LED_BY_GONE = partition(4, (4, 2, 3), (4, 2, 3))


@pytest.mark.parametrize(
    ("health", "min_isr", "shown"),
    [
        (HealthFilter(), None, {"HEALTHY", "SHRUNK", "AT_ONE", "LEADERLESS", "LED_BY_GONE"}),
        (HealthFilter(under_replicated=True), None, {"SHRUNK", "AT_ONE", "LEADERLESS"}),
        (HealthFilter(unavailable=True), None, {"LEADERLESS", "LED_BY_GONE"}),
        (HealthFilter(under_min_isr=True), None, {"LEADERLESS"}),  # min ISR 1 by default: only no leader
        (HealthFilter(under_min_isr=True), "2", {"AT_ONE", "LEADERLESS"}),
        (HealthFilter(at_min_isr=True), "2", {"SHRUNK"}),
        (HealthFilter(at_min_isr=True), None, {"AT_ONE", "LEADERLESS"}),
        (
            HealthFilter(under_replicated=True, unavailable=True),
            None,
            {"SHRUNK", "AT_ONE", "LEADERLESS", "LED_BY_GONE"},
        ),
        (HealthFilter(with_overrides=True), "2", set()),  # topic lines only
    ],
)
def test_partition_lines_each_filter_keeps(health: HealthFilter, min_isr: str | None, shown: set[str]) -> None:
    configs = {} if min_isr is None else {"min.insync.replicas": min_isr}
    cases = {
        "HEALTHY": HEALTHY,
        "SHRUNK": SHRUNK,
        "AT_ONE": AT_ONE,
        "LEADERLESS": LEADERLESS,
        "LED_BY_GONE": LED_BY_GONE,
    }
    assert {name for name, p in cases.items() if health.shows_partition(p, configs, live={1, 2, 3})} == shown


def test_topic_lines_only_without_partition_filters_and_with_overrides_only_where_set() -> None:
    assert HealthFilter().shows_topic({}) and HealthFilter().shows_topic({"retention.ms": "1"})
    assert not HealthFilter(under_replicated=True).shows_topic({"retention.ms": "1"})
    assert HealthFilter(with_overrides=True).shows_topic({"retention.ms": "1"})
    assert not HealthFilter(with_overrides=True).shows_topic({})
