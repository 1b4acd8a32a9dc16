"""The cluster's views on the failover timeline: brokers leaving and returning, the controller moving, leaders and
ISRs changing, as metadata polls (ClusterSnapshot) and ZooKeeper's pushed events tell them.

Each polled source (snapshot.source: the metadata, or ZooKeeper's mirror) is diffed against its own previous view,
whose first one is only a baseline; a pushed event is exact in time, so it is kept over a poll's later report of the
same change (the log keeps one, see log.py). Not thread-safe on its own: Timeline holds the lock.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable

from kafkatop.backends.insight.changes import PartitionChange, partition_changes, partition_views
from kafkatop.backends.insight.timeline.events import controller_event, isr_event, leader_event
from kafkatop.backends.insight.timeline.incidents import Incidents
from kafkatop.backends.insight.timeline.log import EventLog, Record
from kafkatop.backends.insight.timeline.model import EventKind, TimelineEvent, Trigger
from kafkatop.backends.model.cluster import ClusterSnapshot, PartitionView
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.model.zookeeper import (
    BrokerDeregistered,
    BrokerRegistered,
    ControllerChanged,
    PartitionStateChanged,
    ZkEvent,
)


def _cluster_source(snapshot: ClusterSnapshot) -> str:
    return "zookeeper" if snapshot.source == "zookeeper" else "metadata"


def _cluster_healthy(snapshot: ClusterSnapshot) -> bool:
    return not (snapshot.brokers_down or snapshot.offline or snapshot.under_replicated)


class ClusterViews:
    """Each cluster source's last view, and the events their changes are told as. `node_of(broker_id)` names the node
    pane of a broker, so that its process and its registration are one story."""

    def __init__(self, log: EventLog, incidents: Incidents, node_of: Callable[[int], str | None]) -> None:
        self._log = log
        self._incidents = incidents
        self._node_of = node_of
        # Baselines, one per source.
        self._partitions: dict[str, dict[TopicPartition, PartitionView]] = {}
        self._alive: dict[str, set[int]] = {}
        self._controllers: dict[str, int | None] = {}
        # What decides recovery: the latest health of each view, with its time.
        self._health: dict[str, tuple[float, bool]] = {}

    def health(self) -> Iterable[tuple[float, bool]]:
        """Each source's latest view: when it was taken, and whether every broker was alive and every partition led
        with a full ISR."""
        return self._health.values()

    # --- cluster snapshots (metadata, or ZooKeeper's mirror) ----------------------------------------------------------
    def observe(self, snapshot: ClusterSnapshot) -> bool:
        """Diffs `snapshot` against the previous view of its source; False when an older poll finished late (its view
        is superseded, and ignored)."""
        key = snapshot.source
        channel = f"cluster:{key}"
        source = _cluster_source(snapshot)
        at = snapshot.taken_at
        last = self._health.get(key)
        if last is not None and at < last[0]:
            return False
        self._health[key] = (at, _cluster_healthy(snapshot))
        alive = {b.id for b in snapshot.brokers_alive}
        if key in self._partitions:
            self._diff_brokers(snapshot, self._alive[key], alive, channel, source)
            self._diff_controller(snapshot, key, channel, source)
            for change in partition_changes(self._partitions[key], snapshot):
                self._diff_partition(change, at, channel, source)
        self._partitions[key] = partition_views(snapshot)
        self._alive[key] = alive
        if snapshot.controller_id is not None or key not in self._controllers:
            self._controllers[key] = snapshot.controller_id
        return True

    def _diff_brokers(
        self, snapshot: ClusterSnapshot, was: set[int], alive: set[int], channel: str, source: str
    ) -> None:
        at = snapshot.taken_at
        mode = snapshot.mode
        for bid in sorted(was - alive):
            if mode == "kraft":
                kind, text = EventKind.BROKER_FENCED, f"broker {bid} fenced: no longer in the metadata"
            elif mode == "zk":
                kind, text = EventKind.BROKER_DEREGISTERED, f"broker {bid} left the cluster metadata (deregistered)"
            else:  # the demo's mock, or a mode not known: neither ZooKeeper's words nor KRaft's
                kind, text = EventKind.BROKER_LEFT, f"broker {bid} left the cluster metadata"
            self._broker_event(at, kind, source, text, bid, channel, "alive", "gone")
        back = {"kraft": " (unfenced)", "zk": " (registered)"}.get(mode, "")
        for bid in sorted(alive - was):
            text = f"broker {bid} back in the metadata{back}"
            self._broker_event(at, EventKind.BROKER_REGISTERED, source, text, bid, channel, "gone", "alive")

    def _broker_event(
        self, at: float, kind: EventKind, source: str, text: str, bid: int, channel: str, before: str, after: str
    ) -> None:
        event = TimelineEvent(
            at, kind, source, text, node=self._node_of(bid), broker_id=bid, before=before, after=after
        )
        record = self._log.add(event, channel, ("broker", bid), after)
        if record is not None:
            self._incidents.place(record, Trigger.BROKER_LOST if kind is not EventKind.BROKER_REGISTERED else None)

    def _diff_controller(self, snapshot: ClusterSnapshot, key: str, channel: str, source: str) -> None:
        # None from a poll is "not known" (KRaft hides it; a failed DescribeCluster): only a new id is a change.
        old, new = self._controllers.get(key), snapshot.controller_id
        if new is None or new == old:
            return
        self._controller_event(snapshot.taken_at, old, new, None, channel, source)

    def _controller_event(
        self, at: float, old: int | None, new: int | None, epoch: int | None, channel: str, source: str
    ) -> None:
        self._add_placed(controller_event(at, old, new, epoch, source), channel, ("controller",), new)

    def _diff_partition(self, change: PartitionChange, at: float, channel: str, source: str) -> None:
        tp, old, new = change.partition, change.before, change.after
        isr = change.now.isr if change.now is not None else new.isr  # as the source lists it
        elr = change.now.elr if change.now is not None else None
        if change.leader_changed:
            event = leader_event(tp, old.leader, new.leader, isr, new.epoch, at, source, elr)
            self._add_placed(event, channel, ("leader", tp), new.leader)
        if change.isr_changed:
            self._add_placed(isr_event(tp, old.isr, isr, new.epoch, at, source, elr), channel, ("isr", tp), new.isr)

    # --- ZooKeeper's pushed events -------------------------------------------------------------------------------
    def observe_zookeeper(self, event: ZkEvent) -> None:
        """One event of ZooKeeperSource.events: exact in time, so it is kept over a poll's later report."""
        channel, source = "zookeeper-watch", "zookeeper"
        if isinstance(event, BrokerDeregistered):
            bid = event.broker_id
            text = f"broker {bid} deregistered: /brokers/ids/{bid} removed (its ZooKeeper session ended)"
            self._broker_event(event.at, EventKind.BROKER_DEREGISTERED, source, text, bid, channel, "alive", "gone")
        elif isinstance(event, BrokerRegistered):
            bid = event.broker.id
            text = f"broker {bid} registered: /brokers/ids/{bid} created"
            self._broker_event(event.at, EventKind.BROKER_REGISTERED, source, text, bid, channel, "gone", "alive")
        elif isinstance(event, ControllerChanged):
            self._controller_event(event.at, event.previous, event.controller, event.epoch, channel, source)
        elif isinstance(event, PartitionStateChanged):
            # No previous state: a topic being created; no state: a topic deleted. Neither is a failover.
            if event.previous is None or event.state is None:
                return
            tp = TopicPartition(event.topic, event.partition)
            old, new = event.previous, event.state
            if event.leader_changed:
                pushed = leader_event(tp, old.leader, new.leader, new.isr, new.leader_epoch, event.at, source)
                self._add_placed(pushed, channel, ("leader", tp), new.leader)
            if event.isr_changed:
                pushed = isr_event(tp, old.isr, new.isr, new.leader_epoch, event.at, source)
                self._add_placed(pushed, channel, ("isr", tp), tuple(sorted(new.isr)))

    def _add_placed(
        self, event: TimelineEvent, channel: str, subject: tuple[Hashable, ...], value: Hashable
    ) -> Record | None:
        record = self._log.add(event, channel, subject, value)
        if record is not None:
            self._incidents.place(record, None)
        return record
