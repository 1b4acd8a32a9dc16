"""Partition reassignment against a real Apache Kafka, compared with kafka-reassign-partitions.sh on the same cluster:
a 3-broker KRaft lab, a topic 6x2, a fourth broker added; the proposal printed and nothing started without
--execute; refusals (an unknown broker, a replication factor above the brokers, an unknown topic) that change
nothing; the move to the new broker followed to its end; --verify and --list as Kafka's tool prints them; a
throttled RF 2 -> 3 cancelled and its throttle removed; RF 3 and a plan file of Kafka's JSON. Set KAFKA_HOME to run;
every node is stopped by recorded pid."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Producer

from kafkatop.backends.insight.timeline.model import EventKind, Trigger
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.reassign import ReassignAdmin
from kafkatop.backends.kafka.cluster.topics import TopicAdmin
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.tui.cli.main import main
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.screens.reassign import ReassignScreen
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.partitions.pane import PartitionTable
from tests.conftest import pilot_until
from tests.integration.test_supervisor import Clusters

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(600)]

TOPIC = "t6"


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, kafka_home: Path) -> Iterator[tuple[str, Path]]:
    clusters = Clusters(tmp_path_factory.mktemp("reassign"))
    try:
        cluster = clusters.make(kafka_home, name="reassign", mode="kraft", brokers=3, heap="256m")
        bootstrap = cluster.up(timeout_s=120).bootstrap_servers
        with TopicAdmin(KafkaConnection.parse(bootstrap)) as topics:
            topics.create_topic(TOPIC, 6, 2)
        producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20})
        # 5 MB a partition: more than one follower fetch (1 MB) carries, so a throttle holds a copy back.
        for i in range(30000):
            producer.produce(TOPIC, b"x" * 1000, key=str(i).encode())
            if i % 5000 == 0:
                producer.poll(0)
        assert producer.flush(30) == 0
        del producer  # closed here, before the lab goes down under it
        cluster.add_broker(timeout_s=120)
        yield bootstrap, kafka_home
    finally:
        clusters.cleanup()


def metadata(bootstrap: str) -> ClusterSnapshot:
    source = AdminSource(KafkaConnection.parse(bootstrap), timeout_s=10.0)
    try:
        return source.poll(topics_only=True)
    finally:
        source.close()


def replicas(bootstrap: str) -> dict[int, tuple[int, ...]]:
    topic = metadata(bootstrap).topic(TOPIC)
    assert topic is not None
    return {p.id: p.replicas for p in topic.partitions}


def run(capsys: pytest.CaptureFixture[str], bootstrap: str, *argv: str) -> tuple[int, str, str]:
    code = main(["reassign", *argv, "--bootstrap-server", bootstrap])
    out, err = capsys.readouterr()
    return code, out, err


def kafka_tool(home: Path, bootstrap: str, *argv: str) -> str:
    done = subprocess.run(
        [str(home / "bin" / "kafka-reassign-partitions.sh"), "--bootstrap-server", bootstrap, *argv],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return done.stdout


def test_a_proposal_changes_nothing_and_refusals_say_why(
    lab: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    bootstrap, _ = lab
    before = replicas(bootstrap)
    code, out, err = run(capsys, bootstrap, "--topic", TOPIC, "--brokers", "1,2,3,4")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "Current partition replica assignment" and lines[3].startswith("Proposed")
    assert "nothing was started: add --execute" in err
    proposed = json.loads(lines[4])["partitions"]
    assert sorted(Counter(b for p in proposed for b in p["replicas"]).values()) == [3, 3, 3, 3]
    for argv, says in [
        (("--topic", TOPIC, "--brokers", "1,2,9"), "target broker 9 is not in the cluster (its brokers: 1,2,3,4)"),
        (("--topic", TOPIC, "--replication-factor", "5"), "replication factor 5 on 4 broker(s) (1,2,3,4)"),
        (("--topic", "nope", "--replication-factor", "2", "--execute"), "no topic 'nope' in the cluster"),
        (("--topic", TOPIC), "--topic alone changes nothing"),
    ]:
        code, out, err = run(capsys, bootstrap, *argv)
        assert (code, out) == (2, "") and says in err and err.count("\n") == 1, err
    assert replicas(bootstrap) == before


def test_to_a_new_broker_then_rf_3_as_kafka_s_tool_sees_it(
    lab: tuple[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bootstrap, home = lab
    code, out, err = run(capsys, bootstrap, "--topic", TOPIC, "--brokers", "1,2,3,4", "--execute", "--wait")
    assert code == 0, err
    assert "Successfully started partition reassignment" in out and "t6-" in err and ": done" in err
    now = replicas(bootstrap)
    assert sorted(Counter(b for r in now.values() for b in r).values()) == [3, 3, 3, 3]
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": TOPIC, "partition": p, "replicas": list(r)} for p, r in sorted(now.items())]}))  # fmt: skip
    ours = run(capsys, bootstrap, "--plan", str(plan), "--status")[1]
    assert (
        ours.splitlines() == kafka_tool(home, bootstrap, "--reassignment-json-file", str(plan), "--verify").splitlines()
    )
    assert ours.startswith("Status of partition reassignment:\nReassignment of partition t6-0 is completed.\n")

    # RF 2 -> 3 throttled to a crawl: in progress as both tools list it, then cancelled and the throttle removed.
    code, out, err = run(capsys, bootstrap, "--topic", TOPIC, "--replication-factor", "3", "--execute",
                         "--throttle", "1000")  # fmt: skip
    assert code == 0 and "The inter-broker throttle limit was set to 1000 B/s" in out, err
    ours = run(capsys, bootstrap, "--list")[1]
    assert ours.splitlines() == kafka_tool(home, bootstrap, "--list").splitlines()
    assert ours.startswith("Current partition reassignments:\nt6-0: replicas: ")
    code, out, _ = run(capsys, bootstrap, "--cancel", "--topic", TOPIC)
    assert code == 0 and out.startswith("Successfully cancelled partition reassignments for: t6-0,")
    assert out.endswith(
        "Clearing broker-level throttles on brokers 1,2,3,4\nClearing topic-level throttles on topic t6\n"
    )
    assert run(capsys, bootstrap, "--list")[1] == "No partition reassignments found.\n"
    configs = main(["configs", "--broker", "1", "--bootstrap-server", bootstrap])
    assert (configs, capsys.readouterr().out) == (0, "Dynamic configs for broker 1 are:\n")
    assert replicas(bootstrap) == now  # cancelled: back to where it was

    code, _, err = run(capsys, bootstrap, "--topic", TOPIC, "--replication-factor", "3", "--execute", "--wait")
    assert code == 0, err
    assert all(len(r) == 3 for r in replicas(bootstrap).values())

    # A plan of Kafka's JSON: partition 0 back to two replicas.
    first = replicas(bootstrap)[0]
    plan.write_text(json.dumps({"version": 1, "partitions": [{"topic": TOPIC, "partition": 0,
                                                               "replicas": list(first[:2])}]}))  # fmt: skip
    code, out, err = run(capsys, bootstrap, "--plan", str(plan), "--execute", "--wait")
    assert code == 0 and "Successfully started partition reassignment for t6-0" in out, err
    assert replicas(bootstrap)[0] == first[:2]


async def test_the_app_s_m_proposes_runs_and_times_it_on_the_timeline(lab: tuple[str, Path]) -> None:
    """RF 3 -> 2 from the live view: `m` on the topic, the replication factor typed, `r`; the timeline tells the
    start, each partition, the end, and the incident ends with the first poll after it."""
    bootstrap, _ = lab
    connection = KafkaConnection.parse(bootstrap)
    source = AdminSource(connection, timeout_s=5.0)
    admin = ReassignAdmin(connection, lambda: metadata(bootstrap), timeout_s=30.0)
    app = KafkatopApp(Sources(source.poll, reassignments=admin), Settings(poll_interval_s=0.5))
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot_until(pilot, lambda: app.query_one(PartitionTable).row_count == 6, "t6's partitions")
            await pilot.press("m")
            await pilot_until(pilot, lambda: isinstance(app.screen, ReassignScreen), "the reassignment screen")
            await pilot.press("tab", "tab", "backspace", "2")
            status = app.screen.query_one("#reassign-status")
            assert "partition(s) change, 0 replica(s) to copy" in str(status.render())  # only dropping replicas
            await pilot.press("escape", "r")
            await pilot_until(pilot, lambda: not isinstance(app.screen, ReassignScreen), "the screen dismissed")

            def ended() -> bool:
                incidents = app.feed.timeline.snapshot().incidents
                return bool(incidents) and incidents[-1].trigger is Trigger.REASSIGNMENT and not incidents[-1].open

            await pilot_until(pilot, ended, "the reassignment's incident ended", timeout_s=60)
            incident = app.feed.timeline.snapshot().incidents[-1]
            said = [s.event.after for s in incident.steps if s.event.kind is EventKind.OPERATION]
            assert said[0] == "started" and said[-2:] == ["done", "seen"], said
            assert incident.title == "reassignment on t6"
    finally:
        source.close()
    assert all(len(r) == 2 for r in replicas(bootstrap).values())
