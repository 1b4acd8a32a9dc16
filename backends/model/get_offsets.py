"""`kafka-get-offsets.sh`'s choices and lines: its --time (latest, earliest, max-timestamp or a timestamp), its topic
and partition filters (--topic REGEX with --partitions 0,1, or --topic-partitions REGEX:0-3,…), and its output,
`topic:partition:offset` in the order of the partitions' names (TreeMap by TopicPartition.toString()), a partition
without an offset (-1: nothing at or after the timestamp, max-timestamp of an empty partition) left out. Standard
library only."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kafkatop.backends.model.errors import BadInput

LATEST, EARLIEST, MAX_TIMESTAMP = -1, -2, -3  # ListOffsetsRequest's timestamps
TIME_NAMES = {"latest": LATEST, "earliest": EARLIEST, "max-timestamp": MAX_TIMESTAMP}
UNKNOWN_OFFSET = -1
INT_MAX = 2**31 - 1
LONG = (-(2**63), 2**63 - 1)
# GetOffsetShell.TOPIC_PARTITION_PATTERN
RULE = re.compile(r"([^:,]*)(?::(?:([0-9]*)|(?:([0-9]*)-([0-9]*))))?")


def parse_time(text: str) -> int:
    """The tool's --time: -1 or latest, -2 or earliest, -3 or max-timestamp, or a timestamp (ms since the epoch)."""
    if text in TIME_NAMES:
        return TIME_NAMES[text]
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not LONG[0] <= value <= LONG[1] or text.strip() != text:
        raise BadInput(f"Malformed time argument {text}. Please use -1 or latest / -2 or earliest / -3 or "
                       "max-timestamp, or a specified long format timestamp")  # fmt: skip
    return value


def _topic_regex(text: str) -> re.Pattern[str]:
    """TopicFilter.IncludeList: commas as alternatives, spaces and surrounding quotes dropped; matched whole."""
    regex = re.sub(r"[\"']+$", "", re.sub(r"^[\"']+", "", text.strip().replace(",", "|").replace(" ", "")))
    try:
        return re.compile(regex)
    except re.error as e:
        raise BadInput(f"{text!r} is not a regular expression ({e}): give a topic name or a pattern such as "
                       "'orders.*'") from None  # fmt: skip


@dataclass(frozen=True, slots=True)
class PartitionRule:
    """A topic pattern and its partitions: [low, high) (high exclusive), or the set `only` (empty: every one)."""

    topic: re.Pattern[str]
    low: int = 0
    high: int = INT_MAX
    only: frozenset[int] | None = None

    def takes_topic(self, topic: str) -> bool:
        return self.topic.fullmatch(topic) is not None

    def takes(self, topic: str, partition: int) -> bool:
        if not self.takes_topic(topic):
            return False
        if self.only is not None:
            return not self.only or partition in self.only
        return self.low <= partition < self.high


def topic_and_partitions(topic: str | None, partitions: str | None) -> tuple[PartitionRule, ...]:
    """--topic (a pattern; none: every topic) and --partitions (ids; none: every partition)."""
    only: frozenset[int] = frozenset()
    if partitions:
        try:
            only = frozenset(int(p) for p in partitions.split(","))
        except ValueError:
            raise BadInput(f"--partitions expects a comma separated list of numeric partition ids, but received: "
                           f"{partitions}") from None  # fmt: skip
    return (PartitionRule(_topic_regex(topic if topic is not None else ".*"), only=only),)


def topic_partition_rules(text: str) -> tuple[PartitionRule, ...]:
    """--topic-partitions: `REGEX`, `REGEX:N`, `REGEX:N-M` (M exclusive), `REGEX:N-`, `REGEX:-M`, or `:…` for any
    topic, comma separated."""
    rules = []
    for spec in text.split(","):
        found = RULE.fullmatch(spec)
        if found is None:
            raise BadInput(f"Invalid rule specification: {spec}")
        topic, one, low, high = (g or None for g in found.groups())
        regex = _topic_regex(topic or ".*")
        if one is not None:
            rules.append(PartitionRule(regex, int(one), int(one) + 1))
        else:
            rules.append(PartitionRule(regex, int(low) if low else 0, int(high) if high else INT_MAX))
    return tuple(rules)


def chosen(
    topics: Iterable[tuple[str, bool, Sequence[int]]], rules: Sequence[PartitionRule], exclude_internal: bool
) -> list[tuple[str, int]]:
    """The partitions the rules take of `topics` (each: name, internal, partition ids); an internal topic left out
    with `exclude_internal`. A partition is taken when one rule takes it (CompositeTopicPartitionFilter)."""
    return [
        (name, p)
        for name, internal, partitions in topics
        if not (internal and exclude_internal) and any(r.takes_topic(name) for r in rules)
        for p in partitions
        if any(r.takes(name, p) for r in rules)
    ]


def offset_lines(offsets: Mapping[tuple[str, int], int]) -> list[str]:
    """`topic:partition:offset`, sorted as the tool's TreeMap (by "topic-partition" as text); -1 left out."""
    kept = [(t, p, o) for (t, p), o in offsets.items() if o != UNKNOWN_OFFSET]
    return [f"{t}:{p}:{o}" for t, p, o in sorted(kept, key=lambda x: _utf16(f"{x[0]}-{x[1]}"))]


def _utf16(text: str) -> bytes:
    """Java compares strings by UTF-16 code units."""
    return text.encode("utf-16-be")
