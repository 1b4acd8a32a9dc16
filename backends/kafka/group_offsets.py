"""Consumer-group offset resets: `kafka-consumer-groups --reset-offsets --topic T --execute`, refused while the
group has members, as Kafka refuses it."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from typing import Any, get_args

from confluent_kafka import ConsumerGroupTopicPartitions, KafkaError
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec

from kafkatop.backends.kafka import handles
from kafkatop.backends.kafka.errors import describe_error, error_code, error_text
from kafkatop.backends.kafka.groups import group_state
from kafkatop.backends.kafka.handles import new_admin_client
from kafkatop.backends.kafka.metadata import METADATA_TTL_S, TopicCache, check_partition
from kafkatop.backends.model.cluster import GroupState
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.consoles import ClientError, ResetTarget

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


class GroupAdmin:
    """Consumer-group offset resets: `kafka-consumer-groups --reset-offsets --topic T --execute`."""

    def __init__(self, connection: KafkaConnection, timeout_s: float = 10.0) -> None:
        self.connection = connection
        self.timeout_s = timeout_s
        self._admin: AdminClient | None = new_admin_client(connection, ClientError)
        self._topics = TopicCache(
            lambda t: self._client().list_topics(timeout=t),
            connection.bootstrap_servers,
            timeout_s,
            ttl_s=METADATA_TTL_S,
        )

    def close(self) -> None:
        # AdminClient has no close(): the handle is destroyed on a thread of kafkatop's own (see handles.py).
        box: list[Any] = [self._admin] if self._admin is not None else []
        self._admin = None
        handles.release(box)

    def _client(self) -> AdminClient:
        if self._admin is None:
            raise ClientError("the group admin client is closed")
        return self._admin

    def _result(self, fut: Future[Any], deadline: float) -> Any:
        # librdkafka fails the future itself after request_timeout; this wait is only a backstop.
        return fut.result(timeout=max(0.0, deadline - time.monotonic()))

    def _deadline(self) -> float:
        return time.monotonic() + self.timeout_s + 1.0

    def _no_answer(self, what: str, e: BaseException) -> ClientError:
        if isinstance(e, TimeoutError) or error_code(e) == KafkaError._TIMED_OUT:
            return ClientError(
                f"{what}: no answer from Kafka at {self.connection} within {self.timeout_s:g} s: check the brokers"
            )
        return ClientError(f"{what}: {describe_error(e)}")

    # --- reading ----------------------------------------------------------------------------------------------------
    def _partitions(self, topic: str, partitions: Sequence[int] | None) -> list[int]:
        count = self._topics.partitions(topic)
        if partitions is None:
            return list(range(count))
        for p in partitions:
            check_partition(topic, p, count)
        return sorted(set(partitions))

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
                raise self._no_answer(f"cannot read the {what} offset of {topic}-{ktp.partition}", e) from None
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
            raise self._no_answer(f"cannot read the offsets of group '{group}'", e) from None
        return {tp.partition: tp.offset if tp.offset >= 0 else None for tp in result.topic_partitions}

    def plan_offsets(
        self,
        group: str,
        topic: str,
        to: ResetTarget,
        value: int | None = None,
        partitions: Sequence[int] | None = None,
    ) -> dict[int, int]:
        """The offsets a reset would commit, per partition (kafka-consumer-groups' --dry-run); nothing changes.

        earliest / latest: the log start / end. offset: `value`, moved into [log start, log end] as Kafka's tool
        does. timestamp: the first offset at or after `value` (epoch ms); where there is none, the log end.
        `value` is ignored for earliest and latest. `partitions` None: all of the topic's.
        """
        if to not in get_args(ResetTarget):
            raise ClientError(f"reset to what? One of {', '.join(get_args(ResetTarget))}, not {to!r}")
        if to in ("offset", "timestamp") and value is None:
            raise ClientError(f"a reset to {'an offset' if to == 'offset' else 'a timestamp'} needs a value")
        if not group.strip():
            raise ClientError("a group id cannot be blank")
        chosen = self._partitions(topic, partitions)
        if to == "earliest":
            return self._list_offsets(topic, chosen, OffsetSpec.earliest(), "earliest")
        latest = self._list_offsets(topic, chosen, OffsetSpec.latest(), "latest")
        if to == "latest":
            return latest
        assert value is not None
        if to == "offset":
            earliest = self._list_offsets(topic, chosen, OffsetSpec.earliest(), "earliest")
            return {p: min(max(value, earliest[p]), latest[p]) for p in chosen}
        found = self._list_offsets(topic, chosen, OffsetSpec.for_timestamp(value), "timestamp's")
        return {p: found[p] if found[p] >= 0 else latest[p] for p in chosen}

    # --- the reset --------------------------------------------------------------------------------------------------
    def _refuse_if_active(self, group: str) -> None:
        deadline = self._deadline()
        fut = self._client().describe_consumer_groups([group], request_timeout=self.timeout_s)[group]
        try:
            desc = self._result(fut, deadline)
        except Exception as e:  # noqa: BLE001
            # Clusters that cannot describe groups (the librdkafka mock, old brokers): the commit itself is
            # refused for a group with members (see reset_offsets). An unknown group has nothing to protect.
            if error_code(e) in (KafkaError._UNSUPPORTED_FEATURE, KafkaError.GROUP_ID_NOT_FOUND):
                return
            raise self._no_answer(f"cannot describe group '{group}'", e) from None
        state = group_state(desc.state)
        members = len(desc.members or ())
        if state.inactive or (state is GroupState.UNKNOWN and members == 0):
            return
        raise _active_group(group, f"{members} member{'s' if members != 1 else ''}, {state.value}")

    def reset_offsets(
        self,
        group: str,
        topic: str,
        to: ResetTarget,
        value: int | None = None,
        partitions: Sequence[int] | None = None,
    ) -> dict[int, int]:
        """Commit new offsets for `group` on `topic` (see plan_offsets for `to` and `value`); partition -> offset.

        Refused while the group has members, as Kafka refuses it: checked first with DescribeGroups, and, where a
        cluster cannot describe groups, by Kafka's own answer to the commit (UNKNOWN_MEMBER_ID and the like).
        (The librdkafka mock gives that answer for every group that ever had a member, even once it is empty.)
        A consumer of the group started afterwards begins at these offsets.
        """
        self._refuse_if_active(group)
        plan = self.plan_offsets(group, topic, to, value, partitions)
        self.commit_offsets(group, topic, plan)
        return plan

    def commit_offsets(self, group: str, topic: str, plan: Mapping[int, int]) -> None:
        """Commit `plan` (partition -> offset of `topic`) for `group` from outside it; GroupActive when Kafka refuses
        the commit because the group has members."""
        request = ConsumerGroupTopicPartitions(group, [KafkaTopicPartition(topic, p, o) for p, o in plan.items()])
        deadline = self._deadline()
        fut = self._client().alter_consumer_group_offsets([request], request_timeout=self.timeout_s)[group]
        what = f"cannot reset the offsets of group '{group}'"
        try:
            result = self._result(fut, deadline)
        except Exception as e:  # noqa: BLE001
            if error_code(e) in _GROUP_ACTIVE_CODES:
                raise _active_group(group, f"Kafka refused the commit: {e.args[0].name()}") from None
            raise self._no_answer(what, e) from None
        failed = [tp for tp in result.topic_partitions if tp.error is not None]
        if failed:
            refused = next((tp.error for tp in failed if tp.error.code() in _GROUP_ACTIVE_CODES), None)
            if refused is not None:
                raise _active_group(group, f"Kafka refused the commit: {refused.name()}")
            reasons = "; ".join(f"{tp.topic}-{tp.partition}: {error_text(tp.error)}" for tp in failed)
            raise ClientError(f"{what}: {reasons}")
