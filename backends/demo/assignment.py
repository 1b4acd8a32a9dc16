"""Where Kafka places a new topic's replicas, for the demo's controller: the librdkafka mock gives every partition of a
3-broker cluster the replicas 1,2,3 in that order, so broker 1 would be every partition's preferred leader.

Kafka's rack-unaware assignment (AdminUtils.assignReplicasToBrokersRackUnaware, kept as
StripedReplicaPlacer's rack-unaware case in KRaft): the first replica of partition p is broker (start + p) % n of the
sorted broker list, round-robin, and the others follow it at a shift that grows by one every n partitions, so
that followers spread too. Kafka picks `start` and the first shift at random; the demo derives both from the topic's
name, so a topic is placed the same way every run. Standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence

from kafkatop.backends.model.java_order import string_hash


def assign_replicas(
    partitions: int, replication_factor: int, brokers: Sequence[int], start_index: int, replica_shift: int
) -> tuple[tuple[int, ...], ...]:
    """Replicas of partitions 0…partitions-1, each in assignment order (the first is the preferred leader)."""
    ids = sorted(brokers)
    n = len(ids)
    if partitions < 1:
        raise ValueError(f"partitions must be at least 1, not {partitions}")
    if not 1 <= replication_factor <= n:
        raise ValueError(f"replication factor {replication_factor} with {n} brokers")
    out = []
    shift = replica_shift
    for p in range(partitions):
        if p > 0 and p % n == 0:
            shift += 1
        first = (p + start_index) % n
        replicas = [ids[first]]
        for j in range(replication_factor - 1):
            replicas.append(ids[(first + 1 + (shift + j) % (n - 1)) % n])
        out.append(tuple(replicas))
    return tuple(out)


def placement(topic: str, brokers: Sequence[int]) -> tuple[int, int]:
    """The start index and first shift for `topic`: Kafka's random choice, made from the name instead."""
    h = abs(string_hash(topic))
    n = max(1, len(brokers))
    return h % n, (h // n) % n
