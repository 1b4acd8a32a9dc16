"""Frozen snapshots of a Kafka cluster and its consumer groups: what every source converts its library objects into.

Every source in `kafkatop.backends` converts library objects (confluent-kafka, kazoo) into these types, so nothing
above the adapters ever sees a library object. Derived values (under-replicated, offline, lag, leader skew) are
properties, computed from the snapshot alone. Standard library only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from kafkatop.backends.model.features import FeatureLevels
from kafkatop.backends.model.groups import ConsumerGroup
from kafkatop.backends.model.topic_extent import TopicExtent

# "demo": kafkatop's built-in demo, the librdkafka mock and kafkatop's controller: neither ZooKeeper nor KRaft.
ClusterMode = Literal["zk", "kraft", "demo", "unknown"]


NO_LEADER = -1  # Kafka's own marker for a partition without a leader (`Leader: -1` in --describe)


@dataclass(frozen=True, slots=True)
class Problem:
    """Something a source could not read, kept beside the partial data that it could read."""

    source: str  # "admin", "zookeeper", "processes"
    what: str  # the request, znode or file concerned
    reason: str

    def __str__(self) -> str:
        return f"{self.source}: {self.what}: {self.reason}"


@dataclass(frozen=True, slots=True)
class Broker:
    id: int
    host: str | None
    port: int | None
    rack: str | None = None
    alive: bool = True

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}" if self.host is not None else "?"


def merge_brokers(
    alive: Mapping[int, Broker], last_seen: Mapping[int, Broker], replica_ids: Iterable[int]
) -> tuple[Broker, ...]:
    """Live brokers, plus brokers seen before or named as replicas that are gone now (last address kept)."""
    out = []
    for bid in sorted(set(alive) | set(last_seen) | set(replica_ids)):
        if bid in alive:
            out.append(alive[bid])
        elif (last := last_seen.get(bid)) is not None:
            out.append(Broker(bid, last.host, last.port, last.rack, alive=False))
        else:
            out.append(Broker(bid, None, None, alive=False))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Partition:
    topic: str
    id: int
    leader: int  # NO_LEADER when offline
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    offline_replicas: tuple[int, ...] = ()
    low_watermark: int | None = None
    high_watermark: int | None = None
    leader_epoch: int | None = None
    elr: tuple[int, ...] | None = None  # eligible leader replicas (KIP-966; model/elr.py); None: not read
    last_known_elr: tuple[int, ...] | None = None  # the ELR's last members, once none of them is eligible

    @property
    def offline(self) -> bool:
        return self.leader == NO_LEADER

    @property
    def under_replicated(self) -> bool:
        return len(self.isr) < len(self.replicas)

    @property
    def preferred_leader(self) -> int | None:
        return self.replicas[0] if self.replicas else None

    @property
    def leader_is_preferred(self) -> bool:
        return not self.offline and self.leader == self.preferred_leader

    @property
    def messages(self) -> int | None:
        """Records between the watermarks: an upper bound (compaction and transaction markers take offsets too)."""
        low, high = self.low_watermark, self.high_watermark
        if low is None or high is None:
            return None
        return high - low if high > low else 0  # max(0, …) without a call: the table sorts 10,000 rows by it

    def under_min_isr(self, min_insync_replicas: int | None) -> bool:
        """True when acks=all producers would get NOT_ENOUGH_REPLICAS for this partition."""
        return min_insync_replicas is not None and not self.offline and len(self.isr) < min_insync_replicas


@dataclass(frozen=True, slots=True)
class PartitionView:
    """What a failover changes about a partition: its leader, its ISR (sorted: sources list it in different orders)
    and its leader epoch. Two views of a partition are the same state when these are equal."""

    leader: int
    isr: tuple[int, ...]
    epoch: int | None = None

    @classmethod
    def of(cls, p: Partition) -> PartitionView:
        return cls(p.leader, tuple(sorted(p.isr)), p.leader_epoch)


@dataclass(frozen=True, slots=True)
class TopicSummary:
    """What a topic's partitions add up to, worked out once per topic (`Topic.summary`)."""

    under_replicated: tuple[Partition, ...]
    offline: tuple[Partition, ...]
    under_min_isr: tuple[Partition, ...]
    non_preferred_leaders: tuple[Partition, ...]  # led, but not by their preferred leader
    messages: int | None  # None: some partition's watermarks are not known
    largest: int | None  # the most messages one partition holds (None: no partition's are known)
    extent: TopicExtent = TopicExtent()  # how far its values reach: the partition table's column widths

    @classmethod
    def of(cls, topic: Topic) -> TopicSummary:
        """One pass, with Partition's tests written out: a property call per partition and value would cost twice as
        much, and a poll after a broker died brings 10,000 new partitions."""
        min_isr = topic.min_insync_replicas
        urp: list[Partition] = []
        offline: list[Partition] = []
        under: list[Partition] = []
        moved: list[Partition] = []
        known: list[int] = []
        unknown = False
        for p in topic.partitions:
            isr, replicas, leader, low, high = len(p.isr), p.replicas, p.leader, p.low_watermark, p.high_watermark
            if isr < len(replicas):  # under_replicated
                urp.append(p)
            if leader == NO_LEADER:  # offline
                offline.append(p)
            else:
                if min_isr is not None and isr < min_isr:  # under_min_isr
                    under.append(p)
                if not replicas or leader != replicas[0]:  # not leader_is_preferred
                    moved.append(p)
            if low is None or high is None:  # messages
                unknown = True
            else:
                known.append(high - low if high > low else 0)
        return cls(
            tuple(urp),
            tuple(offline),
            tuple(under),
            tuple(moved),
            None if unknown else sum(known),
            max(known, default=None),
            TopicExtent.of(topic.partitions),
        )


