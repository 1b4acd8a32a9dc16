"""The admin source against the librdkafka mock cluster: the Kafka protocol over real sockets, in-process brokers."""

from __future__ import annotations

import time

import pytest
from confluent_kafka import Consumer, Producer

from kafkatop.backends.admin import AdminSource
from kafkatop.backends.errors import SourceUnavailable
from kafkatop.backends.mock_cluster import MockCluster
from kafkatop.backends.zookeeper_server import free_port
from tests.conftest import wait_for


def produce(cluster: MockCluster, topic: str, per_partition: dict[int, int]) -> None:
    producer = Producer({"bootstrap.servers": cluster.bootstrap_servers})
    for p, n in per_partition.items():
        for i in range(n):
            producer.produce(topic, value=f"m{i}".encode(), partition=p)
    assert producer.flush(10) == 0


def consume_and_commit(cluster: MockCluster, group: str, topic: str, count: int) -> None:
    consumer = Consumer(
        {
            "bootstrap.servers": cluster.bootstrap_servers,
            "group.id": group,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    consumer.subscribe([topic])
    got, deadline = 0, time.monotonic() + 20
    while got < count and time.monotonic() < deadline:
        msg = consumer.poll(0.2)
        if msg is not None and msg.error() is None:
            got += 1
    assert got == count
    consumer.commit(asynchronous=False)
    consumer.close()


def test_snapshot_of_replicated_topics(mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("purchases", 3, 3)
    mock_cluster.create_topic("audit", 2, 2)
    mock_cluster.create_topic("__consumer_offsets", 5, 3)
    mock_cluster.set_broker_rack(2, "rack-b")
    produce(mock_cluster, "purchases", {0: 4, 1: 0, 2: 7})
    snap = AdminSource(mock_cluster.bootstrap_servers).poll()

    assert snap.cluster_id and snap.controller_id == 1
    assert [(b.id, b.alive) for b in snap.brokers] == [(1, True), (2, True), (3, True)]
    assert snap.broker(2).rack == "rack-b"  # type: ignore[union-attr]
    assert [t.name for t in snap.topics] == ["audit", "purchases"]  # internal topics hidden
    purchases = snap.topic("purchases")
    assert purchases is not None and purchases.replication_factor == 3
    assert [(p.id, p.low_watermark, p.high_watermark, p.messages) for p in purchases.partitions] == [
        (0, 0, 4, 4),
        (1, 0, 0, 0),
        (2, 0, 7, 7),
    ]
    for p in purchases.partitions:
        assert sorted(p.replicas) == [1, 2, 3] and p.leader in p.replicas and p.isr and not p.offline_replicas
    assert snap.under_replicated == () and snap.offline == ()

    with_internal = AdminSource(mock_cluster.bootstrap_servers, include_internal=True).poll()
    internal = with_internal.topic("__consumer_offsets")
    assert internal is not None and internal.internal


def test_leader_moved_is_seen_as_skew(mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("t", 1, 3)
    source = AdminSource(mock_cluster.bootstrap_servers)
    before = source.poll().topics[0].partitions[0]
    new_leader = next(b for b in before.replicas if b != before.leader)
    mock_cluster.set_partition_leader("t", 0, new_leader)
    after = source.poll()
    p = after.topics[0].partitions[0]
    assert p.leader == new_leader
    assert p.leader_is_preferred == (new_leader == p.replicas[0])
    assert after.leader_skew[p.replicas[0]] == (0.0 if p.leader_is_preferred else 1.0)


def test_broker_down_gives_partial_data_fast(mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("t", 3, 3)
    produce(mock_cluster, "t", {0: 2, 1: 2, 2: 2})
    mock_cluster.set_partition_leader("t", 0, 3)
    mock_cluster.set_partition_leader("t", 1, 1)
    mock_cluster.set_partition_leader("t", 2, 2)
    source = AdminSource(mock_cluster.bootstrap_servers, timeout_s=2.0)
    assert source.poll().broker(3).alive  # type: ignore[union-attr]
    mock_cluster.set_broker_down(3)

    started = time.monotonic()
    snap = source.poll()
    assert time.monotonic() - started < 2.5  # bounded by the poll's deadline, never a hang
    assert [(b.id, b.alive) for b in snap.brokers] == [(1, True), (2, True), (3, False)]
    assert snap.broker(3).host == "127.0.0.1"  # type: ignore[union-attr] # last known address kept
    parts = {p.id: p for p in snap.topics[0].partitions}
    assert all(p.offline_replicas == (3,) for p in parts.values())
    # The partition led by the dead broker has no watermarks; the others do, and the fault is named.
    assert parts[0].high_watermark is None and parts[1].high_watermark == 2 and parts[2].high_watermark == 2
    assert any("ListOffsets" in p.what and "t-0" in p.reason for p in snap.problems)

    mock_cluster.set_broker_up(3)

    def recovered() -> bool:
        snap = source.poll()
        return snap.broker(3).alive and snap.topics[0].partitions[0].high_watermark == 2  # type: ignore[union-attr]

    wait_for(recovered, timeout_s=10, interval_s=0.1, what="broker 3 back with its partition's watermarks")


def test_offline_partition_has_no_leader(mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("t", 2, 2)
    mock_cluster.set_partition_leader("t", 1, -1)
    snap = AdminSource(mock_cluster.bootstrap_servers).poll()
    assert [p.id for p in snap.offline] == [1]
    assert snap.topics[0].partitions[1].leader == -1


def test_consumer_group_committed_offsets_and_lag(mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("orders", 2, 3)
    produce(mock_cluster, "orders", {0: 10, 1: 10})
    consume_and_commit(mock_cluster, "billing", "orders", 12)
    produce(mock_cluster, "orders", {0: 3})
    snap = AdminSource(mock_cluster.bootstrap_servers, watch_groups=["billing"]).poll()
    (group,) = snap.groups
    assert group.group_id == "billing"
    committed = {o.partition: o.committed for o in group.offsets}
    assert sum(v for v in committed.values() if v is not None) == 12
    assert {o.partition: o.high_watermark for o in group.offsets} == {0: 13, 1: 10}
    assert group.total_lag == 23 - 12  # produced minus committed
    # What the mock cannot do is said, not hidden.
    assert any(p.what == "DescribeGroups" for p in snap.problems)


def test_group_offsets_stay_right_on_later_polls(mock_cluster: MockCluster) -> None:
    """Where groups cannot be described, later polls name only the topics a group committed on."""
    mock_cluster.create_topic("orders", 2, 3)
    mock_cluster.create_topic("other", 8, 3)
    produce(mock_cluster, "orders", {0: 5, 1: 5})
    consume_and_commit(mock_cluster, "billing", "orders", 10)
    source = AdminSource(mock_cluster.bootstrap_servers, watch_groups=["billing"])
    first = source.poll().groups[0]
    produce(mock_cluster, "orders", {1: 4})
    mock_cluster.start_request_tracking()
    second = source.poll().groups[0]
    assert [(o.partition, o.committed) for o in second.offsets] == [(o.partition, o.committed) for o in first.offsets]
    assert (first.total_lag, second.total_lag) == (0, 4)
    assert mock_cluster.request_counts()["OffsetFetch"] == 1


def test_requests_per_poll_do_not_grow_with_partitions() -> None:
    counts = []
    for partitions in (4, 200):
        with MockCluster(3) as cluster:
            for t in range(5):
                cluster.create_topic(f"t{t}", partitions, 3)
            source = AdminSource(cluster.bootstrap_servers)
            source.poll()  # first poll: connections, ApiVersions, configs
            cluster.start_request_tracking()
            source.poll()
            counts.append(sum(n for api, n in cluster.request_counts().items() if api != "ApiVersions"))
    assert counts[0] == counts[1], counts
    assert counts[1] <= 12


def test_unreachable_bootstrap_is_a_typed_error_within_the_timeout() -> None:
    port = free_port()  # nothing listens here
    source = AdminSource(f"127.0.0.1:{port}", timeout_s=1.0)
    started = time.monotonic()
    with pytest.raises(SourceUnavailable, match=f"127.0.0.1:{port}") as err:
        source.poll()
    assert time.monotonic() - started < 3
    assert "--bootstrap-server" in str(err.value)
