"""The supervisor's process logic against a stand-in Kafka install (tests/fixtures/standin_install.py) whose
ZooKeeper is real: start, readiness, kill -9, controlled stop, restart, add a broker, ports in use, a node dying
during start, attaching to a running cluster. Every process started here is stopped by pid at the end."""

from __future__ import annotations

import json
import os
import random
import socket
import threading
from pathlib import Path

import psutil
import pytest

from kafkatop.backends.lab.cluster import LabCluster
from kafkatop.backends.lab.kafka_homes import KafkaInstallError, open_install
from kafkatop.backends.lab.processes import ProcessSource
from kafkatop.backends.lab.properties import read_properties
from kafkatop.backends.lab.runner import NodeStartError, PortInUse, port_is_free
from kafkatop.backends.lab.spec import ClusterSpec
from kafkatop.backends.lab.state import SupervisorError
from kafkatop.backends.model.nodes import NodeState, ProcessRole
from kafkatop.backends.zookeeper.server import four_letter_word
from tests.conftest import wait_for
from tests.fixtures.standin_install import make_standin_install


def free_port_block(count: int) -> int:
    """A first port with `count` free ports after it (the supervisor numbers brokers' ports consecutively), below
    Linux's ephemeral range: a client reconnecting to a killed broker's ephemeral-range port can be handed that very
    port as its own source port, connect to itself, and keep the broker from binding it again."""
    rng = random.Random()
    for _ in range(200):
        base = rng.randrange(20_000, 32_000 - count)
        if all(port_is_free(base + i) for i in range(count)):
            return base
    raise AssertionError("no block of free ports")


