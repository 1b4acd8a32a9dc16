"""Proposing a reassignment (pure): given the cluster, a topic, the brokers it should live on and its replication
factor, the plan that moves the fewest replicas while spreading replicas and preferred leaders evenly, and — when the
brokers have racks — each partition's replicas over distinct racks as far as they go. Explicit targets (a plan file,
an edited row) are checked by the same rules. Nothing here talks to Kafka."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from kafkatop.backends.model.cluster import ClusterSnapshot, Topic
from kafkatop.backends.model.reassignment import (
    PartitionMove,
    ReassignmentPlan,
    ReassignmentRefused,
    TopicPartitionKey,
)


def _ids(ids: Iterable[int]) -> str:
    return ",".join(map(str, ids))


def _topic(cluster: ClusterSnapshot, name: str) -> Topic:
    topic = cluster.topic(name)
    if topic is None:
        known = ", ".join(sorted(t.name for t in cluster.topics)[:8]) or "none"
        raise ReassignmentRefused(f"no topic {name!r} in the cluster (topics: {known}): give one that exists")
    return topic


def check_brokers(cluster: ClusterSnapshot, brokers: Iterable[int], what: str = "target") -> None:
    """Every broker named must be in the cluster and alive: Kafka would accept a reassignment to a dead broker and
    leave it hanging until the broker returns."""
    known = {b.id: b for b in cluster.brokers}
    alive = sorted(b.id for b in cluster.brokers if b.alive)
    for b in brokers:
        if b not in known:
            raise ReassignmentRefused(
                f"{what} broker {b} is not in the cluster (its brokers: {_ids(sorted(known))}): give live brokers"
            )
        if not known[b].alive:
            raise ReassignmentRefused(
                f"{what} broker {b} is down: its new replicas could not catch up until it is back; start it first, "
                f"or choose from the live brokers {_ids(alive)}"
            )


def check_targets(cluster: ClusterSnapshot, targets: Mapping[TopicPartitionKey, Sequence[int]]) -> ReassignmentPlan:
    """A plan from explicit targets (a --plan file, --replicas, an edited row), checked before anything is sent."""
    moves = []
    for (name, partition), target in sorted(targets.items()):
        topic = _topic(cluster, name)
        found = next((p for p in topic.partitions if p.id == partition), None)
        if found is None:
            raise ReassignmentRefused(
                f"{name} has no partition {partition} (it has 0-{len(topic.partitions) - 1}): add partitions first, "
                "or fix the plan"
            )
        if not target:
            raise ReassignmentRefused(f"{name}-{partition}: no replicas given")
        if len(set(target)) != len(target):
            raise ReassignmentRefused(f"{name}-{partition}: broker listed twice in {_ids(target)}")
        check_brokers(cluster, target)
        moves.append(PartitionMove(name, partition, found.replicas, tuple(target)))
    return ReassignmentPlan(tuple(moves))


def propose(
    cluster: ClusterSnapshot,
    topic_name: str,
    brokers: Sequence[int] | None = None,
    replication_factor: int | None = None,
) -> ReassignmentPlan:
    """Every partition of the topic on `brokers` (default: the live brokers) with `replication_factor` replicas
    (default: as now). Replicas already on a target broker stay unless that broker would hold more than its share;
    the fewest new replicas are added, on the least loaded brokers, a new rack first; then each partition's first
    replica (its preferred leader) is chosen so leaders spread evenly, the current one kept where it can be."""
    topic = _topic(cluster, topic_name)
    targets = sorted(set(brokers)) if brokers else sorted(b.id for b in cluster.brokers if b.alive)
    if not targets:
        raise ReassignmentRefused("no live broker to place replicas on")
    check_brokers(cluster, targets)
    partitions = sorted(topic.partitions, key=lambda p: p.id)
    rf = replication_factor if replication_factor is not None else max((len(p.replicas) for p in partitions), default=1)
    if rf < 1:
        raise ReassignmentRefused("a replication factor of at least 1")
    if rf > len(targets):
        raise ReassignmentRefused(
            f"replication factor {rf} on {len(targets)} broker(s) ({_ids(targets)}): Kafka keeps each replica of a "
            f"partition on its own broker; give at most {len(targets)}, or more brokers"
        )
    racks = {b.id: b.rack for b in cluster.brokers}
    cap = math.ceil(len(partitions) * rf / len(targets))  # replicas per broker, at most
    load: Counter[int] = Counter()
    chosen: dict[int, list[int]] = {}
    # Pass 1: keep what can stay. A broker holding more than its share sheds the surplus, one replica per partition
    # (so no partition loses all of its replicas), a follower rather than the preferred leader. With fewer replicas
    # than now, a partition keeps its preferred leader and then the least loaded of the others.
    now = Counter(b for p in partitions for b in p.replicas if b in targets)
    # A lower replication factor on the same brokers copies nothing: replicas are only dropped, evenly where they can.
    only_dropping = rf < max(len(p.replicas) for p in partitions) and all(
        set(p.replicas) <= set(targets) for p in partitions
    )
    surplus = {b: 0 if only_dropping else max(0, now[b] - cap) for b in targets}
    for p in partitions:
        staying = [b for b in p.replicas if b in targets]
        if len(staying) > rf:
            keep = staying[:1] if load[staying[0]] < cap else []
            for b in sorted(staying[1:], key=lambda b: (load[b], staying.index(b))):
                if len(keep) < rf and load[b] < cap:
                    keep.append(b)
            # Over the share rather than copy anything: a lower replication factor only drops replicas.
            for b in sorted((b for b in staying if b not in keep), key=lambda b: (load[b], staying.index(b))):
                if len(keep) < rf:
                    keep.append(b)
        else:
            keep = list(staying)
            over = [b for b in keep if surplus[b] > 0]
            if over:
                drop = max(over, key=lambda b: (surplus[b], keep.index(b)))
                keep.remove(drop)
                surplus[drop] -= 1
        for b in keep:
            load[b] += 1
        chosen[p.id] = keep
    # Pass 2: fill each partition up to rf from the least loaded brokers, a rack not used yet first.
    for p in partitions:
        replicas = chosen[p.id]
        while len(replicas) < rf:
            used_racks = {racks[b] for b in replicas if racks.get(b)}
            candidates = [b for b in targets if b not in replicas]
            best = min(candidates, key=lambda b: (racks.get(b) in used_racks if racks.get(b) else False, load[b], b))
            replicas.append(best)
            load[best] += 1
    # Pass 2b: a broker over its share (a partition with no room left elsewhere took it) hands a replica to one
    # under its share, in a partition that has the first and not the second.
    for _ in range(0 if only_dropping else len(partitions) * rf):
        over = [b for b in targets if load[b] > cap]
        under = [b for b in targets if load[b] < cap]
        if not over or not under:
            break
        moved = False
        for p in partitions:
            replicas = chosen[p.id]
            if over[0] in replicas and under[0] not in replicas:
                replicas[replicas.index(over[0])] = under[0]
                load[over[0]] -= 1
                load[under[0]] += 1
                moved = True
                break
        if not moved:
            break
    # Pass 3: preferred leaders spread evenly; a partition keeps its current first replica while under the share.
    leader_cap = math.ceil(len(partitions) / len(targets))
    leaders: Counter[int] = Counter()
    moves = []
    for p in partitions:
        replicas = chosen[p.id]
        first = replicas[0]
        if leaders[first] >= leader_cap or (p.replicas and first != p.replicas[0]):
            first = min(replicas, key=lambda b: (leaders[b], b != (p.replicas[0] if p.replicas else None), b))
        leaders[first] += 1
        ordered = (first, *(b for b in replicas if b != first))
        moves.append(PartitionMove(topic.name, p.id, p.replicas, ordered))
    return ReassignmentPlan(tuple(moves))
