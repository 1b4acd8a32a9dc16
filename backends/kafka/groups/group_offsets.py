"""Consumer-group offset resets as `kafka-consumer-groups --reset-offsets`: a plan first (`--dry-run`: per partition
the committed offset, the new one, and whether it was moved into the log), then its execution (`--execute`),
refused while the group has members, as Kafka refuses it."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from typing import Any, get_args

from confluent_kafka import ConsumerGroupTopicPartitions, KafkaError
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import OffsetSpec

from kafkatop.backends.kafka.cluster.metadata import METADATA_TTL_S, TopicCache
from kafkatop.backends.kafka.errors import describe_error, error_code, error_text, result_within
from kafkatop.backends.kafka.groups.group_listing import list_groups
from kafkatop.backends.kafka.groups.groups import group_state
from kafkatop.backends.kafka.handles import AdminOwner
from kafkatop.backends.kafka.refusal import admin_naming_topics, refusal, topic_refusal
from kafkatop.backends.model.cluster import Broker
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.consoles import ClientError, check_partition
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.groups import GroupState
from kafkatop.backends.model.resets import VALUED, FileOffsets, OffsetMove, ResetPlan, ResetTarget, plan_move
from kafkatop.backends.protocol.connection import Unsupported

# The topics a reset covers: names (every partition), or each name with its partitions (None: all of them).
Scope = Sequence[str] | Mapping[str, Sequence[int] | None]

# Errors Kafka answers an offset commit with when the group has members (the admin commit is no member of it).
_GROUP_ACTIVE_CODES = frozenset(
    {
        KafkaError.UNKNOWN_MEMBER_ID,
        KafkaError.REBALANCE_IN_PROGRESS,
        KafkaError.ILLEGAL_GENERATION,
        getattr(KafkaError, "FENCED_MEMBER_EPOCH", KafkaError.UNKNOWN_MEMBER_ID),
        getattr(KafkaError, "STALE_MEMBER_EPOCH", KafkaError.UNKNOWN_MEMBER_ID),
    }
)


# --- consumer-group offsets -----------------------------------------------------------------------------------------
class GroupActive(ClientError):
    """The reset was refused because the group has members (as Kafka's own check or answer says)."""


def _active_group(group: str, detail: str) -> GroupActive:
    return GroupActive(
        f"group '{group}' is active ({detail}): stop its consumers first — Kafka only resets an inactive group"
    )


class GroupAdmin(AdminOwner):
    """Consumer-group offset resets: `kafka-consumer-groups --reset-offsets --topic T --execute`."""

    def __init__(self, connection: KafkaConnection, timeout_s: float = 10.0) -> None:
        super().__init__(
            connection,
            timeout_s,
            lambda: ClientError("the group admin client is closed"),
            lambda: admin_naming_topics(connection, ClientError),
        )
        self._topics = TopicCache(
            lambda t: self._client().list_topics(timeout=t),
            connection.bootstrap_servers,
            timeout_s,
            ttl_s=METADATA_TTL_S,
            refused=lambda topic, t: topic_refusal(
                self._client().list_topics, topic, t, "reset offsets", connection, f"cannot reset offsets of '{topic}'"
            ),  # fmt: skip
        )

    def _result(self, fut: Future[Any], deadline: float) -> Any:
        # librdkafka fails the future itself after request_timeout; this wait is only a backstop.
        return result_within(fut, max(0.0, deadline - time.monotonic()))

    def _deadline(self) -> float:
        return time.monotonic() + self.timeout_s + 1.0

    def _no_answer(
        self, what: str, e: BaseException, *, group: str | None = None, topics: Sequence[str] = ()
    ) -> KafkatopError:
        """The failure in words: the authorizer's refusal with what to grant, a timeout, or Kafka's own."""
        refused = refusal(e, "reset offsets", self.connection, what, group=group, topics=topics)
        if refused is not None:
            return refused
        if isinstance(e, TimeoutError) or error_code(e) == KafkaError._TIMED_OUT:
            return ClientError(
                f"{what}: no answer from Kafka at {self.connection} within {self.timeout_s:g} s: check the brokers"
            )
        return ClientError(f"{what}: {describe_error(e)}")

    # --- reading ----------------------------------------------------------------------------------------------------
    def partition_count(self, topic: str) -> int:
        return self._topics.partitions(topic)

    def _partitions(self, topic: str, partitions: Sequence[int] | None) -> list[int]:
        count = self._topics.partitions(topic)
        if partitions is None:
            return list(range(count))
        for p in partitions:
            check_partition(topic, p, count)
        return list(dict.fromkeys(partitions))  # as named: the order the tool plans them in

    def _list_offsets(self, topic: str, partitions: list[int], spec: OffsetSpec, what: str) -> dict[int, int]:
        deadline = self._deadline()
        futures = self._client().list_offsets(
            {KafkaTopicPartition(topic, p): spec for p in partitions}, request_timeout=self.timeout_s
        )
        out: dict[int, int] = {}
        for ktp, fut in futures.items():
            try:
                out[ktp.partition] = int(self._result(fut, deadline).offset)
            except Exception as e:  # noqa: BLE001 - any failure names the partition
                where = f"cannot read the {what} offset of {topic}-{ktp.partition}"
                raise self._no_answer(where, e, topics=[topic]) from None
        return out

    def committed_offsets(self, group: str, topic: str) -> dict[int, int | None]:
        """The group's committed offset per partition of `topic`; None where it never committed."""
        partitions = self._partitions(topic, None)
        request = ConsumerGroupTopicPartitions(group, [KafkaTopicPartition(topic, p) for p in partitions])
        deadline = self._deadline()
        fut = self._client().list_consumer_group_offsets([request], request_timeout=self.timeout_s)[group]
        try:
            result = self._result(fut, deadline)
        except Exception as e:  # noqa: BLE001
            raise self._no_answer(
                f"cannot read the offsets of group '{group}'", e, group=group, topics=[topic]
            ) from None
        return {tp.partition: tp.offset if tp.offset >= 0 else None for tp in result.topic_partitions}

    def consumer_group_ids(self) -> list[str]:
        """Every consumer group's id, sorted, as kafka-consumer-groups.sh --all-groups takes them: groups of protocol
        type consumer (either protocol) or none (those that only commit), not Connect's or share groups (ListGroups,
        spoken by kafkatop; librdkafka's listing where a broker cannot say the protocol type)."""
        metadata = self._client().list_topics(timeout=self.timeout_s)
        brokers = [Broker(b.id, b.host, b.port) for b in metadata.brokers.values()]
        try:
            listing = list_groups(self.connection, brokers, self.timeout_s)
        except Unsupported:
            return self._listed_by_librdkafka()
        if listing.failures:
            raise ClientError(f"cannot list the consumer groups: {'; '.join(listing.failures)}")
        return [g.group_id for g in listing.groups if g.protocol_type in ("consumer", "") or g.group_type == "consumer"]

    def _listed_by_librdkafka(self) -> list[str]:
        deadline = self._deadline()
        fut = self._client().list_consumer_groups(request_timeout=self.timeout_s)
        try:
            result = self._result(fut, deadline)
        except Exception as e:  # noqa: BLE001
            raise self._no_answer("cannot list the consumer groups", e) from None
        return sorted(g.group_id for g in result.valid)

    def committed_partitions(self, group: str) -> dict[str, list[int]]:
        """Every partition the group committed an offset for, by topic (--all-topics' scope, as Kafka's tool), in the
        order of the broker's answer (the tool's order where partitions share a bucket of its HashMap)."""
        deadline = self._deadline()
        fut = self._client().list_consumer_group_offsets(
            [ConsumerGroupTopicPartitions(group)], request_timeout=self.timeout_s
        )[group]
        try:
            result = self._result(fut, deadline)
        except Exception as e:  # noqa: BLE001
            raise self._no_answer(f"cannot read the offsets of group '{group}'", e, group=group) from None
        out: dict[str, list[int]] = {}
        for tp in result.topic_partitions:
            if tp.offset >= 0:
                out.setdefault(tp.topic, []).append(tp.partition)
        return out

    def plan_reset(
        self,
        group: str,
        topics: Scope,
        to: ResetTarget,
        value: int | None = None,
        partitions: Sequence[int] | None = None,
        *,
        offsets: FileOffsets | None = None,
    ) -> ResetPlan:
        """What a reset would commit (kafka-consumer-groups' --dry-run); nothing changes.

        Every partition of `topics` (or only `partitions`, with one topic; or, topics given as a mapping, the
        partitions each names) with the group's committed offset and the log's start and end: earliest / latest are
        the log start / end; current the committed offset (the log end where none); offset is `value`, and shift the
        committed offset plus `value` (refused where nothing was committed, as Kafka refuses it), file the offset of
        `offsets` (the partitions it names, `topics` ignored), all three moved into [log start, log end] as Kafka's
        tool does; timestamp is the first offset at or after `value` (epoch ms), duration at or after `value` ms
        before now, or the log end where there is none. The plan also says whether Kafka would refuse to execute it.
        """
        if to not in get_args(ResetTarget):
            raise ClientError(f"reset to what? One of {', '.join(get_args(ResetTarget))}, not {to!r}")
        if to in VALUED and value is None:
            raise ClientError(f"a reset to {'an offset' if to == 'offset' else f'a {to}'} needs a value")
        if to == "file" and offsets is None:
            raise ClientError("a reset from a file needs the file's offsets")
        if not group.strip():
            raise ClientError("a group id cannot be blank")
        scope = self._scope(group, topics, partitions, offsets if to == "file" else None)
        at_ms = value
        if to == "duration":
            assert value is not None
            at_ms = int(time.time() * 1000) - value
        moves: list[OffsetMove] = []
        for topic, chosen in scope.items():
            current = self.committed_offsets(group, topic)
            start = self._list_offsets(topic, chosen, OffsetSpec.earliest(), "earliest")
            end = self._list_offsets(topic, chosen, OffsetSpec.latest(), "latest")
            at_time: dict[int, int] = {}
            if to in ("timestamp", "duration"):
                assert at_ms is not None
                at_time = self._list_offsets(topic, chosen, OffsetSpec.for_timestamp(at_ms), "timestamp's")
            moves.extend(
                plan_move(topic, p, to, value, current.get(p), start[p], end[p], at_time.get(p),
                          None if offsets is None else offsets.get((topic, p)))
                for p in chosen
            )  # fmt: skip
        if offsets is not None:  # the file's line order, as the tool reads it (the order of a bucket it shares)
            line = {key: n for n, key in enumerate(offsets)}
            moves.sort(key=lambda m: line[(m.topic, m.partition)])
        refused, state = self.refusal(group)
        return ResetPlan(group, to, value, tuple(moves), refused=refused, state=state)

    def _scope(
        self, group: str, topics: Scope, partitions: Sequence[int] | None, offsets: FileOffsets | None
    ) -> dict[str, list[int]]:
        """Each topic of the reset with its partitions, checked against the metadata."""
        if offsets is not None:
            named: dict[str, list[int]] = {}
            for topic, p in offsets:
                named.setdefault(topic, []).append(p)
            return {topic: self._partitions(topic, ps) for topic, ps in named.items()}
        if isinstance(topics, Mapping):  # empty: a group that committed nothing (--all-topics), nothing to move
            if partitions is not None:
                raise ClientError("partitions are named with each topic here")
            return {topic: self._partitions(topic, ps) for topic, ps in topics.items()}
        if not topics:
            raise ClientError(f"group '{group}': name a topic to reset")
        if partitions is not None and len(topics) != 1:
            raise ClientError("partitions can only be named for one topic")
        return {topic: self._partitions(topic, partitions) for topic in dict.fromkeys(topics)}

    # --- the reset --------------------------------------------------------------------------------------------------
    def _why_refused(self, group: str) -> str | None:
        """Why Kafka would refuse to reset the group's offsets now (it has members), or None."""
        return self.refusal(group)[0]

    def refusal(self, group: str) -> tuple[str | None, str | None]:
        """Why Kafka would refuse to reset the group's offsets now (it has members) and its state; (None, None)."""
        deadline = self._deadline()
        fut = self._client().describe_consumer_groups([group], request_timeout=self.timeout_s)[group]
        try:
            desc = self._result(fut, deadline)
        except Exception as e:  # noqa: BLE001
            # Clusters that cannot describe groups (the librdkafka mock, old brokers): the commit itself is
            # refused for a group with members (see execute_reset). An unknown group has nothing to protect.
            if error_code(e) in (KafkaError._UNSUPPORTED_FEATURE, KafkaError.GROUP_ID_NOT_FOUND):
                return None, None
            raise self._no_answer(f"cannot describe group '{group}'", e, group=group) from None
        state = group_state(desc.state)
        members = len(desc.members or ())
        if state.inactive or (state is GroupState.UNKNOWN and members == 0):
            return None, None
        why = _active_group(group, f"{members} member{'s' if members != 1 else ''}, {state.value}")
        return str(why), state.value

    def execute_reset(self, plan: ResetPlan) -> ResetPlan:
        """Commit the plan's offsets, exactly those previewed (kafka-consumer-groups' --execute); returns the plan.

        Refused while the group has members, as Kafka refuses it: checked first with DescribeGroups, and, where a
        cluster cannot describe groups, by Kafka's own answer to the commit (UNKNOWN_MEMBER_ID and the like).
        (The librdkafka mock gives that answer for every group that ever had a member, even once it is empty.)
        A consumer of the group started afterwards begins at these offsets.
        """
        group = plan.group
        refused = self._why_refused(group)
        if refused is not None:
            raise GroupActive(refused)
        if not plan.moves:
            return plan
        request = ConsumerGroupTopicPartitions(
            group, [KafkaTopicPartition(m.topic, m.partition, m.target) for m in plan.moves]
        )
        deadline = self._deadline()
        fut = self._client().alter_consumer_group_offsets([request], request_timeout=self.timeout_s)[group]
        what = f"cannot reset the offsets of group '{group}'"
        try:
            result = self._result(fut, deadline)
        except Exception as e:  # noqa: BLE001
            if error_code(e) in _GROUP_ACTIVE_CODES:
                raise _active_group(group, f"Kafka refused the commit: {e.args[0].name()}") from None
            raise self._no_answer(what, e, group=group, topics=plan.topics) from None
        failed = [tp for tp in result.topic_partitions if tp.error is not None]
        if failed:
            refused_error = next((tp.error for tp in failed if tp.error.code() in _GROUP_ACTIVE_CODES), None)
            if refused_error is not None:
                raise _active_group(group, f"Kafka refused the commit: {refused_error.name()}")
            denied = refusal(failed[0].error, "reset offsets", self.connection, what, group=group,
                             topics=[tp.topic for tp in failed])  # fmt: skip
            reasons = "; ".join(f"{tp.topic}-{tp.partition}: {error_text(tp.error)}" for tp in failed)
            raise denied or ClientError(f"{what}: {reasons}")
        return plan

    def reset_offsets(
        self,
        group: str,
        topic: str,
        to: ResetTarget,
        value: int | None = None,
        partitions: Sequence[int] | None = None,
    ) -> dict[int, int]:
        """Plan and execute at once (kafka-consumer-groups --execute without a preview); partition -> new offset."""
        refused = self._why_refused(group)
        if refused is not None:
            raise GroupActive(refused)
        plan = self.execute_reset(self.plan_reset(group, [topic], to, value, partitions))
        return {m.partition: m.target for m in plan.moves}
