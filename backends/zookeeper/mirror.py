"""What ZooKeeper says of a Kafka cluster, as last read: the mirror the watch source keeps current.

The mirror does no I/O. The watch reads a znode and hands its bytes here; the mirror parses them (a znode it cannot
parse becomes a Problem, not an exception), keeps the result and answers with the event the change makes, or None
when nothing changed. One writer (the watch's worker thread), any number of readers (`snapshot`).
"""

from __future__ import annotations

import threading
import time

from kafkatop.backends.model.cluster import NO_LEADER, Broker, ClusterSnapshot, Partition, Problem, Topic, merge_brokers
from kafkatop.backends.model.zookeeper import (
    BrokerDeregistered,
    BrokerRegistered,
    ControllerChanged,
    PartitionState,
    PartitionStateChanged,
    TopicsChanged,
)
from kafkatop.backends.zookeeper import znodes
from kafkatop.backends.zookeeper.znodes import MalformedZnode

SOURCE = "zookeeper"


class ZnodeMirror:
    """Brokers, controller, cluster id, topics with their assignments and partition states, and unreadable znodes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._brokers: dict[int, Broker] = {}
        self._known_brokers: dict[int, Broker] = {}  # every broker ever registered: a dead one keeps its address
        self._controller: int | None = None
        self._controller_epoch: int | None = None
        self._cluster_id: str | None = None
        self._assignments: dict[str, dict[int, tuple[int, ...]]] = {}
        self._topic_ids: dict[str, str | None] = {}
        self._states: dict[tuple[str, int], PartitionState] = {}
        self._problems: dict[str, Problem] = {}

    # --- problems -------------------------------------------------------------------------------------------------
    def problem(self, path: str, reason: str) -> None:
        with self._lock:
            self._problems[path] = Problem(SOURCE, path, reason)

    def clear_problem(self, path: str) -> None:
        with self._lock:
            self._problems.pop(path, None)

    # --- /brokers/ids ---------------------------------------------------------------------------------------------
    def broker_ids(self, children: list[str]) -> tuple[list[int], list[int]]:
        """The ids that registered and those that went away since the last listing (each sorted)."""
        ids = set()
        for child in children:
            if child.isdigit():
                ids.add(int(child))
            else:
                self.problem(f"{znodes.BROKER_IDS}/{child}", "not a broker id")
        with self._lock:
            before = set(self._brokers)
        return sorted(ids - before), sorted(before - ids)

    def broker_registered(self, broker_id: int, data: bytes | None, now: float) -> BrokerRegistered:
        path = znodes.broker_path(broker_id)
        try:
            broker = znodes.parse_broker_registration(broker_id, data)
            self.clear_problem(path)
        except MalformedZnode as e:
            self.problem(e.path, e.reason)
            broker = Broker(broker_id, None, None, alive=True)
        with self._lock:
            self._brokers[broker_id] = broker
            if broker.host is not None:
                self._known_brokers[broker_id] = broker
        return BrokerRegistered(now, broker)

    def broker_deregistered(self, broker_id: int, now: float) -> BrokerDeregistered:
        with self._lock:
            self._brokers.pop(broker_id, None)
        self.clear_problem(znodes.broker_path(broker_id))
        return BrokerDeregistered(now, broker_id)

    # --- /controller, /controller_epoch, /cluster/id ------------------------------------------------------------
    def controller(self, data: bytes | None, epoch_data: bytes | None, now: float) -> ControllerChanged | None:
        controller: int | None = None
        if data is not None:
            try:
                controller = znodes.parse_controller(data)
                self.clear_problem(znodes.CONTROLLER)
            except MalformedZnode as e:
                self.problem(e.path, e.reason)
        epoch: int | None = None
        try:
            epoch = znodes.parse_controller_epoch(epoch_data) if epoch_data is not None else None
        except MalformedZnode as e:
            self.problem(e.path, e.reason)
        with self._lock:
            previous = self._controller
            self._controller, self._controller_epoch = controller, epoch
        return ControllerChanged(now, previous, controller, epoch) if previous != controller else None

    def cluster_id(self, data: bytes) -> None:
        try:
            cluster_id = znodes.parse_cluster_id(data)
        except MalformedZnode as e:
            self.problem(e.path, e.reason)
            return
        with self._lock:
            self._cluster_id = cluster_id

    # --- /brokers/topics -------------------------------------------------------------------------------------------
    def topics(self, names: list[str], now: float) -> TopicsChanged | None:
        """The topics listed now; a deleted topic's partitions go with it. The event names created and deleted."""
        with self._lock:
            before = set(self._assignments)
            created = sorted(set(names) - before)
            deleted = sorted(before - set(names))
            for t in deleted:
                self._assignments.pop(t, None)
                self._topic_ids.pop(t, None)
                for key in [k for k in self._states if k[0] == t]:
                    del self._states[key]
            for t in created:
                self._assignments[t] = {}
        return TopicsChanged(now, tuple(created), tuple(deleted)) if created or deleted else None

    def has_topic(self, topic: str) -> bool:
        with self._lock:
            return topic in self._assignments

    def assignment(self, topic: str, data: bytes) -> list[int]:
        """A topic's replica assignment (and id); the partitions it adds, whose states are to be read next."""
        try:
            assignment, topic_id = znodes.parse_topic_assignment(topic, data)
            self.clear_problem(znodes.topic_path(topic))
        except MalformedZnode as e:
            self.problem(e.path, e.reason)
            return []
        with self._lock:
            new_parts = set(assignment) - set(self._assignments.get(topic, {}))
            self._assignments[topic] = assignment
            self._topic_ids[topic] = topic_id
        return sorted(new_parts)

    def partitions(self) -> list[tuple[str, int]]:
        with self._lock:
            return [(t, p) for t, parts in self._assignments.items() for p in parts]

    def partition_state(
        self, topic: str, partition: int, data: bytes | None, now: float
    ) -> PartitionStateChanged | None:
        """A partition's leader, ISR and epochs (`data` None: its state znode is gone or not written yet)."""
        state: PartitionState | None = None
        if data is not None:
            try:
                state = znodes.parse_partition_state(topic, partition, data)
                self.clear_problem(znodes.partition_state_path(topic, partition))
            except MalformedZnode as e:
                self.problem(e.path, e.reason)
                return None
        with self._lock:
            previous = self._states.get((topic, partition))
            if state is None:
                self._states.pop((topic, partition), None)
            else:
                self._states[(topic, partition)] = state
        if previous == state or (previous is None and state is None):
            return None
        return PartitionStateChanged(now, topic, partition, previous, state)

    # --- the snapshot ---------------------------------------------------------------------------------------------
    def snapshot(self, hosts: str, connected: bool) -> ClusterSnapshot:
        with self._lock:
            brokers = dict(self._brokers)
            assignments = {t: dict(a) for t, a in self._assignments.items()}
            states = dict(self._states)
            problems = list(self._problems.values())
            controller, cluster_id = self._controller, self._cluster_id
            known = dict(self._known_brokers)
            topic_ids = dict(self._topic_ids)
        if not connected:
            problems.append(Problem(SOURCE, hosts, "disconnected: showing the last state read"))
        topics = []
        for name in sorted(assignments):
            parts = []
            for pid, replicas in sorted(assignments[name].items()):
                st = states.get((name, pid))
                parts.append(
                    Partition(
                        topic=name,
                        id=pid,
                        leader=st.leader if st is not None else NO_LEADER,
                        replicas=replicas,
                        isr=st.isr if st is not None else (),
                        offline_replicas=tuple(r for r in replicas if r not in brokers),
                        leader_epoch=st.leader_epoch if st is not None else None,
                    )
                )
            topics.append(Topic(name, tuple(parts), internal=name.startswith("__"), topic_id=topic_ids.get(name)))
        all_brokers = merge_brokers(brokers, known, (r for a in assignments.values() for rs in a.values() for r in rs))
        return ClusterSnapshot(
            source=SOURCE,
            taken_at=time.time(),
            cluster_id=cluster_id,
            mode="zk",
            controller_id=controller,
            brokers=all_brokers,
            topics=tuple(topics),
            problems=tuple(sorted(problems, key=lambda p: p.what)),
        )
