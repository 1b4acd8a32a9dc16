"""The ZooKeeper source against a real ZooKeeper holding znodes written exactly as Kafka writes them."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from kazoo.client import KazooClient
from kazoo.retry import KazooRetry

from kafkatop.backends.model.errors import NotAKafkaZooKeeper, SourceUnavailable
from kafkatop.backends.model.zookeeper import (
    BrokerDeregistered,
    BrokerRegistered,
    ControllerChanged,
    PartitionStateChanged,
    TopicsChanged,
    ZkEvent,
)
from kafkatop.backends.zookeeper.server import ZooKeeperServer, free_port
from kafkatop.backends.zookeeper.watch import ZooKeeperSource
from tests.conftest import wait_for
from tests.fixtures import kafka_znodes as kz


def next_event(source: ZooKeeperSource, kind: type, timeout_s: float = 10.0) -> ZkEvent:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        ev = source.events.get(timeout=max(0.01, deadline - time.monotonic()))
        if isinstance(ev, kind):
            return ev
    raise AssertionError(f"no {kind.__name__} within {timeout_s} s")


@pytest.fixture
def lab(zk_chroot: tuple[str, KazooClient]) -> Iterator[tuple[str, KazooClient, list[KazooClient]]]:
    """Three registered brokers (0, 1, 2 as in the labs), a controller, and `purchases` 3 partitions × RF 3."""
    hosts, zk = zk_chroot
    brokers = [kz.register_broker(hosts, b, 9092 + b, rack=f"r{b}") for b in (0, 1, 2)]
    kz.write_cluster_id(zk, "lab-cluster-id")
    kz.write_controller(zk, 0, epoch=1)
    kz.create_topic(zk, "purchases", {0: [0, 1, 2], 1: [1, 2, 0], 2: [2, 0, 1]})
    try:
        yield hosts, zk, brokers
    finally:
        for b in brokers:
            b.stop()
            b.close()


def test_snapshot_reads_kafkas_znodes(lab: tuple[str, KazooClient, list[KazooClient]]) -> None:
    hosts, _, _ = lab
    with ZooKeeperSource(hosts) as source:
        snap = source.snapshot()
    assert (snap.mode, snap.cluster_id, snap.controller_id) == ("zk", "lab-cluster-id", 0)
    assert [(b.id, b.port, b.rack, b.alive) for b in snap.brokers] == [
        (0, 9092, "r0", True),
        (1, 9093, "r1", True),
        (2, 9094, "r2", True),
    ]
    (topic,) = snap.topics
    assert [(p.id, p.leader, p.replicas, p.isr, p.leader_epoch) for p in topic.partitions] == [
        (0, 0, (0, 1, 2), (0, 1, 2), 0),
        (1, 1, (1, 2, 0), (1, 2, 0), 0),
        (2, 2, (2, 0, 1), (2, 0, 1), 0),
    ]
    assert snap.problems == ()


def test_broker_death_is_pushed_then_isr_shrink(lab: tuple[str, KazooClient, list[KazooClient]]) -> None:
    hosts, zk, brokers = lab
    with ZooKeeperSource(hosts) as source:
        brokers[1].stop()  # the broker's session ends: its ephemeral registration disappears
        ev = next_event(source, BrokerDeregistered)
        assert isinstance(ev, BrokerDeregistered) and ev.broker_id == 1
        # The controller then moves leadership of partition 1 and shrinks the ISRs, as Kafka does.
        kz.set_partition_state(zk, "purchases", 1, leader=2, isr=[2, 0], leader_epoch=1)
        ev = next_event(source, PartitionStateChanged)
        assert isinstance(ev, PartitionStateChanged)
        assert (ev.topic, ev.partition, ev.leader_changed, ev.isr_changed) == ("purchases", 1, True, True)
        assert ev.previous is not None and ev.previous.leader == 1
        assert ev.state is not None and (ev.state.leader, ev.state.isr, ev.state.leader_epoch) == (2, (2, 0), 1)
        snap = source.snapshot()
        assert [b.id for b in snap.brokers_down] == [1]
        p1 = snap.topics[0].partitions[1]
        assert (p1.leader, p1.offline_replicas, p1.under_replicated) == (2, (1,), True)

        brokers[1] = kz.register_broker(hosts, 1, 9093)  # the broker comes back
        ev = next_event(source, BrokerRegistered)
        assert isinstance(ev, BrokerRegistered) and ev.broker.id == 1 and ev.broker.port == 9093


def test_controller_change_and_new_topic(lab: tuple[str, KazooClient, list[KazooClient]]) -> None:
    hosts, zk, _ = lab
    with ZooKeeperSource(hosts) as source:
        zk.delete("/controller")
        ev = next_event(source, ControllerChanged)
        assert isinstance(ev, ControllerChanged) and (ev.previous, ev.controller) == (0, None)
        kz.write_controller(zk, 2, epoch=2)
        ev = next_event(source, ControllerChanged)
        assert isinstance(ev, ControllerChanged) and (ev.controller, ev.epoch) == (2, 2)

        kz.create_topic(zk, "TestLAB2", {0: [1, 2]})
        ev = next_event(source, TopicsChanged)
        assert isinstance(ev, TopicsChanged) and ev.created == ("TestLAB2",)
        # The controller writes each partition's state after the assignment; an existence watch catches it.
        ev = next_event(source, PartitionStateChanged)
        assert isinstance(ev, PartitionStateChanged) and ev.previous is None and ev.topic == "TestLAB2"
        lab2 = source.snapshot().topic("TestLAB2")
        assert lab2 is not None and (lab2.partitions[0].leader, lab2.partitions[0].isr) == (1, (1, 2))


def test_malformed_registration_is_a_problem_not_a_failure(lab: tuple[str, KazooClient, list[KazooClient]]) -> None:
    hosts, zk, _ = lab
    zk.create("/brokers/ids/7", b'{"host": "h", "port": ', ephemeral=True)
    with ZooKeeperSource(hosts) as source:
        snap = source.snapshot()
    assert [b.id for b in snap.brokers_alive] == [0, 1, 2, 7]
    (problem,) = snap.problems
    assert problem.what == "/brokers/ids/7" and "not valid JSON" in problem.reason
    assert len(snap.topics[0].partitions) == 3  # the rest of the cluster is still there


def test_zookeeper_without_kafka_znodes(zk_chroot: tuple[str, KazooClient]) -> None:
    hosts, zk = zk_chroot
    zk.ensure_path("/kafka/brokers/ids")  # Kafka configured with zookeeper.connect=…/kafka
    with pytest.raises(NotAKafkaZooKeeper, match=r"holds no Kafka znodes.*under /kafka"):
        ZooKeeperSource(hosts, timeout_s=3).start()


def test_wrong_zookeeper_address_fails_fast() -> None:
    port = free_port()
    started = time.monotonic()
    with pytest.raises(SourceUnavailable, match=f"127.0.0.1:{port}.*--zookeeper"):
        ZooKeeperSource(f"127.0.0.1:{port}", timeout_s=1.0).start()
    assert time.monotonic() - started < 15  # the 1 s timeout, with a margin; kazoo alone would retry for ever


def test_survives_a_zookeeper_restart(tmp_path: Path) -> None:
    """Its own ZooKeeper: stopped and started again on the same port and data; the watches must still work."""
    server = ZooKeeperServer(tmp_path)
    server.start()
    try:
        # Retries at most a second apart: kazoo's default backoff grows to minutes, and would outwait the test.
        zk = KazooClient(hosts=server.address, connection_retry=KazooRetry(max_tries=-1, delay=0.1, max_delay=1.0))
        zk.start(timeout=10)
        zk.ensure_path("/brokers/ids")
        kz.create_topic(zk, "t", {0: [0, 1]})
        with ZooKeeperSource(server.address, session_timeout_s=30) as source:
            server.stop()
            server.start()
            try:  # a ZooKeeper JVM restarted under the whole suite's load has taken more than 30 s to serve
                wait_for(lambda: zk.connected and source.connected, timeout_s=60, what="reconnect")
            except AssertionError:
                log = server.log_path.read_text(errors="replace")[-3000:] if server.log_path.is_file() else ""
                raise AssertionError(
                    f"test client {zk.state}, source connected {source.connected}; ZooKeeper's log:\n{log}"
                ) from None
            kz.set_partition_state(zk, "t", 0, leader=1, isr=[1], leader_epoch=1)
            ev = next_event(source, PartitionStateChanged, timeout_s=20)
            assert isinstance(ev, PartitionStateChanged) and ev.state is not None and ev.state.leader == 1
            assert source.snapshot().topics[0].partitions[0].isr == (1,)
        zk.stop()
        zk.close()
    finally:
        server.stop()
