"""The demo's node control against the librdkafka mock: kill, stop and start mock brokers, and see through a real
Kafka client (AdminSource) that leadership moves as Kafka's controller would move it.

test_group_polling_survives_a_coordinator_restart runs a group-watching AdminSource through a coordinator's death and
return in a subprocess, so that a librdkafka abort fails the test instead of ending pytest.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafkatop.backends.demo.cluster import DEMO_TOPICS, start_demo_cluster
from kafkatop.backends.demo.node_control import DEMO_DETAIL, DemoControl
from kafkatop.backends.demo.source import DemoSource
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.model.cluster import NO_LEADER, ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError, SourceUnavailable
from kafkatop.backends.model.nodes import NodeState, ProcessRole
from tests.conftest import wait_for

ROOT = Path(__file__).resolve().parents[2]
PARTITIONS = sum(DEMO_TOPICS.values())


@pytest.fixture
def demo() -> Iterator[DemoControl]:
    control = DemoControl(start_demo_cluster(), rebalance_delay_s=None)
    try:
        yield control
    finally:
        control.close()


def admin(control: DemoControl) -> DemoSource:
    """The app's view of the demo: the mock through a real Kafka client, with the demo controller's state in it."""
    return DemoSource(control, AdminSource(KafkaConnection.parse(control.bootstrap_servers), timeout_s=2.0), tuple)


def leaders(snap: ClusterSnapshot) -> dict[str, int]:
    return {f"{p.topic}-{p.id}": p.leader for p in snap.partitions}


def tail(control: DemoControl, name: str) -> tuple[str, ...]:
    node = control.poll().node(name)
    assert node is not None
    return node.log_tail


def test_the_demo_brokers_as_nodes(demo: DemoControl) -> None:
    snap = demo.poll()
    assert (snap.kind, snap.title, snap.can_add_broker) == ("demo", "DEMO · librdkafka mock, 3 brokers", False)
    ports = [int(a.rpartition(":")[2]) for a in demo.bootstrap_servers.split(",")]
    assert [(n.name, n.role, n.node_id, n.ports) for n in snap.nodes] == [
        (f"broker-{i}", ProcessRole.BROKER, i, (ports[i - 1],)) for i in (1, 2, 3)
    ]
    # The bootstrap string lists them in id order; the metadata agrees.
    brokers = admin(demo).poll().brokers
    assert [(b.id, b.port) for b in brokers] == [(i, ports[i - 1]) for i in (1, 2, 3)]
    for n in snap.nodes:
        assert n.state is NodeState.UP and n.detail == DEMO_DETAIL
        assert (n.pid, n.cpu_percent, n.rss_bytes) == (None, None, None)
        assert n.uptime_s is not None and n.uptime_s >= 0
        assert n.actions == {"kill", "stop", "restart"} and n.log_tail == ()
    with pytest.raises(KafkatopError, match="fixed 3 brokers; run a lab cluster \\(kafkatop up\\)"):
        demo.add_broker()
    with pytest.raises(KafkatopError, match="no node 'broker-7'.*broker-1, broker-2, broker-3"):
        demo.kill("broker-7")
    with pytest.raises(KafkatopError, match="cannot start broker-2 now: it is up"):
        demo.start("broker-2")


def test_kill_moves_leadership_to_the_next_in_sync_replica(demo: DemoControl) -> None:
    source = admin(demo)
    before = source.poll()
    assert len(before.partitions) == PARTITIONS and before.controller_id == 1
    led_by_1 = {f"{p.topic}-{p.id}" for p in before.partitions if p.leader == 1}

    demo.kill("broker-1")

    def moved() -> ClusterSnapshot | None:
        snap = source.poll()
        return snap if not snap.broker(1).alive and 1 not in leaders(snap).values() else None  # type: ignore[union-attr]

    after = wait_for(moved, timeout_s=10, interval_s=0.1, what="no partition led by broker 1")
    for p in after.partitions:
        old = leaders(before)[f"{p.topic}-{p.id}"]
        # Kafka elects the first replica, in assignment order, that is alive and in sync; the others keep theirs.
        expected = next(r for r in p.replicas if r != 1) if old == 1 else old
        assert p.leader == expected != NO_LEADER
    assert after.controller_id == 2  # the controller moved off the dead broker too
    assert not after.offline
    # Broker 1 left every ISR: each partition is under-replicated, its replica on broker 1 offline.
    assert {(p.topic, p.id) for p in after.under_replicated} == {(p.topic, p.id) for p in after.partitions}
    assert all(1 not in p.isr and p.offline_replicas == (1,) for p in after.partitions)

    node = demo.poll().node("broker-1")
    assert node is not None and node.state is NodeState.KILLED
    assert node.actions == {"start", "restart"} and node.uptime_s is None
    lines = [line.split(" ", 1)[1] for line in node.log_tail]  # without the HH:MM:SS
    for name in sorted(led_by_1):
        new = leaders(after)[name]
        assert f"broker 1 killed: leader of {name} → {new}" in lines
        assert any(f"leader of {name} → {new}" in line for line in tail(demo, f"broker-{new}"))
    assert "broker 1 killed: controller moves to broker 2" in lines
    with pytest.raises(KafkatopError, match="cannot kill broker-1 now: it is killed"):
        demo.kill("broker-1")


def test_stop_is_a_controlled_shutdown(demo: DemoControl) -> None:
    source = admin(demo)
    led_by_2 = {name for name, leader in leaders(source.poll()).items() if leader == 2}
    demo.stop("broker-2")
    node = demo.poll().node("broker-2")
    assert node is not None and node.state is NodeState.DOWN and "start" in node.actions
    snap = wait_for(lambda: (s := source.poll()) and not s.broker(2).alive and s, what="broker 2 gone")  # type: ignore[union-attr]
    assert 2 not in leaders(snap).values() and not snap.offline
    moves = [line for line in node.log_tail if "leader of" in line]
    assert len(moves) == len(led_by_2)
    assert all("broker 2 stopped (controlled shutdown): leader of" in line for line in moves)
    assert not any("killed" in line for line in node.log_tail)


def test_all_brokers_down_then_back_as_kafka_would(demo: DemoControl) -> None:
    source = admin(demo)
    source.poll()
    for b in (1, 2, 3):
        demo.kill(f"broker-{b}")
    assert [n.state for n in demo.poll().nodes] == [NodeState.KILLED] * 3
    # Every partition lost its last in-sync replica with broker 3; no broker is left to say so.
    assert sum("offline: no other in-sync replica (ISR 3)" in line for line in tail(demo, "broker-3")) == PARTITIONS
    with pytest.raises(SourceUnavailable):
        AdminSource(KafkaConnection.parse(demo.bootstrap_servers), timeout_s=1.0).poll()

    # Broker 1 is back first, but it is out of sync: without unclean election the partitions stay offline, and the
    # mock shows them so (leader -1).
    demo.start("broker-1")
    snap = wait_for(lambda: _poll_or_none(source), timeout_s=10, interval_s=0.1, what="metadata from broker 1")
    assert len(snap.offline) == PARTITIONS and all(p.leader == NO_LEADER for p in snap.partitions)
    assert any("stays offline until its last in-sync replica (3) is back" in line for line in tail(demo, "broker-1"))

    demo.start("broker-3")
    snap = wait_for(
        lambda: (s := source.poll()) and not s.offline and s, timeout_s=10, interval_s=0.1, what="partitions online"
    )
    assert set(leaders(snap).values()) == {3}
    assert sum("(was offline)" in line for line in tail(demo, "broker-3")) == PARTITIONS


def test_unclean_election_lets_any_replica_lead() -> None:
    control = DemoControl(start_demo_cluster(), rebalance_delay_s=None, unclean_leader_election=True)
    try:
        for b in (1, 2, 3):
            control.kill(f"broker-{b}")
        control.start("broker-2")
        snap = wait_for(lambda: _poll_or_none(admin(control)), timeout_s=10, interval_s=0.1, what="metadata")
        assert set(leaders(snap).values()) == {2}
        assert any("unclean leader election" in line for line in tail(control, "broker-2"))
    finally:
        control.close()


def test_preferred_leaders_return_after_the_delay() -> None:
    control = DemoControl(start_demo_cluster(), rebalance_delay_s=1.5)
    try:
        source = admin(control)
        control.kill("broker-1")
        control.start("broker-1")
        # At first broker 1 leads nothing: its partitions moved away and stay there for now.
        snap = source.poll()
        assert 1 not in leaders(snap).values()
        assert snap.leader_skew[1] == 1.0  # it leads none of the partitions it is preferred leader of
        assert any("preferred leaders return in 1.5 s" in line for line in tail(control, "broker-1"))

        # Then every partition whose preferred replica (the first) is alive and in sync goes back to it: replicas
        # placed as Kafka places them make each broker the preferred leader of a third of the partitions.
        def preferred() -> ClusterSnapshot | None:
            s = source.poll()
            return s if all(p.leader_is_preferred for p in s.partitions) else None

        snap = wait_for(preferred, timeout_s=10, interval_s=0.1, what="preferred leaders back")
        assert snap.leaders_by_broker == {1: 3, 2: 3, 3: 3}
        assert set(snap.leader_skew.values()) == {0.0}
        assert any("preferred leader election: leader of" in line for line in tail(control, "broker-1"))

        # A restart is a controlled stop and a start.
        control.restart("broker-2")
        node = control.poll().node("broker-2")
        assert node is not None and node.state is NodeState.UP
        assert any("broker 2 stopped (controlled shutdown)" in line for line in node.log_tail)
        assert any("broker 2 started" in line for line in node.log_tail)
    finally:
        control.close()


def _poll_or_none(source: DemoSource) -> ClusterSnapshot | None:
    try:
        return source.poll()
    except SourceUnavailable:
        return None


COORDINATOR_RESTART = textwrap.dedent(
    """
    import json
    from kafkatop.backends.demo.cluster import start_demo_cluster
    from kafkatop.backends.demo.node_control import DemoControl
    from kafkatop.backends.kafka.admin.admin import AdminSource

    control = DemoControl(start_demo_cluster(), rebalance_delay_s=None)
    broker = control.coordinators["billing"]
    source = AdminSource(control.demo.connection, watch_groups=control.demo.groups, timeout_s=1.0)

    def committed():
        (group,) = source.poll().groups
        return sum(o.committed or 0 for o in group.offsets)

    before = committed()
    control.kill(f"broker-{broker}")
    during = [committed() for _ in range(2)]
    control.start(f"broker-{broker}")
    after = [committed() for _ in range(3)]
    source.close()
    control.close()
    print(json.dumps({"before": before, "during": during, "after": after}))
    print("survived")
    """
)


def test_group_polling_survives_a_coordinator_restart() -> None:
    """The TUI's AdminSource watches the demo group: killing and starting its coordinator must not crash it, and the
    group's committed offsets are reported again once it is back.

    librdkafka 2.16 aborted here (rd_kafka_enq_once_del_source_return: Assertion eonce->refcnt > 0) while group
    requests went through an AdminClient whose call could time out before its request was sent. In a subprocess, so
    that an abort fails this test instead of killing pytest.
    """
    result = subprocess.run(
        [sys.executable, "-c", COORDINATOR_RESTART], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    died = f" ({signal.Signals(-result.returncode).name})" if result.returncode < 0 else ""
    lines = result.stdout.splitlines()
    assert result.returncode == 0 and lines[-1:] == ["survived"], (
        f"exit {result.returncode}{died}: {result.stderr[-2000:]}"
    )
    report = json.loads(lines[-2])
    assert report["before"] > 0 and report["after"][-1] == report["before"], report
