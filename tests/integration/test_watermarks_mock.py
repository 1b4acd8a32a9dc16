"""The watermarks of a poll (watermarks.py: two ListOffsets per leader, kafkatop's own) against the librdkafka mock
over real sockets: the same log start and end offsets and leader epochs as confluent-kafka's ListOffsets, two requests
per leader whatever the number of partitions, and the AdminClient's way kept where kafkatop's connections cannot
speak the cluster's security."""

from __future__ import annotations

import time

from confluent_kafka import TopicPartition as KTP
from confluent_kafka.admin import AdminClient, OffsetSpec

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.watermarks import WatermarkReader
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.connection import KafkaConnection
from tests.integration.test_admin_mock import produce


def librdkafka_offsets(bootstrap: str, tps: list[KTP], spec: OffsetSpec) -> dict[tuple[str, int], tuple[int, int]]:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.list_offsets({tp: spec for tp in tps}, request_timeout=10)
    return {(tp.topic, tp.partition): (f.result().offset, f.result().leader_epoch) for tp, f in futures.items()}


def test_the_same_watermarks_as_librdkafka_in_two_requests_per_leader(mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("orders", 12, 3)
    mock_cluster.create_topic("payments", 5, 3)
    produce(mock_cluster, "orders", {p: p + 1 for p in range(12)})
    produce(mock_cluster, "payments", {p: 3 * p for p in range(5)})
    for p in range(12):
        mock_cluster.set_partition_leader("orders", p, p % 3 + 1)
    source = AdminSource(KafkaConnection.parse(mock_cluster.bootstrap_servers), timeout_s=3.0)
    try:
        source.poll()
        mock_cluster.start_request_tracking()
        snap = source.poll()
        counts = mock_cluster.request_counts()
        mock_cluster.stop_request_tracking()
    finally:
        source.close()
    tps = [KTP(t.name, p.id) for t in snap.topics for p in t.partitions]
    low = librdkafka_offsets(mock_cluster.bootstrap_servers, tps, OffsetSpec.earliest())
    high = librdkafka_offsets(mock_cluster.bootstrap_servers, tps, OffsetSpec.latest())
    ours = {(p.topic, p.id): (p.low_watermark, p.high_watermark, p.leader_epoch) for p in snap.partitions}
    assert ours == {k: (low[k][0], high[k][0], high[k][1]) for k in ours}  # the mock answers no leader epoch: None
    assert ours[("orders", 11)][:2] == (0, 12) and ours[("payments", 4)][:2] == (0, 12)  # (no DeleteRecords here)
    assert not [p for p in snap.problems if "ListOffsets" in p.what]
    # 17 partitions on 3 leaders: two requests to each (earliest, latest), none per partition.
    assert counts["ListOffsets"] == 2 * 3


def test_a_secured_cluster_kafkatop_cannot_speak_to_keeps_the_admin_client() -> None:
    kerberos = KafkaConnection.parse("127.0.0.1:1", {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "GSSAPI"})
    assert not WatermarkReader.speaks(kerberos)
    scram = {"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512", "sasl.username": "u",
             "sasl.password": "p"}  # fmt: skip
    assert WatermarkReader.speaks(KafkaConnection.parse("127.0.0.1:1", scram))


def test_a_dead_leader_costs_its_partitions_only(mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("t", 6, 3)
    produce(mock_cluster, "t", dict.fromkeys(range(6), 4))
    for p in range(6):
        mock_cluster.set_partition_leader("t", p, p % 3 + 1)
    source = AdminSource(KafkaConnection.parse(mock_cluster.bootstrap_servers), timeout_s=2.0)
    try:
        source.poll()
        mock_cluster.set_broker_down(2)
        started = time.monotonic()
        snap = source.poll()
        assert time.monotonic() - started < 5
        highs = {p.id: p.high_watermark for p in snap.partitions}
        assert highs == {0: 4, 1: None, 2: 4, 3: 4, 4: None, 5: 4}
        said = [p.reason for p in snap.problems if p.what == "ListOffsets"]
        assert said == ["leader broker 2 is down for t-1, t-4"]
    finally:
        source.close()


def test_a_topic_that_did_not_change_is_the_same_object(mock_cluster: MockCluster) -> None:
    """Snapshots share what did not change: the UI tells an unchanged topic by identity."""
    for name in ("quiet", "busy"):
        mock_cluster.create_topic(name, 3, 3)
    source = AdminSource(KafkaConnection.parse(mock_cluster.bootstrap_servers), timeout_s=3.0)
    try:
        first = source.poll()
        second = source.poll()
        assert all(a is b for a, b in zip(first.topics, second.topics, strict=True))
        produce(mock_cluster, "busy", {1: 2})
        third = source.poll()
    finally:
        source.close()
    assert third.topic("quiet") is second.topic("quiet")
    busy = third.topic("busy")
    assert busy is not second.topic("busy") and busy is not None and busy.partitions[1].high_watermark == 2
