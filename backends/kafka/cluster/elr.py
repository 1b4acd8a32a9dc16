"""Each partition's eligible leader replicas (ELR) and last known ELR (KIP-966), read with DescribeTopicPartitions
from one live broker, page by page: what Kafka 4's kafka-topics.sh --describe prints after the ISR.

A cluster that does not answer it (Kafka before 3.8, the librdkafka mock, a security kafkatop's own protocol code
cannot speak) yields None, and the describe lines are those of a tool that does not know ELR."""

from __future__ import annotations

import time
from collections.abc import Sequence

from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.protocol.connection import BrokerConnection, Unsupported
from kafkatop.backends.protocol.describe_topic_partitions import (
    DESCRIBE_TOPIC_PARTITIONS,
    PARTITION_LIMIT,
    Cursor,
    Elr,
    decode_elr_page,
    request_body,
)
from kafkatop.backends.protocol.security import unsupported
from kafkatop.backends.protocol.wire import ProtocolError

MAX_PAGES = 10_000  # a cursor that never ends is a broker's bug, not a reason to loop forever


def read_elr(
    connection: KafkaConnection,
    snapshot: ClusterSnapshot,
    topics: Sequence[str],
    timeout_s: float,
    page_size: int = PARTITION_LIMIT,
) -> dict[tuple[str, int], Elr] | None:
    """(topic, partition) -> its ELR, for `topics`; None when no live broker answers DescribeTopicPartitions.
    `page_size`: partitions per response (kafka-topics.sh's --partition-size-limit-per-response, 2000)."""
    if not topics or unsupported(connection.client_settings) is not None:
        return None
    deadline = time.monotonic() + timeout_s
    for broker in snapshot.brokers_alive:
        if broker.host is None or broker.port is None:
            continue
        try:
            with BrokerConnection(broker.host, broker.port, deadline, connection.client_settings) as conn:
                version = conn.version_for(DESCRIBE_TOPIC_PARTITIONS)
                return elr_pages(conn, version, topics, page_size)
        except Unsupported:
            return None  # every broker of a cluster speaks the same protocol: asking another changes nothing
        except (OSError, ProtocolError):
            continue  # this broker is going or gone: the next one
    return None


def elr_pages(
    conn: BrokerConnection, version: int, topics: Sequence[str], page_size: int = PARTITION_LIMIT
) -> dict[tuple[str, int], Elr]:
    """Every page of DescribeTopicPartitions for `topics`, over `conn`: (topic, partition) -> its ELR."""
    found: dict[tuple[str, int], Elr] = {}
    cursor: Cursor | None = None
    asked = set(topics)
    for _ in range(MAX_PAGES):
        body = request_body(topics, cursor, page_size)
        page = decode_elr_page(conn.send(DESCRIBE_TOPIC_PARTITIONS, version, body))
        unknown = {topic for topic, _ in page.elr} - asked
        if unknown:  # not an answer to this request
            raise ProtocolError(f"DescribeTopicPartitions answered for topics not asked: {', '.join(sorted(unknown))}")
        found.update(page.elr)
        cursor = page.next_cursor
        if cursor is None:
            return found
    raise ProtocolError(f"DescribeTopicPartitions still had a next page after {MAX_PAGES} pages")
