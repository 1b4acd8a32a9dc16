"""The backends against a real Apache Kafka: one KRaft combined node (broker+controller), started by these tests.

Set KAFKA_HOME to an Apache Kafka install (4.x, KRaft) to run them; without it they are skipped. The node binds
127.0.0.1 only, on free ports, with its data and logs in pytest's tmp dir, and is always stopped at the end.
"""

from __future__ import annotations

import logging
import os
import random
import signal
import socket
import subprocess
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.errors import describe_error
from kafkatop.backends.lab.processes import ProcessSource
from kafkatop.backends.lab.state import new_cluster_id
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.backends.model.groups import ConsumerGroup, GroupState
from kafkatop.backends.model.nodes import ProcessRole
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.zookeeper.server import free_port
from tests.conftest import wait_for

pytestmark = pytest.mark.kafka

NODE_ID = 1
HEAP = "-Xmx256m -Xms256m"
# Clients of these tests log through here, not to stderr (connection refused at teardown, and so on).
CLIENT_LOGGER = logging.getLogger("kafkatop.tests.kafka-clients")
CLIENT_LOGGER.addHandler(logging.NullHandler())
CLIENT_LOGGER.propagate = False


# --- the node -------------------------------------------------------------------------------------------------------
@dataclass
class KraftNode:
    home: Path
    config: Path
    port: int
    controller_port: int
    log_dir: Path
    output: Path
    proc: subprocess.Popen[bytes]

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def output_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.output.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no output)"


def node_env(log_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("JMX_PORT", "KAFKA_OPTS", "KAFKA_LOG4J_OPTS")}
    env["KAFKA_HEAP_OPTS"] = HEAP
    env["LOG_DIR"] = str(log_dir)
    # kafka-run-class.sh defaults to -Dcom.sun.management.jmxremote=true, which opens an unauthenticated JMX
    # connector on an ephemeral port of every interface; a non-empty KAFKA_JMX_OPTS replaces that default.
    env["KAFKA_JMX_OPTS"] = " "
    return env


def write_config(root: Path, port: int, controller_port: int, extra: Mapping[str, str] | None = None) -> Path:
    config = root / "server.properties"
    settings = {
        "process.roles": "broker,controller",
        "node.id": str(NODE_ID),
        "controller.quorum.voters": f"{NODE_ID}@127.0.0.1:{controller_port}",
        "listeners": f"PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{port}",
        "controller.listener.names": "CONTROLLER",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "inter.broker.listener.name": "PLAINTEXT",
        "log.dirs": str(root / "data"),
        "offsets.topic.replication.factor": "1",
        "transaction.state.log.replication.factor": "1",
        "transaction.state.log.min.isr": "1",
        "share.coordinator.state.topic.replication.factor": "1",
        "share.coordinator.state.topic.min.isr": "1",
        "group.initial.rebalance.delay.ms": "0",
        **(extra or {}),
    }
    config.write_text("".join(f"{k}={v}\n" for k, v in settings.items()))
    return config


