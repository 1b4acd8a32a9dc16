"""DescribeTopicPartitions (API 75): the request's bytes, the response decoded from answers recorded from a real Kafka
4.1 broker (tests/fixtures/protocol/: a 4-partition page with its cursor, and an unknown topic's error), bounded
decoding of bytes that lie, and the describe lines with Kafka 4's Elr and LastKnownElr columns."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from kafkatop.backends.insight.describe import format_describe
from kafkatop.backends.model.cluster import Broker, ClusterSnapshot, Partition, Topic
from kafkatop.backends.protocol.describe_topic_partitions import (
    Cursor,
    DescribedPage,
    check_page,
    decode_page,
    request_body,
)
from kafkatop.backends.protocol.wire import ProtocolError

RECORDED = Path(__file__).parents[1] / "fixtures" / "protocol"


def test_the_request_is_kafkas_v0_layout() -> None:
    # Topics: compact array of (compact string, no tags); the limit; the cursor: -1 when null, else 1 + struct + tags.
    assert request_body(["t"], None, 2000) == b"\x02\x02t\x00" + (2000).to_bytes(4, "big") + b"\xff" + b"\x00"
    assert request_body(["t"], Cursor("t", 4), 3) == (
        b"\x02\x02t\x00" + (3).to_bytes(4, "big") + b"\x01\x02t" + (4).to_bytes(4, "big") + b"\x00" + b"\x00"
    )


def test_a_page_recorded_from_kafka_4_1_is_read_with_its_cursor() -> None:
    # Asked for orders and __consumer_offsets, 4 partitions a page: orders' 3, then __consumer_offsets-0.
    page = decode_page((RECORDED / "describe_topic_partitions_page1.bin").read_bytes())
    assert [(p.topic, p.partition) for p in page.partitions] == [
        ("__consumer_offsets", 0), ("__consumer_offsets", 1), ("__consumer_offsets", 2), ("__consumer_offsets", 3),
    ]  # fmt: skip
    assert page.next_cursor is not None and page.next_cursor.topic == "__consumer_offsets"
    first = page.partitions[0]
    assert (first.leader, first.replicas, first.isr, first.error_code) == (1, (1,), (1,), 0)
    assert all(p.elr == () and p.last_known_elr == () for p in page.partitions)  # empty, not null, on 4.1
    assert page.topic_errors == ()


def test_an_unknown_topic_comes_back_as_its_error() -> None:
    page = decode_page((RECORDED / "describe_topic_partitions_unknown.bin").read_bytes())
    assert page == DescribedPage((), (("nope-topic", 3),), None)  # 3: UNKNOWN_TOPIC_OR_PARTITION


def test_bytes_that_lie_are_refused_not_looped_over() -> None:
    good = (RECORDED / "describe_topic_partitions_page1.bin").read_bytes()
    with pytest.raises(ProtocolError):
        decode_page(good[:-7])  # truncated
    with pytest.raises(ProtocolError):
        decode_page(good[:9] + b"\x7f" + good[10:])  # a topic count larger than the bytes left
    with pytest.raises(ProtocolError, match="not asked"):
        check_page(decode_page(good), ["orders"])


def _snapshot() -> ClusterSnapshot:
    partitions = (Partition("orders", 0, 1, (1, 2, 3), (1,)), Partition("orders", 1, 2, (2, 3, 1), (2, 3, 1)))
    topic = Topic("orders", partitions, topic_id="OFLYY4qvTWeU7QupeQJQlQ")
    return ClusterSnapshot("test", 0.0, "c", "kraft", None, (Broker(1, "h", 1), Broker(2, "h", 2)), (topic,))


def test_describe_prints_the_elr_columns_as_kafka_4_does() -> None:
    elr = {("orders", 0): ((2, 3), (3,)), ("orders", 1): ((), ())}
    lines = format_describe(_snapshot(), "orders", elr=elr).splitlines()
    assert lines[1] == "\tTopic: orders\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1\tElr: 2,3\tLastKnownElr: 3"
    assert lines[2] == "\tTopic: orders\tPartition: 1\tLeader: 2\tReplicas: 2,3,1\tIsr: 2,3,1\tElr: \tLastKnownElr: "
    # A broker that sent null: as kafka-topics.sh prints it. A cluster without the request: no columns at all.
    assert format_describe(_snapshot(), "orders", elr={}).splitlines()[1].endswith("\tElr: N/A\tLastKnownElr: N/A")
    assert format_describe(_snapshot(), "orders").splitlines()[1].endswith("\tIsr: 1")


def test_a_leaderless_partition_reads_none_where_the_cluster_speaks_kafka_4() -> None:
    snapshot = _snapshot()
    gone = replace(snapshot.topics[0].partitions[0], leader=-1, isr=())
    topic = replace(snapshot.topics[0], partitions=(gone, snapshot.topics[0].partitions[1]))
    snapshot = replace(snapshot, topics=(topic,))
    # As kafka-topics.sh 4.1 printed it on a lab whose last ISR member was killed (ELR on, min.insync.replicas=2).
    kafka_4 = format_describe(snapshot, "orders", elr={("orders", 0): ((1,), (1,))}).splitlines()[1]
    assert kafka_4 == "\tTopic: orders\tPartition: 0\tLeader: none\tReplicas: 1,2,3\tIsr: \tElr: 1\tLastKnownElr: 1"
    assert "\tLeader: -1\t" in format_describe(snapshot, "orders").splitlines()[1]  # the labs' ZooKeeper-era word
