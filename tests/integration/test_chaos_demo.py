"""Chaos runs on the demo cluster (librdkafka's mock brokers on real sockets, with DemoControl's controller
emulation): random steps with kafkatop's view following within 2 polls and nothing lost; every broker down and back;
a broker that does not come back the first time; refusals before anything is touched; the orphan scan; and the
CLI's bad-input path in a subprocess (exit 2, one line, no traceback)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafkatop.backends.checks.chaos.clients import GroupConsumer, jvms_under
from kafkatop.backends.checks.chaos.run import ChaosRun
from kafkatop.backends.demo.node_control import DemoControl
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.lab.runner import NodeStartError
from kafkatop.backends.model.chaos import DEFAULT_GROUP, ChaosEvent, ChaosRefused, ChaosReport, ChaosSettings
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.nodes import NodesSnapshot, NodeState
from tests.conftest import wait_for
from tests.fixtures.demo import attached_mock, demo_control
from tests.integration.test_bad_input import kafkatop, refusal_line

TOPIC = "chaos"
# A second run on the same demo takes another group: the mock keeps a closed consumer as a member of its group until
# its session times out (45 s), which a new member's join waits for.
SECOND_GROUP = "kafkatop-chaos-2"
FAST = {"poll_interval_s": 0.2, "view_timeout_s": 1.0, "hold_s": 0.5, "step_timeout_s": 20.0, "rate": 200.0}


@pytest.fixture
def demo() -> Iterator[DemoControl]:
    with demo_control(TOPIC, groups=(DEFAULT_GROUP, SECOND_GROUP)) as control:
        yield control


def run(control: object, **settings: object) -> tuple[ChaosReport, list[ChaosEvent]]:
    events: list[ChaosEvent] = []
    chaos = ChaosRun(
        control,
        KafkaConnection.parse(control.bootstrap_servers),
        ChaosSettings(TOPIC, **{**FAST, **settings}),
        on_event=events.append,
    )
    return chaos.run(), events


def chaos_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("kafkatop-chaos")]


def all_up(control: DemoControl) -> bool:
    return [n.state for n in control.poll().nodes] == [NodeState.UP] * 3


def test_random_steps_on_the_demo_keep_every_record_and_the_view_within_two_polls(demo: DemoControl) -> None:
    source = AdminSource(KafkaConnection.parse(demo.bootstrap_servers), timeout_s=2.0)
    try:
        chaos_topic = demo.overlay(source.poll()).topic(TOPIC)  # the demo's controller places the new topic now
    finally:
        source.close()
    assert chaos_topic is not None
    # Kafka's election, step by step: a partition led by a broker going down moves to its first replica, in
    # assignment order, that is up (every replica is in sync again by then). The mock chose the first leaders.
    leaders = {p.id: p.leader for p in chaos_topic.partitions}
    replicas = {p.id: p.replicas for p in chaos_topic.partitions}

    def goes_down(broker: int, up: set[int]) -> int:
        moved = [p for p, leader in leaders.items() if leader == broker]
        for p in moved:
            leaders[p] = next(r for r in replicas[p] if r in up - {broker})
        return len(moved)

    led_by_3 = goes_down(3, {1, 2, 3})
    goes_down(2, {1, 2, 3})  # the restart's controlled stop
    led_by_3_at_the_end = goes_down(3, {1, 2, 3})
    report, events = run(demo, steps=4, seed=18)

    assert report.verdict == "passed", (report.verdict_text, report.problems)
    assert report.seed == 18 and len(report.steps) == 4
    # The seed fixes the steps: every action valid when drawn, never more than one broker down.
    assert [(s.action, s.node) for s in report.steps] == [
        ("kill", "broker-3"),
        ("start", "broker-3"),
        ("restart", "broker-2"),
        ("stop", "broker-3"),  # left down: the ending starts it again
    ]
    for s in report.steps:
        assert s.settled and s.error is None and s.note is None
        assert s.polls_to_converge is not None and 1 <= s.polls_to_converge <= 2, s
        assert len(s.brokers_alive) == (2 if s.action in ("stop", "kill") else 3)
    assert report.max_polls is not None and report.max_polls <= 2 and report.steps_over == ()
    # Killing broker 3 moves the leadership of the partitions it led, as the view saw. Back, it leads nothing (no
    # preferred leader election here) until the restart of broker 2 hands it the partitions where it comes next.
    assert (report.steps[0].leader_moves, report.steps[3].leader_moves) == (led_by_3, led_by_3_at_the_end)

    t = report.totals
    assert t.sent > 0 and (t.acked, t.failed, t.read) == (t.sent, 0, t.sent)
    assert (t.lost, t.duplicated, t.out_of_order, t.unacked_present, t.other) == (0, 0, 0, 0, 0)
    assert [r.partition for r in report.partitions] == [0, 1, 2] and all(r.sent > 0 for r in report.partitions)
    assert report.read_complete and report.consumed == t.sent
    assert report.view_polls > 10 and report.view_errors == 0
    assert (report.replication_factor, report.partitions_count, report.min_insync_replicas) == (3, 3, None)
    assert report.safe_max_down == 2 and "Kafka's default 1 assumed" in report.safe_reason
    assert report.orphans is None and report.orphans_note.startswith("not applicable: the demo's brokers")
    assert report.problems == ()

    texts = [e.text for e in events]
    assert texts[0].startswith("chaos on DEMO · librdkafka mock, 3 brokers: 4 steps, seed 18")
    assert "step 1/4: kill broker-3" in texts and "ending: start broker-3" in texts
    done = [e.step for e in events if e.step is not None]
    assert done == list(report.steps)
    # Nothing left running: every broker up, the run's threads gone.
    assert all_up(demo)
    wait_for(lambda: not chaos_threads(), timeout_s=15, what="the run's threads to end")
    doc = json.loads(json.dumps(report.to_dict()))
    assert doc["convergence"]["max_polls"] <= 2 and doc["totals"]["lost"] == 0


def test_every_broker_down_is_said_and_nothing_acknowledged_is_lost(demo: DemoControl) -> None:
    report, _ = run(demo, steps=4, seed=1, actions=("kill",), max_down=3, delivery_timeout_s=60.0)

    assert [(s.action, s.forced) for s in report.steps] == [("kill", False)] * 3 + [("start", True)]
    down = report.steps[2]
    assert down.brokers_alive == () and down.settled
    assert down.note is not None and down.note.startswith(
        "every broker is down: the cluster is unavailable, as kafkatop"
    )
    assert down.polls_to_converge is not None and down.polls_to_converge <= 2  # kafkatop said so within 2 polls
    assert down.producer_errors > 0  # the producer's errors are counted
    assert any("lets every broker be down at once" in n for n in report.notes)
    assert any("above the safe 2" in n for n in report.notes)
    t = report.totals
    assert (t.lost, t.duplicated, t.out_of_order) == (0, 0, 0) and t.acked > 0
    assert report.verdict == "passed", report.verdict_text
    assert all_up(demo)


class StartFailsOnce:
    """DemoControl whose first start fails, as a broker that exits during start; later starts work."""

    def __init__(self, inner: DemoControl) -> None:
        self.inner = inner
        self.failed: list[str] = []

    @property
    def bootstrap_servers(self) -> str:
        return self.inner.bootstrap_servers

    def poll(self) -> NodesSnapshot:
        return self.inner.poll()

    def kill(self, name: str) -> None:
        self.inner.kill(name)

    def stop(self, name: str) -> None:
        self.inner.stop(name)

    def start(self, name: str) -> None:
        if not self.failed:
            self.failed.append(name)
            raise NodeStartError(name, "exited with code 1 during start", "ERROR Exiting Kafka")  # as LabCluster
        self.inner.start(name)

    def restart(self, name: str) -> None:
        self.inner.restart(name)

    def add_broker(self) -> str:
        return self.inner.add_broker()

    def close(self) -> None:
        self.inner.close()


def test_a_broker_that_does_not_come_back_is_a_problem_and_the_run_goes_on(demo: DemoControl) -> None:
    control = StartFailsOnce(demo)
    report, _ = run(control, steps=3, seed=2, actions=("kill", "start"))

    [failed] = control.failed
    assert [(s.action, s.node) for s in report.steps][1:] == [("start", failed), ("start", failed)]
    second = report.steps[1]
    assert second.error == f"{failed} exited with code 1 during start"  # the first line, not the log tail
    assert second.settled and len(second.brokers_alive) == 2  # it settled with the broker still down
    assert f"step 2: {failed} never came back: {failed} exited with code 1 during start" in report.problems
    assert report.steps[2].error is None and len(report.steps[2].brokers_alive) == 3
    assert report.totals.lost == 0 and report.verdict == "passed", report.verdict_text
    assert all_up(demo)


def test_a_cancelled_run_starts_what_it_took_down_and_says_it_is_incomplete(demo: DemoControl) -> None:
    def cancel_once_down(event: ChaosEvent) -> None:
        if event.step is not None and event.step.action == "kill":
            chaos.cancel()

    settings = ChaosSettings(TOPIC, **{**FAST, "steps": 4, "seed": 18, "hold_s": 0.0})  # type: ignore[arg-type]
    chaos = ChaosRun(demo, KafkaConnection.parse(demo.bootstrap_servers), settings, on_event=cancel_once_down)
    report = chaos.run()
    assert report.cancelled and [s.action for s in report.steps] == ["kill"]
    assert report.verdict == "incomplete" and report.verdict_text == "cancelled after 1 of 4 steps: nothing to conclude"
    assert report.totals.lost == 0 and all_up(demo)


def test_an_interrupt_starts_what_the_run_took_down_before_it_is_raised(demo: DemoControl) -> None:
    def interrupt_once_down(event: ChaosEvent) -> None:
        if event.step is not None and event.step.action == "kill":
            raise KeyboardInterrupt  # as Ctrl-C in `kafkatop chaos` lands

    settings = ChaosSettings(TOPIC, **{**FAST, "steps": 4, "seed": 18})  # type: ignore[arg-type]
    with pytest.raises(KeyboardInterrupt):
        ChaosRun(demo, KafkaConnection.parse(demo.bootstrap_servers), settings, on_event=interrupt_once_down).run()
    assert all_up(demo)
    wait_for(lambda: not chaos_threads(), timeout_s=15, what="the run's threads to end")


def test_what_the_group_consumer_did_not_read_a_fresh_consumer_reads(
    demo: DemoControl, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As a consumer that lived through the faults and keeps a stale view of its partitions: stuck at the start.
    monkeypatch.setattr(GroupConsumer, "positions", lambda self: {})
    report, events = run(demo, steps=1, seed=18, read_timeout_s=3.0)
    assert report.read_complete and report.verdict == "passed", report.verdict_text
    t = report.totals
    assert t.sent > 0 and (t.read, t.lost, t.duplicated) == (t.sent, 0, 0)
    [problem] = report.problems
    assert problem.startswith("the group's consumer did not reach the end within 3 s (chaos-0 at 0 of ")
    assert problem.endswith("a fresh consumer read the rest")
    assert any(e.text.startswith("ending: the group's consumer stopped short") for e in events)


def test_an_rf1_or_missing_topic_is_refused_before_anything_is_touched(demo: DemoControl) -> None:
    demo.mock.create_topic("single", 3, 1)
    with pytest.raises(ChaosRefused, match=r"a chaos run needs a replicated topic: with RF 1 .*'single' has RF 1"):
        ChaosRun(demo, KafkaConnection.parse(demo.bootstrap_servers), ChaosSettings("single")).run()
    with pytest.raises(ChaosRefused, match="topic 'missing' does not exist: create it first"):
        ChaosRun(demo, KafkaConnection.parse(demo.bootstrap_servers), ChaosSettings("missing")).run()
    assert all_up(demo) and not chaos_threads()


def test_the_orphan_scan_finds_a_jvm_by_its_state_dir(tmp_path: Path, spawn: object) -> None:
    # A process named java (a Python, not a JVM) whose command line names a file of the state dir, as a node's does.
    java = tmp_path / "bin" / "java"
    java.parent.mkdir()
    java.symlink_to(sys.executable)
    state = tmp_path / "state" / "lab"
    ours = spawn([str(java), "-c", "import time; time.sleep(60)", f"{state}/config/broker-1.properties"])  # type: ignore[operator]
    other = spawn([str(java), "-c", "import time; time.sleep(60)", f"{state}2/config/broker-1.properties"])  # type: ignore[operator]
    found = wait_for(lambda: jvms_under(state), timeout_s=10, what="the process to show up")
    assert ours.pid in found and other.pid not in found  # a sibling cluster 'lab2' is not this one
    assert found[ours.pid][-1] == f"{state}/config/broker-1.properties"


# --- the CLI --------------------------------------------------------------------------------------------------------
def chaos(*args: str, state_dir: Path) -> subprocess.CompletedProcess[str]:
    return kafkatop("chaos", "--state-dir", str(state_dir), *args, cwd=state_dir)


@pytest.fixture(scope="module")
def attached() -> Iterator[MockCluster]:
    with attached_mock() as cluster:
        yield cluster


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--topic", "single"),
            "kafkatop: a chaos run needs a replicated topic: with RF 1 there is no other replica to take over "
            "('single' has RF 1)",
        ),
        (("--topic", "missing"), "kafkatop: topic 'missing' does not exist: create it first"),
        (
            ("--topic", "replicated"),
            "kafkatop: the cluster at {bootstrap} is local but no lab cluster of kafkatop's",
        ),
        (
            ("--topic", "replicated", "--steps", "0"),
            "kafkatop chaos: argument --steps: expected a count, from 1 to 50; not 0",
        ),
        (("--topic", "replicated", "--actions", "kill,pause"), "kafkatop: unknown action 'pause'"),
        (
            ("--topic", "replicated", "--max-down", "0"),
            "kafkatop chaos: argument --max-down: expected a count, 1 or more; not 0",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    attached: MockCluster, tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    result = chaos("--bootstrap-server", attached.bootstrap_servers, *args, state_dir=tmp_path)
    line = refusal_line(result)
    assert line.startswith(message.format(bootstrap=attached.bootstrap_servers))


def test_a_remote_cluster_is_refused_and_a_missing_lab_is_said(tmp_path: Path) -> None:
    result = chaos("--bootstrap-server", "10.1.2.3:9092", "--topic", "t", state_dir=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith("kafkatop: 10.1.2.3 is not this host: a chaos run kills and starts brokers")
    result = chaos("--topic", "t", state_dir=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip() == (
        f"kafkatop: no lab cluster at {tmp_path / 'lab'}: start one with `kafkatop up` (or give --name / --state-dir)"
    )


def test_the_command_prints_steps_to_stderr_and_the_report_as_json(
    demo: DemoControl, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from contextlib import contextmanager

    from kafkatop.tui.cli import chaos as chaos_cmd
    from kafkatop.tui.cli.parser import build_parser

    @contextmanager
    def the_demo(args: object, topic: str) -> Iterator[tuple[KafkaConnection, DemoControl]]:
        yield demo.demo.connection, demo  # the lab's place: no JVM in these tests

    monkeypatch.setattr(chaos_cmd, "_cluster", the_demo)
    args = build_parser().parse_args(
        ["chaos", "--topic", TOPIC, "--steps", "2", "--seed", "18", "--interval", "0.2", "--hold", "0.2", "--json"]
    )
    assert chaos_cmd.cmd_chaos(args) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert doc["verdict"] == "passed" and doc["seed"] == 18
    assert [(s["action"], s["node"], s["converged"]) for s in doc["steps"]] == [
        ("kill", "broker-3", True),
        ("start", "broker-3", True),
    ]
    assert doc["totals"]["lost"] == 0 and doc["orphans"] is None
    assert "step 1/2: kill broker-3" in err and "step 2: start broker-3: settled after" in err

    args = build_parser().parse_args(
        ["chaos", "--topic", TOPIC, "--steps", "1", "--seed", "18", "--interval", "0.2", "--group", SECOND_GROUP]
    )
    args.hold = 0.0
    assert chaos_cmd.cmd_chaos(args) == 0
    out, _ = capsys.readouterr()
    assert "step 1/1: kill broker-3" in out  # steps on stdout, before the report
    assert "1     kill    broker-3" in out
    assert out.rstrip().splitlines()[-1].startswith("verdict: kafkatop kept up: 1 of 1 steps converged within 2 polls")
    assert all_up(demo)
