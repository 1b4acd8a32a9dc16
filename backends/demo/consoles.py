"""The demo's consoles: kafkatop's consoles, with what the librdkafka mock lacks around groups supplied by the demo.

Every group a console consumer joins gets a coordinator pinned by the demo's controller (the mock would keep a group
on a broker that is down, and its consumers joining forever); the consumers use Kafka's shortest session timeout (see
DEMO_GROUP_SETTINGS); and an offset reset works once the group's consumers are gone (see groups.py for the mock's
refusal it works around).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, cast

from confluent_kafka import Consumer
from confluent_kafka import TopicPartition as KafkaTopicPartition

from kafkatop.backends.demo.groups import DEMO_GROUP_SETTINGS, commit_as_member, members_of
from kafkatop.backends.demo.node_control import DemoControl
from kafkatop.backends.kafka.groups.group_offsets import GroupActive
from kafkatop.backends.kafka.records.consoles import SHOWN_RECORDS, Consoles
from kafkatop.backends.kafka.records.consumers import ConsumerPool, _Member
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.consoles import ConsumerView
from kafkatop.backends.model.resets import ResetPlan, ResetTarget


class _WithoutLeaderEpochs:
    """A consumer whose assign() drops the leader epochs of the positions it is given (see _DemoConsumerPool)."""

    def __init__(self, consumer: Consumer) -> None:
        self._consumer = consumer

    def __getattr__(self, name: str) -> Any:
        return getattr(self._consumer, name)

    @staticmethod
    def _positions(partitions: list[KafkaTopicPartition]) -> list[KafkaTopicPartition]:
        return [KafkaTopicPartition(tp.topic, tp.partition, tp.offset) for tp in partitions]

    def assign(self, partitions: list[KafkaTopicPartition]) -> None:
        self._consumer.assign(self._positions(partitions))

    def incremental_assign(self, partitions: list[KafkaTopicPartition]) -> None:
        self._consumer.incremental_assign(self._positions(partitions))


class _DemoConsumerPool(ConsumerPool):
    """The console's consumers, with two settings for the mock.

    Group settings: see DEMO_GROUP_SETTINGS. Start positions without a leader epoch: after a leader moves, librdkafka
    checks a position's epoch with OffsetForLeaderEpoch, and the mock answers -1 for an epoch under which nothing was
    written (Kafka answers where that epoch ended); librdkafka takes that for a truncated log and resets the position,
    to the log end by default, skipping what was sent meanwhile. A position without an epoch is not checked; once
    records are read, the position carries their epoch, which the mock knows.
    """

    def _consumer_config(self, member: _Member) -> dict[str, Any]:
        return {**super()._consumer_config(member), **DEMO_GROUP_SETTINGS}

    def _fix_positions(self, member: _Member, consumer: Consumer, partitions: list[Any]) -> None:
        super()._fix_positions(member, cast(Consumer, _WithoutLeaderEpochs(consumer)), partitions)


class DemoConsoles(Consoles):
    def __init__(self, connection: KafkaConnection, control: DemoControl) -> None:
        super().__init__(connection)
        self._control = control

    def _consumer_pool(self) -> ConsumerPool:
        with self._lock:
            if self._pool is None:
                self._pool = _DemoConsumerPool(self.connection, max_buffered=SHOWN_RECORDS)
            return self._pool

    def consumer_views(self) -> tuple[ConsumerView, ...]:
        """Every console consumer started, as ConsumerPool.views(); never waits on the network."""
        with self._lock:
            pool = self._pool
        return pool.views() if pool is not None else ()

    def start_consumer(self, topics: Sequence[str], group: str | None, from_beginning: bool) -> str:
        if group is not None and group.strip():
            self._control.place_group(group.strip())
        name = super().start_consumer(topics, group, from_beginning)
        # A group of its own is named by the pool: placed now, before its first FindCoordinator is long answered (a
        # later placement moves it, and the consumer follows NOT_COORDINATOR to the new one).
        view = next((v for v in self.consumer_views() if v.name == name), None)
        if view is not None:
            self._control.place_group(view.group)
        return name

    def _refusal(self, group: str) -> str | None:
        """Why a reset of `group` is refused now: kafkatop's own consumers are in it (the mock cannot describe
        groups, so this is what is known of its members)."""
        running = members_of(group, self.consumer_views())
        if not running:
            return None
        names = ", ".join(c.name for c in running)
        return (
            f"group '{group}' is active (kafkatop's consumer{'s' if len(running) > 1 else ''} {names} in it): "
            "stop its consumers first — Kafka only resets an inactive group"
        )

    def plan_reset(self, group: str, topics: Sequence[str], to: ResetTarget, value: int | None) -> ResetPlan:
        self._control.place_group(group)
        plan = super().plan_reset(group, topics, to, value)
        refused = self._refusal(group)
        return replace(plan, refused=refused) if refused is not None else plan

    def execute_reset(self, plan: ResetPlan) -> ResetPlan:
        refused = self._refusal(plan.group)
        if refused is not None:
            raise GroupActive(refused)
        self._control.place_group(plan.group)
        groups = self._group_admin()
        try:
            return groups.execute_reset(plan)
        except GroupActive:
            pass  # the mock's refusal of any outside commit to a group that ever had a member (see groups.py)
        by_topic: dict[str, dict[int, int]] = {}
        for move in plan.moves:
            by_topic.setdefault(move.topic, {})[move.partition] = move.target
        for topic, offsets in by_topic.items():
            commit_as_member(self.connection, plan.group, topic, offsets, groups.partition_count(topic))
        return plan
