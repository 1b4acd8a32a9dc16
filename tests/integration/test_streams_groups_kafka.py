"""`kafkatop streams-groups` against a real Apache Kafka 4.1 (KAFKA_HOME), compared with kafka-streams-groups.sh on
the same node line for line, with a real Kafka Streams application using the streams rebalance protocol
(tests/fixtures/streams/StreamsPipe.java: a stateless topology, compiled with javac against the install's jars; the
install has no RocksDB for the examples' stateful demos):

- the broker started for streams groups (unstable.api.versions.enable, unstable.feature.versions.enable: formatted
  so, it starts at streams.version=1; group.coordinator.rebalance.protocols need not name streams);
  with streams.version disabled: one line saying streams groups are off and how to turn them on, exit 1;
- `pipe-app` running (Stable, one member with tasks 0_0 and 0_1): --list (and --list --state), --describe's offsets,
  --members and --state (and --verbose): the same lines (offset rows sorted: the tool prints a HashMap's order);
- the app stopped (Empty): --describe --state (and --verbose), the same lines and error note; --describe's offsets
  and --members print nothing, as the tool;
- the live view's poll (AdminSource) shows the running group once, of type streams, with its member and offsets;
- an app with a repartition topic (two subtopologies): described the same; --delete deletes its internal topic too;
- deleting: a group that is none refused as the tool refuses it (its Java exception's class left out); pipe-app
  deleted, the tool then listing no group.

Ports 30510-30511. Run: KAFKA_HOME=/opt/kafka_2.13-4.1.0 .venv/bin/python -m pytest -q -m kafka \
  tests/integration/test_streams_groups_kafka.py
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from confluent_kafka import Producer

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.streams_groups.streams_groups import describe_streams_groups
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.tui.cli.main import main
from tests.conftest import wait_for
from tests.integration.test_real_kafka import KraftNode, create_topic, node_env, start_node, stop_node, stop_session

pytestmark = pytest.mark.kafka

PORTS = (30510, 30511)
APP = "pipe-app"
SOURCE, SINK = "words-in", "words-out"
RECORDS = 12
STREAMS_BROKER = {
    "unstable.api.versions.enable": "true",
    "unstable.feature.versions.enable": "true",
}
PIPE = Path(__file__).parents[1] / "fixtures" / "streams" / "StreamsPipe.java"


@dataclass
class StreamsCluster:
    node: KraftNode
    env: dict[str, str]
    classes: Path


def run_tool(cluster: StreamsCluster, script: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(cluster.node.home / "bin" / script), "--bootstrap-server", cluster.node.bootstrap, *argv],
        env=cluster.env, capture_output=True, text=True, timeout=120, check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def tool(cluster: StreamsCluster, *argv: str) -> list[str]:
    done = run_tool(cluster, "kafka-streams-groups.sh", *argv)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


def ours(cluster: StreamsCluster, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = main(["streams-groups", *argv, "--bootstrap-server", cluster.node.bootstrap])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def start_app(cluster: StreamsCluster, root: Path, app: str = APP, *mode: str) -> subprocess.Popen[bytes]:
    props = root / f"{app}.properties"
    props.write_text(f"bootstrap.servers={cluster.node.bootstrap}\napplication.id={app}\ngroup.protocol=streams\n")
    env = {**cluster.env, "CLASSPATH": str(cluster.classes), "KAFKA_HEAP_OPTS": "-Xmx256m"}
    with open(root / f"{app}.out", "wb") as sink:
        return subprocess.Popen(
            [str(cluster.node.home / "bin" / "kafka-run-class.sh"), "StreamsPipe", str(props), SOURCE, SINK, *mode],
            env=env, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip


@pytest.fixture(scope="module")
def streams(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[StreamsCluster]:
    if shutil.which("javac") is None:
        pytest.skip("no javac: the Kafka Streams application under test is compiled from its source")
    root = tmp_path_factory.mktemp("streams")
    classes = root / "classes"
    classes.mkdir()
    built = subprocess.run(["javac", "-d", str(classes), "-cp", f"{kafka_home / 'libs'}/*", str(PIPE)],
                           capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert built.returncode == 0, built.stderr
    node = start_node(kafka_home, root / "kraft", extra=STREAMS_BROKER, ports=PORTS)
    try:
        yield StreamsCluster(node, node_env(root / "tools"), classes)
    finally:
        stop_node(node.proc)


def test_before_streams_version_1_it_says_how_to_turn_them_on(
    streams: StreamsCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    # formatted with unstable feature versions enabled, the cluster starts at streams.version=1: turned off here
    disabled = run_tool(streams, "kafka-features.sh", "disable", "--feature", "streams.version")
    assert disabled.returncode == 0, disabled.stdout + disabled.stderr
    code, out, err = ours(streams, capsys, "--list")
    assert (code, out) == (1, [])
    assert "streams groups are off on the cluster of" in err and "(streams.version=0)" in err
    assert "upgrade --feature streams.version=1" in err
    assert tool(streams, "--list") == []  # the tool says nothing


def test_a_running_app_and_then_a_stopped_one_print_as_the_tool(
    streams: StreamsCluster, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    upgraded = run_tool(streams, "kafka-features.sh", "upgrade", "--feature", "streams.version=1")
    assert upgraded.returncode == 0, upgraded.stdout + upgraded.stderr
    create_topic(streams.node, SOURCE, 2)
    create_topic(streams.node, SINK, 1)
    producer = Producer({"bootstrap.servers": streams.node.bootstrap})
    for i in range(RECORDS):
        producer.produce(SOURCE, f"w{i}".encode(), partition=i % 2)
    assert producer.flush(20) == 0
    app = start_app(streams, tmp_path)
    connection = KafkaConnection.parse(streams.node.bootstrap)
    try:

        def caught_up() -> bool:
            group = describe_streams_groups(connection, [APP], 5.0)[APP]
            return group.state == "Stable" and [o.committed for o in group.offsets] == [RECORDS // 2] * 2

        wait_for(caught_up, timeout_s=90, interval_s=0.5, what=f"{APP} stable with its offsets committed")
        for argv in (["--list"], ["--list", "--state"], ["--list", "--state", "stable,empty"]):
            assert ours(streams, capsys, *argv)[:2] == (0, tool(streams, *argv)), argv
        for view in ([], ["--offsets"], ["--members"], ["--state"]):
            for verbose in ([], ["--verbose"]):
                argv = ["--describe", "--group", APP, *view, *verbose]
                code, out, _ = ours(streams, capsys, *argv)
                theirs = tool(streams, *argv)
                assert code == 0
                assert out[:1] == theirs[:1] and sorted(out[1:]) == sorted(theirs[1:]), argv
        (row,) = ours(streams, capsys, "--describe", "--group", APP, "--members")[1][1:]
        assert row.endswith("ACTIVE: 0:[0,1]; ")
        # the live view's poll: the group once, of type streams, its member reading both partitions, lag 0
        source = AdminSource(connection, timeout_s=10.0)
        try:
            (group,) = [g for g in source.poll().groups if g.group_id == APP]
        finally:
            source.close()
        assert (group.group_type, group.protocol_type, group.state.value) == ("streams", "streams", "Stable")
        (member,) = group.members
        assert [(tp.topic, tp.partition) for tp in member.assignment] == [(SOURCE, 0), (SOURCE, 1)]
        assert [(o.partition, o.committed, o.lag, o.member_id) for o in group.offsets] == [
            (0, RECORDS // 2, 0, member.member_id), (1, RECORDS // 2, 0, member.member_id),
        ]  # fmt: skip
    finally:
        stop_session(app, 20)
    wait_for(lambda: describe_streams_groups(connection, [APP], 5.0)[APP].state == "Empty", timeout_s=60,
             interval_s=0.5, what=f"{APP} empty once its app stopped")  # fmt: skip
    for argv in (["--state"], ["--state", "--verbose"], [], ["--members"]):
        full = ["--describe", "--group", APP, *argv]
        assert ours(streams, capsys, *full)[:2] == (0, tool(streams, *full)), argv
    assert ours(streams, capsys, "--describe", "--group", APP, "--state")[1][:2] == [
        "", f"Error: Streams group '{APP}' has no active members.",
    ]  # fmt: skip

    # deleting: a group that is none is refused as the tool refuses it; pipe-app (empty) is deleted
    theirs = run_tool(streams, "kafka-streams-groups.sh", "--delete", "--group", "ghost").stdout.splitlines()
    code, out, _ = ours(streams, capsys, "--delete", "--group", "ghost", "--yes")
    assert code == 1
    assert out == [line.replace("java.lang.IllegalArgumentException: ", "") for line in theirs]
    code, out, _ = ours(streams, capsys, "--delete", "--group", APP, "--yes")
    assert (code, out) == (0, [f"Deletion of requested streams groups ('{APP}') was successful."])
    assert tool(streams, "--list") == []


def test_a_repartitioning_app_is_described_as_the_tool_and_deleted_with_its_internal_topic(
    streams: StreamsCluster, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Two subtopologies (the second reads the repartition topic): the same lines; --delete deletes the group and its
    repartition topic, as the tool does."""
    app_id = "repart-app"
    app = start_app(streams, tmp_path, app_id, "repartition")
    connection = KafkaConnection.parse(streams.node.bootstrap)
    try:

        def both_subtopologies() -> bool:
            group = describe_streams_groups(connection, [app_id], 5.0)[app_id]
            return group.state == "Stable" and len(group.source_topics) == 2 and len(group.offsets) == 4

        wait_for(both_subtopologies, timeout_s=90, interval_s=0.5, what=f"{app_id} stable with its two subtopologies")
        group = describe_streams_groups(connection, [app_id], 5.0)[app_id]
        (internal,) = group.internal_topics
        assert internal.startswith(f"{app_id}-") and internal.endswith("-repartition")
        for view in ([], ["--members"], ["--state"]):
            for verbose in ([], ["--verbose"]):
                argv = ["--describe", "--group", app_id, *view, *verbose]
                out = ours(streams, capsys, *argv)[1]
                theirs = tool(streams, *argv)
                if view == [] and out != theirs and not verbose:  # lag moves while the app works: compare the rest
                    out, theirs = [line.rsplit(" ", 1)[0] for line in out], [line.rsplit(" ", 1)[0] for line in theirs]
                assert out[:1] == theirs[:1] and sorted(out[1:]) == sorted(theirs[1:]), argv
    finally:
        stop_session(app, 20)
    wait_for(lambda: describe_streams_groups(connection, [app_id], 5.0)[app_id].state == "Empty", timeout_s=60,
             interval_s=0.5, what=f"{app_id} empty once its app stopped")  # fmt: skip
    code, out, _ = ours(streams, capsys, "--delete", "--group", app_id, "--yes")
    assert (code, out) == (0, [
        f"Deletion of requested streams groups ('{app_id}') was successful.",
        f"Deletion of associated internal topics of the streams groups ('{app_id}') was successful.",
    ])  # fmt: skip
    listed = run_tool(streams, "kafka-topics.sh", "--list").stdout.split()
    wait_for(lambda: internal not in run_tool(streams, "kafka-topics.sh", "--list").stdout.split(), timeout_s=30,
             interval_s=0.5, what=f"{internal} deleted")  # fmt: skip
    assert SOURCE in listed
