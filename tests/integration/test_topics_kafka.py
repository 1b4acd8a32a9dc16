"""Topic actions over the Kafka protocol: the librdkafka mock cluster, then a real Kafka 4.1 KRaft node.

The real-Kafka tests start their own single combined node the way test_real_kafka.py does (its helpers are reused),
compare `kafkatop describe` with what `kafka-topics.sh --describe` prints for the same cluster, and are skipped
when KAFKA_HOME is unset.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from confluent_kafka import TopicCollection
from confluent_kafka.admin import AdminClient

from kafkatop.backends.insight.describe import format_describe
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.elr import read_elr
from kafkatop.backends.kafka.cluster.topics import TopicAdmin
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.topics import TopicError
from kafkatop.backends.zookeeper.server import free_port
from tests.conftest import wait_for
from tests.integration.test_real_kafka import (
    CLIENT_LOGGER,
    NODE_ID,
    KraftNode,
    node_env,
    wait_topic_led,
)

PARTITION_LINE = re.compile(r"\tTopic: (\S+)\tPartition: (\d+)\tLeader: (-?\d+)\tReplicas: ([\d,]*)\tIsr: ([\d,]*)")


def raw_admin(bootstrap: str) -> AdminClient:
    config: dict[str, Any] = {"bootstrap.servers": bootstrap, "logger": CLIENT_LOGGER}
    return AdminClient(config)


def ids(values: Any) -> str:
    return ",".join(str(v) for v in values)


# --- the librdkafka mock ----------------------------------------------------------------------------------------------
def test_describe_of_a_mock_cluster_poll(mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("purchases", 3, 3)
    mock_cluster.create_topic("audit", 2, 2)
    mock_cluster.set_partition_leader("audit", 1, -1)
    snap = AdminSource(KafkaConnection.parse(mock_cluster.bootstrap_servers)).poll()
    out = format_describe(snap)
    print(out)

    # The same layout, built independently from the raw metadata the mock serves.
    meta = raw_admin(mock_cluster.bootstrap_servers).list_topics(timeout=10)
    expected = []
    for name in ("purchases", "audit"):  # kafka-topics' order (see kafka_topic_order)
        parts = meta.topics[name].partitions
        expected.append(
            f"Topic: {name}\tPartitionCount: {len(parts)}\tReplicationFactor: {len(parts[0].replicas)}\tConfigs: "
        )
        for pid in sorted(parts):
            p = parts[pid]
            expected.append(
                f"\tTopic: {name}\tPartition: {pid}\tLeader: {p.leader}"
                f"\tReplicas: {ids(p.replicas)}\tIsr: {ids(p.isrs)}"
            )
    assert out == "\n".join(expected)

    lines = out.splitlines()
    assert lines[0] == "Topic: purchases\tPartitionCount: 3\tReplicationFactor: 3\tConfigs: "
    assert lines[4] == "Topic: audit\tPartitionCount: 2\tReplicationFactor: 2\tConfigs: "
    rows = [PARTITION_LINE.fullmatch(line) for line in lines if line.startswith("\t")]
    assert all(rows), lines
    parsed = [(m[1], int(m[2]), int(m[3]), m[4]) for m in rows if m]
    assert [(t, pid) for t, pid, _, _ in parsed] == [("purchases", i) for i in range(3)] + [("audit", 0), ("audit", 1)]
    audit_1 = parsed[4]
    assert audit_1[2] == -1  # the offline partition, as the labs show it
    for topic, pid, leader, replicas in parsed:
        if (topic, pid) != ("audit", 1):
            assert leader in {int(r) for r in replicas.split(",")}
        assert len(replicas.split(",")) == (3 if topic == "purchases" else 2)
        assert sorted(replicas.split(",")) == sorted(set(replicas.split(",")))


def test_topic_admin_describe_adds_topic_ids_where_configs_are_unsupported(mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("purchases", 2, 3)
    snap = AdminSource(KafkaConnection.parse(mock_cluster.bootstrap_servers)).poll()
    assert snap.topic("purchases").topic_id is None  # type: ignore[union-attr] # Metadata carries no id here
    raw = raw_admin(mock_cluster.bootstrap_servers)  # kept: a dropped AdminClient fails its pending futures
    uuid = raw.describe_topics(TopicCollection(["purchases"]))["purchases"].result(10).topic_id
    # Kafka prints ids in URL-safe base64; librdkafka's str() uses the standard alphabet.
    topic_id = str(uuid).replace("+", "-").replace("/", "_")
    with TopicAdmin(KafkaConnection.parse(mock_cluster.bootstrap_servers), timeout_s=5.0) as admin:
        # The mock answers DescribeConfigs with "unsupported": no configs, no exception.
        assert admin.topic_configs(["purchases", "nope"]) == {"purchases": {}, "nope": {}}
        assert admin.topic_ids(["purchases", "nope"]) == {"purchases": topic_id}
        out = admin.describe(snap, "purchases")
    print(out)
    assert out.splitlines()[0] == (
        f"Topic: purchases\tTopicId: {topic_id}\tPartitionCount: 2\tReplicationFactor: 3\tConfigs: "
    )
    assert out.splitlines()[1:] == format_describe(snap, "purchases").splitlines()[1:]


def test_create_topic_refused_by_the_mock_is_a_topic_error(mock_cluster: MockCluster) -> None:
    with TopicAdmin(KafkaConnection.parse(mock_cluster.bootstrap_servers), timeout_s=5.0) as admin:
        with pytest.raises(TopicError) as raised:
            admin.create_topic("t", 1, 1)
    print("mock create_topic:", raised.value)
    assert raised.value.code == "_UNSUPPORTED_FEATURE" and raised.value.topic == "t"
    assert str(raised.value).startswith("Cannot create topic 't': ") and "not supported by broker" in str(raised.value)


def test_unreachable_bootstrap_fails_within_the_timeout() -> None:
    bootstrap = f"127.0.0.1:{free_port()}"  # nothing listens here
    with TopicAdmin(KafkaConnection.parse(bootstrap), timeout_s=1.0) as admin:
        started = time.monotonic()
        with pytest.raises(TopicError) as raised:
            admin.create_topic("t", 1, 1)
        assert time.monotonic() - started < 15  # the 1 s timeout, with a margin; unbounded would be 60 s and more
        print("unreachable create_topic:", raised.value)
        assert raised.value.code == "_TIMED_OUT"
        assert str(raised.value).startswith(f"Cannot create topic 't': no answer from Kafka at {bootstrap} within 1 s")
        started = time.monotonic()
        assert admin.topic_configs(["t"]) == {"t": {}}
        assert admin.topic_ids(["t"]) == {}
        assert time.monotonic() - started < 15


# --- a real Kafka 4.1 node --------------------------------------------------------------------------------------------
F = TypeVar("F", bound=Callable[..., None])


def needs_kafka(test: F) -> F:
    """The marks of a real-Kafka test (the mock tests above run everywhere)."""
    marks = [
        pytest.mark.kafka,  # skipped where KAFKA_HOME is unset (tests/conftest.py)
        # The first test also waits for the node to start: a JVM on a small, possibly busy machine.
        pytest.mark.timeout(300),
    ]
    for mark in marks:
        test = mark(test)
    return test


@pytest.fixture
def admin(kafka: KraftNode) -> Iterator[TopicAdmin]:
    with TopicAdmin(KafkaConnection.parse(kafka.bootstrap), timeout_s=15.0) as topic_admin:
        yield topic_admin


def kafka_topics_describe(node: KraftNode, tmp_path: Path, *args: str) -> str:
    """What `kafka-topics.sh --describe` prints (Kafka 4.1: each partition's Elr and LastKnownElr too)."""
    result = subprocess.run(
        [str(node.home / "bin" / "kafka-topics.sh"), "--bootstrap-server", node.bootstrap, "--describe", *args],
        env={**node_env(tmp_path), "KAFKA_HEAP_OPTS": "-Xmx128m"}, capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.rstrip("\n")


def poll_led(node: KraftNode, *topics: tuple[str, int]) -> ClusterSnapshot:
    source = AdminSource(KafkaConnection.parse(node.bootstrap), timeout_s=5.0, include_internal=True)
    snap = None
    for name, partitions in topics:
        snap = wait_topic_led(source, name, partitions)
    assert snap is not None
    return snap


MANY_CONFIGS = {
    "segment.bytes": "1073741824", "retention.bytes": "1000000", "max.message.bytes": "2000000",
    "compression.type": "lz4", "flush.ms": "1000", "segment.ms": "600000", "delete.retention.ms": "1000",
    "min.compaction.lag.ms": "10", "message.timestamp.type": "LogAppendTime",
    "unclean.leader.election.enable": "true", "file.delete.delay.ms": "5000", "index.interval.bytes": "8192",
    "preallocate": "true",
}  # fmt: skip


@needs_kafka
def test_create_then_describe_like_kafka_topics(kafka: KraftNode, admin: TopicAdmin, tmp_path: Path) -> None:
    admin.create_topic("purchases", 3, 1, {"retention.ms": "3600000", "cleanup.policy": "compact"})
    admin.create_topic("many", 2, 1, MANY_CONFIGS)
    admin.create_topic("plain", 1, 1)
    snap = poll_led(kafka, ("purchases", 3), ("many", 2), ("plain", 1))

    configs = admin.topic_configs(["purchases", "plain", "nope"])
    print("topic_configs:", configs)
    # KRaft (4.x, ELR on) keeps a cluster-wide min.insync.replicas, which is not a default: Kafka prints it too.
    assert list(configs["purchases"].items()) == [
        ("min.insync.replicas", "1"),
        ("cleanup.policy", "compact"),
        ("retention.ms", "3600000"),
    ]
    assert configs["plain"] == {"min.insync.replicas": "1"}
    assert configs["nope"] == {}

    for topic in ("purchases", "many"):
        ours = admin.describe(snap, topic)
        theirs = kafka_topics_describe(kafka, tmp_path, "--topic", topic)
        print(f"kafkatop describe --topic {topic}:\n{ours}\nkafka-topics.sh:\n{theirs}")
        assert ours == theirs
    # Everything, internal topics included (kafka-topics lists them unless --exclude-internal).
    ours, theirs = admin.describe(snap), kafka_topics_describe(kafka, tmp_path)
    print(f"kafkatop describe:\n{ours}\nkafka-topics.sh:\n{theirs}")
    assert ours == theirs
    assert "\tElr: " in ours  # Kafka 4.1 answers DescribeTopicPartitions: the ELR columns are its
    # Read three partitions a page, the cursor carried across topics: the same ELR as one page of 2,000.
    names = [t.name for t in snap.topics]
    assert read_elr(admin.connection, snap, names, 15.0, page_size=3) == read_elr(admin.connection, snap, names, 15.0)


@needs_kafka
def test_replication_factor_above_the_broker_count_is_kafkas_error(admin: TopicAdmin) -> None:
    with pytest.raises(TopicError) as raised:
        admin.create_topic("too-replicated", 1, 4)
    print("create_topic:", raised.value)
    assert raised.value.code == "INVALID_REPLICATION_FACTOR" and raised.value.topic == "too-replicated"
    # Kafka 4.1's (KRaft) wording; ZooKeeper-era brokers said "Replication factor: 4 larger than available brokers: 1."
    assert str(raised.value) == (
        "Cannot create topic 'too-replicated': Unable to replicate the partition 4 time(s): The target replication "
        f"factor of 4 cannot be reached because only {NODE_ID} broker(s) are registered. Use a replication factor no "
        "larger than the number of brokers, or start more brokers."
    )


@needs_kafka
def test_existing_topic_and_invalid_config(kafka: KraftNode, admin: TopicAdmin) -> None:
    admin.create_topic("dup", 1, 1)
    with pytest.raises(TopicError) as raised:
        admin.create_topic("dup", 2, 1)
    assert str(raised.value) == "Topic 'dup' already exists."
    assert raised.value.code == "TOPIC_ALREADY_EXISTS"

    with pytest.raises(TopicError) as raised:
        admin.create_topic("badconf", 1, 1, {"retention.ms": "soon"})
    print("invalid config:", raised.value)
    assert raised.value.code == "INVALID_CONFIG"
    assert str(raised.value).startswith("Cannot create topic 'badconf': ") and "retention.ms" in str(raised.value)


@needs_kafka
def test_delete_topic(kafka: KraftNode, admin: TopicAdmin) -> None:
    admin.create_topic("doomed", 2, 1)
    poll_led(kafka, ("doomed", 2))
    admin.delete_topic("doomed")
    source = AdminSource(KafkaConnection.parse(kafka.bootstrap), timeout_s=5.0)
    wait_for(lambda: source.poll().topic("doomed") is None, timeout_s=20, interval_s=0.1, what="doomed gone")
    assert admin.topic_configs(["doomed"]) == {"doomed": {}}
    with pytest.raises(TopicError) as raised:
        admin.delete_topic("doomed")
    assert str(raised.value) == "Topic 'doomed' does not exist as expected"


@needs_kafka
def test_features_like_kafka_features(kafka: KraftNode, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`kafkatop features` = `kafka-features.sh describe`, line for line but the epoch (the metadata log's offset,
    which moves on between the two asks: ours first, so never above theirs)."""
    from kafkatop.tui.cli.main import main

    assert main(["features", "--bootstrap-server", kafka.bootstrap]) == 0
    ours = capsys.readouterr().out.rstrip("\n")
    result = subprocess.run(
        [str(kafka.home / "bin" / "kafka-features.sh"), "--bootstrap-server", kafka.bootstrap, "describe"],
        env={**node_env(tmp_path), "KAFKA_HEAP_OPTS": "-Xmx128m"}, capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    theirs = result.stdout.rstrip("\n")
    print(f"kafkatop features:\n{ours}\nkafka-features.sh describe:\n{theirs}")
    epoch = re.compile(r"\tEpoch: (\d+)$", re.M)
    assert epoch.sub("", ours) == epoch.sub("", theirs)
    assert max(int(e) for e in epoch.findall(ours)) <= min(int(e) for e in epoch.findall(theirs))
    assert "Feature: eligible.leader.replicas.version\t" in ours
