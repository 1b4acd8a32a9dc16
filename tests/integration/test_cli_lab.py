"""`kafkatop up|status|kill|start|down` as a user runs them, in a subprocess, against the stand-in Kafka install
(tests/fixtures/standin_install.py, with a real ZooKeeper): detach and attach, orphan-free exit on SIGTERM and Ctrl-C,
Ctrl-C during start, and bad input. Every node left behind by a failing test is killed by its recorded pid."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest
from kazoo.client import KazooClient

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.lab.cluster import LabCluster
from kafkatop.backends.lab.kafka_homes import open_install
from kafkatop.backends.lab.runner import port_is_free
from kafkatop.backends.lab.spec import ClusterSpec
from kafkatop.backends.zookeeper.server import free_port
from tests.conftest import wait_for
from tests.fixtures import kafka_znodes
from tests.fixtures.standin_install import make_standin_install, standin_cluster_id
from tests.integration.test_processes import java_cmd
from tests.integration.test_supervisor import dead, free_port_block


class Lab:
    def __init__(self, root: Path, home: Path) -> None:
        self.state = root / "state"
        self.home = home
        ports = free_port_block(12)
        self.ports = [
            "--base-port",
            str(ports),
            "--zookeeper-port",
            str(ports + 8),
            "--controller-port",
            str(ports + 4),
        ]
        self.env = {**os.environ, "KAFKA_HOME": str(home)}
        self.env.pop("XDG_STATE_HOME", None)

    def args(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "kafkatop.tui.cli", *args, "--state-dir", str(self.state)]

    def run(
        self, *args: str, timeout: float = 60, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.args(*args),
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env or self.env,
            stdin=subprocess.DEVNULL,
        )

    def popen(self, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
        return subprocess.Popen(
            self.args(*args),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env or self.env,
            stdin=subprocess.DEVNULL,
        )

    def recorded(self) -> list[dict[str, object]]:
        path = self.state / "lab" / "cluster.json"
        return json.loads(path.read_text())["nodes"] if path.exists() else []

    def recorded_alive(self) -> list[int]:
        alive = []
        for n in self.recorded():
            pid, ctime = n.get("pid"), n.get("create_time")
            if isinstance(pid, int) and isinstance(ctime, float) and psutil.pid_exists(pid):
                try:
                    proc = psutil.Process(pid)
                    if abs(proc.create_time() - ctime) < 0.05 and proc.status() != psutil.STATUS_ZOMBIE:
                        alive.append(pid)
                except psutil.NoSuchProcess:
                    pass
        return alive

    def sweep(self) -> None:
        for pid in self.recorded_alive():
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def lab(tmp_path: Path, standin_classes: Path) -> Iterator[Lab]:
    lab = Lab(tmp_path, make_standin_install(tmp_path / "install", standin_classes, "3.9.0"))
    yield lab
    lab.sweep()


def test_detached_cluster_is_driven_by_later_commands(lab: Lab) -> None:
    up = lab.run("up", "--detach", "--heap", "32m", *lab.ports)
    assert up.returncode == 0, up.stderr
    assert "zookeeper ready" in up.stdout and "left running" in up.stdout
    assert "broker-3" in up.stdout and "ZooKeeper mode" in up.stdout
    assert len(lab.recorded_alive()) == 4  # it exited; the nodes run on, as asked

    status = json.loads(lab.run("status", "--json").stdout)
    assert [(n["node"], n["state"]) for n in status["nodes"]] == [
        ("zookeeper", "up"),
        ("broker-1", "up"),
        ("broker-2", "up"),
        ("broker-3", "up"),
    ]
    assert all(n["rss_bytes"] > 10 * 2**20 for n in status["nodes"])
    pid2 = next(n["pid"] for n in status["nodes"] if n["node"] == "broker-2")

    kill = lab.run("kill", "2")
    assert kill.returncode == 0 and "broker-2 killed" in kill.stdout and dead(pid2)
    table = lab.run("status").stdout
    assert any(line.startswith("broker-2") and " killed " in line for line in table.splitlines()), table

    start = lab.run("start", "broker-2")
    assert start.returncode == 0 and "broker-2 started: up" in start.stdout
    assert len(lab.recorded_alive()) == 4  # a headless start leaves its node running

    down = lab.run("down")
    assert down.returncode == 0 and down.stdout.startswith("cluster 'lab' stopped (4 node(s));"), down.stdout
    assert lab.recorded_alive() == []
    again = lab.run("down")  # as `systemctl stop` of a stopped unit: exit 0, and said as it is
    assert again.returncode == 0 and again.stdout.startswith("cluster 'lab' was not running: nothing to stop;")
    assert "stopped" not in again.stdout, again.stdout
    assert (lab.state / "lab" / "config" / "broker-2.properties").exists()  # down keeps the data
    assert lab.run("down", "--delete").returncode == 0 and not (lab.state / "lab").exists()


def test_down_on_a_lab_never_started_says_nothing_was_running(lab: Lab) -> None:
    base = free_port_block(8)
    LabCluster.create_or_open(lab.state, open_install(lab.home), ClusterSpec(base_port=base, controller_port=base + 4))
    down = lab.run("down")
    assert down.returncode == 0, down.stderr
    assert down.stdout == f"cluster 'lab' was not running: nothing to stop; its data stays in {lab.state / 'lab'}\n"
    deleted = lab.run("down", "--delete")
    assert deleted.returncode == 0 and "was not running: nothing to stop; its state deleted" in deleted.stdout
    assert not (lab.state / "lab").exists()


def test_a_lab_whose_kafka_was_deleted_says_so_and_can_still_be_taken_down(lab: Lab) -> None:
    """A Kafka removed under a running lab (`rm -rf` of an install kafkatop unpacked): commands that need it say
    what happened and what to do; `down --delete` stops the nodes by pid, which needs no script, and deletes."""
    up = lab.run("up", "--detach", "--heap", "32m", "--brokers", "1", *lab.ports)
    assert up.returncode == 0, up.stderr
    pids = lab.recorded_alive()
    assert len(pids) == 2
    lab.home.rename(lab.home.with_name("moved-away"))
    status = lab.run("status")
    assert status.returncode == 1
    assert status.stderr == (
        f"kafkatop: lab cluster 'lab' runs Kafka from {lab.home}, which is no longer an installation (does not "
        "exist): put that Kafka back (`kafkatop install` unpacks it again from its kept download), or `kafkatop down "
        "--name lab --delete` to start over\n"
    )
    down = lab.run("down", "--delete")
    assert down.returncode == 0, down.stderr
    assert all(dead(pid) for pid in pids)
    assert not (lab.state / "lab").exists()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_foreground_up_stops_every_node_on_exit(lab: Lab, sig: signal.Signals) -> None:
    proc = lab.popen("up", "--heap", "32m", "--brokers", "2", *lab.ports)
    try:
        assert proc.stdout is not None
        # Ready, and `up` itself has seen it (it says so): the signal lands on a running cluster, not on its start.
        for line in proc.stdout:  # bounded by pytest's timeout should `up` never get there
            if "press Ctrl-C" in line:
                break
        assert _ready(lab)
        pids = lab.recorded_alive()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "stopped" in out
    assert all(dead(p) for p in pids)  # no orphan JVM


def _ready(lab: Lab) -> bool:
    status = lab.run("status", "--json")
    return status.returncode == 0 and all(n["state"] == "up" for n in json.loads(status.stdout)["nodes"])


def test_ctrl_c_during_start_stops_what_was_started(lab: Lab) -> None:
    env = {**lab.env, "STANDIN_START_DELAY_MS": "30000"}  # brokers hang in start-up until interrupted
    proc = lab.popen("up", "--heap", "32m", *lab.ports, env=env)
    try:
        # ZooKeeper is up and all three brokers are starting.
        wait_for(lambda: len(lab.recorded_alive()) == 4, timeout_s=60, what="brokers starting")
        pids = lab.recorded_alive()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert "interrupted during start" in err and "Traceback" not in err
    assert all(dead(p) for p in pids)
    assert (lab.state / "lab" / "config" / "zookeeper.properties").exists()  # the state dir is kept


def test_bad_input_is_told_plainly(lab: Lab, tmp_path: Path, standin_classes: Path) -> None:
    r = lab.run("up", "--brokers", "0")
    assert r.returncode == 2 and "argument --brokers: expected a count, 1 or more; not 0" in r.stderr
    assert "Traceback" not in r.stderr
    r = lab.run("up", "-p", "min.insync.replicas")
    assert r.returncode == 2 and "expected KEY=VALUE" in r.stderr
    r = lab.run("up", "--kafka-home", str(lab.state / "nowhere"))
    assert r.returncode == 2 and "nowhere" in r.stderr and "Traceback" not in r.stderr  # bad input
    kafka4 = make_standin_install(tmp_path / "install4", standin_classes, "4.1.0")
    r = lab.run("up", "--mode", "zk", "--kafka-home", str(kafka4))
    assert r.returncode == 2 and "runs KRaft only" in r.stderr and "--mode kraft" in r.stderr
    r = lab.run("status")
    assert r.returncode == 1 and "kafkatop up" in r.stderr  # no cluster yet: says how to get one
    r = lab.run("kill", "7")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    r = lab.run("create-topic", "bad name!", "--partitions", "1", "--replication-factor", "1")
    assert r.returncode == 2 and "Topic name is invalid" in r.stderr
    r = lab.run("create-topic", "t", "--partitions", "0", "--replication-factor", "1")
    assert r.returncode == 2 and "argument --partitions: expected a count, 1 or more; not 0" in r.stderr


def test_describe_prints_kafka_topics_layout(lab: Lab) -> None:
    with MockCluster(3) as mock:
        mock.create_topic("purchases", 3, 3)
        r = lab.run("describe", "--topic", "purchases", "--bootstrap-server", mock.bootstrap_servers, timeout=30)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("Topic: purchases\t") and "PartitionCount: 3\tReplicationFactor: 3" in lines[0]
    assert [line.split("\t")[2] for line in lines[1:]] == ["Partition: 0", "Partition: 1", "Partition: 2"]
    assert all(line.startswith("\tTopic: purchases\tPartition: ") and "\tLeader: " in line for line in lines[1:])


def test_describe_from_zookeeper_as_the_labs_did(lab: Lab, zk_chroot: tuple[str, KazooClient]) -> None:
    """`kafka-topics --describe --zookeeper localhost:2181 --topic TestLAB2`, the Confluent 3.2 lab's command, after
    its kill -9 of broker 2: leader moved to 3, ISR shrunk. Znodes written exactly as Kafka writes them."""
    hosts, zk = zk_chroot
    brokers = [kafka_znodes.register_broker(hosts, b, 9092 + b) for b in (1, 3)]
    try:
        kafka_znodes.write_controller(zk, 1, 1)
        kafka_znodes.create_topic(zk, "TestLAB2", {0: [2, 3]})
        kafka_znodes.set_partition_state(zk, "TestLAB2", 0, leader=3, isr=[3], leader_epoch=1)
        r = lab.run("describe", "--zookeeper", hosts, "--topic", "TestLAB2", timeout=30)
    finally:
        for b in brokers:
            b.stop()
            b.close()
    assert r.returncode == 0, r.stderr
    header, partition = r.stdout.splitlines()
    assert header.startswith("Topic: TestLAB2\t") and "PartitionCount: 1\tReplicationFactor: 2" in header
    assert partition == "\tTopic: TestLAB2\tPartition: 0\tLeader: 3\tReplicas: 2,3\tIsr: 3"


def test_kill_a_broker_of_an_attached_cluster(
    lab: Lab, zk_chroot: tuple[str, KazooClient], standin_classes: Path, spawn: Callable[..., subprocess.Popen[bytes]]
) -> None:
    """Not a lab cluster: a broker started by hand (as in the labs' tabs), found by the port its registration gives,
    and signalled once it answers there as that cluster's broker 7; asked first (--yes here: no terminal)."""
    hosts, zk = zk_chroot
    kafka_znodes.write_cluster_id(zk, standin_cluster_id("none"))  # the id the stand-in without zookeeper.connect has
    port = free_port()
    config = lab.state.parent / "server-7.properties"
    config.write_text(f"broker.id=7\nlisteners=PLAINTEXT://127.0.0.1:{port}\nlog.dirs={lab.state.parent}/logs-7\n")
    proc = spawn(java_cmd(standin_classes, str(config)), stdout=subprocess.DEVNULL)
    wait_for(lambda: not port_is_free(port), what="the hand-started broker listening")
    registration = kafka_znodes.register_broker(hosts, 7, port)
    try:
        r = lab.run("restart", "7", "--zookeeper", hosts, timeout=30)
        assert r.returncode == 1 and "was not started by kafkatop" in r.stderr and str(config) in r.stderr
        r = lab.run("kill", "8", "--zookeeper", hosts, timeout=30)
        assert r.returncode == 2 and "broker 8 is not registered" in r.stderr and "live brokers: 7" in r.stderr
        r = lab.run("kill", "7", "--zookeeper", hosts, "--yes", timeout=30)
        assert r.returncode == 0, r.stderr
        assert f"broker 7 pid {proc.pid} killed" in r.stdout
        assert proc.wait(10) == -signal.SIGKILL
    finally:
        registration.stop()
        registration.close()
