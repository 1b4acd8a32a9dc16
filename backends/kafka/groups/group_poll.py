"""The consumer-group part of an AdminSource poll: which groups to ask about, where their coordinators are, which
partitions to read their committed offsets for, and the ConsumerGroup snapshots built from the answers.

Two ways to read them, never through the poll's own AdminClient:
- batched (the default): kafkatop's own OffsetFetch and DescribeGroups, one of each per coordinator per poll
  (group_batch.py). An idle group (Empty or Dead, as ListGroups says every poll) is described again only every
  `config_refresh_s`: it has no members to change, and its state comes from ListGroups each poll;
- per group: a librdkafka Consumer per group and an AdminClient call per group (group_reader.py), for clusters
  kafkatop's own connections cannot speak to (GSSAPI, OAUTHBEARER) or that answer no OffsetFetch v6 (before 2.4);
  which partitions it names for a group's offsets is group_offset_partitions.py's.
A group whose coordinator is down in the poll's metadata is not asked (group_coordinators.py).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from confluent_kafka import TopicPartition as KafkaTopicPartition

from kafkatop.backends.kafka.errors import Deadline, describe_error, error_code, is_unsupported
from kafkatop.backends.kafka.groups.group_batch import BatchedGroupReader, GroupReads
from kafkatop.backends.kafka.groups.group_coordinators import CoordinatorPlacement
from kafkatop.backends.kafka.groups.group_list_poll import GroupLister, listed_of
from kafkatop.backends.kafka.groups.group_offset_partitions import OffsetPartitions
from kafkatop.backends.kafka.groups.group_reader import COORDINATOR_MOVED, GroupReader
from kafkatop.backends.kafka.groups.groups import build_consumer_group, build_described_group, build_group, group_state
from kafkatop.backends.model.cluster import Broker, Problem
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.groups import ConsumerGroup, GroupState
from kafkatop.backends.protocol.consumer_groups import ConsumerGroupDescription
from kafkatop.backends.protocol.groups import DescribedGroup
from kafkatop.backends.protocol.wire import error_name as error_name_of

SOURCE = "admin"

GroupReadMode = Literal["batched", "per-group"]

_IDLE = frozenset({GroupState.EMPTY.value, GroupState.DEAD.value})


@dataclass
class _GroupReads:
    """One poll's group requests, started as soon as the poll knows which groups to ask about."""

    poll_id: int
    metadata: Any
    partitions: dict[str, list[KafkaTopicPartition]]  # every partition of the topics shown, by topic
    deadline: Deadline
    down: dict[str, str] = field(default_factory=dict)  # groups not asked: their coordinator is down (why)
    descriptions: dict[str, Future[Any]] = field(default_factory=dict)
    offsets: dict[str, Future[list[Any]]] = field(default_factory=dict)
    batches: list[Future[GroupReads]] = field(default_factory=list)  # the batched way: its reads
    batched: set[str] = field(default_factory=set)  # the groups those reads ask about


