"""A 3-node combined KRaft lab cluster (the Kafka 4 default) from KAFKA_HOME with a 3-partition RF-3 topic at
min.insync.replicas=2, as the chaos and durability checks are run on it in `-m kafka` tests; and its end: down, with
no process of it left. Every node binds 127.0.0.1 with a 256m heap; `clusters` (tests/integration/conftest.py)
stops all of it by recorded pid if the test does not."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import psutil

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.topics import TopicAdmin
from kafkatop.backends.lab.cluster import LabCluster
from kafkatop.backends.lab.kafka_homes import open_install
from kafkatop.backends.lab.state import LabSnapshot
from kafkatop.backends.model.cluster import Topic
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.backends.model.nodes import NodeState
from tests.conftest import wait_for
from tests.integration.test_supervisor import Clusters


def in_sync(source: AdminSource, name: str) -> Topic | None:
    """The topic once every partition is led and has its full ISR; else None."""
    try:
        topic = source.poll().topic(name)
    except SourceUnavailable:
        return None
    if topic is None or any(p.offline or set(p.isr) != set(p.replicas) for p in topic.partitions):
        return None
    return topic


def up_with_replicated_topic(clusters: Clusters, home: Path, name: str, topic: str) -> tuple[LabCluster, LabSnapshot]:
    """The lab cluster `name` up, every node UP, and `topic` created and in sync."""
    assert open_install(home).version.at_least(3, 3), "KRaft lab clusters need Kafka 3.3 or newer"
    cluster = clusters.make(home, name=name, mode="kraft", brokers=3, heap="256m")
    snap = cluster.up(timeout_s=120)
    assert [n.state for n in snap.nodes] == [NodeState.UP] * 3
    connection = KafkaConnection.parse(snap.bootstrap_servers)
    with TopicAdmin(connection) as topics:
        topics.create_topic(topic, 3, 3, {"min.insync.replicas": "2"})
    source = AdminSource(connection, timeout_s=2.0)
    try:
        wait_for(lambda: in_sync(source, topic), timeout_s=60, interval_s=0.2, what=f"{topic} led with full ISRs")
    finally:
        source.close()
    return cluster, snap


def down_leaving_nothing(cluster: LabCluster, recorded: Iterable[int | None]) -> None:
    """`down` stops every node, and none of the pids the test saw is alive after it."""
    cluster.down(timeout_s=30)
    assert all(n.state is NodeState.DOWN for n in cluster.snapshot().nodes)
    assert not [pid for pid in recorded if pid is not None and psutil.pid_exists(pid)]
