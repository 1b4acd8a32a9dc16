"""kafkatop acts only on what is its own: a lab's name is a name, never a path out of the state folder; a lab
command that finds another cluster on the lab's ports refuses; an attached cluster's broker is a local process only
when its host is this machine and it answers with the cluster's id and node id. Each test here reproduces a way
kafkatop once acted on what was not its own."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from subprocess import Popen

import pytest
from kazoo.client import KazooClient

from kafkatop.backends.lab.cluster import LabCluster
from kafkatop.backends.lab.kafka_homes import open_install
from kafkatop.backends.lab.spec import ClusterSpec
from kafkatop.backends.protocol.identity import who_answers
from kafkatop.backends.zookeeper.server import free_port
from tests.conftest import wait_for
from tests.fixtures.kafka_znodes import register_broker, write_cluster_id
from tests.fixtures.standin_install import make_standin_install, standin_cluster_id
from tests.integration.test_bad_input import assert_refused, kafkatop
from tests.integration.test_processes import Spawn, java_cmd, lab_config
from tests.integration.test_supervisor import free_port_block


@pytest.fixture
def lab_copy_outside(tmp_path: Path, standin_classes: Path) -> Path:
    """A folder outside the state root that looks like a lab's (it holds a cluster.json): what a path-shaped
    --name could reach."""
    home = make_standin_install(tmp_path / "install", standin_classes, "4.1.0")
    base = free_port_block(8)
    cluster, _ = LabCluster.create_or_open(
        tmp_path / "elsewhere", open_install(home), ClusterSpec(base_port=base, controller_port=base + 4)
    )
    (cluster.state_dir / "precious.txt").write_text("not kafkatop's to delete\n")
    return cluster.state_dir


@pytest.mark.parametrize("how", ["absolute", "dot-dot"])
def test_down_delete_never_leaves_the_state_folder(tmp_path: Path, lab_copy_outside: Path, how: str) -> None:
    root = tmp_path / "state"
    root.mkdir()
    name = str(lab_copy_outside) if how == "absolute" else f"../elsewhere/{lab_copy_outside.name}"
    result = kafkatop("down", "--delete", "--name", name, "--state-dir", str(root), cwd=tmp_path)
    assert_refused(result, "cluster name")
    assert (lab_copy_outside / "precious.txt").is_file()


def test_down_delete_never_follows_a_link_out_of_the_state_folder(tmp_path: Path, lab_copy_outside: Path) -> None:
    root = tmp_path / "state"
    root.mkdir()
    (root / "lab").symlink_to(lab_copy_outside)
    result = kafkatop("down", "--delete", "--name", "lab", "--state-dir", str(root), cwd=tmp_path)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "leads out of the state folder" in result.stderr, result.stderr
    assert (lab_copy_outside / "precious.txt").is_file()


def test_down_delete_deletes_a_lab_of_its_own(tmp_path: Path, standin_classes: Path) -> None:
    """The guard lets the ordinary case through: a lab under the state root is deleted whole."""
    home = make_standin_install(tmp_path / "install", standin_classes, "4.1.0")
    base = free_port_block(8)
    cluster, _ = LabCluster.create_or_open(
        tmp_path / "state", open_install(home), ClusterSpec(name="mine", base_port=base, controller_port=base + 4)
    )
    result = kafkatop("down", "--delete", "--name", "mine", "--state-dir", str(tmp_path / "state"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert not cluster.state_dir.exists() and (tmp_path / "state").is_dir()


def test_a_name_that_is_a_path_is_refused_everywhere(tmp_path: Path) -> None:
    for argv in (["status"], ["up", "--detach"], ["kill", "1"], ["describe"]):
        result = kafkatop(*argv, "--name", "../x", "--state-dir", str(tmp_path / "state"), cwd=tmp_path)
        assert_refused(result, "cluster name '../x'")
    assert not (tmp_path / "x").exists()
    shutil.rmtree(tmp_path / "state", ignore_errors=True)


# --- kill/stop on an attached cluster: the broker's host is this machine, and it answers as that cluster's broker ---
def listening_standin(tmp_path: Path, standin_classes: Path, spawn: Spawn, zookeeper: str) -> tuple[int, Popen[bytes]]:
    port = free_port()
    config = lab_config(tmp_path, 1, port)
    config.write_text(config.read_text().replace("localhost:2181", zookeeper))
    proc = spawn(java_cmd(standin_classes, str(config)), stdout=subprocess.DEVNULL)

    def answers() -> bool:
        try:
            return who_answers("127.0.0.1", port, {}, 1.0).cluster_id is not None
        except OSError:
            return False  # not listening yet

    wait_for(answers, timeout_s=20, interval_s=0.1, what="the stand-in broker answering")
    return port, proc


@pytest.mark.parametrize(
    ("host", "cluster_id", "says"),
    [
        # The report: attached to kafka-1.prod.example:9092 while another cluster's broker listens on local 9092.
        ("kafka-1.prod.example", "standin", "broker 1 (kafka-1.prod.example:"),
        # On this host, but the JVM on the port answers as another cluster.
        ("127.0.0.1", "ProdClusterIdXXXXXXXXX", "answers as cluster zk-"),
    ],
)
def test_kill_on_an_attached_cluster_never_signals_a_stranger(
    tmp_path: Path,
    standin_classes: Path,
    spawn: Spawn,
    zk_chroot: tuple[str, KazooClient],
    host: str,
    cluster_id: str,
    says: str,
) -> None:
    hosts, zk = zk_chroot
    port, proc = listening_standin(tmp_path, standin_classes, spawn, "localhost:2999")
    write_cluster_id(zk, standin_cluster_id("localhost:2999") if cluster_id == "standin" else cluster_id)
    session = register_broker(hosts, 1, port, host=host)
    try:
        r = kafkatop("kill", "1", "--zookeeper", hosts, "--yes", cwd=tmp_path)
    finally:
        session.stop()
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert says in r.stderr and "signal" in r.stderr, r.stderr
    assert proc.poll() is None  # the stranger runs on


def test_kill_on_an_attached_cluster_asks_first_then_signals_its_own_broker(
    tmp_path: Path, standin_classes: Path, spawn: Spawn, zk_chroot: tuple[str, KazooClient]
) -> None:
    hosts, zk = zk_chroot
    port, proc = listening_standin(tmp_path, standin_classes, spawn, "localhost:2999")
    write_cluster_id(zk, standin_cluster_id("localhost:2999"))
    session = register_broker(hosts, 1, port)
    try:
        asked = kafkatop("kill", "1", "--zookeeper", hosts, cwd=tmp_path)  # no terminal to ask on, no --yes
        assert_refused(asked, "kill on an attached cluster asks first")
        assert f"cluster {standin_cluster_id('localhost:2999')} (127.0.0.1:{port}, pid {proc.pid})" in asked.stderr
        assert proc.poll() is None
        r = kafkatop("kill", "1", "--zookeeper", hosts, "--yes", cwd=tmp_path)
    finally:
        session.stop()
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"broker 1 pid {proc.pid} killed (SIGKILL)\n"
    assert proc.wait(10) == -9


# --- a lab command that finds another cluster on the lab's ports ------------------------------------------------------
def test_a_lab_whose_ports_answer_as_another_cluster_refuses_every_command(
    tmp_path: Path, standin_classes: Path
) -> None:
    """Lab 'b' is down; lab 'a' runs on the same ports. Every command aimed at 'b' by name is refused with the
    cluster-id line, before it reads or changes anything."""
    home = make_standin_install(tmp_path / "install", standin_classes, "4.1.0")
    base = free_port_block(8)
    spec = {"brokers": 1, "base_port": base, "controller_port": base + 4, "heap": "32m"}
    root = tmp_path / "state"
    a, _ = LabCluster.create_or_open(root, open_install(home), ClusterSpec(name="a", **spec))  # type: ignore[arg-type]
    b, _ = LabCluster.create_or_open(root, open_install(home), ClusterSpec(name="b", **spec))  # type: ignore[arg-type]
    try:
        a.up(timeout_s=60)
        by_b = ["--name", "b", "--state-dir", str(root)]
        line = (
            f"127.0.0.1:{base} answers as cluster {a.cluster_id}, not lab 'b' ({b.cluster_id}): is another cluster "
            "on these ports? pass --bootstrap-server to act on it"
        )
        for argv in (
            ["configs", "--topic", "t", "--alter", "retention.ms=1"],
            ["configs", "--topic", "t", "--delete-config", "retention.ms"],
            ["groups", "--group", "g", "--delete"],
            ["reassign", "--cancel", "--topic", "t"],
            ["reassign", "--execute", "--topic", "t", "--brokers", "1"],
            ["add-partitions", "--topic", "t", "--partitions", "4"],
            ["create-topic", "t", "--partitions", "1", "--replication-factor", "1"],
            ["elect-leaders", "--election-type", "preferred", "--all-topic-partitions"],
            ["describe"],
        ):
            r = kafkatop(*argv, *by_b, cwd=tmp_path)
            assert_refused(r, line)
        # Aimed at 'a', its own lab, the same command gets past the check (to the stand-in, which speaks no more
        # than who it is, so it then fails on its own).
        r = kafkatop("describe", "--name", "a", "--state-dir", str(root), "--timeout", "2", cwd=tmp_path)
        assert "answers as cluster" not in r.stderr
    finally:
        a.down(timeout_s=5)
