"""A chaos run against a real Apache Kafka: a 3-node combined KRaft lab cluster (the Kafka 4 default) in pytest's tmp
dir, a 3-partition RF-3 topic with min.insync.replicas=2, three random steps with kafkatop's view polled throughout;
nothing lost or duplicated, every step's view within 2 polls, and no orphan JVM left, during the run or after `down`.

Set KAFKA_HOME to an Apache Kafka install (4.x, KRaft) to run it; without it the test is skipped. Every node binds
127.0.0.1 on free ports with a 256m heap; all of it is stopped by recorded pid.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkatop.backends.checks.chaos.clients import jvms_under
from kafkatop.backends.checks.chaos.run import ChaosRun
from kafkatop.backends.lab.control import LabControl
from kafkatop.backends.model.chaos import ChaosEvent, ChaosSettings
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.nodes import NodeState
from tests.integration.kraft_lab import down_leaving_nothing, up_with_replicated_topic
from tests.integration.test_supervisor import Clusters

pytestmark = pytest.mark.kafka

TOPIC = "chaos"


def test_a_chaos_run_on_a_kraft_lab_cluster(clusters: Clusters, kafka_home: Path) -> None:
    cluster, snap = up_with_replicated_topic(clusters, kafka_home, "chaos", TOPIC)
    recorded = {n.pid for n in snap.nodes}

    control = LabControl(cluster)
    events: list[ChaosEvent] = []
    settings = ChaosSettings(TOPIC, steps=3, seed=18, poll_interval_s=0.5, hold_s=2.0, step_timeout_s=90.0, rate=100)
    report = ChaosRun(control, KafkaConnection.parse(control.bootstrap_servers), settings, on_event=events.append).run()

    assert report.verdict == "passed", (report.verdict_text, report.problems)
    assert (report.replication_factor, report.min_insync_replicas) == (3, 2)
    # RF 3 − min.insync.replicas 2, and a quorum of 3 combined voters: one broker down at a time.
    assert report.safe_max_down == 1 and "KRaft quorum of 3 voters" in report.safe_reason
    assert len(report.steps) == 3
    for step in report.steps:
        assert step.settled and step.error is None, step
        assert step.polls_to_converge is not None and step.polls_to_converge <= 2, step
    t = report.totals
    assert t.acked > 0 and (t.lost, t.duplicated, t.out_of_order) == (0, 0, 0)
    assert report.read_complete and report.view_errors == 0
    assert report.orphans == () and "JVMs running from" in report.orphans_note
    # Every node up again, each a JVM of the cluster's state dir and nothing else.
    after = cluster.refresh()
    assert [n.state for n in after.nodes] == [NodeState.UP] * 3
    assert set(jvms_under(after.state_dir)) == {n.pid for n in after.nodes}
    recorded |= {n.pid for n in after.nodes}
    print("\n" + "\n".join(e.text for e in events))

    down_leaving_nothing(cluster, recorded)
    assert jvms_under(cluster.state_dir) == {}
