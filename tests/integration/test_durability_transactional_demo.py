"""The transactional durability check (`--transactional`) against the demo cluster (librdkafka's mock brokers, with
DemoControl's controller emulation): the leader killed in the middle of a transaction, every committed record read
once with read_committed; a cluster that refuses transactions is refused before anything is sent (exit 2, one line);
and the JSON report's transactions. The mock fails a leader over at once, so nothing is aborted here: the aborted
transaction of a real failover is tests/integration/test_durability_kafka.py's."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafkatop.backends.checks.durability import run as durability_run
from kafkatop.backends.checks.durability.run import DurabilityCheck
from kafkatop.backends.checks.durability.transactional import transactional_id
from kafkatop.backends.demo.node_control import DemoControl
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.durability import DurabilitySettings
from kafkatop.backends.model.nodes import NodeState
from tests.fixtures.demo import attached_mock, demo_control
from tests.integration.test_bad_input import kafkatop, refusal_line
from tests.integration.test_durability_demo import leader_of

TOPIC = "durability"
RUN_ID = "0123abcd"
INIT_PRODUCER_ID = 22
TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53


@pytest.fixture
def demo() -> Iterator[DemoControl]:
    with demo_control(TOPIC) as control:
        yield control


def test_a_leader_killed_mid_transaction_commits_every_record_once(
    demo: DemoControl, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = leader_of(demo, TOPIC, 0)
    # The mock keeps a transaction's coordinator where its hash puts it, down or not (Kafka moves it): pinned to a
    # broker that stays up, so that the commits go on while the leader is down.
    monkeypatch.setattr(durability_run.secrets, "token_hex", lambda _: RUN_ID)
    demo.mock.set_transaction_coordinator(transactional_id(RUN_ID), next(b for b in (1, 2, 3) if b != before))
    settings = DurabilitySettings(TOPIC, records=3000, transactional=True, delivery_timeout_s=5)
    report = DurabilityCheck(KafkaConnection.parse(demo.bootstrap_servers), settings, demo, timeout_s=5).run()

    assert report.run_id == RUN_ID
    assert (report.verdict, report.problems) == ("as expected", ()), report.verdict_text
    t = report.totals
    assert (t.committed, t.read, t.lost, t.duplicated, t.out_of_order, t.uncommitted_read) == (3000, 3000, 0, 0, 0, 0)
    assert report.transactions is not None and report.transactions.committed == 30 + report.transactions.aborted
    assert report.verdict_text.startswith("as expected, exactly once: 0 lost, 0 duplicated, 0 out of order")
    # Each transaction ends with a marker in every partition: the log holds more offsets than records.
    assert [r.end_offset - r.start_offset for r in report.partitions] == [1030] * 3  # type: ignore[operator]
    tl = report.timeline
    assert tl.leader_changed and tl.restarted_at is not None
    kill, *_ = (e for e in tl.events if e.what.startswith("kill "))
    # 30 % is 900 records, the end of transaction 9: the fault waits for the middle of transaction 10.
    assert kill.records_sent == 950 and kill.records_done == 950
    assert [n.state for n in demo.poll().nodes if n.name.startswith("broker")] == [NodeState.UP] * 3


# --- the CLI --------------------------------------------------------------------------------------------------------
def durability(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return kafkatop("durability", *args, cwd=cwd, timeout_s=90)


@pytest.fixture
def attached() -> Iterator[MockCluster]:
    with attached_mock() as cluster:
        yield cluster


def test_a_cluster_that_refuses_transactions_is_refused_before_anything_is_sent(
    attached: MockCluster, tmp_path: Path
) -> None:
    attached.push_request_errors(INIT_PRODUCER_ID, [TRANSACTIONAL_ID_AUTHORIZATION_FAILED])
    result = durability("--bootstrap-server", attached.bootstrap_servers, "--topic", "replicated", "--fault", "none",
                        "--transactional", cwd=tmp_path)  # fmt: skip
    line = refusal_line(result)
    assert line.startswith("kafkatop: the cluster cannot do transactions: init_transactions failed within 60 s (")
    assert "TRANSACTIONAL_ID_AUTHORIZATION_FAILED" in line and "nothing was sent" in line
    source = AdminSource(KafkaConnection.parse(attached.bootstrap_servers), timeout_s=2.0)
    try:
        topic = source.poll().topic("replicated")
    finally:
        source.close()
    assert topic is not None and topic.messages == 0


def test_a_transactional_run_as_json(attached: MockCluster, tmp_path: Path) -> None:
    result = durability("--bootstrap-server", attached.bootstrap_servers, "--topic", "replicated", "--records", "300",
                        "--fault", "none", "--transactional", "--transaction-records", "50", "--json",
                        cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["verdict"] == "as expected"
    assert doc["settings"]["transactional"] is True and doc["settings"]["delivery_timeout_s"] == 5.0
    assert doc["transactions"] == {
        "committed": 6,
        "aborted": 0,
        "unresolved": 0,
        "log_read_complete": True,
        "aborted_records": 0,
        "aborted_in_log": 0,
        "uncommitted_read": 0,
    }
    assert (doc["totals"]["committed"], doc["totals"]["read"], doc["totals"]["lost"]) == (300, 300, 0)
