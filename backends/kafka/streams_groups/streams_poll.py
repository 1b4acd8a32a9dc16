"""The streams-group part of an AdminSource poll (KIP-1071, Kafka 4.1 early access): every streams group with its
members and the committed offsets of its source-topic partitions, read on a thread of its own while the rest of the
poll runs (streams_groups.py: one ListGroups per broker, then one StreamsGroupDescribe per coordinator and an
OffsetFetch per group), and turned into the same ConsumerGroup snapshots as consumer groups, of type `streams`, so
that the Groups tab shows them.

A cluster without streams groups (the librdkafka mock, Kafka before 4.1, streams.version=0) is asked again only every
RECHECK_S.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor

from kafkatop.backends.kafka.errors import Deadline, describe_error
from kafkatop.backends.kafka.groups.groups import group_state
from kafkatop.backends.kafka.streams_groups.streams_groups import StreamsGroupReader
from kafkatop.backends.model.cluster import ConsumerGroup, GroupMember, GroupPartitionOffset, Problem, TopicPartition
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.streams_groups import StreamsGroup, StreamsGroupsUnavailable, Tasks
from kafkatop.backends.protocol.security import unsupported

SOURCE = "admin"
RECHECK_S = 60.0


def _partitions(group: StreamsGroup, tasks: Tasks) -> tuple[TopicPartition, ...]:
    """A member's tasks as the partitions they read: each task's partition of every source topic of its
    subtopology."""
    sources = dict(group.source_topics)
    return tuple(sorted({TopicPartition(t, p) for sid, ps in tasks for t in sources.get(sid, ()) for p in ps},
                        key=lambda tp: (tp.topic, tp.partition)))  # fmt: skip


def streams_group(group: StreamsGroup, high: Mapping[tuple[str, int], int | None]) -> ConsumerGroup:
    """A streams group as the Groups tab shows groups: each member (a stream thread) with the source partitions of
    its active tasks, the group's committed offsets and their lag."""
    members = tuple(
        GroupMember(
            member_id=m.member_id,
            client_id=m.client_id,
            host=m.client_host.lstrip("/"),
            assignment=_partitions(group, m.assignment.active),
            member_epoch=m.member_epoch,
            target_assignment=_partitions(group, m.target_assignment.active),
        )
        for m in group.members
    )
    owners = {(tp.topic, tp.partition): m.member_id for m in members for tp in m.assignment}
    offsets = tuple(
        GroupPartitionOffset(
            o.topic,
            o.partition,
            o.committed,
            high.get((o.topic, o.partition)),
            owners.get((o.topic, o.partition)),
            o.leader_epoch,
        )  # fmt: skip
        for o in group.offsets
    )
    return ConsumerGroup(
        group_id=group.group_id,
        state=group_state(group.state),
        protocol_type="streams",
        group_type="streams",
        coordinator=group.coordinator[0] if group.coordinator is not None else None,
        members=members,
        offsets=offsets,
        group_epoch=group.group_epoch,
        assignment_epoch=group.assignment_epoch,
        note="a streams group (Kafka Streams): each member a stream thread, its partitions those of its active tasks",
    )


class StreamsPoll:
    """Streams groups, poll after poll, on one thread (the reader keeps its connections from poll to poll)."""

    def __init__(self, connection: KafkaConnection) -> None:
        self._reader = StreamsGroupReader(connection) if unsupported(connection.client_settings) is None else None
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="kafkatop-streams-groups")
        self._unavailable_at: float | None = None  # when the cluster said it has no streams groups

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        if self._reader is not None:
            self._reader.close()

    def start(self, deadline: Deadline) -> Future[dict[str, StreamsGroup]] | None:
        if self._reader is None:
            return None
        if self._unavailable_at is not None and time.monotonic() - self._unavailable_at < RECHECK_S:
            return None
        return self._pool.submit(self._reader.describe_all, deadline.end)

    def collect(
        self,
        read: Future[dict[str, StreamsGroup]] | None,
        deadline: Deadline,
        high: Mapping[tuple[str, int], int | None],
        problems: list[Problem],
    ) -> tuple[ConsumerGroup, ...]:
        if read is None:
            return ()
        try:
            groups = deadline.result(read)
        except StreamsGroupsUnavailable:
            self._unavailable_at = time.monotonic()
            return ()
        except Exception as e:  # noqa: BLE001 - a read that missed the deadline is this poll's problem, not a crash
            why = str(e) if isinstance(e, KafkatopError) else describe_error(e)
            problems.append(Problem(SOURCE, "streams groups", why))
            return ()
        self._unavailable_at = None
        out = []
        for g in groups.values():
            if g.error is None:
                out.append(streams_group(g, high))
                continue
            problems.append(Problem(SOURCE, f"streams group {g.group_id}", g.error))
            out.append(ConsumerGroup(g.group_id, protocol_type="streams", group_type="streams",
                                     note=f"a streams group, not described this poll: {g.error}"))  # fmt: skip
        return tuple(out)
