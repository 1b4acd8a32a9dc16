"""The node control of lab and attached clusters, against real processes: a stand-in Kafka install whose ZooKeeper
is real (tests/fixtures/standin_install.py) and hand-started stand-in brokers, as in the labs. Everything started
here is stopped by pid at the end (the `clusters` and `spawn` fixtures)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from kafkatop.backends.lab.attached import AttachedControl
from kafkatop.backends.lab.control import LOG_LINE_MAX, LOG_TAIL_LINES, LabControl, LogTail
from kafkatop.backends.model.cluster import Broker, ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.nodes import NodesSnapshot, NodeState, ProcessRole
from kafkatop.backends.zookeeper.server import free_port
from tests.conftest import wait_for
from tests.fixtures.standin_install import standin_cluster_id
from tests.integration.test_processes import Spawn, java_cmd, lab_config
from tests.integration.test_supervisor import Clusters, dead, kafka39  # noqa: F401 - fixtures used here

LABS_ZK = standin_cluster_id("localhost:2181")  # the id stand-in brokers of lab_config() answer with


def states(snap: NodesSnapshot) -> dict[str, NodeState]:
    return {n.name: n.state for n in snap.nodes}


# --- LogTail ----------------------------------------------------------------------------------------------------------
def test_log_tail_reads_only_what_was_appended(tmp_path: Path) -> None:
    log = tmp_path / "broker-1.log"
    tail = LogTail(log)
    assert tail.read() == ()  # no file yet
    log.write_text("".join(f"line {i}\n" for i in range(100)))
    assert tail.read() == tuple(f"line {i}" for i in range(100 - LOG_TAIL_LINES, 100))

    with open(log, "a") as f:
        f.write("x" * 1000 + "\nhalf a li")
    lines = tail.read()
    assert lines[-2] == "x" * (LOG_LINE_MAX - 1) + "…" and lines[-1] == "half a li"  # capped; the unfinished line
    with open(log, "a") as f:
        f.write("ne\n")
    assert tail.read()[-1] == "half a line" and len(tail.read()) == LOG_TAIL_LINES

    # Read incrementally: an unchanged size is not read again, and growth is read from where the last read ended.
    # Rewriting bytes already read (same size) shows that: the tail keeps what it read before.
    with open(log, "r+b") as f:
        f.seek(-len(b"half a line\n"), 2)
        f.write(b"HALF A LINE\n")
    assert tail.read()[-1] == "half a line"
    with open(log, "a") as f:
        f.write("appended\n")
    assert tail.read()[-2:] == ("half a line", "appended")

    log.write_text("after truncation\n")  # a new, shorter file is read afresh
    assert tail.read() == ("after truncation",)

    # Far behind: only the last 64 KB are read, and the cut first line is dropped.
    with open(log, "a") as f:
        f.write("".join(f"{i:07d} " + "y" * 92 + "\n" for i in range(2000)))
    lines = tail.read()
    assert len(lines) == LOG_TAIL_LINES and lines[-1].startswith("0001999 ")


# --- a lab cluster ----------------------------------------------------------------------------------------------------
def test_lab_control_over_a_zookeeper_mode_lab(kafka39: Path, clusters: Clusters) -> None:  # noqa: F811
    cluster = clusters.make(kafka39, name="lab")
    cluster.up(timeout_s=60)
    control = LabControl(cluster)
    assert control.bootstrap_servers == cluster.snapshot().bootstrap_servers

    snap = wait_for(
        lambda: (s := control.poll()) and all(n.cpu_percent is not None for n in s.nodes) and s,
        timeout_s=10,
        what="CPU readings of every node",
    )
    assert (snap.kind, snap.title, snap.can_add_broker) == ("lab", "lab 'lab' · ZooKeeper · Kafka 3.9.0", True)
    assert [(n.name, n.role, n.node_id) for n in snap.nodes] == [
        ("zookeeper", ProcessRole.ZOOKEEPER, None),
        ("broker-1", ProcessRole.BROKER, 1),
        ("broker-2", ProcessRole.BROKER, 2),
        ("broker-3", ProcessRole.BROKER, 3),
    ]
    pids = {n.name: n.pid for n in cluster.snapshot().nodes}
    for n in snap.nodes:
        spec = cluster.node(n.name)
        assert n.state is NodeState.UP and n.pid == pids[n.name] and n.ports == spec.ports
        assert n.rss_bytes is not None and n.rss_bytes > 10 * 2**20
        assert n.cpu_percent is not None and n.cpu_percent >= 0.0
        assert n.uptime_s is not None and 0 <= n.uptime_s < 120
        assert n.actions == {"kill", "stop", "restart"} and n.detail is None
        assert n.log_tail and len(n.log_tail) <= LOG_TAIL_LINES
        assert n.log_tail[0].startswith("--- kafkatop: starting") or len(n.log_tail) == LOG_TAIL_LINES
    for i in (1, 2, 3):
        tail = snap.node(f"broker-{i}").log_tail  # type: ignore[union-attr]
        assert any(f"[KafkaServer id={i}] started on port" in line for line in tail), tail

    # kill -9 broker 2: killed, and start is what makes sense now.
    control.kill("broker-2")
    node = control.poll().node("broker-2")
    assert node is not None and node.state is NodeState.KILLED
    assert node.pid is None and node.cpu_percent is None and node.uptime_s is None
    assert "start" in node.actions and "kill" not in node.actions
    assert dead(pids["broker-2"])  # type: ignore[arg-type]
    with pytest.raises(KafkatopError, match="cannot stop broker-2 now: it is killed"):
        control.stop("broker-2")
    with pytest.raises(KafkatopError, match="no node 'broker-9'"):
        control.kill("broker-9")

    control.start("broker-2")
    node = control.poll().node("broker-2")
    assert node is not None and node.state is NodeState.UP and node.pid not in (None, pids["broker-2"])
    # The tail followed the log: the second start's lines are the newest.
    starts = [i for i, line in enumerate(node.log_tail) if line.startswith("--- kafkatop: starting broker-2")]
    assert len(starts) == 2 and any("started on port" in line for line in node.log_tail[starts[1] :])

    # A controlled stop: the stand-in's shutdown lines end the tail.
    control.stop("broker-3")
    node = control.poll().node("broker-3")
    assert node is not None and node.state is NodeState.DOWN
    assert node.log_tail[-1].endswith("shut down completed")

    assert control.add_broker() == "broker-4"
    assert states(control.poll())["broker-4"] is NodeState.UP

    running = [n.pid for n in control.poll().nodes if n.pid is not None]
    assert len(running) == 4
    control.close()  # stops everything this kafkatop started
    assert all(dead(pid) for pid in running)
    assert set(states(control.poll()).values()) == {NodeState.DOWN}


# --- an attached cluster ----------------------------------------------------------------------------------------------
def test_attached_control_signals_local_jvms_but_never_starts_them(
    tmp_path: Path, standin_classes: Path, spawn: Spawn
) -> None:
    ports = {7: free_port(), 8: free_port()}
    configs = {b: lab_config(tmp_path, b, port) for b, port in ports.items()}
    procs = {b: spawn(java_cmd(standin_classes, str(configs[b])), stdout=subprocess.DEVNULL) for b in ports}
    # What an AdminSource poll of that cluster would say about its brokers (the stand-in speaks no Kafka).
    cluster = ClusterSnapshot(
        "admin", 0.0, LABS_ZK, "zk", None, tuple(Broker(b, "127.0.0.1", port) for b, port in ports.items()), ()
    )
    control = AttachedControl(
        KafkaConnection.parse(",".join(f"127.0.0.1:{p}" for p in ports.values())), lambda: cluster
    )

    def both_listening() -> NodesSnapshot | None:
        s = control.poll()
        return s if [(n.name, n.state) for n in s.nodes] == [("broker 7", "up"), ("broker 8", "up")] else None

    snap = wait_for(both_listening, timeout_s=20, interval_s=0.1, what="both stand-in brokers listening")
    # Only the JVMs of this cluster: none of the other tests' processes on this host.
    assert (snap.kind, snap.title, snap.can_add_broker) == ("attach", "attached · 2 local processes", False)
    for n in snap.nodes:
        b = n.node_id
        assert b in ports and n.role is ProcessRole.BROKER and n.pid == procs[b].pid and ports[b] in n.ports
        assert n.rss_bytes and n.cpu_percent is not None and n.uptime_s is not None
        assert n.detail == "not started by kafkatop" and n.log_tail == ()
        assert n.actions == {"kill", "stop"}

    for action in (control.start, control.restart):
        with pytest.raises(KafkatopError, match="start it as it was started") as e:
            action("broker 7")
        assert str(configs[7]) in str(e.value) and "bin/kafka-server-start.sh" in str(e.value)
    with pytest.raises(KafkatopError, match="cannot add a broker"):
        control.add_broker()
    assert procs[7].poll() is None  # restart refused without stopping anything

    control.kill("broker 7")
    assert procs[7].wait(10) == -9
    control.stop("broker 8")  # SIGTERM: the stand-in's shutdown hook runs, then it exits
    assert procs[8].wait(10) == 143

    snap = control.poll()
    assert [(n.name, n.state, n.pid, n.actions) for n in snap.nodes] == [
        ("broker 7", NodeState.KILLED, None, frozenset()),
        ("broker 8", NodeState.DOWN, None, frozenset()),
    ]
    assert snap.title == "attached · 0 local processes"
    assert str(configs[7]) in (snap.node("broker 7").detail or "")  # type: ignore[union-attr]
    with pytest.raises(KafkatopError, match=f"broker 7 was not started by kafkatop.*{configs[7]}"):
        control.start("broker 7")
    with pytest.raises(KafkatopError, match="broker 8 is not running"):
        control.kill("broker 8")
    with pytest.raises(KafkatopError, match="no node 'broker 9'"):
        control.kill("broker 9")

    # Started again by hand, as it was started: the same node, up again with its new pid.
    again = spawn(java_cmd(standin_classes, str(configs[7])), stdout=subprocess.DEVNULL)
    node = wait_for(
        lambda: (n := control.poll().node("broker 7")) and n.state is NodeState.UP and n,
        timeout_s=20,
        interval_s=0.1,
        what="broker 7 back",
    )
    assert node.pid == again.pid


def test_attached_lists_only_its_own_cluster_never_a_stranger_on_its_port(
    tmp_path: Path, standin_classes: Path, spawn: Spawn
) -> None:
    """A JVM is the attached cluster's broker only when the broker's host is this machine and the JVM answers on
    its port with the cluster's id and that broker's id. Before the cluster ever answered (its id unknown), none is;
    a stranger's broker on the port the cluster advertises (another cluster, another ZooKeeper) never is: it is
    neither listed nor signalled."""
    ours, stranger_port = free_port(), free_port()
    proc = spawn(java_cmd(standin_classes, str(lab_config(tmp_path, 5, ours))), stdout=subprocess.DEVNULL)
    other_dir = tmp_path / "other"
    other_dir.mkdir()
    other_config = lab_config(other_dir, 6, stranger_port)
    other_config.write_text(other_config.read_text().replace("localhost:2181", "localhost:2999"))  # another cluster
    other = spawn(java_cmd(standin_classes, str(other_config)), stdout=subprocess.DEVNULL)

    def snapshot(host: str, port: int, broker_id: int) -> ClusterSnapshot:
        return ClusterSnapshot("admin", 0.0, LABS_ZK, "zk", None, (Broker(broker_id, host, port),), ())

    control = AttachedControl(KafkaConnection.parse(f"127.0.0.1:{ours}"), lambda: snapshot("127.0.0.1", ours, 5))
    snap = wait_for(
        lambda: (s := control.poll()) and any(n.pid == proc.pid for n in s.nodes) and s,
        timeout_s=20,
        interval_s=0.1,
        what="the stand-in at the bootstrap port",
    )
    assert [n.pid for n in snap.nodes] == [proc.pid]
    assert other.poll() is None and not any(n.pid == other.pid for n in control.poll().nodes)

    # The cluster says its broker 6 is on the stranger's port (this host), but the stranger answers as another
    # cluster; or puts broker 6 on another host, whose port number a local JVM happens to hold: neither is listed,
    # and kill finds nothing to signal.
    for host, broker_id in (("127.0.0.1", 6), ("kafka-1.prod.example", 6)):
        stranger = AttachedControl(
            KafkaConnection.parse(f"{host}:{stranger_port}"),
            lambda host=host, broker_id=broker_id: snapshot(host, stranger_port, broker_id),  # type: ignore[misc]
        )
        assert stranger.poll().nodes == ()
        with pytest.raises(KafkatopError, match="no node 'broker 6'"):
            stranger.kill("broker 6")
    assert other.poll() is None

    # Attached before the cluster answered (its id unknown), or to an address where nothing of ours listens, or to
    # another host: no JVM.
    for bootstrap in (f"127.0.0.1:{ours}", "127.0.0.1:1", "192.0.2.1:9092"):
        assert AttachedControl(KafkaConnection.parse(bootstrap), lambda: None).poll().nodes == ()