def stop_node(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the JVM (a clean shutdown), SIGKILL to its process group after 30 s; always reaped."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
            return
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # its own session (start_new_session): only what we started
    except ProcessLookupError:
        pass
    proc.wait(10)


def start_node(
    home: Path,
    root: Path,
    timeout_s: float = 60.0,
    extra: Mapping[str, str] | None = None,
    ports: tuple[int, int] | None = None,
) -> KraftNode:
    """`ports`: the broker's and the controller's, where a test must keep to a range; else free ones."""
    if ports is not None:
        port, controller_port = ports
    else:
        port = free_port()
        controller_port = free_port()
        while controller_port == port:
            controller_port = free_port()
    log_dir = root / "logs"
    log_dir.mkdir(parents=True)
    config = write_config(root, port, controller_port, extra)
    env = node_env(log_dir)
    fmt = subprocess.run(
        [str(home / "bin" / "kafka-storage.sh"), "format", "-t", new_cluster_id(), "-c", str(config)],
        env=env, cwd=root, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    if fmt.returncode != 0:
        pytest.fail(f"kafka-storage.sh format failed ({fmt.returncode}):\n{fmt.stdout}\n{fmt.stderr}")
    output = log_dir / "server.out"
    with open(output, "wb") as out:
        # kafka-server-start.sh execs kafka-run-class.sh, which execs java: this pid is the JVM's.
        proc = subprocess.Popen(
            [str(home / "bin" / "kafka-server-start.sh"), str(config)],
            env=env, cwd=root, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
    node = KraftNode(home, config, port, controller_port, log_dir, output, proc)
    try:
        probe = AdminSource(KafkaConnection.parse(node.bootstrap), timeout_s=1.0)

        def answering() -> bool:
            if proc.poll() is not None:
                raise AssertionError(f"Kafka exited with code {proc.returncode} during start:\n{node.output_tail()}")
            try:
                snap = probe.poll()
            except SourceUnavailable:
                return False
            broker = snap.broker(NODE_ID)
            return broker is not None and broker.alive

        wait_for(answering, timeout_s=timeout_s, interval_s=0.2, what=f"Kafka metadata from {node.bootstrap}")
        probe.close()
    except BaseException:
        stop_node(proc)
        raise
    return node


@contextmanager
def running_node(home: Path, root: Path, **start: Any) -> Iterator[KraftNode]:
    """A node started (start_node's keywords) for the block, always stopped after it."""
    node = start_node(home, root, **start)
    try:
        yield node
    finally:
        stop_node(node.proc)


def ports_in(low: int, high: int) -> tuple[int, int]:
    """Two free ports of [low, high), for a node's broker and controller where a test must keep to a range (machines
    shared by several test runs): start_node(…, ports=ports_in(low, high))."""
    found: list[int] = []
    for port in random.sample(range(low, high), high - low):
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        found.append(port)
        if len(found) == 2:
            return found[0], found[1]
    raise AssertionError(f"no two free ports in {low}-{high - 1}")


def stop_session(proc: subprocess.Popen[bytes], grace_s: float) -> None:
    """SIGTERM to a client's session (started with start_new_session: only what the test started), SIGKILL after
    `grace_s`; reaped."""
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 10.0)):
        if proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(wait_s)
        except subprocess.TimeoutExpired:
            continue


def kafka_tool(node: KraftNode, scratch: Path, script: str, *args: str) -> str:
    """What `SCRIPT --bootstrap-server … ARGS` of the node's install prints (stdout; it must succeed). `scratch`: the
    tool's LOG_DIR."""
    result = subprocess.run(
        [str(node.home / "bin" / script), "--bootstrap-server", node.bootstrap, *args],
        env={**node_env(scratch), "KAFKA_HEAP_OPTS": "-Xmx128m"}, capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.rstrip("\n")


# --- clients --------------------------------------------------------------------------------------------------------
def admin_client(node: KraftNode) -> AdminClient:
    config: dict[str, Any] = {"bootstrap.servers": node.bootstrap, "logger": CLIENT_LOGGER}
    return AdminClient(config)


def create_topic(node: KraftNode, name: str, partitions: int, config: dict[str, str] | None = None) -> None:
    admin = admin_client(node)
    futures = admin.create_topics(
        [NewTopic(name, num_partitions=partitions, replication_factor=1, config=config or {})],
        request_timeout=15,
    )
    futures[name].result(timeout=20)


def wait_topic_led(source: AdminSource, name: str, partitions: int) -> ClusterSnapshot:
    """CreateTopics answers before every broker applied the metadata: wait until all partitions have a leader."""

    def led() -> ClusterSnapshot | None:
        snap = source.poll()
        topic = snap.topic(name)
        if topic is None or len(topic.partitions) != partitions:
            return None
        ok = all(p.leader == NODE_ID and p.high_watermark is not None for p in topic.partitions)
        return snap if ok else None

    return wait_for(led, timeout_s=20, interval_s=0.1, what=f"topic {name} with {partitions} led partitions")


def produce(node: KraftNode, topic: str, per_partition: dict[int, int]) -> None:
    producer = Producer({"bootstrap.servers": node.bootstrap, "acks": "all", "logger": CLIENT_LOGGER})
    for p, n in per_partition.items():
        for i in range(n):
            producer.produce(topic, value=f"m{i}".encode(), partition=p)
    assert producer.flush(20) == 0


# The two rebalance protocols of Kafka 4: classic (JoinGroup/SyncGroup, client-side assignors) and KIP-848's
# consumer protocol (ConsumerGroupHeartbeat, server-side assignors; described with ConsumerGroupDescribe).
PROTOCOLS = {
    "classic": {"partition.assignment.strategy": "roundrobin"},
    "consumer": {"group.remote.assignor": "range"},
}
ASSIGNOR = {"classic": "roundrobin", "consumer": "range"}


def group_consumer(node: KraftNode, group: str, client_id: str, protocol: str) -> Consumer:
    config: dict[str, Any] = {
        "bootstrap.servers": node.bootstrap,
        "group.id": group,
        "group.protocol": protocol,
        "client.id": client_id,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        "logger": CLIENT_LOGGER,
        **PROTOCOLS[protocol],
    }
    return Consumer(config)


@contextmanager
def polled(members: list[Consumer], thread_name: str) -> Iterator[None]:
    """The members polled on a thread of their own while the block runs (a member that stops polling leaves its
    group), then closed."""
    stop = threading.Event()

    def polling() -> None:
        while not stop.is_set():
            for m in members:
                m.poll(0.1)

    thread = threading.Thread(target=polling, daemon=True, name=thread_name)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(5)
        for m in members:
            m.close()


def commit_retrying(consumer: Consumer, offsets: list[KafkaTopicPartition]) -> bool:
    """Commit, or False on the retriable errors of a coordinator still loading (__consumer_offsets just created)."""
    try:
        consumer.commit(offsets=offsets, asynchronous=False)
    except KafkaException as e:
        if e.args[0].code() in (KafkaError.NOT_COORDINATOR, KafkaError.COORDINATOR_LOAD_IN_PROGRESS,
                                KafkaError.COORDINATOR_NOT_AVAILABLE):  # fmt: skip
            return False
        raise
    return True


def group_of(snap: ClusterSnapshot, group_id: str) -> ConsumerGroup | None:
    return next((g for g in snap.groups if g.group_id == group_id), None)


def wait_group_state(source: AdminSource, group_id: str, state: GroupState) -> ConsumerGroup:
    def in_state() -> ConsumerGroup | None:
        g = group_of(source.poll(), group_id)
        return g if g is not None and g.state is state else None

    found = wait_for(in_state, timeout_s=20, interval_s=0.1, what=f"group {group_id} {state.value}")
    assert found is not None
    return found


# --- tests ----------------------------------------------------------------------------------------------------------
def test_cluster_topics_watermarks_and_configs(kafka: KraftNode) -> None:
    create_topic(kafka, "purchases", 3, {"min.insync.replicas": "1"})
    # Kafka accepts a min.insync.replicas above the replication factor: acks=all producers then always fail.
    create_topic(kafka, "strict", 2, {"min.insync.replicas": "2"})
    source = AdminSource(KafkaConnection.parse(kafka.bootstrap), timeout_s=5.0)
    wait_topic_led(source, "purchases", 3)
    wait_topic_led(source, "strict", 2)
    produce(kafka, "purchases", {0: 4, 1: 0, 2: 7})

    snap = source.poll()
    print("snap.problems (default poll):", snap.problems)
    assert snap.problems == ()
    assert snap.mode == "kraft"  # from the broker's process.roles (DescribeConfigs)
    assert snap.cluster_id
    # KRaft brokers name a random live broker as "controller"; the snapshot does not pass that off as the leader.
    assert snap.controller_id is None
    assert [(b.id, b.host, b.port, b.alive) for b in snap.brokers] == [(NODE_ID, "127.0.0.1", kafka.port, True)]
    assert [t.name for t in snap.topics] == ["purchases", "strict"]  # internal topics hidden

    purchases = snap.topic("purchases")
    assert purchases is not None and not purchases.internal
    assert purchases.replication_factor == 1 and purchases.min_insync_replicas == 1
    assert [(p.id, p.leader, p.replicas, p.isr) for p in purchases.partitions] == [
        (0, NODE_ID, (NODE_ID,), (NODE_ID,)),
        (1, NODE_ID, (NODE_ID,), (NODE_ID,)),
        (2, NODE_ID, (NODE_ID,), (NODE_ID,)),
    ]
    assert [(p.low_watermark, p.high_watermark, p.messages) for p in purchases.partitions] == [
        (0, 4, 4),
        (0, 0, 0),
        (0, 7, 7),
    ]
    assert purchases.messages == 11
    # Real Kafka answers ListOffsets with the leader epoch (the librdkafka mock does not).
    print("leader epochs:", [p.leader_epoch for p in purchases.partitions])
    assert all(p.leader_epoch is not None and p.leader_epoch >= 0 for p in purchases.partitions)
    assert purchases.under_min_isr == () and snap.under_replicated == () and snap.offline == ()

    strict = snap.topic("strict")
    assert strict is not None and strict.min_insync_replicas == 2
    assert [p.id for p in strict.under_min_isr] == [0, 1]
    assert [p.id for p in snap.under_min_isr] == [0, 1]

    # __consumer_offsets exists once a group commits; it stays hidden unless asked for.
    committer = Consumer({"bootstrap.servers": kafka.bootstrap, "group.id": "t1-committer", "logger": CLIENT_LOGGER})
    try:
        wait_for(
            lambda: commit_retrying(committer, [KafkaTopicPartition("purchases", 2, 5)]), timeout_s=20,
            interval_s=0.1, what="a commit accepted (the first FindCoordinator creates __consumer_offsets)",
        )  # fmt: skip
    finally:
        committer.close()
    assert "__consumer_offsets" not in [t.name for t in source.poll().topics]
    with_internal = AdminSource(KafkaConnection.parse(kafka.bootstrap), timeout_s=5.0, include_internal=True)
    internal_snap = wait_for(
        lambda: (s := with_internal.poll()).topic("__consumer_offsets") and s, timeout_s=20, interval_s=0.1,
        what="__consumer_offsets in metadata",
    )  # fmt: skip
    print("snap.problems (include_internal):", internal_snap.problems)
    offsets_topic = internal_snap.topic("__consumer_offsets")
    assert offsets_topic is not None and offsets_topic.internal
    assert offsets_topic.partitions and all(p.leader == NODE_ID for p in offsets_topic.partitions)

    # A group that only committed (no subscription): listed, Empty, with its commit and lag.
    committed_only = group_of(snap := source.poll(), "t1-committer")
    assert committed_only is not None, snap.groups
    assert committed_only.state is GroupState.EMPTY and committed_only.members == ()
    print("committed-only group:", committed_only)
    assert [(o.topic, o.partition, o.committed, o.high_watermark, o.lag) for o in committed_only.offsets] == [
        ("purchases", 2, 5, 7, 2)
    ]


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_consumer_group_listed_described_and_rebalanced(kafka: KraftNode, protocol: str) -> None:
    topic, group = f"orders-{protocol}", f"billing-{protocol}"
    create_topic(kafka, topic, 4)
    source = AdminSource(
        KafkaConnection.parse(kafka.bootstrap), timeout_s=5.0
    )  # no watch_groups: the group must be listed
    wait_topic_led(source, topic, 4)
    produced = {0: 10, 1: 11, 2: 12, 3: 13}
    produce(kafka, topic, produced)
    everything = {(topic, p) for p in range(4)}

    a = group_consumer(kafka, group, "billing-a", protocol)
    b = group_consumer(kafka, group, "billing-b", protocol)
    consumers = {"billing-a": a, "billing-b": b}
    closed: set[str] = set()

    def owned(c: Consumer) -> set[tuple[str, int]]:
        return {(tp.topic, tp.partition) for tp in c.assignment()}

    try:
        a.subscribe([topic])
        b.subscribe([topic])

        def both_assigned_and_stable() -> ConsumerGroup | None:
            for c in (a, b):
                c.poll(0.05)  # serves the group protocol's callbacks; the messages are not needed
            if not (owned(a) and owned(b) and owned(a) | owned(b) == everything):
                return None
            g = group_of(source.poll(), group)
            return g if g is not None and g.state is GroupState.STABLE and len(g.members) == 2 else None

        wait_for(both_assigned_and_stable, timeout_s=30, interval_s=0, what=f"{group}: two members, Stable")
        # Commit partition p at offset p + 2, each from the member that owns it.
        commits = {p: p + 2 for p in range(4)}
        for c in (a, b):
            c.commit(offsets=[KafkaTopicPartition(t, p, commits[p]) for t, p in owned(c)], asynchronous=False)

        snap = source.poll()
        print(f"snap.problems ({protocol} group poll):", snap.problems)
        assert snap.problems == ()
        g = group_of(snap, group)
        assert g is not None, snap.groups
        print(f"{protocol} group:", g)
        assert g.state is GroupState.STABLE
        assert (g.protocol_type, g.group_type, g.assignor, g.coordinator) == (
            "consumer",
            protocol,
            ASSIGNOR[protocol],
            NODE_ID,
        )
        assert sorted(m.client_id for m in g.members) == ["billing-a", "billing-b"]
        for m in g.members:
            if protocol == "classic":
                assert m.member_id.startswith(m.client_id + "-")  # "<client.id>-<uuid>"
            # Kafka sends Java's InetAddress.toString(), "/127.0.0.1"; the snapshot holds the plain address.
            assert m.host == "127.0.0.1"
        assert sorted(tp for m in g.members for tp in m.assignment) == [TopicPartition(topic, p) for p in range(4)]
        by_client = {m.client_id: {(tp.topic, tp.partition) for tp in m.assignment} for m in g.members}
        assert by_client == {client_id: owned(c) for client_id, c in consumers.items()}
        assert [(o.topic, o.partition, o.committed, o.high_watermark, o.lag) for o in g.offsets] == [
            (topic, p, commits[p], produced[p], produced[p] - commits[p]) for p in range(4)
        ]
        assert g.total_lag == sum(produced.values()) - sum(commits.values()) == 32
        client_of = {m.member_id: m.client_id for m in g.members}
        assert all((o.topic, o.partition) in by_client[client_of[o.member_id or ""]] for o in g.offsets)

        # One member leaves: the other (kept polling) takes all four partitions.
        b.close()
        closed.add("billing-b")

        def one_member_owns_all() -> ConsumerGroup | None:
            a.poll(0.05)
            g = group_of(source.poll(), group)
            if g is None or g.state is not GroupState.STABLE or len(g.members) != 1:
                return None
            return g if len(g.members[0].assignment) == 4 else None

        g = wait_for(one_member_owns_all, timeout_s=30, interval_s=0, what=f"{group}: rebalance onto one member")
        assert g is not None and g.members[0].client_id == "billing-a"

        # The coordinator reports the new assignment as soon as it sent it; the client applies it on a later poll.
        def a_owns_all() -> bool:
            a.poll(0.05)
            return owned(a) == everything

        wait_for(a_owns_all, timeout_s=15, interval_s=0, what="billing-a applying its new assignment")
        assert {o.member_id for o in g.offsets} == {g.members[0].member_id}
        assert [o.committed for o in g.offsets] == [commits[p] for p in range(4)]

        # Everyone leaves: Empty, and the commits (and lag) remain.
        a.close()
        closed.add("billing-a")
        g = wait_group_state(source, group, GroupState.EMPTY)
        assert g.members == () and g.state.inactive
        assert [(o.partition, o.committed, o.member_id, o.lag) for o in g.offsets] == [
            (p, commits[p], None, produced[p] - commits[p]) for p in range(4)
        ]
    finally:
        for client_id, c in consumers.items():
            if client_id not in closed:
                c.close()


def test_process_source_finds_the_broker_jvm(kafka: KraftNode) -> None:
    snap = ProcessSource(selector=lambda p: p.pid == kafka.proc.pid).poll()
    print("process problems:", snap.problems)
    p = snap.by_pid(kafka.proc.pid)
    assert p is not None, f"JVM pid {kafka.proc.pid} not found among {snap.processes}"
    assert (p.role, p.node_id, p.client_port) == (ProcessRole.COMBINED, NODE_ID, kafka.port)
    assert kafka.port in p.listening_ports
    assert p.listening_ports == tuple(sorted((kafka.port, kafka.controller_port)))  # JMX off: nothing else
    assert p.properties_file == str(kafka.config)
    assert p.log_dirs == (str(kafka.config.parent / "data"),)
    assert p.rss_bytes > 100 * 2**20 and p.threads > 20
    assert p.problem is None and snap.problems == ()
    assert p.label == "broker+controller 1"


def test_replication_factor_above_broker_count_is_kafkas_error(kafka: KraftNode) -> None:
    admin = admin_client(kafka)
    futures = admin.create_topics([NewTopic("too-replicated", num_partitions=1, replication_factor=3)])
    with pytest.raises(KafkaException) as raised:
        futures["too-replicated"].result(timeout=20)
    err: Any = raised.value.args[0]
    assert isinstance(err, KafkaError) and err.code() == KafkaError.INVALID_REPLICATION_FACTOR
    assert describe_error(raised.value).startswith("INVALID_REPLICATION_FACTOR: ")
    print("create_topics error:", describe_error(raised.value))
