"""`kafkatop topics` against a real Apache Kafka 4.1, each form compared line for line with what kafka-topics.sh
prints on the same cluster (stdout, and the exit status): --list (its filters), --describe (its filters, then its
health filters once a broker is stopped), --create (--if-not-exists, --replica-assignment, an existing topic),
--alter --partitions, --delete (--if-exists).

One lab per module: a KRaft controller and 2 brokers, on 127.0.0.1 ports 30200-30215 (this suite's share of the
machine), a 256m heap each, every node stopped by recorded pid at the end. Set KAFKA_HOME to an Apache Kafka 4.x
install to run it; without it the tests are skipped.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, KafkaException, TopicPartition

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.lab.cluster import LabCluster
from kafkatop.backends.lab.runner import port_is_free
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import SourceUnavailable
from tests.conftest import wait_for
from tests.integration.test_bad_input import kafkatop
from tests.integration.test_supervisor import Clusters

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(900)]

BASE_PORT = 30200  # brokers 30200-30201, the controller 30210, (ZooKeeper, unused) 30211
WARNING = "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide."


class Lab:
    def __init__(self, cluster: LabCluster, home: Path, tmp: Path) -> None:
        self.cluster = cluster
        self.home = home
        self.tmp = tmp
        self.bootstrap = cluster.snapshot().bootstrap_servers

    def metadata(self) -> ClusterSnapshot | None:
        source = AdminSource(KafkaConnection.parse(self.bootstrap), timeout_s=5.0, include_internal=True)
        try:
            return source.poll(topics_only=True)
        except SourceUnavailable:
            return None
        finally:
            source.close()

    def tool(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "KAFKA_HEAP_OPTS": "-Xmx128m", "KAFKA_JMX_OPTS": " ", "LOG_DIR": str(self.tmp / "logs")}
        return subprocess.run(
            [str(self.home / "bin" / "kafka-topics.sh"), "--bootstrap-server", self.bootstrap, *args],
            capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, env=env,
        )  # fmt: skip

    def ours(self, *args: str) -> subprocess.CompletedProcess[str]:
        return kafkatop("topics", "--bootstrap-server", self.bootstrap, *args, cwd=self.tmp)

    def same(self, *args: str) -> str:
        """kafkatop topics and kafka-topics.sh with the same options: the same stdout, the same exit status."""
        ours, theirs = self.ours(*args), self.tool(*args)
        print(f"$ topics {' '.join(args)}\nkafkatop ({ours.returncode}):\n{ours.stdout}{ours.stderr}"
              f"kafka-topics.sh ({theirs.returncode}):\n{theirs.stdout}")  # fmt: skip
        assert "Traceback" not in ours.stderr
        assert ours.stdout.splitlines() == theirs.stdout.splitlines()
        assert ours.returncode == theirs.returncode
        return ours.stdout


def _ports_free() -> bool:
    return all(port_is_free(p) for p in (*range(BASE_PORT, BASE_PORT + 2), BASE_PORT + 10, BASE_PORT + 11))


@pytest.fixture(scope="module")
def lab(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    assert _ports_free(), f"ports {BASE_PORT}-{BASE_PORT + 11} are in use"
    root = tmp_path_factory.mktemp("topics-lab")
    clusters = Clusters(root)
    try:
        cluster = clusters.make(
            kafka_home, name="topics", mode="kraft", brokers=2, controllers=1, heap="256m", base_port=BASE_PORT,
            controller_port=BASE_PORT + 10, zookeeper_port=BASE_PORT + 11,
        )  # fmt: skip
        cluster.up(timeout_s=180)
        yield Lab(cluster, kafka_home, root)
    finally:
        clusters.cleanup()  # down(), then kill any recorded pid still alive (start time verified)


def led(lab: Lab, *topics: str) -> None:
    def ready() -> bool:
        snap = lab.metadata()
        found = [snap.topic(t) for t in topics] if snap is not None else [None]
        return all(t is not None and t.partitions and not t.offline for t in found)

    wait_for(ready, 60, 0.3, f"{topics} created and led")


def test_create_and_if_not_exists_like_the_tool(lab: Lab) -> None:
    ours = lab.ours("--create", "--topic", "ours.one", "--partitions", "2", "--replication-factor", "2")
    theirs = lab.tool("--create", "--topic", "tool.one", "--partitions", "2", "--replication-factor", "2")
    assert (ours.returncode, ours.stdout.replace("ours.one", "X")) == (0, theirs.stdout.replace("tool.one", "X"))
    assert ours.stdout.splitlines() == [WARNING + " To avoid issues it is best to use either, but not both.",
                                        "Created topic ours.one."]  # fmt: skip
    # Again: Kafka's refusal in the tool's line, exit 1; with --if-not-exists only the warning, exit 0.
    again = lab.same("--create", "--topic", "ours.one", "--partitions", "2", "--replication-factor", "2")
    assert again.splitlines()[-1] == "Error while executing topic command : Topic 'ours.one' already exists."
    assert lab.same("--create", "--topic", "ours.one", "--if-not-exists").splitlines() == [again.splitlines()[0]]
    # The brokers' defaults, a replica assignment with configs; too many replicas: Kafka's words, as the tool's.
    assert lab.ours("--create", "--topic", "plain").stdout == "Created topic plain.\n"
    placed = lab.ours("--create", "--topic", "placed", "--replica-assignment", "2:1,1:2,2", "--config",
                      "retention.ms=60000", "--config", "cleanup.policy=compact")  # fmt: skip
    assert placed.returncode == 2 and "partition 2 has 1 replica(s)" in placed.stderr  # checked before sending
    placed = lab.ours("--create", "--topic", "placed", "--replica-assignment", "2:1,1:2,2:1", "--config",
                      "retention.ms=60000", "--config", "cleanup.policy=compact")  # fmt: skip
    assert placed.stdout == "Created topic placed.\n", placed.stderr
    lab.same("--create", "--topic", "wide", "--replication-factor", "3")
    lab.same("--create", "--topic", "nowhere", "--replica-assignment", "1:7")
    led(lab, "ours.one", "tool.one", "plain", "placed")


def test_list_like_the_tool(lab: Lab) -> None:
    # An internal topic: the group coordinator makes __consumer_offsets when a group first commits.
    consumer = Consumer({"bootstrap.servers": lab.bootstrap, "group.id": "g", "log_level": 0})
    try:
        consumer.commit(offsets=[TopicPartition("plain", 0, 0)], asynchronous=False)
    except KafkaException:
        pass  # the coordinator still loading its new partitions: the topic is made, which is all this needs
    finally:
        consumer.close()
    wait_for(lambda: (s := lab.metadata()) is not None and s.topic("__consumer_offsets") is not None, 60, 0.5,
             "__consumer_offsets")  # fmt: skip
    everything = lab.same("--list")
    assert "__consumer_offsets" in everything.split() and "placed" in everything.split()
    assert "__consumer_offsets" not in lab.same("--list", "--exclude-internal")
    assert lab.same("--list", "--topic", "ours.*,plain").split() == ["ours.one", "plain"]
    lab.same("--list", "--topic", "__.*", "--exclude-internal")  # none: one empty line
    lab.same("--list", "--topic", "p.a.*")


def test_describe_like_the_tool(lab: Lab) -> None:
    lab.same("--describe", "--exclude-internal")
    lab.same("--describe", "--topic", "ours.one")
    assert lab.same("--describe", "--topic", "p.*").count("\n") == 2 + 1 + 3  # plain (1 partition), placed (3)
    lab.same("--describe", "--topics-with-overrides", "--exclude-internal")
    lab.same("--describe", "--topic", "nope")
    assert lab.same("--describe", "--topic", "nope", "--if-exists") == ""


def test_alter_and_delete_like_the_tool(lab: Lab) -> None:
    assert lab.ours("--alter", "--topic", "plain", "--partitions", "3").stdout == ""
    lab.same("--alter", "--topic", "plain", "--partitions", "2")  # fewer: Kafka's refusal, in the tool's line
    lab.same("--alter", "--topic", "nope", "--partitions", "2")
    assert lab.same("--alter", "--topic", "nope", "--partitions", "2", "--if-exists") == ""
    lab.same("--describe", "--topic", "plain")

    assert lab.same("--delete", "--topic", "nope.*", "--if-exists") == ""
    lab.same("--delete", "--topic", "nope")
    for name in ("gone.a", "gone.b"):
        assert lab.ours("--create", "--topic", name, "--partitions", "1", "--replication-factor", "1").returncode == 0
    refused = lab.ours("--delete", "--topic", "gone.*")  # no terminal to ask on, no --yes
    assert refused.returncode == 2 and "nothing was deleted" in refused.stderr
    deleted = lab.ours("--delete", "--topic", "gone.*", "--yes")
    assert (deleted.returncode, deleted.stdout) == (0, ""), deleted.stderr
    wait_for(lambda: (s := lab.metadata()) is not None and s.topic("gone.a") is None and s.topic("gone.b") is None,
             60, 0.5, "gone.a and gone.b deleted")  # fmt: skip
    lab.same("--list", "--topic", "gone.*")
    lab.same("--delete", "--topic", "gone.*")  # none left: the tool's error, as the tool says it


def test_health_filters_like_the_tool_once_a_broker_is_stopped(lab: Lab) -> None:
    assert lab.ours("--create", "--topic", "on-2", "--replica-assignment", "2,2").returncode == 0
    assert lab.ours("--create", "--topic", "strict", "--partitions", "2", "--replication-factor", "2",
                    "--config", "min.insync.replicas=2").returncode == 0  # fmt: skip
    led(lab, "on-2", "strict")
    healthy = lab.same("--describe", "--under-replicated-partitions", "--exclude-internal")
    assert healthy == ""
    lab.cluster.stop("broker-2")

    def fenced() -> bool:
        snap = lab.metadata()
        if snap is None or 2 in {b.id for b in snap.brokers if b.alive}:
            return False
        return all(2 not in p.isr for t in snap.topics for p in t.partitions if len(p.replicas) > 1)

    wait_for(fenced, 60, 0.5, "broker 2 fenced and out of every ISR")
    under = lab.same("--describe", "--under-replicated-partitions", "--exclude-internal")
    assert "\tTopic: ours.one\tPartition: " in under and "\tTopic: strict\tPartition: " in under
    assert "Topic: on-2\tPartition: 0\tLeader: none" in lab.same("--describe", "--unavailable-partitions")
    assert "\tTopic: strict\tPartition: " in lab.same("--describe", "--under-min-isr-partitions", "--exclude-internal")
    lab.same("--describe", "--at-min-isr-partitions", "--exclude-internal")
    lab.same("--describe", "--exclude-internal")
