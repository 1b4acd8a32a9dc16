"""Streams groups (KIP-1071, Kafka 4.1 early access) read and deleted as kafka-streams-groups.sh does, over
kafkatop's own protocol code (confluent-kafka has no streams-group request), every call bounded by one deadline:

- list: ListGroups v5 (type "streams") to every broker, each answering for the groups it coordinates;
- describe: FindCoordinator for all the groups at once, then per coordinator one StreamsGroupDescribe for all its
  groups and an OffsetFetch of each; the source-topic partitions of the members' active tasks, with their log start
  and end (ListOffsets from their leaders), for the offsets table;
- delete: DeleteGroups, refused before any request for a group that is not an empty streams group, as the tool does.

The requests, retries and coordinator look-ups are a ShareGroupReader's (share_groups/share_groups.py), given this
module's check of the cluster: a cluster that does not speak streams groups raises StreamsGroupsUnavailable, saying
which and how to turn them on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from types import TracebackType
from typing import Self

from kafkatop.backends.kafka.share_groups.share_group_admin import delete_empty_groups
from kafkatop.backends.kafka.share_groups.share_group_support import RETRIABLE, group_error
from kafkatop.backends.kafka.share_groups.share_groups import ShareGroupReader
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.share_groups import Coordinator
from kafkatop.backends.model.streams_groups import (
    ENABLE_HINT,
    ListedStreamsGroup,
    StreamsGroup,
    StreamsGroupsUnavailable,
    StreamsMember,
    StreamsOffset,
    StreamsTasks,
)
from kafkatop.backends.protocol import streams_groups as wire
from kafkatop.backends.protocol.connection import BrokerConnection
from kafkatop.backends.protocol.groups import OFFSET_FETCH, GroupOffsets, decode_offset_fetch, offset_fetch_body
from kafkatop.backends.protocol.identity import mode_of
from kafkatop.backends.protocol.wire import response_reader

STREAMS_VERSION = "streams.version"
UNSUPPORTED_VERSION = 35
GROUP_ID_NOT_FOUND = 69


def check_streams_support(conn: BrokerConnection) -> None:
    """StreamsGroupsUnavailable, saying why, when the broker at `conn` cannot describe streams groups."""
    answer = conn.api_versions()
    if wire.STREAMS_GROUP_DESCRIBE.key not in answer.versions:
        if mode_of(answer.versions) == "unknown":
            who = "the librdkafka mock (or a Kafka-compatible broker) offers no streams-group requests"
        else:
            who = "it offers no streams-group requests (Kafka before 4.1, or unstable.api.versions.enable=false)"
        raise StreamsGroupsUnavailable(f"{conn.address} does not speak streams groups: {who}; {ENABLE_HINT}")
    level = answer.finalized_features.get(STREAMS_VERSION, (0, 0))[1]
    if level < 1:
        raise StreamsGroupsUnavailable(
            f"streams groups are off on the cluster of {conn.address} (streams.version={level}): {ENABLE_HINT}"
        )


def _tasks(assignment: wire.StreamsAssignment) -> StreamsTasks:
    return StreamsTasks(assignment.active.tasks, assignment.standby.tasks, assignment.warmup.tasks)


def _group(d: wire.DescribedStreamsGroup, offsets: GroupOffsets | None, coordinator: Coordinator) -> StreamsGroup:
    where = (coordinator.node_id, coordinator.host, coordinator.port)
    if d.error_code:
        return StreamsGroup(d.group_id, d.state, where, error=group_error(d.error_code, d.error_message),
                            not_found=d.error_code == GROUP_ID_NOT_FOUND)  # fmt: skip
    members = tuple(
        StreamsMember(
            m.member_id,
            m.member_epoch,
            m.process_id,
            m.client_id,
            m.client_host,
            m.topology_epoch,
            m.is_classic,
            _tasks(m.assignment),
            _tasks(m.target_assignment),
        )  # fmt: skip
        for m in d.members
    )
    # a task reads its partition of every source topic of its subtopology, repartition topics included
    sources = tuple((s.subtopology_id, s.source_topics + s.repartition_source_topics) for s in d.subtopologies or ())
    by_id = dict(sources)
    wanted = sorted(
        {(t, p) for m in members for sid, ps in m.assignment.active for t in by_id.get(sid, ()) for p in ps}
    )
    committed = {(o.topic, o.partition): o for o in offsets.offsets if o.offset >= 0} if offsets else {}
    rows = []
    for topic, partition in wanted:
        c = committed.get((topic, partition))
        epoch = c.leader_epoch if c is not None and c.leader_epoch >= 0 else None
        rows.append(StreamsOffset(topic, partition, c.offset if c is not None else None, epoch, None, None))
    source_topics = {t for s in d.subtopologies or () for t in s.source_topics}
    internal = [t for s in d.subtopologies or () for t in (*s.repartition_source_topics, *s.changelog_topics)]
    internal_topics = tuple(t for t in dict.fromkeys(internal) if t not in source_topics)
    return StreamsGroup(d.group_id, d.state, where, d.group_epoch, d.assignment_epoch, d.topology_epoch, sources,
                        members, tuple(rows), internal_topics=internal_topics)  # fmt: skip


class StreamsGroupReader:
    """One cluster's streams groups, over a ShareGroupReader's kept connections (one thread at a time)."""

    def __init__(self, connection: KafkaConnection, timeout_s: float = 15.0) -> None:
        what = ("streams-group requests", "kafka-streams-groups.sh")
        self._requests = ShareGroupReader(connection, timeout_s, check_streams_support, what)

    def close(self) -> None:
        self._requests.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def deadline(self) -> float:
        return self._requests.deadline()

    def list(self, deadline: float) -> tuple[ListedStreamsGroup, ...]:
        """Every streams group of the cluster, with its state."""
        listed = self._requests.list(deadline, wire.STREAMS_TYPE)
        return tuple(ListedStreamsGroup(g.group_id, g.state) for g in listed)

    def describe(self, group_ids: Sequence[str], deadline: float, watermarks: bool = True) -> dict[str, StreamsGroup]:
        """Each group with its topology, members and offsets. A group that cannot be read carries why (`error`); one
        the cluster does not know, `not_found`. `watermarks`: the partitions' log start and end read here (a poll
        has them: False)."""
        requests = self._requests

        def ask(coordinator: Coordinator, groups: list[str]) -> dict[str, StreamsGroup | int]:
            where = (coordinator.node_id, coordinator.host, coordinator.port)
            body = wire.streams_group_describe_body(groups)
            _, payload = requests._ask(*where, wire.STREAMS_GROUP_DESCRIBE, body, deadline)
            out: dict[str, StreamsGroup | int] = {}
            for d in wire.decode_streams_group_describe(payload):
                if d.error_code == UNSUPPORTED_VERSION:
                    raise StreamsGroupsUnavailable(
                        f"streams groups are off on this cluster: coordinator {coordinator.host}:{coordinator.port} "
                        f"answered UNSUPPORTED_VERSION: {ENABLE_HINT}"
                    )
                if d.error_code in RETRIABLE:
                    out[d.group_id] = d.error_code
                    continue
                offsets = None
                if not d.error_code:
                    version, answer = requests._ask(
                        *where, OFFSET_FETCH, partial(_offset_fetch_body, d.group_id), deadline
                    )
                    fetched = decode_offset_fetch(response_reader(answer), version, d.group_id)
                    offsets = next((o for o in fetched if o.group_id == d.group_id), None)
                    if offsets is not None and offsets.error_code in RETRIABLE:
                        out[d.group_id] = offsets.error_code
                        continue
                out[d.group_id] = _group(d, offsets, coordinator)
            return out

        found = requests._each_coordinator(group_ids, deadline, ask)
        groups = {g: r if isinstance(r, StreamsGroup) else StreamsGroup(g, "", None, error=r) for g, r in found.items()}
        if not watermarks:
            return groups
        wanted = {(o.topic, o.partition) for g in groups.values() for o in g.offsets}
        starts, ends = requests._watermarks_of(wanted, deadline)
        return {g: _with_watermarks(group, starts, ends) for g, group in groups.items()}

    def describe_all(self, deadline: float) -> dict[str, StreamsGroup]:
        """Every streams group of the cluster, described without watermarks (for a poll, which has them)."""
        return self.describe([g.group_id for g in self.list(deadline)], deadline, watermarks=False)

    def delete(self, group_ids: Sequence[str], deadline: float) -> dict[str, str | None]:
        """Each group's outcome, in the order asked: None when deleted, else why."""
        return delete_empty_groups(self._requests, group_ids, deadline, wire.STREAMS_TYPE)


