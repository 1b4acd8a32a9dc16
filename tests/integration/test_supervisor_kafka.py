"""The supervisor against a real Apache Kafka: a 3-node combined KRaft lab cluster (the Kafka 4 default), started,
watched through AdminSource, one leader killed with kill -9 and restarted, then brought down.

Set KAFKA_HOME to an Apache Kafka install (4.x, KRaft) to run it; without it the test is skipped. Every node binds
127.0.0.1 on free ports, with a 256m heap, its state in pytest's tmp dir; all of it is stopped by recorded pid.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.topics import TopicAdmin
from kafkatop.backends.lab.cluster import LabCluster
from kafkatop.backends.lab.kafka_homes import open_install
from kafkatop.backends.model.cluster import NO_LEADER, ClusterSnapshot, Partition
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.backends.model.nodes import NodeState
from tests.conftest import wait_for
from tests.integration.test_supervisor import Clusters

pytestmark = pytest.mark.kafka

TOPIC = "supervised"
BROKER_IDS = [1, 2, 3]


def poll(source: AdminSource) -> ClusterSnapshot | None:
    try:
        return source.poll()
    except SourceUnavailable:
        return None


def partition0(source: AdminSource) -> Partition | None:
    snap = poll(source)
    topic = snap.topic(TOPIC) if snap is not None else None
    return next((p for p in topic.partitions if p.id == 0), None) if topic is not None else None


def test_combined_kraft_cluster_survives_a_killed_leader(clusters: Clusters, kafka_home: Path) -> None:
    home = kafka_home
    assert open_install(home).version.at_least(3, 3), "KRaft lab clusters need Kafka 3.3 or newer"
    cluster: LabCluster = clusters.make(home, name="kraft3", mode="kraft", brokers=3, heap="256m")
    t = time.monotonic()
    snap = cluster.up(timeout_s=120)
    up_s = time.monotonic() - t
    assert [n.state for n in snap.nodes] == [NodeState.UP] * 3
    recorded = {n.name: n.pid for n in snap.nodes}

    source = AdminSource(KafkaConnection.parse(snap.bootstrap_servers), timeout_s=2.0)
    try:

        def three_alive() -> ClusterSnapshot | None:
            s = poll(source)
            return s if s is not None and len(s.brokers_alive) == 3 else None

        seen = wait_for(three_alive, timeout_s=30, interval_s=0.2, what="AdminSource to see 3 live brokers")
        assert seen is not None and sorted(b.id for b in seen.brokers_alive) == BROKER_IDS
        with TopicAdmin(KafkaConnection.parse(snap.bootstrap_servers)) as topics:
            topics.create_topic(TOPIC, partitions=3, replication_factor=3)

        def fully_replicated() -> Partition | None:
            p = partition0(source)
            return p if p is not None and not p.offline and sorted(p.isr) == BROKER_IDS else None

        # CreateTopics answers before every broker applied the metadata: wait for a leader and a full ISR.
        p0 = wait_for(fully_replicated, timeout_s=30, interval_s=0.2, what=f"{TOPIC}-0 led with a full ISR")
        assert p0 is not None and sorted(p0.replicas) == BROKER_IDS
        leader = p0.leader

        def failed_over() -> Partition | None:
            p = partition0(source)
            ok = p is not None and p.leader not in (leader, NO_LEADER) and leader not in p.isr
            return p if ok else None

        # kill -9 the leader: no controlled shutdown, so the controller learns of it only from missed heartbeats.
        killed_pid = recorded[f"broker-{leader}"]
        t = time.monotonic()
        status = cluster.kill(str(leader))
        assert status.state is NodeState.KILLED and not psutil.pid_exists(killed_pid)
        # Before the controller fences it (~9 s), the metadata still names the dead broker: describe answers from
        # that metadata within its timeout (nothing waits on the dead leader) and says which broker is not there.
        t = time.monotonic()
        described = subprocess.run(
            [sys.executable, "-m", "kafkatop.tui.cli", "describe", "--topic", TOPIC,
             "--bootstrap-server", snap.bootstrap_servers, "--timeout", "10"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        describe_s = time.monotonic() - t
        assert described.returncode == 0, described.stderr
        assert describe_s < 10, f"describe took {describe_s:.1f} s, past its --timeout 10"
        assert described.stdout.count(f"Topic: {TOPIC}\tPartition:") == 3
        if f"Leader: {leader}\t" in described.stdout:
            assert f"note: broker {leader} is in the metadata but does not answer" in described.stderr
        moved = wait_for(
            failed_over, timeout_s=45, interval_s=0.2, what=f"a new leader of {TOPIC}-0 and broker {leader} out of ISR"
        )
        shrink_s = time.monotonic() - t
        assert moved is not None and sorted(moved.isr) == sorted(set(BROKER_IDS) - {leader})

        t = time.monotonic()
        status = cluster.restart(str(leader))
        restart_s = time.monotonic() - t
        assert status.state is NodeState.UP and status.pid not in (None, killed_pid)
        recorded[status.name] = status.pid
        wait_for(fully_replicated, timeout_s=45, interval_s=0.2, what=f"broker {leader} back in the ISR of {TOPIC}-0")
        full_s = time.monotonic() - t
    finally:
        source.close()

    t = time.monotonic()
    cluster.down(timeout_s=30)
    down_s = time.monotonic() - t
    assert all(n.state is NodeState.DOWN for n in cluster.snapshot().nodes)
    assert not [pid for pid in recorded.values() if psutil.pid_exists(pid)]
    print(
        f"\ndescribe in the fencing window {describe_s:.1f} s; up {up_s:.1f} s; "
        f"kill -9 of broker {leader} -> new leader {moved.leader}, ISR {list(moved.isr)} "
        f"after {shrink_s:.1f} s; restart {restart_s:.1f} s, full ISR {full_s:.1f} s after restart began; "
        f"down {down_s:.1f} s"
    )
