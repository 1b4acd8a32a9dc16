"""The durability check against the demo cluster (librdkafka's mock brokers on real sockets, with DemoControl's
controller emulation): the leader of a partition killed mid-run and started again, nothing lost or duplicated; an
RF-1 topic refused before anything is sent; a run cancelled after the fault starts the broker again; and the CLI's
bad-input path in a subprocess (exit 2, one line, no traceback)."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafkatop.backends.checks.durability.run import DurabilityCheck
from kafkatop.backends.demo.node_control import DemoControl
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.durability import DurabilityProgress, DurabilityRefused, DurabilitySettings
from kafkatop.backends.model.nodes import NodeState
from tests.fixtures.demo import attached_mock, demo_control
from tests.integration.test_bad_input import kafkatop, refusal_line

TOPIC = "durability"


@pytest.fixture
def demo() -> Iterator[DemoControl]:
    with demo_control(TOPIC) as control:
        yield control


def leader_of(control: DemoControl, topic: str, partition: int) -> int:
    source = AdminSource(KafkaConnection.parse(control.bootstrap_servers), timeout_s=2.0)
    try:
        t = source.poll().topic(topic)
    finally:
        source.close()
    assert t is not None
    return t.partitions[partition].leader


def test_killing_the_leader_mid_run_loses_and_duplicates_nothing(demo: DemoControl) -> None:
    before = leader_of(demo, TOPIC, 0)
    progress: list[DurabilityProgress] = []
    settings = DurabilitySettings(TOPIC, records=3000, acks="all", enable_idempotence=True, kill_at=0.3, restart_at=0.7)
    report = DurabilityCheck(
        KafkaConnection.parse(demo.bootstrap_servers), settings, demo, on_progress=progress.append, timeout_s=5
    ).run()

    t = report.totals
    assert (t.sent, t.acked, t.failed, t.read) == (3000, 3000, 0, 3000)
    assert (t.lost, t.duplicated, t.out_of_order, t.unacked_present, t.other) == (0, 0, 0, 0, 0)
    assert [(r.partition, r.sent, r.read, r.end_offset - r.start_offset) for r in report.partitions] == [  # type: ignore[operator]
        (p, 1000, 1000, 1000) for p in range(3)
    ]
    assert report.expectation.summary == "expected: 0 lost, 0 duplicated"
    assert (report.verdict, report.as_expected) == ("as expected", True)
    assert report.read_complete and not report.cancelled and report.problems == ()

    tl = report.timeline
    assert (tl.fault, tl.node, tl.leader_before) == ("kill", f"broker-{before}", before)
    assert tl.leader_changed and tl.leader_after in {1, 2, 3} - {before}
    assert tl.fault_at and tl.leader_changed_at and tl.restart_at and tl.restarted_at and tl.isr_full_at
    assert tl.fault_at <= tl.leader_changed_at <= tl.restart_at <= tl.restarted_at <= tl.isr_full_at
    kill, *_ = (e for e in tl.events if e.what.startswith("kill "))
    start, *_ = (e for e in tl.events if e.what.startswith("start "))
    # The fault landed mid-run: after exactly 30 % of the records were sent, the start after 70 %.
    assert (kill.records_sent, start.records_sent) == (900, 2100)
    assert kill.records_done <= 900 and start.records_done <= 2100

    # The controller emulation moved the leadership, and the broker is back.
    node = demo.poll().node(f"broker-{before}")
    assert node is not None and node.state is NodeState.UP
    assert any(f"killed: leader of {TOPIC}-0 → {tl.leader_after}" in line for line in node.log_tail)
    steps = [p.step for p in progress]
    assert steps[0] == "preflight" and steps[-1] == "done"
    assert {"producing", "waiting for ISR", "reading back"} <= set(steps)
    assert progress[-1].acked == 3000 and progress[-1].read == 3000

    doc = json.loads(json.dumps(report.to_dict()))
    assert doc["totals"]["lost"] == 0 and doc["timeline"]["leader_changed"] is True


def test_a_controlled_stop_of_the_leader(demo: DemoControl) -> None:
    settings = DurabilitySettings(TOPIC, records=600, fault="stop", partition=1, kill_at=0.2, restart_at=0.5)
    report = DurabilityCheck(KafkaConnection.parse(demo.bootstrap_servers), settings, demo, timeout_s=5).run()
    assert report.verdict == "as expected", report.verdict_text
    assert (report.totals.lost, report.totals.duplicated, report.totals.read) == (0, 0, 600)
    assert report.timeline.fault == "stop" and report.timeline.leader_changed
    assert report.timeline.events[0].what.startswith(f"stop {report.timeline.node} (leader of {TOPIC}-1)")


def test_an_rf1_topic_is_refused_before_anything_is_sent(demo: DemoControl) -> None:
    demo.mock.create_topic("single", 3, 1)
    check = DurabilityCheck(
        KafkaConnection.parse(demo.bootstrap_servers), DurabilitySettings("single", records=100), demo, timeout_s=5
    )
    with pytest.raises(DurabilityRefused) as e:
        check.run()
    assert str(e.value) == (
        "a durability check needs a replicated topic: with RF 1 there is no other replica to take over ('single' has "
        "RF 1); create it with --replication-factor 3"
    )
    source = AdminSource(KafkaConnection.parse(demo.bootstrap_servers), timeout_s=2.0)
    try:
        single = source.poll().topic("single")
    finally:
        source.close()
    assert single is not None and single.messages == 0  # nothing written
    assert [n.state for n in demo.poll().nodes] == [NodeState.UP] * 3  # nothing killed


def test_a_cancelled_run_starts_the_killed_broker_again(demo: DemoControl) -> None:
    # Paced, so that progress reports (every 0.1 s) fall between the fault and the planned restart.
    settings = DurabilitySettings(TOPIC, records=3000, kill_at=0.2, restart_at=0.95, rate=2000)
    killed = threading.Event()

    def cancel_after_the_fault(p: DurabilityProgress) -> None:
        if any(n.state is NodeState.KILLED for n in demo.poll().nodes):
            killed.set()
        if killed.is_set() and p.acked >= 1200:
            check.cancel()

    check = DurabilityCheck(
        KafkaConnection.parse(demo.bootstrap_servers), settings, demo, on_progress=cancel_after_the_fault, timeout_s=5
    )
    report = check.run()
    assert killed.is_set()
    assert report.cancelled and report.verdict == "incomplete"
    assert report.verdict_text.startswith("cancelled after")
    assert report.totals.sent < 3000 and report.totals.lost == 0
    assert report.timeline.restarted_at is not None
    assert [n.state for n in demo.poll().nodes] == [NodeState.UP] * 3


def test_a_failure_after_the_fault_starts_the_broker_again_before_it_is_raised(demo: DemoControl) -> None:
    settings = DurabilitySettings(TOPIC, records=3000, kill_at=0.2, restart_at=0.95, rate=2000)

    def interrupt_after_the_fault(p: DurabilityProgress) -> None:
        if any(n.state is NodeState.KILLED for n in demo.poll().nodes):
            raise KeyboardInterrupt  # as Ctrl-C in `kafkatop durability` lands

    check = DurabilityCheck(
        KafkaConnection.parse(demo.bootstrap_servers),
        settings,
        demo,
        on_progress=interrupt_after_the_fault,
        timeout_s=5,
    )
    with pytest.raises(KeyboardInterrupt):
        check.run()
    assert [n.state for n in demo.poll().nodes] == [NodeState.UP] * 3


# --- the CLI --------------------------------------------------------------------------------------------------------
def durability(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return kafkatop("durability", *args, cwd=cwd)


@pytest.fixture(scope="module")
def attached() -> Iterator[MockCluster]:
    with attached_mock() as cluster:
        yield cluster


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--topic", "single"),
            "kafkatop: a durability check needs a replicated topic: with RF 1 there is no other replica to take over",
        ),
        (("--topic", "missing"), "kafkatop: topic 'missing' does not exist: create it first"),
        # A fault on an attached cluster signals a process kafkatop did not start: asked first, and with no terminal
        # to ask on, refused until --yes.
        (
            ("--topic", "replicated"),
            "kafkatop: nothing was run: --fault kill on an attached cluster signals broker ",
        ),
        (
            ("--topic", "replicated", "--records", "0"),
            "kafkatop durability: argument --records: expected a count, from 1 to 10000000; not 0",
        ),
        (
            ("--topic", "replicated", "--kill-at", "0.8", "--restart-at", "0.5"),
            "kafkatop: restart-at (0.5) must come after kill-at (0.8)",
        ),
        (
            ("--topic", "replicated", "--kill-at", "1.5"),
            "kafkatop durability: argument --kill-at: expected a fraction from 0 to 1 such as 0.3; not '1.5'",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    attached: MockCluster, tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    result = durability("--bootstrap-server", attached.bootstrap_servers, *args, cwd=tmp_path)
    line = refusal_line(result)
    assert line.startswith(message)


def test_a_run_without_a_fault_on_an_attached_cluster_as_json(attached: MockCluster, tmp_path: Path) -> None:
    result = durability("--bootstrap-server", attached.bootstrap_servers, "--topic", "replicated", "--records", "300",
                        "--fault", "none", "--json", cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["verdict"] == "as expected"
    assert (doc["totals"]["sent"], doc["totals"]["read"], doc["totals"]["lost"]) == (300, 300, 0)
    assert doc["timeline"]["happened"] is False
