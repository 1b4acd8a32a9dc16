"""Hanging transactions, found as kafka-transactions.sh find-hanging finds them: the open transactions the partitions'
replicas track (DescribeProducers, to each leader or to one named broker) whose producer wrote nothing for longer than
a transaction may last (--max-transaction-timeout), that no coordinator will end: their producer id is not listed by
any coordinator (ListTransactions), their transactional id is not found (DescribeTransactions), or the coordinator's
transaction does not hold that partition. Such a transaction holds back the partition's last stable offset, and every
read_committed consumer with it, until an ABORT marker is written (`abort`)."""

from __future__ import annotations

import time

from kafkatop.backends.kafka.transactions.transactions import (
    check_broker,
    describe_producers,
    describe_transactions,
    list_transactions,
    require_describe_producers,
)
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.java_order import hash_order, topic_partition_hash
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.model.transactions import OpenTransaction, candidates, hanging

BATCH = 500  # partitions per DescribeProducers, as the tool (MAX_BATCH_SIZE)


def partitions_to_search(
    snapshot: ClusterSnapshot, broker_id: int | None, topic: str | None, partition: int | None
) -> list[TopicPartition]:
    """--topic [--partition], else every topic but the internal ones (as Admin.listTopics()), each partition with a
    replica on --broker-id when given."""
    if topic is not None and partition is not None:
        return [TopicPartition(topic, partition)]
    if topic is not None:
        found = snapshot.topic(topic)
        if found is None:
            raise BadInput(f"unknown topic {topic!r}: `kafkatop describe` lists the topics")
        topics = [found]
    else:
        topics = [t for t in snapshot.topics if not t.internal and not t.name.startswith("__")]
    return [
        TopicPartition(t.name, p.id)
        for t in topics
        for p in sorted(t.partitions, key=lambda p: p.id)
        if broker_id is None or broker_id in p.replicas
    ]


def find_hanging(
    connection: KafkaConnection, snapshot: ClusterSnapshot, timeout_s: float, *, broker_id: int | None,
    topic: str | None, partition: int | None, max_timeout_min: int,
) -> list[OpenTransaction]:  # fmt: skip
    """The hanging transactions of these partitions, in the tool's order. `broker_id`: ask that broker's replicas
    (else each partition's leader)."""
    check_broker(snapshot, broker_id)
    deadline = time.monotonic() + timeout_s
    partitions = partitions_to_search(snapshot, broker_id, topic, partition)
    if not partitions:
        require_describe_producers(connection, snapshot, broker_id, timeout_s)
    found: list[OpenTransaction] = []
    for start in range(0, len(partitions), BATCH):
        batch = partitions[start : start + BATCH]
        answers = describe_producers(connection, snapshot, batch, _left(deadline), broker_id)
        # The tool reads each batch's answers from a HashMap sized for it: its order, not the partitions'.
        ordered = hash_order(batch, lambda tp: topic_partition_hash(tp.topic, tp.partition), len(batch))
        now_ms = int(time.time() * 1000)
        found.extend(candidates((answers[tp] for tp in ordered), now_ms, max_timeout_min))
    if not found:
        return []
    producer_ids = sorted({t.producer.producer_id for t in found})
    listed = list_transactions(connection, snapshot.brokers_alive, _left(deadline), producer_ids=producer_ids)
    transactional_ids = {t.producer_id: t.transactional_id for t in listed if t.producer_id in producer_ids}
    descriptions = (
        describe_transactions(connection, sorted(set(transactional_ids.values())), _left(deadline))
        if transactional_ids
        else {}
    )
    return hanging(found, transactional_ids, descriptions)


def _left(deadline: float) -> float:
    return max(deadline - time.monotonic(), 0.001)