class Clusters:
    """Creates lab clusters and always brings them down; also kills, by recorded pid, anything left."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.made: list[LabCluster] = []

    def make(self, home: Path, **spec: object) -> LabCluster:
        ports = free_port_block(12)
        spec.setdefault("base_port", ports)
        spec.setdefault("zookeeper_port", ports + 8)
        spec.setdefault("controller_port", ports + 4)
        spec.setdefault("heap", "32m")
        cluster, _ = LabCluster.create_or_open(self.root / "state", open_install(home), ClusterSpec(**spec))  # type: ignore[arg-type]
        self.made.append(cluster)
        return cluster

    def cleanup(self) -> None:
        for cluster in self.made:
            try:
                cluster.down(timeout_s=5)
            except Exception:  # noqa: BLE001 - teardown must reach the pid sweep below
                pass
            state = json.loads((cluster.state_dir / "cluster.json").read_text())
            for node in state["nodes"]:
                if node.get("pid") and psutil.pid_exists(node["pid"]):
                    p = psutil.Process(node["pid"])
                    if abs(p.create_time() - node["create_time"]) < 0.05:
                        p.kill()


@pytest.fixture
def kafka39(tmp_path: Path, standin_classes: Path) -> Path:
    return make_standin_install(tmp_path / "install", standin_classes, "3.9.0")


@pytest.fixture
def kafka41(tmp_path: Path, standin_classes: Path) -> Path:
    return make_standin_install(tmp_path / "install", standin_classes, "4.1.0")


def dead(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def live_pids(cluster: LabCluster) -> dict[str, int]:
    return {n.name: n.pid for n in cluster.snapshot().nodes if n.pid is not None}


def test_zookeeper_mode_lab_up_kill_restart_stop_down(kafka39: Path, clusters: Clusters) -> None:
    cluster = clusters.make(kafka39, name="lab")
    assert cluster.mode == "zk"  # Kafka 3.x: ZooKeeper mode by default, as the labs run it
    ready: list[str] = []
    snap = cluster.up(timeout_s=60, on_ready=lambda node, _t: ready.append(node.name))
    assert ready[0] == "zookeeper" and sorted(ready[1:]) == ["broker-1", "broker-2", "broker-3"]
    assert [n.state for n in snap.nodes] == [NodeState.UP] * 4
    zk = snap.node("zookeeper").node
    assert "Mode: standalone" in four_letter_word("127.0.0.1", zk.port, "srvr")  # a real ZooKeeper
    # Brokers were started once ZooKeeper served: each one reached it.
    for name in ("broker-1", "broker-2", "broker-3"):
        assert f"Connected to 127.0.0.1:{zk.port}" in cluster.log_tail(name, 50)
    # The JVMs are what ProcessSource sees: brokers 1-3 with the generated configs.
    pids = live_pids(cluster)
    found = ProcessSource(selector=lambda p: p.pid in pids.values()).poll().processes
    assert sorted((p.role, p.node_id) for p in found if p.role is ProcessRole.BROKER) == [
        (ProcessRole.BROKER, 1),
        (ProcessRole.BROKER, 2),
        (ProcessRole.BROKER, 3),
    ]
    assert snap.bootstrap_servers == ",".join(f"127.0.0.1:{n.node.port}" for n in snap.nodes[1:])

    # kill -9 broker 2: gone at once, the others untouched.
    killed_pid = pids["broker-2"]
    status = cluster.kill("2")
    assert status.state is NodeState.KILLED and not psutil.pid_exists(killed_pid)
    assert "shut down completed" not in cluster.log_tail("broker-2", 5)  # no controlled shutdown after SIGKILL
    assert live_pids(cluster).keys() == {"zookeeper", "broker-1", "broker-3"}

    status = cluster.restart("broker-2")
    assert status.state is NodeState.UP and status.pid not in (None, killed_pid)

    # A controlled stop: SIGTERM, the node's shutdown runs before it exits.
    status = cluster.stop("broker-3")
    assert status.state is NodeState.DOWN
    assert "shut down completed" in cluster.log_tail("broker-3", 5)

    before = set(live_pids(cluster).values())
    cluster.down(timeout_s=10)
    assert all(n.state is NodeState.DOWN for n in cluster.snapshot().nodes)
    assert not any(psutil.pid_exists(p) for p in before)


def test_kraft_formats_storage_once_and_a_second_up_attaches(kafka41: Path, clusters: Clusters) -> None:
    cluster = clusters.make(kafka41, name="kraft")
    assert cluster.mode == "kraft" and cluster.cluster_id
    cluster.up(timeout_s=60)
    meta = read_properties(cluster.data_dir(cluster.node("1")) / "meta.properties")
    assert meta["cluster.id"] == cluster.cluster_id and meta["node.id"] == "1"
    pids = live_pids(cluster)
    assert len(pids) == 3

    # Another kafkatop (the TUI, or `kafkatop up` again) attaches: nothing new starts, the pids are the same.
    again, notes = LabCluster.create_or_open(
        cluster.state_dir.parent, open_install(kafka41), ClusterSpec(name="kraft", brokers=5)
    )
    assert any("brokers is 3, not 5" in n for n in notes)
    assert live_pids(again.up(timeout_s=30) and again) == pids
    # It can act on nodes it did not start, by the recorded pid.
    assert again.kill("broker-3").state is NodeState.KILLED
    assert dead(pids["broker-3"])  # a zombie until its parent, the first LabCluster here, reaps it
    assert wait_for(lambda: cluster.refresh().node("broker-3").state is NodeState.KILLED)
    # Closing the attached one stops nothing: those nodes are not its own.
    again.close()
    assert all(psutil.pid_exists(pids[n]) for n in ("broker-1", "broker-2"))


def test_a_stop_records_its_intent_before_the_node_is_gone(kafka41: Path, clusters: Clusters) -> None:
    """Before: the intent was saved once the node had exited; an add-broker meanwhile read the old one back from
    disk, and the node, stopped from the app, showed as failed ("exited by itself")."""
    cluster = clusters.make(kafka41, name="intent", brokers=2)
    cluster.up(timeout_s=60)
    stopping = threading.Thread(target=cluster.stop, args=("broker-2",))
    stopping.start()
    try:
        log = cluster.state_dir / "logs" / "broker-2.log"
        wait_for(lambda: "shutting down" in log.read_text(), timeout_s=10, what="broker-2 signalled")
        on_disk = {n["name"]: n.get("intent") for n in json.loads((cluster.state_dir / "cluster.json").read_text())[
            "nodes"]}  # fmt: skip
        assert on_disk["broker-2"] == "down"  # the stand-in takes 200 ms to shut down: it is still there
        added = cluster.add_broker(timeout_s=30)  # what refreshed from disk and saved in the app
    finally:
        stopping.join(15)
    assert added.state is NodeState.UP
    assert cluster.refresh().node("broker-2").state is NodeState.DOWN


def test_port_in_use_names_the_holder_and_starts_nothing(kafka39: Path, clusters: Clusters) -> None:
    cluster = clusters.make(kafka39, name="busy")
    holder = socket.socket()
    holder.bind(("127.0.0.1", cluster.node("broker-2").port))
    holder.listen()
    try:
        with pytest.raises(PortInUse) as e:
            cluster.up(timeout_s=30)
    finally:
        holder.close()
    assert f"port {cluster.node('broker-2').port} (broker-2) is in use by pid {os.getpid()}" in str(e.value)
    assert "--base-port" in str(e.value)
    assert live_pids(cluster) == {}


def test_node_dying_during_start_shows_its_log_and_stops_the_rest(kafka39: Path, clusters: Clusters) -> None:
    cluster = clusters.make(kafka39, name="broken")
    cluster.up(timeout_s=60)
    cluster.down(timeout_s=10)
    # The lab habit: hand-edit a node's config. A typo makes that broker die during start.
    config = cluster.config_path(cluster.node("broker-2"))
    config.write_text(config.read_text().replace(f":{cluster.node('broker-2').port}", ":90x3", 1))
    data_before = sorted(p.relative_to(cluster.state_dir) for p in cluster.state_dir.rglob("*") if p.is_file())
    with pytest.raises(NodeStartError) as e:
        cluster.up(timeout_s=60)
    assert e.value.node == "broker-2" and "exited with code 1 during start" in str(e.value)
    assert "NumberFormatException" in e.value.log_tail  # the node's own last log lines
    assert live_pids(cluster) == {}  # what this start had started is stopped again
    assert config.read_text().count(":90x3") == 1  # the user's edit is kept: kafkatop never rewrites a config
    data_after = {p.relative_to(cluster.state_dir) for p in cluster.state_dir.rglob("*") if p.is_file()}
    assert set(data_before) <= data_after  # nothing in the state dir lost by the failed start


def test_add_broker_to_a_running_cluster(kafka39: Path, clusters: Clusters) -> None:
    cluster = clusters.make(kafka39, name="grow", brokers=2)
    cluster.up(timeout_s=60)
    status = cluster.add_broker(timeout_s=30)
    assert (status.name, status.node.node_id, status.state) == ("broker-3", 3, NodeState.UP)
    assert status.node.port == cluster.node("broker-1").port + 2
    assert read_properties(status.config_path)["broker.id"] == "3"
    # It is part of the recorded cluster: a fresh attach sees it.
    assert "broker-3" in {n.name for n in LabCluster.open(cluster.state_dir).snapshot().nodes}


def test_kafka_4_refuses_zookeeper_mode(kafka41: Path, clusters: Clusters) -> None:
    with pytest.raises(KafkaInstallError, match="KRaft only"):
        clusters.make(kafka41, name="old", mode="zk")


def test_unwritable_state_dir(kafka39: Path, tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("a file where the state directory should go")  # fails for root too, unlike chmod
    with pytest.raises(SupervisorError, match="cannot write the state directory .*choose another with --state-dir"):
        LabCluster.create_or_open(blocked, open_install(kafka39), ClusterSpec(name="lab"))
