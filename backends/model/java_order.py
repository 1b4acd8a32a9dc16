"""The order in which Java's HashMap and HashSet hand back their keys, so that a table kafkatop prints lists its rows in
the order Kafka's own tool (Java) prints them: kafka-transactions.sh lists coordinators from a HashMap<Integer>, a
transaction's partitions from a HashSet<TopicPartition>, hanging transactions grouped in a HashMap<Long>;
kafka-topics.sh its topics and configs, kafka-acls.sh its principals, kafka-configs.sh its quotas,
kafka-broker-api-versions.sh its brokers (a HashMap<Node>). Kafka places a
consumer group by its id's String.hashCode (group_placement.py).

A HashMap iterates its table's buckets in order, each bucket's keys in insertion order (kept through every resize);
a key's bucket is (h ^ (h >>> 16)) & (capacity - 1), h its hashCode(). Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import TypeVar

T = TypeVar("T")

DEFAULT_CAPACITY = 16  # new HashMap<>(), new HashSet<>()
LOAD_FACTOR = 0.75


def int32(value: int) -> int:
    """`value` as Java's int: its low 32 bits, signed."""
    value &= 0xFFFF_FFFF
    return value - (1 << 32) if value >= 1 << 31 else value


@lru_cache(maxsize=4096)
def string_hash(s: str) -> int:
    """java.lang.String.hashCode(): over UTF-16 code units, in 32-bit arithmetic. Kept for the few thousand strings
    last asked: the configs kafka-topics prints are the same few dozen names for each of 9,000 topics."""
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFF_FFFF
    return int32(h)


def long_hash(value: int) -> int:
    """java.lang.Long.hashCode(): (int) (value ^ (value >>> 32))."""
    unsigned = value & 0xFFFF_FFFF_FFFF_FFFF
    return int32(unsigned ^ (unsigned >> 32))


def topic_partition_hash(topic: str, partition: int) -> int:
    """org.apache.kafka.common.TopicPartition.hashCode(): 31 * (31 + partition) + topic.hashCode()."""
    return int32(31 * (31 + partition) + string_hash(topic))


def node_hash(node_id: int, host: str, port: int, rack: str | None, fenced: bool = False) -> int:
    """org.apache.kafka.common.Node.hashCode() in Kafka 4.x: host, id, port, rack, then isFenced (Boolean's hash)."""
    h = 31 + string_hash(host)
    for part in (node_id, port, string_hash(rack) if rack is not None else 0, 1231 if fenced else 1237):
        h = int32(31 * h + part)
    return h


def capacity(size: int, initial: int = DEFAULT_CAPACITY) -> int:
    """A HashMap's table size once `size` keys are in: `initial` as HashMap(int) rounds it (a power of two), doubled
    while the size is over its threshold (capacity × 0.75, truncated)."""
    cap = 1
    while cap < max(initial, 1):
        cap *= 2
    while size > int(cap * LOAD_FACTOR):
        cap *= 2
    return cap


def hash_order(keys: Iterable[T], hash_of: Callable[[T], int], initial: int = DEFAULT_CAPACITY) -> list[T]:
    """`keys` (distinct, in insertion order) in the order a Java HashMap of them iterates."""
    items = list(keys)
    mask = capacity(len(items), initial) - 1

    def bucket(key: T) -> int:
        h = hash_of(key) & 0xFFFF_FFFF
        return (h ^ (h >> 16)) & mask

    return sorted(items, key=bucket)  # sorted() is stable: a bucket keeps its insertion order
