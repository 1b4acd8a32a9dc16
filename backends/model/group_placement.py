"""Where Kafka places a consumer group: the __consumer_offsets partition that holds it (whose leader is its
coordinator), by Java's String.hashCode — computed here as Kafka does, so kafkatop and the demo agree with a broker."""

from __future__ import annotations

OFFSETS_TOPIC = "__consumer_offsets"


def java_string_hash(text: str) -> int:
    """Java's String.hashCode: over UTF-16 code units (a character beyond the BMP counts twice), as a signed int32."""
    data = text.encode("utf-16-be")
    h = 0
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def offsets_partition(group_id: str, partitions: int) -> int:
    """The __consumer_offsets partition that holds a group, whose leader is the group's coordinator.

    Kafka's rule (GroupCoordinatorService.partitionFor): Utils.abs(groupId.hashCode()) % partitions, where Utils.abs
    maps Integer.MIN_VALUE to 0 instead of leaving it negative as Math.abs does.
    """
    h = java_string_hash(group_id)
    return (0 if h == -(1 << 31) else abs(h)) % partitions
