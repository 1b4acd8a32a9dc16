"""The Connect pipeline check (`kafkatop durability --connect`) against a real Apache Kafka: a KRaft lab of 1
controller and 2 brokers with 2 Connect workers; 3,000 sequenced lines appended to a file at 1,000/s, read by a real
FileStreamSource into a topic and written back out by a real FileStreamSink; the worker running the source task is
killed with kill -9 halfway. The task runs again on the other worker (after session.timeout.ms and the lab's
scheduled.rebalance.max.delay.ms of 20 s), the killed worker is started again, and no line is lost or reordered at
either stage — duplicates are at-least-once's. Everything the run created is gone afterwards.

Set KAFKA_HOME to run it (skipped without). Every process is stopped by its recorded pid at the end.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkatop.backends.checks.pipeline.report import format_report
from kafkatop.backends.checks.pipeline.run import PipelineCheck
from kafkatop.backends.connect.client import ConnectClient
from kafkatop.backends.lab.control import LabControl
from kafkatop.backends.lab.properties import read_properties
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.nodes import NodeState, ProcessRole
from kafkatop.backends.model.pipeline import PipelineSettings
from tests.integration.test_supervisor import Clusters, free_port_block

pytestmark = pytest.mark.kafka


@pytest.mark.timeout(300)
def test_a_worker_killed_midway_loses_no_line_and_its_task_runs_elsewhere(clusters: Clusters, kafka_home: Path) -> None:
    base = free_port_block(13)
    cluster = clusters.make(
        kafka_home, name="pipe", mode="kraft", brokers=2, controllers=1, connect=2, heap="256m",
        base_port=base, controller_port=base + 4, zookeeper_port=base + 8, connect_port=base + 10,
    )  # fmt: skip
    snap = cluster.up(timeout_s=150)
    assert {n.state for n in snap.nodes} == {NodeState.UP}
    workers = [n for n in cluster.nodes if n.role is ProcessRole.CONNECT]
    connect = ConnectClient(cluster.connect_urls)
    try:
        check = PipelineCheck(
            KafkaConnection.parse(snap.bootstrap_servers),
            connect,
            LabControl(cluster),
            PipelineSettings(lines=3000, rate=1000.0, kill_at=0.5),
            cluster.state_dir / "pipeline",
            worker_config=read_properties(cluster.config_path(workers[0])),
        )
        report = check.run()
        print("\n" + format_report(report))
        assert report.complete and report.as_expected, format_report(report)
        assert [s.stage for s in report.stages] == ["topic", "file out"]
        assert all(s.distinct == 3000 and s.lost == 0 and s.reordered == 0 for s in report.stages)
        events = [e.what for e in report.events]
        killed = next(e for e in events if e.startswith("kill -9 connect-"))
        victim = killed.split()[2].rstrip(":")
        other = next(w.name for w in workers if w.name != victim)
        moved = [e for e in events if e.startswith("source task RUNNING on") and e.endswith(f"({other})")]
        assert moved, events  # the source task ran again on the worker left standing
        assert f"{victim} is up again" in events
        assert report.failover_s is not None and report.failover_s < 20 + 10 + 20  # delay + session + slack
        assert report.rebalance_delay_ms == 20_000
        # Cleaned up: no connector, topic or file of the run left behind.
        assert connect.poll().connectors == ()
        assert not (cluster.state_dir / "pipeline" / report.run_id).exists()
        assert cluster.snapshot().node(victim).state is NodeState.UP
    finally:
        connect.close()
