"""Which partitions the per-group way (group_reader.py) reads a group's committed offsets for.

A Consumer reads offsets only for partitions it names (an "all partitions" OffsetFetch is AdminClient's), and naming
every partition for every group each poll would cost groups × partitions. So a group is asked once for every
partition, then for the topics it has committed on and those assigned to its members now; every `config_refresh_s`
it is asked for every partition again. Offsets committed on a topic that no member of the group is assigned (an
offset reset, a consumer using assign()) show up by then.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future
from typing import Any

from confluent_kafka import TopicPartition as KafkaTopicPartition

from kafkatop.backends.kafka.errors import Deadline, result_within
from kafkatop.backends.kafka.groups.group_reader import DESCRIPTION_WAIT_S


class OffsetPartitions:
    """Where each group committed, and the topics assigned to its members as last described."""

    def __init__(self) -> None:
        self._group_topics: dict[str, set[str]] = {}
        self._group_topics_read_at = float("-inf")
        self._assigned_topics: dict[str, set[str]] = {}  # topics assigned to each group's members, last described
        # The topics kafkatop's own consumers in a group subscribed to: read though no description names them (the
        # demo's mock describes no group, and a group's first commit comes after the poll that found none).
        self._subscribed: dict[str, frozenset[str]] = {}

    def refresh(self, config_refresh_s: float) -> None:
        """At the start of a poll: every `config_refresh_s`, every group is asked for every partition again."""
        now = time.monotonic()
        if now - self._group_topics_read_at >= config_refresh_s:
            self._group_topics.clear()
            self._group_topics_read_at = now

    def named(
        self,
        group_id: str,
        description: Future[Any] | None,
        partitions: Mapping[str, list[KafkaTopicPartition]],
        deadline: Deadline,
    ) -> Callable[[], list[KafkaTopicPartition]]:
        """The partitions to read a group's committed offsets for; called on an offset-reading thread, where this
        poll's description of the group may add the topics assigned to it now."""
        # Copies: the poll thread updates both while a late read may still be naming partitions.
        known = set(self._group_topics[group_id]) if group_id in self._group_topics else None
        assigned = set(self._assigned_topics.get(group_id, ())) | self._subscribed.get(group_id, frozenset())

        def named() -> list[KafkaTopicPartition]:
            if known is None:
                return [tp for tps in partitions.values() for tp in tps]
            wanted = known | assigned  # assigned as of the last description, if this poll's comes too late
            if description is not None:
                try:
                    desc = result_within(description, min(deadline.left(), DESCRIPTION_WAIT_S))
                    wanted.update(_assigned_topics(desc))
                except Exception:  # noqa: BLE001 - the poll reports the description's failure where it collects it
                    pass
            return [tp for name in sorted(wanted) for tp in partitions.get(name, ())]

        return named

    def keep(self, group_ids: Iterable[str]) -> None:
        """Forgets the assignments of groups no longer listed or watched."""
        for gone in set(self._assigned_topics).difference(group_ids):
            del self._assigned_topics[gone]

    def subscribed(self, topics: Mapping[str, Iterable[str]]) -> None:
        self._subscribed = {g: frozenset(t) for g, t in topics.items()}

    def subscribed_to(self, group_id: str) -> frozenset[str]:
        return self._subscribed.get(group_id, frozenset())

    def described(self, group_id: str, description: Any) -> None:
        self._assigned_topics[group_id] = _assigned_topics(description)

    def committed(self, group_id: str, committed: Iterable[KafkaTopicPartition]) -> None:
        # Kept as long as the group has offsets there, with members or without (an Empty group).
        self._group_topics.setdefault(group_id, set()).update(tp.topic for tp in committed if tp.offset >= 0)


def _assigned_topics(description: Any) -> set[str]:
    return {tp.topic for m in description.members for tp in getattr(m.assignment, "topic_partitions", None) or ()}