@dataclass(frozen=True, slots=True)
class Topic:
    name: str
    partitions: tuple[Partition, ...]
    internal: bool = False
    min_insync_replicas: int | None = None  # None: not read (no DescribeConfigs, or ZooKeeper only)
    topic_id: str | None = None
    # `summary`, kept once worked out: every pane reads a topic's faults each poll, and a topic that did not change is
    # the same object poll after poll. Not a value of the topic: out of ==, hash, repr and the codec (not init).
    _summary: TopicSummary | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def summary(self) -> TopicSummary:
        summary = self._summary
        if summary is None:  # two threads may both work it out: the same value, either kept
            summary = TopicSummary.of(self)
            object.__setattr__(self, "_summary", summary)
        return summary

    @property
    def replication_factor(self) -> int:
        return max(map(len, self.summary.extent.replica_lists), default=0)  # of the few distinct lists

    @property
    def under_replicated(self) -> tuple[Partition, ...]:
        return self.summary.under_replicated

    @property
    def offline(self) -> tuple[Partition, ...]:
        return self.summary.offline

    @property
    def under_min_isr(self) -> tuple[Partition, ...]:
        return self.summary.under_min_isr

    @property
    def non_preferred_leaders(self) -> tuple[Partition, ...]:
        return self.summary.non_preferred_leaders

    @property
    def messages(self) -> int | None:
        return self.summary.messages


@dataclass(frozen=True, slots=True)
class SnapshotTotals:
    """The snapshot's partitions and faults, counted over its topics' summaries."""

    partitions: int
    under_replicated: int
    offline: int
    under_min_isr: int

    @classmethod
    def of(cls, topics: Iterable[Topic]) -> SnapshotTotals:
        partitions = urp = offline = under = 0
        for t in topics:
            s = t.summary
            partitions += len(t.partitions)
            urp += len(s.under_replicated)
            offline += len(s.offline)
            under += len(s.under_min_isr)
        return cls(partitions, urp, offline, under)


