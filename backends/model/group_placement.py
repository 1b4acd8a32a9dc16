"""Where Kafka places a consumer group: the __consumer_offsets partition that holds it (whose leader is its
coordinator), by Java's String.hashCode — computed here as Kafka does, so kafkatop and the demo agree with a broker."""

from __future__ import annotations

from kafkatop.backends.model.java_order import string_hash

OFFSETS_TOPIC = "__consumer_offsets"


def offsets_partition(group_id: str, partitions: int) -> int:
    """The __consumer_offsets partition that holds a group, whose leader is the group's coordinator.

    Kafka's rule (GroupCoordinatorService.partitionFor): Utils.abs(groupId.hashCode()) % partitions, where Utils.abs
    maps Integer.MIN_VALUE to 0 instead of leaving it negative as Math.abs does.
    """
    h = string_hash(group_id)
    return (0 if h == -(1 << 31) else abs(h)) % partitions