class GroupPoll:
    """Consumer groups, poll after poll: the groups listed or watched, described, with their committed offsets."""

    def __init__(
        self,
        connection: KafkaConnection,
        watch_groups: Iterable[str],
        config_refresh_s: float,
        mode: GroupReadMode = "batched",
    ) -> None:
        config = connection.config()
        # Groups to report even when the cluster does not list them (kafkatop's own consumers; brokers whose
        # ListGroups is restricted by ACLs; the librdkafka mock).
        self.watch_groups = tuple(watch_groups)
        self.config_refresh_s = config_refresh_s
        self._groups_describable = True
        # Where each group committed, so that its offsets are read for those topics only (the per-group way).
        self._offset_partitions = OffsetPartitions()
        self._reader = GroupReader(config)
        self._listed_before: set[str] = set()  # by the last ListGroups answered: read before this poll's answers
        self._placement = CoordinatorPlacement()
        self._polls = 0
        self._batch = (
            BatchedGroupReader(connection) if mode == "batched" and BatchedGroupReader.speaks(connection) else None
        )
        # ListGroups, spoken by kafkatop where it reads the groups itself: every group Kafka's tools list.
        self._lister = GroupLister(connection.client_settings, own=self._batch is not None)
        # The batched way's last description of each group, and when it was read (see the module's docstring).
        self._described: dict[str, tuple[DescribedGroup, float, float]] = {}  # (description, monotonic, wall clock)
        # Each group as last built, with what it was built from: a group whose answers did not change since is the
        # same object in the next snapshot (most of 1,000 groups, poll after poll), not 100 offsets built again.
        self._built: dict[str, tuple[tuple[object, ...], ConsumerGroup]] = {}
        self._listed_state: dict[str, str] = {}  # by the last ListGroups answered
        # KIP-848 groups (ListGroups' type CONSUMER), which DescribeGroups calls Dead: described by
        # ConsumerGroupDescribe, one request per coordinator (batched) or one librdkafka call per group (per group).
        self._kip848: set[str] = set()
        self.last_requests: dict[str, int] = {}  # the batched way's requests in the last poll, by API

    @property
    def mode(self) -> GroupReadMode:
        return "batched" if self._batch is not None else "per-group"

    def close(self) -> None:
        if self._batch is not None:
            self._batch.close()
        self._lister.close()
        self._reader.close()

    def start_listing(self, client: Any, metadata: Any, request_timeout: float, deadline: Deadline) -> Future[Any]:
        """This poll's ListGroups (group_list_poll.py), collected by `collect`."""
        brokers = [Broker(b.id, b.host, b.port) for b in metadata.brokers.values()]
        # Answered a little before the poll's deadline: a broker that hangs costs its own groups, not every group.
        end = deadline.end - min(0.25, max(0.0, deadline.left()) / 4)
        return self._lister.start(lambda: client.list_consumer_groups(request_timeout=request_timeout), brokers,
                                  end)  # fmt: skip

    def watch(self, group_ids: Iterable[str], subscribed: Mapping[str, Iterable[str]] | None = None) -> None:
        """Report these groups too, from the next poll on (groups kafkatop's own consumers joined); `subscribed`: the
        topics those consumers subscribed to, per group, whose committed offsets are read whatever a description
        says."""
        self.watch_groups = tuple(dict.fromkeys((*self.watch_groups, *group_ids)))
        if subscribed is not None:
            self._offset_partitions.subscribed(subscribed)

    def start(self, metadata: Any, topic_meta: Mapping[str, Any], deadline: Deadline) -> _GroupReads:
        self._offset_partitions.refresh(self.config_refresh_s)
        partitions = {name: [KafkaTopicPartition(name, p) for p in t.partitions] for name, t in topic_meta.items()}
        self._polls += 1
        reads = _GroupReads(self._polls, metadata, partitions, deadline)
        self._ask(reads, sorted(set(self.watch_groups) | self._listed_before))
        return reads

    def _ask_batched(self, reads: _GroupReads, group_ids: list[str]) -> None:
        """The batched way: one read of these groups (offsets; descriptions but of idle groups described lately)."""
        assert self._batch is not None
        new = [g for g in group_ids if g not in reads.down and g not in reads.batched]
        if not new:
            return
        reads.down.update(self._placement.down(reads.metadata, new))
        asked = [g for g in new if g not in reads.down]
        if not asked:
            return
        now = time.monotonic()
        describe = [g for g in asked if g not in self._kip848 and not self._idle_described(g, now)]
        kip848 = [g for g in asked if g in self._kip848]
        named = {name: [tp.partition for tp in tps] for name, tps in reads.partitions.items()}
        brokers = [(b.host, b.port) for b in reads.metadata.brokers.values()]
        self._batch.member_topics = {g: self._member_topics(g) for g in asked}
        reads.batches.append(self._batch.start(asked, describe, named, brokers, reads.deadline.end, kip848))
        reads.batched.update(asked)

    def _member_topics(self, group_id: str) -> frozenset[str]:
        """The topics a group's members are assigned, as last described, and kafkatop's own consumers subscribe to."""
        last = self._described.get(group_id)
        assigned = {t for m in last[0].members for t, _ in m.assignment} if last is not None else set()
        return self._offset_partitions.subscribed_to(group_id) | assigned

    def _idle_described(self, group_id: str, now: float) -> bool:
        """Whether the group was idle when last described and still is, by a description younger than the refresh."""
        last = self._described.get(group_id)
        if last is None or now - last[1] >= self.config_refresh_s:
            return False
        state = self._listed_state.get(group_id, last[0].state)
        return last[0].state in _IDLE and state == last[0].state

    def _ask(self, reads: _GroupReads, group_ids: list[str]) -> None:
        """Starts DescribeGroups and the committed-offset reads of the groups not asked yet in this poll."""
        if self._batch is not None:
            self._ask_batched(reads, group_ids)
            return
        new = [g for g in group_ids if g not in reads.down and g not in reads.offsets]
        if not new:
            return
        reads.down.update(self._placement.down(reads.metadata, new))
        asked = [g for g in new if g not in reads.down]
        if asked and self._groups_describable:
            reads.descriptions.update(self._reader.describe(asked))
        wanted = {
            g: self._offset_partitions.named(g, reads.descriptions.get(g), reads.partitions, reads.deadline)
            for g in asked
        }
        reads.offsets.update(self._reader.committed(wanted, reads.deadline, reads.poll_id))

    def collect(
        self,
        listed_f: Future[Any],
        reads: _GroupReads,
        high: Mapping[tuple[str, int], tuple[int, int | None]],
        problems: list[Problem],
    ) -> tuple[ConsumerGroup, ...]:
        deadline = reads.deadline
        coordinator_moved = False
        try:
            listed_state: dict[str, Any] = {}
            try:
                listed = listed_of(deadline.result(listed_f))
                listed_state = dict(listed.states)
                self._listed_before = set(listed_state)
                self._listed_state = {g: group_state(s).value for g, s in listed_state.items()}
                self._kip848 = set(listed.kip848)
                problems.extend(Problem(SOURCE, "ListGroups", reason) for reason in listed.failures)
            except Exception as e:  # noqa: BLE001
                problems.append(Problem(SOURCE, "ListGroups", describe_error(e)))
            group_ids = sorted(set(listed_state) | set(self.watch_groups))
            self._reader.forget_idle(group_ids)
            self._offset_partitions.keep(group_ids)
            self._ask(reads, group_ids)  # groups listed for the first time
            if self._batch is not None:
                return self._collect_batched(reads, group_ids, listed_state, high, problems)

            descriptions: dict[str, Any] = {}
            for g, fut in reads.descriptions.items():
                if g not in group_ids:
                    continue  # asked for as listed last time, gone since
                try:
                    descriptions[g] = deadline.result(fut)
                except Exception as e:  # noqa: BLE001
                    if is_unsupported(e):
                        self._groups_describable = False
                    else:
                        coordinator_moved = coordinator_moved or error_code(e) in COORDINATOR_MOVED
                        problems.append(Problem(SOURCE, f"DescribeGroups {g}", describe_error(e)))
            self._placement.confirm(reads.metadata, descriptions)
            for g, desc in descriptions.items():
                self._offset_partitions.described(g, desc)
            self._say_unknown(group_ids, reads, problems)
            high_marks = {tp: v[0] for tp, v in high.items()}
            groups = []
            for g in group_ids:
                committed = None
                try:
                    if g in reads.offsets:
                        committed = deadline.result(reads.offsets[g])
                except Exception as e:  # noqa: BLE001
                    problems.append(Problem(SOURCE, f"OffsetFetch {g}", describe_error(e)))
                if committed is not None:
                    self._offset_partitions.committed(g, committed)
                groups.append(build_group(g, descriptions.get(g), committed, high_marks, listed_state.get(g)))
            return tuple(groups)
        finally:
            # Past every wait on this poll's deadline: which describing clients may go.
            self._reader.settle(coordinator_moved=coordinator_moved, unsupported=not self._groups_describable)

    def _say_unknown(self, group_ids: Sequence[str], reads: _GroupReads, problems: list[Problem]) -> None:
        """What this poll cannot know of its groups: members (no DescribeGroups), a group whose coordinator is down."""
        if group_ids and not self._groups_describable:
            problems.append(Problem(SOURCE, "DescribeGroups", "not supported by this cluster: members unknown"))
        problems.extend(Problem(SOURCE, f"group {g}", reads.down[g]) for g in group_ids if g in reads.down)

    def _collect_batched(
        self,
        reads: _GroupReads,
        group_ids: list[str],
        listed_state: Mapping[str, Any],
        high: Mapping[tuple[str, int], tuple[int, int | None]],
        problems: list[Problem],
    ) -> tuple[ConsumerGroup, ...]:
        offsets: dict[str, Any] = {}
        descriptions: dict[str, DescribedGroup] = {}
        kip848: dict[str, ConsumerGroupDescription] = {}
        coordinators: dict[str, int] = {}
        failures: dict[str, str] = {}
        requests: dict[str, int] = {}
        now = time.monotonic()
        for fut in reads.batches:
            try:
                got = reads.deadline.result(fut)
            except Exception as e:  # noqa: BLE001 - a read that missed the deadline is this poll's problem, not a crash
                problems.append(Problem(SOURCE, "consumer groups", describe_error(e)))
                continue
            offsets.update(got.offsets)
            descriptions.update(got.descriptions)
            kip848.update(got.consumer_descriptions)
            coordinators.update(got.coordinators)
            failures.update(got.failures)
            for api, n in got.requests.items():
                requests[api] = requests.get(api, 0) + n
            if not got.describable:
                self._groups_describable = False
            if not got.offsets_readable and self._batch is not None:
                self._batch.close()  # its reads are done: read the per-group way from the next poll (Kafka < 2.4)
                self._batch = None
        self.last_requests = requests
        for g, cd in list(kip848.items()):
            if cd.error_code:
                problems.append(
                    Problem(SOURCE, f"ConsumerGroupDescribe {g}", cd.error_message or error_name_of(cd.error_code))
                )
                del kip848[g]
        for g in self._kip848.difference(kip848):
            # Asked the classic way before ListGroups said it is a KIP-848 group (its first poll): DescribeGroups
            # knows nothing of it. Its listed state stands until ConsumerGroupDescribe answers, next poll.
            descriptions.pop(g, None)
        for g, d in descriptions.items():
            if not d.error_code:
                self._described[g] = (d, now, time.time())
                if coordinators.get(g) is not None:
                    self._placement.confirm_group(reads.metadata, g, coordinators[g])
            else:
                problems.append(Problem(SOURCE, f"DescribeGroups {g}", error_name_of(d.error_code)))
        for gone in set(self._described).difference(group_ids):
            del self._described[gone]
        for gone in set(self._built).difference(group_ids):
            del self._built[gone]
        self._say_unknown(group_ids, reads, problems)
        high_marks = {tp: v[0] for tp, v in high.items()}
        groups = []
        for g in group_ids:
            if g in failures and g not in reads.down:
                problems.append(Problem(SOURCE, f"group {g}", failures[g]))
            fresh = descriptions.get(g)
            described, note = fresh, None
            if fresh is None and g in self._described and self._groups_describable:
                described, _, read_at = self._described[g]
                note = (
                    f"members as described at {time.strftime('%H:%M:%S', time.localtime(read_at))}: an idle group "
                    f"is described every {self.config_refresh_s:g} s; its state is this poll's"
                )
            committed = offsets.get(g)
            highs = tuple(high_marks.get((o.topic, o.partition)) for o in committed) if committed else ()
            consumer = kip848.get(g)
            key = (committed, highs, consumer or described, coordinators.get(g), listed_state.get(g), note)
            built = self._built.get(g)
            if built is None or built[0] != key:
                if consumer is not None:
                    group = build_consumer_group(
                        g, consumer, coordinators.get(g), committed, high_marks, listed_state.get(g)
                    )
                else:
                    group = build_described_group(
                        g, described, coordinators.get(g), committed, high_marks, listed_state.get(g), note
                    )
                    if g in self._kip848:
                        group = replace(group, group_type="consumer")
                built = self._built[g] = (key, group)
            groups.append(built[1])
        return tuple(groups)
