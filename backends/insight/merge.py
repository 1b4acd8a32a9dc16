"""One cluster view from two sources in ZooKeeper mode: the metadata poll, with ZooKeeper's own state laid over it.

In ZooKeeper mode the controller writes leaders, ISRs and its own election to znodes, and brokers register there;
brokers learn of it afterwards. The watches (backends/zookeeper/watch.py) see those znodes change within
milliseconds, so leaders, ISRs, live brokers and the controller are taken from ZooKeeper, and what only brokers know —
watermarks, consumer groups, topic configs — from the poll. Pure: model only.
"""

from __future__ import annotations

from dataclasses import replace

from kafkatop.backends.model.cluster import ClusterSnapshot, Partition, merge_brokers


def with_zookeeper(polled: ClusterSnapshot, zookeeper: ClusterSnapshot) -> ClusterSnapshot:
    states = {(p.topic, p.id): p for p in zookeeper.partitions}
    alive = {b.id: b for b in zookeeper.brokers_alive}

    def laid_over(p: Partition) -> Partition:
        z = states.get((p.topic, p.id))
        if z is None:
            return p
        return replace(
            p,
            leader=z.leader,
            isr=z.isr,
            leader_epoch=z.leader_epoch if z.leader_epoch is not None else p.leader_epoch,
            offline_replicas=tuple(r for r in p.replicas if r not in alive),
        )

    topics = [replace(t, partitions=tuple(laid_over(p) for p in t.partitions)) for t in polled.topics]
    shown = {t.name for t in polled.topics}
    # Created since the poll: shown from the znodes until the poll has them (internal ones only if the poll shows
    # internal topics at all).
    with_internal = any(t.internal for t in polled.topics)
    topics += [t for t in zookeeper.topics if t.name not in shown and (with_internal or not t.internal)]
    replica_ids = (r for t in topics for p in t.partitions for r in p.replicas)
    return replace(
        polled,
        source=f"{polled.source}+zookeeper",
        taken_at=max(polled.taken_at, zookeeper.taken_at),
        cluster_id=polled.cluster_id or zookeeper.cluster_id,
        mode="zk",
        controller_id=zookeeper.controller_id if zookeeper.controller_id is not None else polled.controller_id,
        brokers=merge_brokers(alive, {b.id: b for b in polled.brokers}, replica_ids),
        topics=tuple(sorted(topics, key=lambda t: t.name)) if len(topics) != len(polled.topics) else tuple(topics),
        problems=polled.problems + zookeeper.problems,
    )
