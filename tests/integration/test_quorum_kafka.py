"""QuorumSource against a real Kafka 4.1 KRaft node, compared with `kafka-metadata-quorum.sh describe --status`.

The node (the module's `kafka` fixture) is one combined broker+controller with node id 1 and a static voter set:
it leads the quorum alone, its broker is the same Raft replica (so no observer), and it has no directory id. Its
metadata log grows by itself (the controller appends a no-op record every 500 ms), so high watermarks are compared
as a range. Set KAFKA_HOME to run these; the raw DescribeQuorum bytes are printed (pytest -s) for the unit tests.
"""

from __future__ import annotations

import re
import socket
import subprocess
import time
from pathlib import Path

import pytest

from kafkatop.backends.kraft.quorum import QuorumSource, to_snapshot
from kafkatop.backends.kraft.wire import decode_describe_quorum
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.backends.model.quorum import QuorumSnapshot
from tests.integration.test_real_kafka import NODE_ID, KraftNode, node_env

pytestmark = pytest.mark.kafka

STATUS_LINE = re.compile(r"^(\w+):\s+(.*)$", re.MULTILINE)


def controller_address(node: KraftNode) -> str:
    return f"127.0.0.1:{node.controller_port}"


def assert_single_node_quorum(snap: QuorumSnapshot, node: KraftNode) -> None:
    assert snap.leader_id == NODE_ID
    assert snap.leader_epoch >= 1
    assert snap.high_watermark > 0
    (voter,) = snap.voters
    assert voter.replica_id == NODE_ID and voter.lag == 0
    assert voter.log_end_offset >= snap.high_watermark
    assert voter.endpoints == (f"CONTROLLER://127.0.0.1:{node.controller_port}",)
    assert voter.directory_id is None  # a static voter set (controller.quorum.voters) has none
    # The leader reports itself as fetching and caught up "now".
    assert voter.last_fetch_ms_ago is not None and voter.last_fetch_ms_ago < 5_000
    assert voter.last_caught_up_ms_ago is not None and voter.last_caught_up_ms_ago < 5_000
    assert snap.observers == ()
    assert snap.leader is voter and snap.max_follower_lag == 0
    assert snap.api_version == 2


def test_quorum_through_the_broker_listener(kafka: KraftNode) -> None:
    source = QuorumSource(KafkaConnection.parse(kafka.bootstrap), timeout_s=5.0)
    snap = source.poll()
    print(snap)
    assert_single_node_quorum(snap, kafka)
    assert (snap.source, snap.via) == (kafka.bootstrap, "broker")
    # The recorded bytes decode to the same snapshot: what the unit tests replay.
    assert source.last_response is not None
    version, payload = source.last_response
    print(f"DescribeQuorum v{version} response via the broker: {payload.hex()}")
    again = to_snapshot(decode_describe_quorum(payload, version), snap.taken_at, source=snap.source, via=snap.via)
    assert again == snap


def test_quorum_from_the_controller_listener(kafka: KraftNode) -> None:
    via_broker = QuorumSource(KafkaConnection.parse(kafka.bootstrap), timeout_s=5.0).poll()
    snap = QuorumSource(KafkaConnection.parse(controller_address(kafka)), timeout_s=5.0).poll()
    assert_single_node_quorum(snap, kafka)
    assert (snap.source, snap.via) == (controller_address(kafka), "controller")
    assert (snap.leader_id, snap.leader_epoch) == (via_broker.leader_id, via_broker.leader_epoch)
    assert snap.high_watermark >= via_broker.high_watermark


def test_a_stable_quorum_keeps_its_epoch_while_its_log_grows(kafka: KraftNode) -> None:
    source = QuorumSource(KafkaConnection.parse(kafka.bootstrap), timeout_s=5.0)
    first = source.poll()
    time.sleep(1.2)  # more than two of the controller's 500 ms no-op appends
    second = source.poll()
    assert second.leader_epoch == first.leader_epoch
    assert second.high_watermark > first.high_watermark


def test_the_first_address_that_answers_is_used(kafka: KraftNode) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = f"127.0.0.1:{s.getsockname()[1]}"
    snap = QuorumSource(KafkaConnection.parse(f"{closed},{kafka.bootstrap}"), timeout_s=5.0).poll()
    assert snap.source == kafka.bootstrap


def test_nothing_listening_is_source_unavailable() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = f"127.0.0.1:{s.getsockname()[1]}"
    with pytest.raises(SourceUnavailable) as raised:
        QuorumSource(KafkaConnection.parse(closed), timeout_s=1.0).poll()
    assert str(raised.value) == f"quorum: {closed}: connection refused: is the node down, or is this the wrong port?"


def test_same_quorum_as_kafka_metadata_quorum(kafka: KraftNode, tmp_path: Path) -> None:
    source = QuorumSource(KafkaConnection.parse(kafka.bootstrap), timeout_s=5.0)
    before = source.poll()
    env = {**node_env(tmp_path), "KAFKA_HEAP_OPTS": "-Xmx128m", "KAFKA_JMX_OPTS": " "}
    started = time.monotonic()
    result = subprocess.run(
        [str(kafka.home / "bin" / "kafka-metadata-quorum.sh"), "--bootstrap-server", kafka.bootstrap,
         "describe", "--status"],
        env=env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    took = time.monotonic() - started
    after = source.poll()
    assert result.returncode == 0, result.stdout + result.stderr
    print(f"kafka-metadata-quorum.sh describe --status ({took:.1f} s of JVM):\n{result.stdout}")
    print(f"kafkatop, before and after: {before}\n{after}")
    status = dict(STATUS_LINE.findall(result.stdout))

    assert int(status["LeaderId"]) == before.leader_id == after.leader_id == NODE_ID
    assert int(status["LeaderEpoch"]) == before.leader_epoch == after.leader_epoch
    assert before.high_watermark <= int(status["HighWatermark"]) <= after.high_watermark
    assert int(status["MaxFollowerLag"]) == before.max_follower_lag == 0
    # CurrentVoters: [{"id": 1, "endpoints": ["CONTROLLER://127.0.0.1:…"]}]
    voter_ids = [int(i) for i in re.findall(r'"id": (\d+)', status["CurrentVoters"])]
    assert voter_ids == [v.replica_id for v in after.voters]
    endpoints = re.findall(r'"(CONTROLLER://[^"]+)"', status["CurrentVoters"])
    assert endpoints == [e for v in after.voters for e in v.endpoints]
    assert status["CurrentObservers"] == "[]" and after.observers == ()
