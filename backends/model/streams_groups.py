"""Streams groups (KIP-1071, Kafka 4.1 early access): a Kafka Streams application's group as the broker coordinates
it, with its topology (subtopologies and their source topics), its members (each a stream thread of a process) and
their tasks, as kafka-streams-groups.sh describes them (standard library only).

A task is a subtopology's partition: task 0_1 reads partition 1 of every source topic of subtopology 0. A group's
offsets are its committed offsets on those source topics, as a consumer group's; lag is the partition's end minus the
committed offset, or minus the log start where nothing was committed (as Kafka's tool counts it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kafkatop.backends.model.errors import KafkatopError

ENABLE_HINT = (
    "Kafka 4.1 offers them as early access: brokers with unstable.api.versions.enable=true, controllers with "
    "unstable.feature.versions.enable=true, then `kafka-features.sh --bootstrap-server HOST:PORT upgrade --feature "
    "streams.version=1`"
)


class StreamsGroupsUnavailable(KafkatopError):
    """The cluster does not speak streams groups (the librdkafka mock, Kafka before 4.1, or streams.version=0):
    which, and how to turn them on, in one line."""


@dataclass(frozen=True, slots=True)
class ListedStreamsGroup:
    group_id: str
    state: str


Tasks = tuple[tuple[str, tuple[int, ...]], ...]  # (subtopology id, its partitions), in the broker's order


@dataclass(frozen=True, slots=True)
class StreamsTasks:
    active: Tasks
    standby: Tasks
    warmup: Tasks


@dataclass(frozen=True, slots=True)
class StreamsMember:
    member_id: str
    member_epoch: int
    process_id: str
    client_id: str
    client_host: str
    topology_epoch: int
    is_classic: bool
    assignment: StreamsTasks
    target_assignment: StreamsTasks


@dataclass(frozen=True, slots=True)
class StreamsOffset:
    topic: str
    partition: int
    committed: int | None  # None: nothing committed (Kafka's tool prints "-")
    leader_epoch: int | None
    log_start: int | None
    log_end: int | None

    @property
    def lag(self) -> int | None:
        """The end minus the committed offset; minus the log start where nothing was committed."""
        if self.log_end is None:
            return None
        base = self.committed if self.committed is not None else self.log_start
        return None if base is None else self.log_end - base


@dataclass(frozen=True, slots=True)
class StreamsGroup:
    group_id: str
    state: str
    coordinator: tuple[int, str, int] | None  # (node id, host, port)
    group_epoch: int = -1
    assignment_epoch: int = -1
    topology_epoch: int | None = None
    source_topics: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (subtopology id, its source topics)
    members: tuple[StreamsMember, ...] = ()
    offsets: tuple[StreamsOffset, ...] = ()
    error: str | None = None
    not_found: bool = False
    internal_topics: tuple[str, ...] = ()  # its repartition and changelog topics (not its source topics)


_INTERNAL_SUFFIXES = ("-changelog", "-repartition", "-subscription-registration-topic", "-subscription-response-topic")
_FK_JOIN = re.compile(r".+-KTABLE-FK-JOIN-SUBSCRIPTION-(REGISTRATION|RESPONSE)-\d+-topic")


def inferred_internal(topic: str, group_id: str) -> bool:
    """Whether kafka-streams-groups.sh --delete takes `topic` for one of the group's own internal topics (and deletes
    it with the group): named after the application id, in Kafka Streams' formats for internal topics."""
    return topic.startswith(f"{group_id}-") and (topic.endswith(_INTERNAL_SUFFIXES) or bool(_FK_JOIN.fullmatch(topic)))
