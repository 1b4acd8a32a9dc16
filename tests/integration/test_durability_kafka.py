"""The durability check against a real Apache Kafka, with transactions (`--transactional`): a 3-node combined KRaft
lab cluster (the Kafka 4 default) in pytest's tmp dir, a 3-partition RF-3 topic with min.insync.replicas=2, the
leader of partition 0 killed (SIGKILL) in the middle of a transaction and started again. The delivery timeout (5 s)
is shorter than the failover (broker.session.timeout.ms, 9 s): the open transaction fails with an abortable error,
is aborted, and its records are sent again. read_committed reads every committed record once and no aborted one;
read_uncommitted finds the aborted ones in the log all the same.

Set KAFKA_HOME to an Apache Kafka install (4.x, KRaft) to run it; without it the test is skipped. Every node binds
127.0.0.1 on free ports with a 256m heap; all of it is stopped by recorded pid.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkatop.backends.checks.durability.report import format_report
from kafkatop.backends.checks.durability.run import DurabilityCheck
from kafkatop.backends.lab.control import LabControl
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.durability import DurabilitySettings
from kafkatop.backends.model.nodes import NodeState
from tests.integration.kraft_lab import down_leaving_nothing, up_with_replicated_topic
from tests.integration.test_supervisor import Clusters

pytestmark = pytest.mark.kafka

TOPIC = "durability"


def test_transactional_a_leader_killed_mid_transaction_aborts_it_and_commits_every_record_once(
    clusters: Clusters, kafka_home: Path
) -> None:
    cluster, snap = up_with_replicated_topic(clusters, kafka_home, "txn", TOPIC)
    recorded = {n.pid for n in snap.nodes}
    connection = KafkaConnection.parse(snap.bootstrap_servers)

    settings = DurabilitySettings(TOPIC, records=3000, transactional=True, delivery_timeout_s=5)
    report = DurabilityCheck(connection, settings, LabControl(cluster), timeout_s=10).run()
    print("\n" + format_report(report))

    assert (report.verdict, report.read_complete, report.problems) == ("as expected", True, ()), report.verdict_text
    tx = report.transactions
    assert tx is not None and tx.aborted >= 1 and tx.unresolved == 0 and tx.log_read_complete
    assert tx.committed == 30  # 3000 records in transactions of 100, each committed once
    t = report.totals
    assert (t.committed, t.read, t.lost, t.duplicated, t.out_of_order, t.uncommitted_read) == (3000, 3000, 0, 0, 0, 0)
    assert t.aborted == 100 * tx.aborted
    # The half of the aborted transaction written before the kill is in the log, skipped by read_committed.
    assert t.aborted_in_log >= 50
    assert report.verdict_text.startswith(
        "as expected, exactly once: 0 lost, 0 duplicated, 0 out of order, 0 uncommitted read; 30 transactions "
        f"committed, {tx.aborted} aborted ("
    )
    tl = report.timeline
    assert (tl.fault, tl.happened, tl.leader_changed) == ("kill", True, True)
    assert tl.restarted_at is not None and tl.isr_full_at is not None
    kill, *_ = (e for e in tl.events if e.what.startswith("kill "))
    # 30 % is the end of transaction 9: the kill waits for the middle of transaction 10, its first half written.
    assert (kill.records_sent, kill.records_done) == (950, 950)
    assert report.facts.transaction_log_replication_factor == 3 and report.facts.transaction_log_min_isr == 2

    after = cluster.refresh()
    assert [n.state for n in after.nodes] == [NodeState.UP] * 3
    recorded |= {n.pid for n in after.nodes}
    down_leaving_nothing(cluster, recorded)