def _offset_fetch_body(group_id: str, version: int) -> bytes:
    return offset_fetch_body(version, {group_id: None})


def _with_watermarks(
    group: StreamsGroup, starts: dict[tuple[str, int], int | None], ends: dict[tuple[str, int], int | None]
) -> StreamsGroup:
    if not group.offsets:
        return group
    rows = tuple(replace(o, log_start=starts.get((o.topic, o.partition)), log_end=ends.get((o.topic, o.partition)))
                 for o in group.offsets)  # fmt: skip
    return replace(group, offsets=rows)


# --- one call each: the command line's ------------------------------------------------------------------------------
def list_streams_groups(connection: KafkaConnection, timeout_s: float) -> tuple[ListedStreamsGroup, ...]:
    with StreamsGroupReader(connection, timeout_s) as reader:
        return reader.list(reader.deadline())


def describe_streams_groups(connection: KafkaConnection, group_ids: Sequence[str], timeout_s: float) -> (
    dict[str, StreamsGroup]
):  # fmt: skip
    with StreamsGroupReader(connection, timeout_s) as reader:
        return reader.describe(group_ids, reader.deadline())


def delete_streams_groups(connection: KafkaConnection, group_ids: Sequence[str], timeout_s: float) -> (
    dict[str, str | None]
):  # fmt: skip
    with StreamsGroupReader(connection, timeout_s) as reader:
        return reader.delete(group_ids, reader.deadline())
