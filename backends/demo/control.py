"""kafkatop's demo cluster: the librdkafka mock with the labs' layout, for a first run without any Kafka install.

`DemoControl` lets the node panes kill, stop and start the mock's brokers, and plays the part of Kafka's controller,
which the mock lacks: it places the replicas of new topics as Kafka does (the mock gives every partition 1,2,3), keeps
each partition's ISR (the mock always answers ISR = replicas), elects leaders when a broker goes down (a mock broker
keeps its leaderships), returns preferred leaders later as Kafka's automatic leader rebalance does, and moves group
coordinators off a broker that is down (the mock would keep sending a group to it). `overlay` puts that state into the
snapshots the app shows, so the table, the status bar and the timeline tell what this controller decided.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient

from kafkatop.backends.demo.assignment import assign_replicas, placement
from kafkatop.backends.demo.cluster import DemoCluster
from kafkatop.backends.kafka import handles
from kafkatop.backends.model.cluster import (
    NO_LEADER,
    ClusterSnapshot,
    TopicPartition,
    is_internal_topic,
    java_string_hash,
)
from kafkatop.backends.model.elections import (
    ELECTION_NOT_NEEDED,
    ELIGIBLE_LEADERS_NOT_AVAILABLE,
    PREFERRED_LEADER_NOT_AVAILABLE,
    UNKNOWN_TOPIC_OR_PARTITION,
    ElectionError,
    ElectionResult,
    ElectionType,
)
from kafkatop.backends.model.errors import KafkatopError, MockClusterError
from kafkatop.backends.model.nodes import NodesSnapshot, NodeState, NodeView, check_action
from kafkatop.backends.model.processes import ProcessRole
from kafkatop.backends.model.topics import TopicError, validate_new_topic, validate_topic_name

DEMO_DETAIL = "mock broker inside kafkatop (DEMO)"


# Kafka checks leader imbalance every leader.imbalance.check.interval.seconds (300 s); the demo waits this long after
# a broker starts, so the moved leadership can be seen before preferred leaders return.
REBALANCE_DELAY_S = 10.0


_EVENTS_KEPT = 500


# How long a topic deleted here may still show in metadata read before the deletion (a poll's): not a new topic.
DELETED_TOPIC_SETTLE_S = 10.0


_TAIL_LINES = 40


# --- the controller the mock lacks ---------------------------------------------------------------------------------
@dataclass
class _Partition:
    replicas: tuple[int, ...]  # in assignment order: the first is the preferred leader
    leader: int  # NO_LEADER when offline
    isr: list[int]  # as Kafka keeps it: shrinks as replicas go down, but never below the last member


@dataclass(frozen=True, slots=True)
class _Event:
    line: str
    brokers: frozenset[int]  # the brokers whose log tail shows it


@dataclass
class _Broker:
    id: int
    port: int | None
    state: NodeState = NodeState.UP
    started_at: float = field(default_factory=time.time)


class DemoControl:
    """The demo's three mock brokers as nodes, with Kafka's failover emulated around the mock.

    What is emulated, as a Kafka controller does it:
    - a broker killed (or stopped) leaves the ISR of its partitions, and each partition it led gets as leader the
      first replica in assignment order that is alive and in the ISR; a partition whose last in-sync replica goes
      down is offline (leader -1), its ISR keeping that last replica;
    - `stop` is a controlled shutdown: leadership moves while the broker still runs, then it goes down; `kill`
      takes it down first. Both end the same way: the difference is in the event lines (and, on a real cluster, in
      the seconds clients spend on a dead leader);
    - a broker that starts catches up at once (the mock shares one log between replicas) and rejoins the ISR;
      an offline partition gets a leader again only from its ISR, unless `unclean_leader_election` (Kafka's
      unclean.leader.election.enable, default false) lets any replica lead;
    - `rebalance_delay_s` after a start, partitions whose preferred leader (first replica) is alive and in sync
      go back to it, as auto.leader.rebalance.enable does (None: never);
    - the controller and the coordinator of every group it knows (the demo's, and those of kafkatop's consumers,
      see place_group) move off a broker that goes down;
    - a topic's replicas are placed as Kafka places them (see assignment.py), and its partitions start led by their
      preferred leader (a topic made in the mock directly keeps the mock's leaders until the rebalance delay has
      passed); topics are created and deleted through the mock's own calls (it has no CreateTopics).
    The mock cannot report an ISR of its own (it always answers ISR = replicas) nor these replica lists: `overlay`
    replaces what its metadata says with what is kept here.
    """

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
        self._events: deque[_Event] = deque(maxlen=_EVENTS_KEPT)
        # Metadata only: never a group request, which librdkafka ties to a coordinator that may be down.
        self._admin: AdminClient | None = handles.admin_client(demo.connection.config("kafkatop-demo"))
        metadata = self._metadata(metadata_timeout_s)
        if metadata is None:
            raise MockClusterError(f"the demo cluster gave no metadata within {metadata_timeout_s:g} s")
        # The mock lists its brokers in id order: 1, 2, 3.
        ports = {i: port for i, (_, port) in enumerate(demo.connection.addresses, start=1)}
        self._brokers = {
            b: _Broker(b, metadata.brokers[b].port if b in metadata.brokers else ports.get(b))
            for b in self.mock.broker_ids
        }
        self._partitions: dict[TopicPartition, _Partition] = {}
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
            part = _Partition(replicas, NO_LEADER, in_sync)
            self._partitions[tp] = part
            current = (leaders or {}).get(p, NO_LEADER)
            if current in in_sync and current in live:
                part.leader = current  # no election: a new leader epoch would be a change clients see
            else:
                self._set_leader(tp, part, self._elect(part))

    def _fresh_metadata(self) -> Any:
        """Metadata for topics created since, read before taking the lock so that poll() never waits on it."""
        return self._metadata(1.0) if self._live() else None

    # --- nodes -----------------------------------------------------------------------------------------------------
    def _live(self) -> list[int]:
        return [b.id for b in self._brokers.values() if b.state is NodeState.UP]

    def _broker(self, name: str) -> _Broker:
        ref = name.strip().removeprefix("broker").strip(" -")
        if ref.isdigit() and int(ref) in self._brokers:
            return self._brokers[int(ref)]
        names = ", ".join(f"broker-{b}" for b in self._brokers)
        raise KafkatopError(f"no node {name!r} in the demo cluster; its nodes are: {names}")

    def _view(self, broker: _Broker, now: float) -> NodeView:
        up = broker.state is NodeState.UP
        tail = [e.line for e in self._events if broker.id in e.brokers][-_TAIL_LINES:]
        return NodeView(
            name=f"broker-{broker.id}",
            role=ProcessRole.BROKER,
            node_id=broker.id,
            state=broker.state,
            pid=None,
            ports=(broker.port,) if broker.port is not None else (),
            cpu_percent=None,
            rss_bytes=None,
            uptime_s=max(0.0, now - broker.started_at) if up else None,
            detail=DEMO_DETAIL,
            log_tail=tuple(tail),
            actions=frozenset({"kill", "stop", "restart"}) if up else frozenset({"start", "restart"}),
        )

    def poll(self) -> NodesSnapshot:
        with self._lock:
            now = time.time()
            return NodesSnapshot(
                taken_at=now,
                kind="demo",
                title=f"DEMO · librdkafka mock, {len(self._brokers)} brokers",
                nodes=tuple(self._view(b, now) for b in self._brokers.values()),
                can_add_broker=False,
            )

    # --- actions ---------------------------------------------------------------------------------------------------
    def _checked(self, name: str, action: str) -> _Broker:
        if self._closed:
            raise KafkatopError("the demo cluster is closed")
        broker = self._broker(name)
        check_action(action, self._view(broker, time.time()))
        return broker

    def kill(self, name: str) -> None:
        """kill -9: the broker is gone at once; then the controller elects new leaders."""
        metadata = self._fresh_metadata()
        with self._lock:
            broker = self._checked(name, "kill")
            if metadata is not None:
                self._learn_topics(metadata)
            self.mock.set_broker_down(broker.id)
            broker.state = NodeState.KILLED
            self._went_down(broker.id, "killed")

    def stop(self, name: str) -> None:
        """A controlled shutdown: leaders move away while the broker still serves, then it goes down."""
        metadata = self._fresh_metadata()
        with self._lock:
            broker = self._checked(name, "stop")
            if metadata is not None:
                self._learn_topics(metadata)
            broker.state = NodeState.DOWN  # no longer eligible: elections below skip it
            try:
                self._went_down(broker.id, "stopped (controlled shutdown)")
            finally:
                self.mock.set_broker_down(broker.id)

    def start(self, name: str) -> None:
        with self._lock:
            broker = self._checked(name, "start")
            self.mock.set_broker_up(broker.id)
            broker.state = NodeState.UP
            broker.started_at = time.time()
            self._came_up(broker.id)

    def restart(self, name: str) -> None:
        """A controlled stop, then a start; of a broker that is down, a start."""
        with self._lock:
            running = self._checked(name, "restart").state is NodeState.UP
        if running:
            self.stop(name)
        self.start(name)

    def add_broker(self) -> str:
        raise KafkatopError("the demo cluster has a fixed 3 brokers; run a lab cluster (kafkatop up) to add brokers")

    def close(self) -> None:
        """Cancels a pending rebalance and closes the mock cluster (the demo lives in this process)."""
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            box: list[Any] = [self._admin] if self._admin is not None else []
            self._admin = None
        handles.release(box)
        self.demo.close()

    # --- topics -----------------------------------------------------------------------------------------------------
    def topics(self) -> dict[str, tuple[tuple[int, ...], ...]]:
        """Each topic's replicas per partition, as placed here."""
        with self._lock:
            out: dict[str, list[tuple[int, ...]]] = {}
            for tp, part in sorted(self._partitions.items()):
                out.setdefault(tp.topic, []).append(part.replicas)
            return {name: tuple(replicas) for name, replicas in out.items()}

    def create_topic(self, name: str, partitions: int, replication_factor: int) -> None:
        """Kafka's CreateTopics, as its controller answers it: refused for a name taken or too few live brokers;
        else created in the mock, its replicas placed here."""
        if (problem := validate_topic_name(name)) is not None:
            raise TopicError(problem, topic=name)
        if problems := validate_new_topic(name, partitions, replication_factor):
            raise TopicError(f"Cannot create topic '{name}': " + "; ".join(problems), topic=name)
        metadata = self._fresh_metadata()
        with self._lock:
            if self._closed:
                raise TopicError(f"Cannot create topic '{name}': the demo cluster is closed", topic=name)
            if metadata is not None:
                self._learn_topics(metadata)
            if any(tp.topic == name for tp in self._partitions):
                raise TopicError(f"Topic '{name}' already exists.", topic=name, code="TOPIC_ALREADY_EXISTS")
            live = len(self._live())
            if replication_factor > live:
                raise TopicError(
                    f"Cannot create topic '{name}': Replication factor: {replication_factor} larger than available "
                    f"brokers: {live}. Use a replication factor no larger than the number of brokers, or start more "
                    "brokers.",
                    topic=name,
                    code="INVALID_REPLICATION_FACTOR",
                )
            try:
                self.mock.create_topic(name, partitions, replication_factor)
                self._deleted.pop(name, None)
            except MockClusterError as e:
                raise TopicError(f"Cannot create topic '{name}': {e}", topic=name) from None
            self._place(name, partitions, replication_factor)
            self._event(f"topic {name} created: {partitions} partition(s), replication factor {replication_factor}")

    def delete_topic(self, name: str) -> None:
        metadata = self._fresh_metadata()
        with self._lock:
            if metadata is not None:
                self._learn_topics(metadata)
            known = [tp for tp in self._partitions if tp.topic == name]
            if not known:
                raise TopicError(f"Topic '{name}' does not exist as expected", topic=name, code="UNKNOWN_TOPIC_OR_PART")
            try:
                self.mock.delete_topic(name)
            except MockClusterError as e:
                raise TopicError(f"Cannot delete topic '{name}': {e}", topic=name) from None
            for tp in known:
                del self._partitions[tp]
            self._deleted[name] = time.monotonic()
            self._event(f"topic {name} deleted")

    # --- leader elections: the mock has no ElectLeaders; this controller answers it as Kafka's does ----------------
    def elect_leaders(
        self, election_type: ElectionType, partitions: Sequence[TopicPartition] | None
    ) -> list[ElectionResult]:
        """Kafka's ElectLeaders, answered by this controller with the KRaft controller's rules (see
        insight/elections.py); `partitions` None: every partition, leaving out those that need no election."""
        metadata = self._fresh_metadata()
        with self._lock:
            if self._closed:
                raise ElectionError("the demo cluster is closed")
            if metadata is not None:
                self._learn_topics(metadata)
            wanted = sorted(self._partitions) if partitions is None else list(dict.fromkeys(partitions))
            results = []
            for tp in wanted:
                part = self._partitions.get(tp)
                if part is None:
                    results.append(ElectionResult(tp, UNKNOWN_TOPIC_OR_PARTITION, f"No such partition as {tp}"))
                    continue
                result = self._elect_asked(tp, part, election_type)
                if partitions is None and result.not_needed:
                    continue
                results.append(result)
            return results

    def _elect_asked(self, tp: TopicPartition, part: _Partition, election_type: ElectionType) -> ElectionResult:
        live = self._live()

        def valid(r: int) -> bool:
            return r in live and r in part.isr

        old = part.leader
        who = f"{election_type.word} leader election (asked from kafkatop)"
        if election_type is ElectionType.PREFERRED:
            preferred = part.replicas[0]
            if old == preferred:
                return ElectionResult(tp, ELECTION_NOT_NEEDED, "Leader election not needed for topic partition.")
            new = preferred if valid(preferred) else None
            if new is None and not (old != NO_LEADER and valid(old)):
                new = next((r for r in part.replicas[1:] if valid(r)), None)
            if new is None:
                return ElectionResult(tp, PREFERRED_LEADER_NOT_AVAILABLE, "The preferred leader was not available.")
        else:
            if old != NO_LEADER:
                return ElectionResult(tp, ELECTION_NOT_NEEDED, "Leader election not needed for topic partition.")
            new = next((r for r in part.replicas if valid(r)), None)
            if new is None:
                new = next((r for r in part.replicas if r in live), None)
                if new is None:
                    return ElectionResult(
                        tp, ELIGIBLE_LEADERS_NOT_AVAILABLE, "Eligible topic partition leaders are not available."
                    )
                # Out of sync: on Kafka what it lacks is lost. The mock keeps one log per partition, so here it
                # lacks nothing, and the live replicas are in sync with it at once.
                self._event(f"{who}: {tp} led by {new}, an out-of-sync replica (ISR was {_ids(part.isr)})", new)
                part.isr = [r for r in part.replicas if r in live]
        self._set_leader(tp, part, new)
        shown = "none" if old == NO_LEADER else str(old)
        self._event(f"{who}: leader of {tp} {shown} → {new}", *(b for b in (old, new) if b != NO_LEADER))
        return ElectionResult(tp)

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
            coordinator = live[abs(java_string_hash(group)) % len(live)]
            self.mock.set_group_coordinator(group, coordinator)
            self._coordinators[group] = coordinator
            return coordinator

    # --- what the app is shown -------------------------------------------------------------------------------------
    def overlay(self, snapshot: ClusterSnapshot) -> ClusterSnapshot:
        """`snapshot`, read from the mock, with what only this controller knows: replicas as placed, leaders and
        ISRs as elected, replicas on brokers that are down as offline, and the mode: demo."""
        with self._lock:
            if self._closed:
                return replace(snapshot, mode="demo")
            self._learn({t.name: {p.id: p.leader for p in t.partitions} for t in snapshot.topics})
            down = {b.id for b in self._brokers.values() if b.state is not NodeState.UP}
            topics = []
            for topic in snapshot.topics:
                parts = []
                for p in topic.partitions:
                    part = self._partitions.get(TopicPartition(p.topic, p.id))
                    if part is None:
                        parts.append(p)
                        continue
                    parts.append(
                        replace(
                            p,
                            leader=part.leader,
                            replicas=part.replicas,
                            isr=tuple(part.isr),
                            offline_replicas=tuple(r for r in part.replicas if r in down),
                        )
                    )
                topics.append(replace(topic, partitions=tuple(parts)))
            return replace(snapshot, mode="demo", topics=tuple(topics))

    # --- the emulated controller ---------------------------------------------------------------------------------
    def _event(self, text: str, *brokers: int) -> None:
        self._events.append(_Event(f"{time.strftime('%H:%M:%S')} {text}", frozenset(brokers)))

    def _elect(self, part: _Partition) -> int:
        """Kafka's election: the first replica in assignment order that is alive and in the ISR."""
        live = self._live()
        return next((r for r in part.replicas if r in live and r in part.isr), NO_LEADER)

    def _set_leader(self, tp: TopicPartition, part: _Partition, leader: int) -> None:
        self.mock.set_partition_leader(tp.topic, tp.partition, leader)
        part.leader = leader

    def _went_down(self, b: int, how: str) -> None:
        who = f"broker {b} {how}"
        followed = 0
        for tp, part in sorted(self._partitions.items()):
            if b not in part.replicas:
                continue
            if b in part.isr and len(part.isr) > 1:
                part.isr.remove(b)  # the last in-sync replica stays in the ISR: only it may lead again
            if part.leader != b:
                followed += 1
                continue
            leader = self._elect(part)
            self._set_leader(tp, part, leader)
            if leader == NO_LEADER:
                self._event(f"{who}: {tp} offline: no other in-sync replica (ISR {_ids(part.isr)})", b)
            else:
                self._event(f"{who}: leader of {tp} → {leader}", b, leader)
        if followed:
            self._event(f"{who}: out of the ISR of {followed} partition(s) it followed", b)
        live = self._live()
        if self._controller == b and live:
            self._controller = live[0]  # in ZooKeeper mode, whichever broker creates /controller first
            self.mock.set_controller(live[0])
            self._event(f"{who}: controller moves to broker {live[0]}", b, live[0])
        for group, coordinator in self._coordinators.items():
            if coordinator == b and live:
                new = live[abs(java_string_hash(group)) % len(live)]
                self._coordinators[group] = new
                self.mock.set_group_coordinator(group, new)
                self._event(f"{who}: coordinator of group {group} moves to broker {new}", b, new)

    def _came_up(self, b: int) -> None:
        who = f"broker {b} started"
        rejoined = 0
        for tp, part in sorted(self._partitions.items()):
            if b not in part.replicas:
                continue
            if part.leader != NO_LEADER:
                if b not in part.isr:
                    part.isr.append(b)  # caught up at once: the mock keeps one log per partition
                    rejoined += 1
                continue
            if b in part.isr or self.unclean_leader_election:
                if b not in part.isr:
                    part.isr = [b]  # unclean: what the other replicas had and b lacks is lost
                    self._event(f"{who}: unclean leader election: {tp} led by {b}, an out-of-sync replica", b)
                self._set_leader(tp, part, b)
                live = self._live()
                part.isr = [r for r in part.replicas if r in live]
                self._event(f"{who}: leader of {tp} → {b} (was offline)", b)
            else:
                last = _ids(part.isr)
                self._event(
                    f"{who}: {tp} stays offline until its last in-sync replica ({last}) is back "
                    "(unclean.leader.election.enable=false)",
                    b,
                )
        if rejoined:
            self._event(f"{who}: back in the ISR of {rejoined} partition(s)", b)
        if self._controller is None or self._brokers[self._controller].state is not NodeState.UP:
            self._controller = b
            self.mock.set_controller(b)
            self._event(f"{who}: controller moves to broker {b}", b)
        for group, coordinator in self._coordinators.items():
            if self._brokers[coordinator].state is not NodeState.UP:
                self._coordinators[group] = b
                self.mock.set_group_coordinator(group, b)
                self._event(f"{who}: coordinator of group {group} moves to broker {b}", b)
        if self.rebalance_delay_s is not None and self._preferred_moves():
            self._event(f"{who}: preferred leaders return in {self.rebalance_delay_s:g} s (leader rebalance)", b)
            self._schedule_rebalance(self.rebalance_delay_s)

    def _preferred_moves(self) -> list[tuple[TopicPartition, _Partition, int]]:
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


def _ids(ids: list[int]) -> str:
    return ",".join(map(str, ids))
