"""The admin source against the librdkafka mock cluster: the Kafka protocol over real sockets, in-process brokers."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.groups import group_reader
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.backends.zookeeper.server import free_port
from tests.conftest import wait_for

ROOT = Path(__file__).resolve().parents[2]


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
    snap = AdminSource(KafkaConnection.parse(mock_cluster.bootstrap_servers)).poll()

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

    with_internal = AdminSource(KafkaConnection.parse(mock_cluster.bootstrap_servers), include_internal=True).poll()
    internal = with_internal.topic("__consumer_offsets")
    assert internal is not None and internal.internal


def test_leader_moved_is_seen_as_skew(mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("t", 1, 3)
    source = AdminSource(KafkaConnection.parse(mock_cluster.bootstrap_servers))
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
    source = AdminSource(KafkaConnection.parse(mock_cluster.bootstrap_servers), timeout_s=2.0)
    assert source.poll().broker(3).alive  # type: ignore[union-attr]
    mock_cluster.set_broker_down(3)

    started = time.monotonic()
    snap = source.poll()
    assert time.monotonic() - started < 10  # bounded by the poll's 2 s deadline (with a margin), never a hang
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
    snap = AdminSource(KafkaConnection.parse(mock_cluster.bootstrap_servers)).poll()
    assert [p.id for p in snap.offline] == [1]
    assert snap.topics[0].partitions[1].leader == -1


def test_consumer_group_committed_offsets_and_lag(mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("orders", 2, 3)
    produce(mock_cluster, "orders", {0: 10, 1: 10})
    consume_and_commit(mock_cluster, "billing", "orders", 12)
    produce(mock_cluster, "orders", {0: 3})
    snap = AdminSource(KafkaConnection.parse(mock_cluster.bootstrap_servers), watch_groups=["billing"]).poll()
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
    source = AdminSource(KafkaConnection.parse(mock_cluster.bootstrap_servers), watch_groups=["billing"])
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
            source = AdminSource(KafkaConnection.parse(cluster.bootstrap_servers))
            source.poll()  # first poll: connections, ApiVersions, configs
            # and the groups' listing learning that the mock has no ListGroups v3+ (librdkafka's then): a Metadata
            # of its may still land in the second poll; the third is steady
            source.poll()
            cluster.start_request_tracking()
            source.poll()
            counts.append(sum(n for api, n in cluster.request_counts().items() if api != "ApiVersions"))
    assert counts[0] == counts[1], counts
    assert counts[1] <= 12


def test_unreachable_bootstrap_is_a_typed_error_within_the_timeout() -> None:
    port = free_port()  # nothing listens here
    source = AdminSource(KafkaConnection.parse(f"127.0.0.1:{port}"), timeout_s=1.0)
    started = time.monotonic()
    with pytest.raises(SourceUnavailable, match=f"127.0.0.1:{port}") as err:
        source.poll()
    assert time.monotonic() - started < 15  # the 1 s timeout, with a margin; librdkafka alone would retry for ever
    assert "that the address is right" in str(err.value)  # no origin given: the address, whoever named it


# A coordinator that dies and stays the coordinator (as in Kafka with an RF 1 __consumer_offsets), then returns; and
# brokers answering OffsetFetch with NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE, as an old coordinator does once its
# groups moved. Through an AdminClient, librdkafka 2.16 aborts the process on the first (a timed-out coordinator
# request sent later) and segfaults on the second (ListConsumerGroupOffsets, librdkafka #5040); hence a subprocess.
COORDINATOR_FAULTS = textwrap.dedent(
    """
    import json, sys, time
    from confluent_kafka import Consumer, TopicPartition
    from kafkatop.backends.kafka.admin.admin import AdminSource
    from kafkatop.backends.kafka.mock import MockCluster
    from kafkatop.backends.model.connection import KafkaConnection

    cluster = MockCluster(3)
    cluster.create_topic("orders", 4, 3)
    groups = ["g1", "g2", "g3"]
    for i, g in enumerate(groups):
        cluster.set_group_coordinator(g, i + 1)
        consumer = Consumer({"bootstrap.servers": cluster.bootstrap_servers, "group.id": g, "log_level": 0})
        consumer.commit(offsets=[TopicPartition("orders", p, i + 1) for p in range(4)], asynchronous=False)
        consumer.close()
    source = AdminSource(
        KafkaConnection.parse(cluster.bootstrap_servers), watch_groups=groups, timeout_s=1.0, group_reads=sys.argv[1]
    )

    def poll(phase):
        started = time.monotonic()
        snap = source.poll()
        committed = {g.group_id: sum(o.committed or 0 for o in g.offsets) for g in snap.groups}
        print(json.dumps({
            "phase": phase,
            "broker1": cluster.bootstrap_servers.split(",")[0],
            "took": time.monotonic() - started,
            "committed": committed,
            "problems": [f"{p.what}: {p.reason}" for p in snap.problems if p.what.endswith(tuple(groups))],
        }), flush=True)
        return sum(committed.values())

    poll("before")
    cluster.set_broker_down(1)
    for _ in range(3):
        poll("down")
    cluster.set_broker_up(1)
    deadline = time.monotonic() + 10
    while poll("up") != 24 and time.monotonic() < deadline:
        time.sleep(0.1)
    for _ in range(2):
        poll("up")
    for code in (16, 15):  # NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE
        cluster.push_request_errors(9, [code] * 6)  # OffsetFetch answers these codes next
        for _ in range(4):
            poll(f"error {code}")
    source.close()
    cluster.close()
    print("survived")
    """
)


@pytest.mark.parametrize("mode", ["batched", "per-group"])
def test_group_offsets_survive_coordinator_faults(mode: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", COORDINATOR_FAULTS, mode], cwd=ROOT, capture_output=True, text=True, timeout=90
    )
    died = f" ({signal.Signals(-result.returncode).name})" if result.returncode < 0 else ""
    lines = result.stdout.splitlines()
    assert result.returncode == 0 and lines[-1:] == ["survived"], f"exit {result.returncode}{died}: {result.stderr}"
    polls = [json.loads(line) for line in lines[:-1]]
    right = {"g1": 4, "g2": 8, "g3": 12}
    assert polls[0]["committed"] == right and polls[0]["problems"] == []
    # Every poll kept its deadline, whatever the coordinators did.
    assert max(p["took"] for p in polls) < 5  # the 1 s deadline, with a margin: a waiting DescribeGroups is 3600 s
    # g1's coordinator down: g1 is there, without offsets, and a Problem names it; the groups of live coordinators
    # keep theirs, though the dead broker holds other requests of the poll (ListOffsets) until the deadline.
    down = [p for p in polls if p["phase"] == "down"]
    said = (
        # kafkatop's own connection to the coordinator is refused at once; a Consumer waits for it until the deadline
        "group g1: coordinator broker 1 (127.0.0.1:{port}): connection refused: is the node down, or is this the wrong "
        "port?"
        if mode == "batched"
        else "OffsetFetch g1: timed out"
    )
    port = polls[0]["broker1"].rsplit(":", 1)[1]
    assert all(p["committed"] == {**right, "g1": 0} and p["problems"] == [said.format(port=port)] for p in down)
    # Back: g1's offsets return within seconds (the readers retry a dead broker every second, not every ten).
    up = [p for p in polls if p["phase"] == "up"]
    assert any(p["committed"] == right for p in up)
    assert up[-1]["committed"] == right and up[-1]["problems"] == []
    # Coordinator errors are retried (by the readers' group handles; the batched way finds the coordinator again):
    # the last polls after each are whole again.
    for code in (16, 15):
        assert [p for p in polls if p["phase"] == f"error {code}"][-1]["committed"] == right


def test_offset_readers_are_bounded_and_groups_take_turns(
    mock_cluster: MockCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Committed offsets are read by a Consumer per group; past _MAX_READERS groups, the groups take turns."""
    monkeypatch.setattr(group_reader, "MAX_READERS", 3)
    mock_cluster.create_topic("orders", 2, 3)
    groups = [f"g{i}" for i in range(5)]
    for i, g in enumerate(groups):
        consumer = Consumer({"bootstrap.servers": mock_cluster.bootstrap_servers, "group.id": g})
        consumer.commit(offsets=[KafkaTopicPartition("orders", p, i + 1) for p in range(2)], asynchronous=False)
        consumer.close()
    source = AdminSource(
        KafkaConnection.parse(mock_cluster.bootstrap_servers), watch_groups=groups, group_reads="per-group"
    )
    try:
        seen: dict[str, int] = {}
        for _ in range(2):
            snap = source.poll()
            read = {g.group_id: sum(o.committed or 0 for o in g.offsets) for g in snap.groups if g.offsets}
            assert len(read) == 3 and len(source._groups._reader._readers) == 3
            skipped = [p for p in snap.problems if p.what.startswith("OffsetFetch")]
            assert len(skipped) == 2 and all("groups taking turns" in p.reason for p in skipped)
            seen.update(read)
        # Two polls read every group once at least, each with its own offsets.
        assert seen == {g: 2 * (i + 1) for i, g in enumerate(groups)}
    finally:
        source.close()
