"""The share-group part of an AdminSource poll (KIP-932, Kafka 4.1's queues): every share group with its members and
each partition's start offset, read on a thread of its own while the rest of the poll runs (share_groups.py: one
ListGroups per broker, then one ShareGroupDescribe and one DescribeShareGroupOffsets per coordinator), and turned
into the same ConsumerGroup snapshots as consumer groups, of type `share`, so that the Groups tab shows them.

A cluster without share groups (the librdkafka mock, Kafka before 4.1, share.version=0) is asked again only every
RECHECK_S: a lab upgraded with `kafka-features.sh upgrade --feature share.version=1` shows them within a minute.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace

from kafkatop.backends.kafka.errors import Deadline, describe_error
from kafkatop.backends.kafka.groups.groups import group_state
from kafkatop.backends.kafka.share_groups.share_groups import ShareGroupReader
from kafkatop.backends.model.cluster import ConsumerGroup, GroupMember, GroupPartitionOffset, Problem, TopicPartition
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.share_groups import ShareGroup, ShareGroupsUnavailable
from kafkatop.backends.protocol.security import unsupported

SOURCE = "admin"
RECHECK_S = 60.0


def share_group(group: ShareGroup, high: Mapping[tuple[str, int], int | None]) -> ConsumerGroup:
    """A share group as the Groups tab shows groups: its start offsets where a consumer group has its commits (lag:
    the records from the start offset to the end, not yet acknowledged)."""
    members = tuple(
        GroupMember(
            member_id=m.member_id,
            client_id=m.client_id,
            host=m.host.lstrip("/"),
            assignment=tuple(TopicPartition(t, p) for t, p in m.assignment),
            member_epoch=m.member_epoch,
        )
        for m in group.members
    )
    owners: dict[tuple[str, int], str] = {}
    for m in group.members:  # a share partition is consumed by every member assigned it; the table names one
        for key in m.assignment:
            owners.setdefault(key, m.member_id)
    offsets = tuple(
        GroupPartitionOffset(
            topic=p.topic,
            partition=p.partition,
            committed=p.start_offset,
            high_watermark=high.get((p.topic, p.partition)),
            member_id=owners.get((p.topic, p.partition)),
            leader_epoch=p.leader_epoch,
        )
        for p in group.partitions
    )
    return ConsumerGroup(
        group_id=group.group_id,
        state=group_state(group.state),
        protocol_type="share",
        group_type="share",
        assignor=group.assignor or None,
        coordinator=group.coordinator.node_id if group.coordinator is not None else None,
        members=members,
        offsets=offsets,
        group_epoch=group.group_epoch,
        assignment_epoch=group.assignment_epoch,
        note="a share group: START-OFFSET in the committed column, its lag the records not yet acknowledged",
    )


class SharePoll:
    """Share groups, poll after poll, on one thread (the reader keeps its connections from poll to poll)."""

    def __init__(self, connection: KafkaConnection) -> None:
        self._reader = ShareGroupReader(connection) if unsupported(connection.client_settings) is None else None
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="kafkatop-share-groups")
        self._unavailable_at: float | None = None  # when the cluster said it has no share groups
        self._last: tuple[tuple[ConsumerGroup, ...], float] = ((), 0.0)  # the last read, and when

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        if self._reader is not None:
            self._reader.close()

    def start(self, deadline: Deadline) -> Future[dict[str, ShareGroup]] | None:
        if self._reader is None:
            return None
        if self._unavailable_at is not None and time.monotonic() - self._unavailable_at < RECHECK_S:
            return None
        # No end offsets here: the poll's own high watermarks give each partition's lag in collect().
        return self._pool.submit(self._reader.describe_all, deadline.end, {})

    def collect(
        self,
        read: Future[dict[str, ShareGroup]] | None,
        deadline: Deadline,
        high: Mapping[tuple[str, int], int | None],
        problems: list[Problem],
    ) -> tuple[ConsumerGroup, ...]:
        if read is None:
            return ()
        try:
            groups = deadline.result(read)
        except ShareGroupsUnavailable:
            self._unavailable_at = time.monotonic()
            return ()
        except Exception as e:  # noqa: BLE001 - a read that missed the deadline is this poll's problem, not a crash
            why = str(e) if isinstance(e, KafkatopError) else describe_error(e)
            problems.append(Problem(SOURCE, "share groups", why))
            return self._kept(why)
        self._unavailable_at = None
        out = []
        for g in groups.values():
            if g.error is None:
                out.append(share_group(g, high))
                continue
            # Listed but not described (its coordinator down, say): still shown, saying why it has no members.
            problems.append(Problem(SOURCE, f"share group {g.group_id}", g.error))
            out.append(ConsumerGroup(g.group_id, protocol_type="share", group_type="share",
                                     note=f"a share group, not described this poll: {g.error}"))  # fmt: skip
        self._last = (tuple(out), time.time())
        return self._last[0]

    def _kept(self, why: str) -> tuple[ConsumerGroup, ...]:
        """The share groups as last read, saying so: a poll that could not read them (a share coordinator that does
        not answer while __share_group_state is below its min ISR) does not make them vanish."""
        groups, at = self._last
        said = f"as read at {time.strftime('%H:%M:%S', time.localtime(at))}; this poll: {why}"
        return tuple(replace(g, note=said) for g in groups)
