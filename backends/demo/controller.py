"""Kafka's controller, as the demo plays it around the librdkafka mock, which has none: the state it keeps and the
rules every role of it decides by.

The mock gives every partition the replicas 1,2,3, always answers ISR = replicas, and keeps a broker's leaderships
when it goes down. `DemoController` keeps instead, per partition, the replicas as Kafka places them, the ISR and the
leader; per group, its coordinator; and a log of what it decided, shown in the brokers' log tails. Its roles are
subclasses next to it: failover (controller_failover.py), topics (controller_topics.py), leader elections
(controller_elections.py), what the app is shown (controller_overlay.py); `DemoControl` (control.py) gathers them
for the node panes.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient

from kafkatop.backends.demo.assignment import assign_replicas, placement
from kafkatop.backends.demo.cluster import DemoCluster
from kafkatop.backends.kafka import handles
from kafkatop.backends.model.cluster import NO_LEADER, is_internal_topic
from kafkatop.backends.model.errors import KafkatopError, MockClusterError
from kafkatop.backends.model.java_order import string_hash
from kafkatop.backends.model.nodes import NodeState
from kafkatop.backends.model.topic_partition import TopicPartition

# Kafka checks leader imbalance every leader.imbalance.check.interval.seconds (300 s); the demo waits this long after
# a broker starts, so the moved leadership can be seen before preferred leaders return.
REBALANCE_DELAY_S = 10.0


_EVENTS_KEPT = 500


# How long a topic deleted here may still show in metadata read before the deletion (a poll's): not a new topic.
DELETED_TOPIC_SETTLE_S = 10.0


@dataclass
class PartitionRegistration:
    """A partition as this controller keeps it (KRaft's name for the record)."""

    replicas: tuple[int, ...]  # in assignment order: the first is the preferred leader
    leader: int  # NO_LEADER when offline
    isr: list[int]  # as Kafka keeps it: shrinks as replicas go down, but never below the last member


@dataclass(frozen=True, slots=True)
class ControllerEvent:
    line: str
    brokers: frozenset[int]  # the brokers whose log tail shows it


@dataclass
class DemoBroker:
    id: int
    port: int | None
    state: NodeState = NodeState.UP
    started_at: float = field(default_factory=time.time)


class DemoController:
    """The state of the demo's emulated controller, and the rules its roles share: placing a topic's replicas,
    electing a leader, returning preferred leaders (auto.leader.rebalance.enable), placing group coordinators."""

    def __init__(
        self,
        demo: DemoCluster,
        *,
        rebalance_delay_s: float | None = REBALANCE_DELAY_S,
        unclean_leader_election: bool = False,
        metadata_timeout_s: float = 5.0,
    ) -> None:
        self.demo = demo
        self.mock = demo.cluster
        self.rebalance_delay_s = rebalance_delay_s
        self.unclean_leader_election = unclean_leader_election
        self._lock = threading.RLock()
        self._closed = False
        self._deleted: dict[str, float] = {}  # topic -> when it was deleted (time.monotonic())
        self._timer: threading.Timer | None = None
        self._events: deque[ControllerEvent] = deque(maxlen=_EVENTS_KEPT)
        # Metadata only: never a group request, which librdkafka ties to a coordinator that may be down.
        self._admin: AdminClient | None = handles.admin_client(demo.connection.config("kafkatop-demo"))
        metadata = self._metadata(metadata_timeout_s)
        if metadata is None:
            raise MockClusterError(f"the demo cluster gave no metadata within {metadata_timeout_s:g} s")
        # The mock lists its brokers in id order: 1, 2, 3.
        ports = {i: port for i, (_, port) in enumerate(demo.connection.addresses, start=1)}
        self._brokers = {
            b: DemoBroker(b, metadata.brokers[b].port if b in metadata.brokers else ports.get(b))
            for b in self.mock.broker_ids
        }
        self._partitions: dict[TopicPartition, PartitionRegistration] = {}
        self._learn_topics(metadata)
        self._controller: int | None = metadata.controller_id if metadata.controller_id in self._brokers else None
        # The mock picks a group's coordinator by its own hash, down or not; pinned here, it moves as Kafka's would.
        self._coordinators: dict[str, int] = {}
        for group in demo.groups:
            self.place_group(group)

    @property
    def bootstrap_servers(self) -> str:
        return self.demo.bootstrap_servers

    @property
    def coordinators(self) -> dict[str, int]:
        """The broker coordinating each demo group now."""
        with self._lock:
            return dict(self._coordinators)

    # --- metadata ------------------------------------------------------------------------------------------------
    def _metadata(self, timeout_s: float) -> Any:
        """Cluster metadata from any live mock broker; None when none answers in time."""
        admin = self._admin  # close() may drop it meanwhile
        if admin is None:
            return None
        try:
            return admin.list_topics(timeout=timeout_s)
        except KafkaException:
            return None

    def _learn_topics(self, metadata: Any) -> None:
        self._learn({name: {pid: pm.leader for pid, pm in t.partitions.items()} for name, t in metadata.topics.items()})

    def _learn(self, topics: Mapping[str, Mapping[int, int]]) -> None:
        """Places the partitions not known yet (topics created in the mock directly, or by a producer's
        auto-creation: topic -> partition -> the mock's leader) as Kafka would; known partitions keep the state this
        controller gave them. A live leader the mock chose stays: clients may be using it already."""
        for name, leaders in topics.items():
            if is_internal_topic(name) or self._deleted_recently(name):
                continue
            if all(TopicPartition(name, p) in self._partitions for p in leaders):
                continue
            factor = len(self._known_replicas(name)) or len(self._brokers)
            try:
                self._place(name, max(leaders, default=-1) + 1, factor, leaders)
            except MockClusterError as e:  # gone from the mock meanwhile: learnt when seen again
                for tp in [tp for tp in self._partitions if tp.topic == name]:
                    del self._partitions[tp]
                self._event(f"topic {name} not placed: {e}")
                continue
            # Kafka's periodic leader-imbalance check (auto.leader.rebalance.enable) finds leaders the mock chose.
            if self.rebalance_delay_s is not None and any(tp.topic == name for tp, _, _ in self._preferred_moves()):
                delay = self.rebalance_delay_s
                self._event(f"topic {name}: preferred leaders in {delay:g} s (leader rebalance)", *self._brokers)
                self._schedule_rebalance(self.rebalance_delay_s)

    def _deleted_recently(self, name: str) -> bool:
        """A topic deleted here, still in metadata read before its deletion: not learnt again as a new topic."""
        at = self._deleted.get(name)
        if at is not None and time.monotonic() - at > DELETED_TOPIC_SETTLE_S:
            del self._deleted[name]
            return False
        return at is not None

    def _known_replicas(self, name: str) -> tuple[int, ...]:
        return next((part.replicas for tp, part in self._partitions.items() if tp.topic == name), ())

    def _place(self, name: str, count: int, replication_factor: int, leaders: Mapping[int, int] | None = None) -> None:
        # Kafka places replicas on the brokers registered now; the demo's are its three, down ones included only
        # when too few are up (the mock's auto-creation asks for no replication factor of its own).
        live = self._live()
        brokers = live if len(live) >= replication_factor else list(self._brokers)
        start, shift = placement(name, brokers)
        for p, replicas in enumerate(assign_replicas(count, replication_factor, brokers, start, shift)):
            tp = TopicPartition(name, p)
            if tp in self._partitions:
                continue
            in_sync = [r for r in replicas if r in live] or [replicas[0]]
            part = PartitionRegistration(replicas, NO_LEADER, in_sync)
            self._partitions[tp] = part
            current = (leaders or {}).get(p, NO_LEADER)
            if current in in_sync and current in live:
                part.leader = current  # no election: a new leader epoch would be a change clients see
            else:
                self._set_leader(tp, part, self._elect(part))

    def _fresh_metadata(self) -> Any:
        """Metadata for topics created since, read before taking the lock so that poll() never waits on it."""
        return self._metadata(1.0) if self._live() else None

    def _live(self) -> list[int]:
        return [b.id for b in self._brokers.values() if b.state is NodeState.UP]

    # --- groups ----------------------------------------------------------------------------------------------------
    def place_group(self, group: str) -> int | None:
        """The group's coordinator, placed on a live broker if it has none yet (Kafka's would be the leader of its
        __consumer_offsets partition, which the mock has not). None when every broker is down."""
        with self._lock:
            if group in self._coordinators:
                return self._coordinators[group]
            live = self._live() if not self._closed else []
            if not live:
                return None
            coordinator = live[abs(string_hash(group)) % len(live)]
            self.mock.set_group_coordinator(group, coordinator)
            self._coordinators[group] = coordinator
            return coordinator

    # --- the emulated controller ---------------------------------------------------------------------------------
    def _event(self, text: str, *brokers: int) -> None:
        self._events.append(ControllerEvent(f"{time.strftime('%H:%M:%S')} {text}", frozenset(brokers)))

    def _elect(self, part: PartitionRegistration) -> int:
        """Kafka's election: the first replica in assignment order that is alive and in the ISR."""
        live = self._live()
        return next((r for r in part.replicas if r in live and r in part.isr), NO_LEADER)

    def _set_leader(self, tp: TopicPartition, part: PartitionRegistration, leader: int) -> None:
        self.mock.set_partition_leader(tp.topic, tp.partition, leader)
        part.leader = leader

    # --- leader rebalance: preferred leaders return, as auto.leader.rebalance.enable does ---------------------------
    def _preferred_moves(self) -> list[tuple[TopicPartition, PartitionRegistration, int]]:
        live = self._live()
        moves = []
        for tp, part in sorted(self._partitions.items()):
            preferred = part.replicas[0]
            if part.leader != preferred and preferred in live and preferred in part.isr:
                moves.append((tp, part, preferred))
        return moves

    def _schedule_rebalance(self, delay_s: float) -> None:
        # One pending rebalance, counted from the latest start, so each start's moved leaders can be seen.
        if self._timer is not None:
            self._timer.cancel()
        self._timer = threading.Timer(delay_s, self._rebalance)
        self._timer.daemon = True
        self._timer.start()

    def _rebalance(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._timer = None
            try:
                for tp, part, preferred in self._preferred_moves():
                    old = part.leader
                    self._set_leader(tp, part, preferred)
                    self._event(f"preferred leader election: leader of {tp} {old} → {preferred}", old, preferred)
            except KafkatopError as e:  # a timer thread has no caller to raise to: the error is an event line
                self._event(f"preferred leader election failed: {e}", *self._brokers)


def joined_ids(ids: list[int]) -> str:
    return ",".join(map(str, ids))
