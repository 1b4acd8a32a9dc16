"""The producer and consumer consoles of one cluster behind one small object the TUI drains ~10 times a second.

Clients are made on first use (a cluster nobody produces to costs nothing), and what they did since the last drain
comes back as one frozen batch.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from kafkatop.backends.kafka.groups.group_offsets import GroupAdmin
from kafkatop.backends.kafka.records.consumers import ConsumerPool
from kafkatop.backends.kafka.records.producer_console import ProducerSession
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.consoles import (
    AssignmentChange,
    ConsoleActivity,
    ConsumerView,
    ProducerSettings,
    Received,
)
from kafkatop.backends.model.masking import MaskRules
from kafkatop.backends.model.resets import ResetPlan, ResetTarget

# The consoles show a bounded sample of what arrives (at most ~60 lines per 0.1 s drain); holding more records than
# that between drains only feeds the garbage collector — at 20,000 msg/s its full collections were the app's worst
# pauses (bench/consumer_console.py). Every record is still counted per consumer; the rest are reported as not shown.
SHOWN_RECORDS = 2_000


class Consoles:
    def __init__(self, connection: KafkaConnection, mask: MaskRules | None = None) -> None:
        self.connection = connection
        self.mask = mask  # a context's: the consumer console's records masked before they are shown
        self._lock = threading.Lock()
        self._producer: ProducerSession | None = None
        self._pool: ConsumerPool | None = None
        self._groups: GroupAdmin | None = None
        self._last_views: tuple[ConsumerView, ...] = ()

    # --- producer ----------------------------------------------------------------------------------------------
    def configure_producer(self, settings: ProducerSettings) -> None:
        with self._lock:
            if self._producer is None:
                self._producer = ProducerSession(self.connection, settings)
            elif self._producer.settings != settings:
                self._producer.reconfigure(settings)

    def _producer_session(self) -> ProducerSession:
        with self._lock:
            if self._producer is None:
                self._producer = ProducerSession(self.connection)
            return self._producer

    def send(self, topic: str, line: str) -> int:
        return self._producer_session().send(topic, line)

    def send_many(self, topic: str, lines: Sequence[str]) -> int:
        return self._producer_session().send_many(topic, lines)

    def send_record(
        self, topic: str, key: bytes | None, value: bytes | None, headers: Sequence[tuple[str, bytes]] = ()
    ) -> int:
        return self._producer_session().send_record(topic, key, value, headers)

    def send_test_messages(self, topic: str, count: int) -> int:
        return self._producer_session().send_test_messages(topic, count)

    # --- consumers and groups ----------------------------------------------------------------------------------
    def _consumer_pool(self) -> ConsumerPool:
        with self._lock:
            if self._pool is None:
                self._pool = ConsumerPool(self.connection, max_buffered=SHOWN_RECORDS, mask=self.mask)
            return self._pool

    def start_consumer(self, topics: Sequence[str], group: str | None, from_beginning: bool) -> str:
        return self._consumer_pool().start(topics, group, from_beginning)

    def stop_consumer(self, name: str) -> None:
        self._consumer_pool().stop(name)

    def pause_consumer(self, name: str, paused: bool) -> None:
        self._consumer_pool().pause(name, paused)

    def _group_admin(self) -> GroupAdmin:
        with self._lock:
            if self._groups is None:
                self._groups = GroupAdmin(self.connection)
            return self._groups

    def plan_reset(self, group: str, topics: Sequence[str], to: ResetTarget, value: int | None) -> ResetPlan:
        return self._group_admin().plan_reset(group, topics, to, value)

    def execute_reset(self, plan: ResetPlan) -> ResetPlan:
        return self._group_admin().execute_reset(plan)

    # --- draining ----------------------------------------------------------------------------------------------
    def drain(self) -> ConsoleActivity | None:
        """What happened since the last drain; None when nothing did (no UI update needed)."""
        with self._lock:
            producer, pool = self._producer, self._pool
        deliveries = producer.deliveries() if producer is not None else []
        received: list[Received] = []
        changes: list[AssignmentChange] = []
        dropped = 0
        views: tuple[ConsumerView, ...] = ()
        if pool is not None:
            received, changes, dropped = pool.drain()
            views = pool.views()
        if not (deliveries or received or changes or dropped) and views == self._last_views:
            return None
        self._last_views = views
        return ConsoleActivity(tuple(deliveries), tuple(received), tuple(changes), dropped, views)

    def close(self) -> None:
        with self._lock:
            producer, pool, groups = self._producer, self._pool, self._groups
            self._producer = self._pool = self._groups = None
        if pool is not None:
            pool.close()
        if producer is not None:
            producer.close()
        if groups is not None:
            groups.close()
