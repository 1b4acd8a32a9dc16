"""kafkatop's commands that answer as Kafka's own tools do, against a real Kafka 4.1 KRaft node, compared with the
tool line for line: `log-dirs --json` with kafka-log-dirs.sh --describe, `get-offsets` with kafka-get-offsets.sh.

The node is one combined broker+controller (id 1), on ports 30300–30399 (KAFKATOP_TEST_PORTS moves the range), its
data in pytest's tmp dir; it is stopped at the end. Set KAFKA_HOME to run these. The raw DescribeLogDirs bytes are
written (pytest -s prints where) for the unit tests' recordings.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, KafkaException, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from kafkatop.backends.kafka.cluster.log_dirs import describe_log_dirs
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.protocol.connection import BrokerConnection
from kafkatop.backends.protocol.describe_cluster import DESCRIBE_CLUSTER
from kafkatop.backends.protocol.describe_cluster import decode_response as decode_describe_cluster
from kafkatop.backends.protocol.describe_cluster import request_body as describe_cluster_body
from kafkatop.backends.protocol.describe_log_dirs import DESCRIBE_LOG_DIRS, decode_response, request_body
from kafkatop.tui.cli.log_dirs import cluster_brokers
from kafkatop.tui.cli.main import main
from tests.conftest import wait_for
from tests.integration import test_real_kafka
from tests.integration.test_real_kafka import KraftNode, node_env, start_node, stop_node

pytestmark = pytest.mark.kafka

TOPICS = {"orders": 3, "pay": 1, "many": 12}  # many: partition 10 sorts before 2, as text


def ports() -> Iterator[int]:
    low, _, high = os.environ.get("KAFKATOP_TEST_PORTS", "30300-30399").partition("-")
    for port in range(int(low), int(high) + 1):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        yield port


@pytest.fixture(scope="module")
def kafka(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[KraftNode]:
    free = ports()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(test_real_kafka, "free_port", lambda: next(free))
        node = start_node(kafka_home, tmp_path_factory.mktemp("tools"))
    try:
        admin = AdminClient({"bootstrap.servers": node.bootstrap})
        for future in admin.create_topics([NewTopic(t, n, 1) for t, n in TOPICS.items()]).values():
            future.result(30)
        produce(node)
        yield node
    finally:
        stop_node(node.proc)


def produce(node: KraftNode) -> None:
    producer = Producer({"bootstrap.servers": node.bootstrap})
    for i in range(40):
        producer.produce("orders", value=b"x" * (i * 10), partition=i % 3)
    producer.produce("pay", value=b"paid")
    assert producer.flush(30) == 0


def tool(node: KraftNode, tmp_path: Path, script: str, *args: str) -> str:
    env = {**node_env(tmp_path), "KAFKA_HEAP_OPTS": "-Xmx128m"}
    result = subprocess.run([str(node.home / "bin" / script), "--bootstrap-server", node.bootstrap, *args], env=env,
                            capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def kafkatop(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("options", [(), ("--topic-list", "orders,nothing"), ("--broker-list", "1")])
def test_log_dirs_json_is_kafka_log_dirs_line_for_line(
    kafka: KraftNode, tmp_path: Path, capsys: pytest.CaptureFixture[str], options: tuple[str, ...]
) -> None:
    expected = tool(kafka, tmp_path, "kafka-log-dirs.sh", "--describe", *options)
    code, out, err = kafkatop(capsys, "log-dirs", "--bootstrap-server", kafka.bootstrap, "--json", *options)
    with capsys.disabled():
        print(f"kafka-log-dirs.sh:\n{expected}kafkatop:\n{out}")
    assert (code, err) == (0, "")
    assert out.splitlines() == expected.splitlines()
    assert '"partition":"orders-2"' in out and ('"partition":"pay-0"' in out) == (not options or "1" in options)


def test_log_dirs_table_names_every_partition_and_the_disk(
    kafka: KraftNode, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = kafkatop(capsys, "log-dirs", "--bootstrap-server", kafka.bootstrap, "--top", "2")
    print(out)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].split() == [
        "BROKER",
        "LOG",
        "DIR",
        "SIZE",
        "DISK",
        "TOTAL",
        "DISK",
        "USABLE",
        "PARTITIONS",
        "ERROR",
    ]
    row = lines[1].split()
    connection = KafkaConnection.parse(kafka.bootstrap)
    ((log_dir,),) = (b.log_dirs for b in describe_log_dirs(connection, cluster_brokers(connection, 10.0), 10.0).brokers)
    assert (
        row[0] == "1" and row[1] == str(kafka.config.parent / "data") and row[-2:] == [str(len(log_dir.replicas)), "-"]
    )
    assert lines[3] == "The biggest partitions (2):"
    largest = sorted(log_dir.replicas, key=lambda r: -r.size)[:2]
    assert [x.split()[1] for x in lines[5:]] == [r.name for r in largest] and "pay-0" not in out


def test_log_dirs_snapshot_has_sizes_and_disk_bytes(kafka: KraftNode) -> None:
    connection = KafkaConnection.parse(kafka.bootstrap)
    snapshot = describe_log_dirs(connection, cluster_brokers(connection, 10.0), 10.0)
    ((broker),) = snapshot.brokers
    assert (broker.broker, broker.version) == (1, 4)
    (log_dir,) = broker.log_dirs
    assert log_dir.error_code == 0 and log_dir.total_bytes and log_dir.usable_bytes
    assert 0 < log_dir.usable_bytes <= log_dir.total_bytes
    sizes = {r.name: r.size for r in log_dir.replicas}
    assert {"orders-0", "orders-1", "orders-2", "pay-0", "many-11"} <= set(sizes) and log_dir.size == sum(
        sizes.values()
    )
    assert all(not r.is_future and r.offset_lag == 0 for r in log_dir.replicas)


def test_record_describe_log_dirs_answers(kafka: KraftNode, tmp_path: Path) -> None:
    """The raw answers, v4 and v1, for tests/fixtures/protocol/ (with the tool's lines for them)."""
    host, port = "127.0.0.1", kafka.port
    with BrokerConnection(host, port, time.monotonic() + 10) as conn:
        for version in (1, 4):
            payload = conn.send(DESCRIBE_LOG_DIRS, version, request_body(version))
            answer = decode_response(payload, version)
            assert [r.name for d in answer.log_dirs for r in d.replicas]
            (tmp_path / f"describe_log_dirs_v{version}_4_1.bin").write_bytes(payload[:])
        version = conn.version_for(DESCRIBE_CLUSTER)
        payload = conn.send(DESCRIBE_CLUSTER, version, describe_cluster_body(version))
        assert decode_describe_cluster(payload, version).nodes[0].port == kafka.port
        (tmp_path / f"describe_cluster_v{version}_4_1.bin").write_bytes(payload)
    (tmp_path / "kafka_log_dirs_4_1.txt").write_text(tool(kafka, tmp_path, "kafka-log-dirs.sh", "--describe"))
    print(f"recorded in {tmp_path}")


@pytest.fixture(scope="module")
def committed(kafka: KraftNode) -> KraftNode:
    """A group's commit, so that __consumer_offsets (internal, 50 partitions) exists. The first commit may meet the
    group coordinator while __consumer_offsets is still being created (COORDINATOR_NOT_AVAILABLE): asked again."""
    consumer = Consumer({"bootstrap.servers": kafka.bootstrap, "group.id": "g", "enable.auto.commit": False})

    def commit() -> bool:
        try:
            consumer.commit(offsets=[KafkaTopicPartition("orders", 0, 1)], asynchronous=False)
        except KafkaException as e:
            print(f"commit: {e}")  # shown if the wait fails
            return False
        return True

    try:
        wait_for(commit, timeout_s=60.0, interval_s=0.5, what="a committed offset")
    finally:
        consumer.close()
    return kafka


GET_OFFSETS_OPTIONS = [
    (),
    ("--time", "-2"),
    ("--time", "earliest"),
    ("--time", "max-timestamp"),
    ("--time", "-3", "--topic", "orders"),
    ("--time", "1"),
    ("--time", "99999999999999"),
    ("--topic", "ord.*|pay", "--partitions", "0,2"),
    ("--topic", "orders,many"),
    ("--topic-partitions", "many:3-11,pay,:0"),
    ("--topic-partitions", "orders:-2,many:9-"),
    ("--exclude-internal-topics",),
    ("--exclude-internal-topics", "--topic", "__.*|pay"),
]


@pytest.mark.parametrize("options", GET_OFFSETS_OPTIONS)
def test_get_offsets_is_kafka_get_offsets_line_for_line(
    committed: KraftNode, tmp_path: Path, capsys: pytest.CaptureFixture[str], options: tuple[str, ...]
) -> None:
    expected = tool(committed, tmp_path, "kafka-get-offsets.sh", *options)
    code, out, err = kafkatop(capsys, "get-offsets", "--bootstrap-server", committed.bootstrap, *options)
    with capsys.disabled():
        print(f"kafka-get-offsets.sh {' '.join(options)}: {len(expected.splitlines())} lines")
    assert (code, err) == (0, "")
    assert out.splitlines() == expected.splitlines()


def test_get_offsets_no_match_is_said_as_the_tool_says_it(
    committed: KraftNode, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = {**node_env(tmp_path), "KAFKA_HEAP_OPTS": "-Xmx128m"}
    result = subprocess.run([str(committed.home / "bin" / "kafka-get-offsets.sh"), "--bootstrap-server",
                             committed.bootstrap, "--topic", "nothing.*"], env=env, capture_output=True, text=True,
                            timeout=180, stdin=subprocess.DEVNULL)  # fmt: skip
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.strip() == "Error occurred: Could not match any topic-partitions with the specified filters"
    code, out, err = kafkatop(capsys, "get-offsets", "--bootstrap-server", committed.bootstrap, "--topic", "nothing.*")
    assert (code, out) == (1, "")
    assert err == "kafkatop: Could not match any topic-partitions with the specified filters\n"


def quorum_tool(node: KraftNode, tmp_path: Path, via: str, *args: str) -> list[str]:
    address = node.bootstrap if via == "--bootstrap-server" else f"127.0.0.1:{node.controller_port}"
    env = {**node_env(tmp_path), "KAFKA_HEAP_OPTS": "-Xmx128m"}
    result = subprocess.run([str(node.home / "bin" / "kafka-metadata-quorum.sh"), via, address, "describe", *args],
                            env=env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.splitlines()


def quorum_kafkatop(node: KraftNode, capsys: pytest.CaptureFixture[str], via: str, *args: str) -> list[str]:
    address = node.bootstrap if via == "--bootstrap-server" else f"127.0.0.1:{node.controller_port}"
    code, out, err = kafkatop(capsys, "metadata-quorum", "describe", via, address, *args)
    assert (code, err) == (0, "")
    return out.splitlines()


def quorum_both(
    node: KraftNode, tmp_path: Path, capsys: pytest.CaptureFixture[str], via: str, option: str
) -> tuple[list[str], list[str], list[str]]:
    """kafkatop's lines just before the tool's and just after them (the metadata log grows meanwhile: a no-op record
    every 500 ms), the tool's and the last shown side by side."""
    before = quorum_kafkatop(node, capsys, via, option)
    expected = quorum_tool(node, tmp_path, via, option)
    after = quorum_kafkatop(node, capsys, via, option)
    with capsys.disabled():
        print("\n".join(["kafka-metadata-quorum.sh:", *expected, "kafkatop:", *after]))
    return before, expected, after


@pytest.mark.parametrize("via", ["--bootstrap-server", "--bootstrap-controller"])
def test_metadata_quorum_status_is_the_tools(
    kafka: KraftNode, tmp_path: Path, capsys: pytest.CaptureFixture[str], via: str
) -> None:
    before, expected, after = quorum_both(kafka, tmp_path, capsys, via, "--status")
    # The metadata log grows by itself (a no-op record every 500 ms): the high watermark is compared as a range.
    high = [int(lines[3].split()[1]) for lines in (before, expected, after)]
    assert high == sorted(high)
    for lines in (before, after):
        assert [x for i, x in enumerate(lines) if i != 3] == [x for i, x in enumerate(expected) if i != 3]
        assert lines[3].startswith("HighWatermark:          ")


@pytest.mark.parametrize("via", ["--bootstrap-server", "--bootstrap-controller"])
def test_metadata_quorum_replication_is_the_tools(
    kafka: KraftNode, tmp_path: Path, capsys: pytest.CaptureFixture[str], via: str
) -> None:
    before, expected, after = quorum_both(kafka, tmp_path, capsys, via, "--replication")
    assert before[0].split("\t") == after[0].split("\t")
    assert [c.strip() for c in after[0].split("\t")] == [c.strip() for c in expected[0].split("\t")]
    assert len(before) == len(expected) == len(after) == 2  # one voter, the leader; no observer
    rows = [[c.strip() for c in lines[1].split("\t")] for lines in (before, expected, after)]
    for r in rows:  # NodeId, DirectoryId (a static voter has none: the zero uuid), Lag, Status, the last tab's ""
        assert [r[0], r[1], r[3], *r[6:]] == ["1", "AAAAAAAAAAAAAAAAAAAAAA", "0", "Leader", ""]
    for column in (2, 4, 5):  # the log end offset and the two timestamps grow
        values = [int(r[column]) for r in rows]
        assert values == sorted(values)
    human = quorum_kafkatop(kafka, capsys, via, "--replication", "--human-readable")
    cells = [c.strip() for c in human[1].split("\t")]
    assert cells[4].endswith(" ms ago") and cells[5].endswith(" ms ago")


def test_api_versions_is_kafka_broker_api_versions_line_for_line(
    kafka: KraftNode, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = tool(kafka, tmp_path, "kafka-broker-api-versions.sh")
    code, out, err = kafkatop(capsys, "api-versions", "--bootstrap-server", kafka.bootstrap)
    with capsys.disabled():
        print(f"kafka-broker-api-versions.sh:\n{expected}kafkatop:\n{out}")
    assert (code, err) == (0, "")
    assert out.splitlines() == expected.splitlines()
    assert out.startswith(f"127.0.0.1:{kafka.port} (id: 1 rack: null isFenced: false) -> (\n\tProduce(0): ")


def test_api_versions_of_the_controllers(kafka: KraftNode, capsys: pytest.CaptureFixture[str]) -> None:
    """Kafka 4.1's tool has no --bootstrap-controller: a controller's lines, in the same form, say what it serves."""
    code, out, err = kafkatop(capsys, "api-versions", "--bootstrap-controller", f"127.0.0.1:{kafka.controller_port}")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"127.0.0.1:{kafka.controller_port} (id: 1 rack: null isFenced: false) -> ("
    assert "\tProduce(0): UNSUPPORTED," in lines and "\tVote(52): 0 to 2 [usable: 2]," in lines
    assert lines[-1] == ")"
