"""Which topics kafka-topics.sh's --topic and --exclude-internal pick (Kafka 4.1's TopicCommand.getTopics and
TopicFilter.IncludeList): --topic is a regular expression matched against the whole name, its ',' read as '|', its
spaces and surrounding quotes dropped. Standard library only."""

from __future__ import annotations

import re
from collections.abc import Iterable

# org.apache.kafka.common.internals.Topic.isInternal: the topics kafka-topics' --exclude-internal leaves out.
INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state", "__share_group_state"})


def topic_regex(value: str) -> str:
    """--topic as kafka-topics.sh makes it a pattern (IncludeList)."""
    pattern = value.strip().replace(",", "|").replace(" ", "")
    return re.sub(r"[\"']+$", "", re.sub(r"^[\"']+", "", pattern))


def regex_problem(value: str) -> str | None:
    """None when --topic is a regular expression, else why not."""
    try:
        re.compile(topic_regex(value))
    except re.error as e:
        return str(e)
    return None


def matching_topics(
    names: Iterable[str], topic: str | None, exclude_internal: bool, internal: Iterable[str] = ()
) -> list[str]:
    """The names the tool acts on, sorted as it sorts them (String.compareTo: by UTF-16 code unit, which for the
    ASCII of topic names is Python's order). `internal`: topics the cluster marks internal, besides Kafka's own."""
    hidden = INTERNAL_TOPICS | frozenset(internal) if exclude_internal else frozenset()
    pattern = re.compile(topic_regex(topic)) if topic else None
    return sorted(n for n in set(names) if n not in hidden and (pattern is None or pattern.fullmatch(n) is not None))