@dataclass(frozen=True, slots=True)
class ClusterSnapshot:
    """One consistent view of a cluster, as one poll or one set of watches saw it."""

    source: str
    taken_at: float  # time.time() of the poll's end
    cluster_id: str | None
    mode: ClusterMode
    # The active controller. None in KRaft as seen by clients: there brokers answer with a random live broker,
    # and only the quorum (kafka-metadata-quorum.sh) knows the leader.
    controller_id: int | None
    brokers: tuple[Broker, ...]
    topics: tuple[Topic, ...]
    groups: tuple[ConsumerGroup, ...] = ()
    problems: tuple[Problem, ...] = ()
    features: FeatureLevels | None = None  # the finalized feature levels, re-read rarely; None: not known
    # What every pane reads each poll, worked out once (in the poll's worker: tui/live/feed.py summarized) and kept,
    # as Topic keeps its summary: out of ==, hash, repr and the codec.
    _totals: SnapshotTotals | None = field(default=None, init=False, repr=False, compare=False)
    _lag_by_topic: dict[str, int] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def totals(self) -> SnapshotTotals:
        totals = self._totals
        if totals is None:  # two threads may both work it out: the same value, either kept
            totals = SnapshotTotals.of(self.topics)
            object.__setattr__(self, "_totals", totals)
        return totals

    @property
    def partitions(self) -> tuple[Partition, ...]:
        return tuple(p for t in self.topics for p in t.partitions)

    def topic(self, name: str) -> Topic | None:
        return next((t for t in self.topics if t.name == name), None)

    def broker(self, broker_id: int) -> Broker | None:
        return next((b for b in self.brokers if b.id == broker_id), None)

    @property
    def brokers_alive(self) -> tuple[Broker, ...]:
        return tuple(b for b in self.brokers if b.alive)

    @property
    def brokers_down(self) -> tuple[Broker, ...]:
        return tuple(b for b in self.brokers if not b.alive)

    @property
    def under_replicated(self) -> tuple[Partition, ...]:
        return tuple(p for t in self.topics for p in t.under_replicated)

    @property
    def offline(self) -> tuple[Partition, ...]:
        return tuple(p for t in self.topics for p in t.offline)

    @property
    def under_min_isr(self) -> tuple[Partition, ...]:
        return tuple(p for t in self.topics for p in t.under_min_isr)

    @property
    def leaders_by_broker(self) -> dict[int, int]:
        return dict(Counter(p.leader for p in self.partitions if not p.offline))

    @property
    def replicas_by_broker(self) -> dict[int, int]:
        return dict(Counter(r for p in self.partitions for r in p.replicas))

    @property
    def leader_skew(self) -> dict[int, float]:
        """Per broker, the share of partitions it is preferred leader of but does not lead: Kafka's own leader-imbalance
        ratio (the one `auto.leader.rebalance.enable` acts on above `leader.imbalance.per.broker.percentage`): 0.0 is
        balanced, 1.0 leads none of its preferred partitions."""
        preferred: Counter[int] = Counter()
        not_leading: Counter[int] = Counter()
        for p in self.partitions:
            if p.preferred_leader is None:
                continue
            preferred[p.preferred_leader] += 1
            if p.leader != p.preferred_leader:
                not_leading[p.preferred_leader] += 1
        return {b: not_leading[b] / n for b, n in sorted(preferred.items())}

    @property
    def non_preferred_leaders(self) -> tuple[Partition, ...]:
        return tuple(p for t in self.topics for p in t.non_preferred_leaders)

    @property
    def lag_by_topic(self) -> Mapping[str, int]:
        """Per topic, the lag of every group's committed offsets on it, summed (a topic no lag is known for: absent).
        Kept once worked out: read it, do not change it."""
        lag = self._lag_by_topic
        if lag is None:
            lag = {}
            for g in self.groups:
                for o in g.offsets:
                    if (n := o.lag) is not None:
                        lag[o.topic] = lag.get(o.topic, 0) + n
            object.__setattr__(self, "_lag_by_topic", lag)
        return lag


def is_internal_topic(name: str) -> bool:
    """Kafka's internal topics (__consumer_offsets, __transaction_state, __share_group_state) start with "__"."""
    return name.startswith("__")
