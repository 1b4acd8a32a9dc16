"""`kafkatop produce`'s failures against the librdkafka mock cluster, which can refuse and lose what a real Kafka
rarely does on demand: a Write refused by the authorizer (TOPIC_AUTHORIZATION_FAILED pushed as Produce's answer)
reaches the user as the line that grants it, after the count; records a stopped leader never takes are purged at the
end of --timeout and counted, their reason said once; a queue that never drains stops the run instead of waiting for
ever; Ctrl-C while stdin is read says how many records were delivered."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from confluent_kafka import Consumer, TopicPartition

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.kafka.records.bulk_producer import RecordProducer
from kafkatop.backends.kafka.records.producer_console import ProducerSession
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.consoles import ClientError, Delivery
from kafkatop.backends.model.produce import ProducerRecord
from kafkatop.tui.cli.main import main
from tests.conftest import wait_for
from tests.integration.test_clients_mock import high_watermarks

pytestmark = pytest.mark.timeout(60)

PRODUCE_API, INIT_PRODUCER_ID_API = 0, 22
TOPIC_AUTHORIZATION_FAILED, CLUSTER_AUTHORIZATION_FAILED = 29, 31


def test_a_refused_write_says_what_to_grant(
    mock_cluster: MockCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mock_cluster.create_topic("t", 1, 1)
    mock_cluster.push_request_errors(PRODUCE_API, [TOPIC_AUTHORIZATION_FAILED] * 10)
    records = tmp_path / "records.txt"
    records.write_text("a\nb\nc\n", encoding="utf-8")
    bootstrap = mock_cluster.bootstrap_servers
    assert main(["produce", "--topic", "t", "--file", str(records), "--bootstrap-server", bootstrap]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines[:2] == [
        "kafkatop: 0 records produced, 3 failed",
        "kafkatop: 3 records failed: TOPIC_AUTHORIZATION_FAILED: Broker: Topic authorization failed",
    ]
    assert lines[2] == (
        "kafkatop: cannot send to 't': TOPIC_AUTHORIZATION_FAILED: User:ANONYMOUS may not Write on Topic:t — as an "
        "admin, grant it: kafkatop acls --add --allow-principal User:ANONYMOUS --operation Write --topic t "
        f"--bootstrap-server {bootstrap} --command-config ADMIN.properties"  # an attached cluster: an admin's file
    ), lines


def test_an_idempotent_producer_refused_its_producer_id_says_what_to_grant(
    mock_cluster: MockCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """InitProducerId refused is a fatal error of librdkafka's, which confluent-kafka 2.16 raises and then loses on
    some orders of callbacks (RecordProducer._serve): the refusal comes through on every run."""
    mock_cluster.create_topic("t", 1, 1)
    records = tmp_path / "records.txt"
    records.write_text("a\nb\nc\n", encoding="utf-8")
    bootstrap = mock_cluster.bootstrap_servers
    for _ in range(3):
        mock_cluster.push_request_errors(INIT_PRODUCER_ID_API, [CLUSTER_AUTHORIZATION_FAILED])
        assert main(["produce", "--topic", "t", "--file", str(records), "--bootstrap-server", bootstrap]) == 1
        lines = capsys.readouterr().err.splitlines()
        # The fatal error comes before a record is queued (stopped at that line, those before it failed), or after
        # all three.
        assert re.fullmatch(r"kafkatop: 0 records produced(, [12] failed)?; stopped at line [123]: nothing from it "
                            r"on was sent|kafkatop: 0 records produced, 3 failed", lines[0]), lines  # fmt: skip
        if len(lines) == 3:
            assert re.match(r"kafkatop: [123] records? failed: CLUSTER_AUTHORIZATION_FAILED: ", lines[1]), lines
        assert lines[-1].startswith(
            "kafkatop: cannot send to 't': CLUSTER_AUTHORIZATION_FAILED: User:ANONYMOUS may not Write on Topic:t — "
            "as an admin, grant it: kafkatop acls --add --allow-principal User:ANONYMOUS --operation Write --topic t "
        ), lines


def test_the_tabs_idempotent_producer_refused_its_producer_id_names_the_grant(mock_cluster: MockCluster) -> None:
    """The Produce tab's session (ProducerSession): its records purged after the fatal error once said only
    `_PURGE_QUEUE: Local: Purged in queue`, and M had nothing to grant; they say the refusal and carry the grant, and
    the next line goes through a new producer once the refusal is gone."""
    mock_cluster.create_topic("t", 1, 1)
    for _ in range(3):  # the fatal error comes through on every order of callbacks
        mock_cluster.push_request_errors(INIT_PRODUCER_ID_API, [CLUSTER_AUTHORIZATION_FAILED])
        session = ProducerSession(KafkaConnection.parse(mock_cluster.bootstrap_servers))
        try:
            refused_then_sent(session)
        finally:
            session.close()


def refused_then_sent(session: ProducerSession) -> None:
    assert session.settings.idempotence  # the tab's default
    session.send("t", "refused")
    got: list[Delivery] = []
    wait_for(lambda: bool(got.__iadd__(session.deliveries())), what="the refused line's report")
    assert got[0].error == "CLUSTER_AUTHORIZATION_FAILED: User:ANONYMOUS may not Write on Topic:t", got
    assert [(g.operations, g.pattern.name) for g in got[0].grants] == [(("WRITE",), "t")]
    session.send("t", "allowed")  # InitProducerId answers now: a new producer sends it
    wait_for(lambda: bool(got.__iadd__(session.deliveries())) and len(got) == 2, what="the next line")
    assert got[1].error is None and got[1].offset is not None, got


def test_records_a_stopped_leader_never_takes_are_counted_once_purged(mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("t", 1, 1)
    producer = RecordProducer(KafkaConnection.parse(mock_cluster.bootstrap_servers), timeout_s=1.0)
    try:
        assert producer.partitions("t") == 1
        for broker in mock_cluster.broker_ids:
            mock_cluster.set_broker_down(broker)
        for i in range(5):
            producer.send("t", ProducerRecord(None, f"v{i}".encode()))
        produced = producer.finish()
    finally:
        producer.close()
    assert (produced.delivered, produced.failed, len(produced.reasons)) == (0, 5, 1)
    reason, count = produced.reasons[0]
    assert count == 5 and reason.startswith("not delivered within --timeout 1 s (purged)"), reason
    assert produced.summary() == "0 records produced, 5 failed"


def test_a_queue_that_never_drains_stops_the_run(mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("t", 1, 1)
    connection = KafkaConnection.parse(mock_cluster.bootstrap_servers)
    producer = RecordProducer(connection, timeout_s=1.0, properties={"queue.buffering.max.messages": "5"})
    try:
        producer.partitions("t")
        for broker in mock_cluster.broker_ids:
            mock_cluster.set_broker_down(broker)
        queued = 0
        with pytest.raises(ClientError, match=r"^nothing was delivered for 1 s with \d+ records waiting for Kafka"):
            for i in range(100):
                producer.send("t", ProducerRecord(None, f"v{i}".encode()))
                queued += 1
        assert 5 <= queued < 100
        assert producer.finish(0.5).failed == queued  # each purged, and counted
    finally:
        producer.close()


def test_ctrl_c_says_how_many_records_were_delivered(mock_cluster: MockCluster, tmp_path: Path) -> None:
    """Ctrl-C lands where it will (in the read of stdin, in a send, in the last wait; Python's read of a pipe may
    end the lines first and raise it a moment later): the count comes out every time."""
    mock_cluster.create_topic("t", 1, 1)
    bootstrap = mock_cluster.bootstrap_servers
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path)}
    watermarks = Consumer({"bootstrap.servers": bootstrap, "group.id": "kafkatop-test"})
    try:
        for run in range(3):
            proc = subprocess.Popen(
                [sys.executable, "-m", "kafkatop.tui.cli", "produce", "--topic", "t", "--bootstrap-server", bootstrap],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=tmp_path, env=env,
            )  # fmt: skip
            assert proc.stdin is not None
            proc.stdin.write(b"a\nb\n")
            proc.stdin.flush()
            end = 2 * (run + 1)
            wait_for(lambda end=end: watermarks.get_watermark_offsets(TopicPartition("t", 0), 5)[1] == end,
                     timeout_s=20, what="the two records in the topic")  # fmt: skip
            proc.send_signal(signal.SIGINT)  # and stdin closed at once, as Ctrl-C ends `cat file |` too
            _, err = proc.communicate(timeout=30)
            assert proc.returncode == 130
            assert err.decode().splitlines() == [
                "kafkatop: interrupted: 2 records produced (what was read before Ctrl-C was sent, and waited for)"
            ]
    finally:
        watermarks.close()


def test_a_missing_topic_is_asked_for_as_kafkas_producer_asks_and_the_brokers_create_it(
    mock_cluster: MockCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """kafka-console-producer.sh names its topic in a Metadata request that allows auto-creation; the mock, as a
    broker with auto.create.topics.enable=true, creates it (4 partitions, the mock's num.partitions). The mock has no
    DescribeConfigs: the setting is unknown, so the line says what the brokers did, and the records go."""
    records = tmp_path / "records.txt"
    records.write_text("a\nb\nc\n", encoding="utf-8")
    bootstrap = mock_cluster.bootstrap_servers
    argv = ["produce", "--topic", "fresh", "--file", str(records), "--bootstrap-server", bootstrap, "--timeout", "5"]
    assert main(argv) == 0
    assert capsys.readouterr().err.splitlines() == [
        "kafkatop: topic 'fresh' did not exist: the brokers created it when asked for it, as Kafka's producer asks, "
        "with 4 partitions (auto.create.topics.enable could not be read: broker 1 does not answer DescribeConfigs)",
        "kafkatop: 3 records produced",
    ]
    assert sum(n or 0 for n in high_watermarks(mock_cluster, "fresh").values()) == 3
    # Now it exists: nothing more is said.
    assert main(argv) == 0
    assert capsys.readouterr().err.splitlines() == ["kafkatop: 3 records produced"]
