"""The process source finding real JVMs: a compiled `kafka.Kafka` stand-in and a real ZooKeeper."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from kafkatop.backends.lab.processes import ProcessSource
from kafkatop.backends.model.nodes import ProcessRole, ProcessStatus
from kafkatop.backends.zookeeper.server import ZooKeeperServer, find_java, free_port
from tests.conftest import wait_for

Spawn = Callable[..., subprocess.Popen[bytes]]


def lab_config(root: Path, broker_id: int, port: int) -> Path:
    """`config/server-N.properties`, as the labs hand-edit it."""
    (root / "config").mkdir(exist_ok=True)
    f = root / "config" / f"server-{broker_id}.properties"
    f.write_text(
        f"broker.id={broker_id}\nlisteners=PLAINTEXT://127.0.0.1:{port}\n"
        f"log.dirs={root}/kafka-logs{broker_id}\nzookeeper.connect=localhost:2181\n"
    )
    return f


def java_cmd(classes: Path, *args: str) -> list[str]:
    return [find_java(), "-Xmx32m", "-XX:TieredStopAtLevel=1", "-cp", str(classes), "kafka.Kafka", *args]


def own(pids: set[int]) -> ProcessSource:
    return ProcessSource(selector=lambda p: p.pid in pids)


def test_finds_broker_started_as_in_the_labs(tmp_path: Path, standin_classes: Path, spawn: Spawn) -> None:
    port = free_port()
    lab_config(tmp_path, 1, port)
    # Relative path, as `bin/kafka-server-start.sh config/server-1.properties`: resolved against the JVM's cwd.
    proc = spawn(java_cmd(standin_classes, "config/server-1.properties"), cwd=tmp_path, stdout=subprocess.DEVNULL)
    source = own({proc.pid})
    (p,) = wait_for(lambda: (s := source.poll()).processes and port in s.processes[0].listening_ports and s.processes)
    assert (p.pid, p.role, p.node_id, p.client_port) == (proc.pid, ProcessRole.BROKER, 1, port)
    assert p.properties_file == str(tmp_path / "config" / "server-1.properties")
    assert p.log_dirs == (f"{tmp_path}/kafka-logs1",)
    assert p.status in (ProcessStatus.RUNNING, ProcessStatus.SLEEPING)
    assert p.rss_bytes > 10 * 2**20 and p.threads > 5 and p.open_fds and p.uptime_s >= 0
    assert p.label == "broker 1"


def test_attaches_to_java_not_the_shell_wrapper(tmp_path: Path, standin_classes: Path, spawn: Spawn) -> None:
    port = free_port()
    config = lab_config(tmp_path, 2, port)
    # A wrapper that does not exec: the shell stays, with the properties file on its command line too.
    wrapper = tmp_path / "kafka-server-start.sh"
    wrapper.write_text("#!/bin/sh\n" + " ".join(java_cmd(standin_classes, '"$1"')) + "\necho done\n")
    wrapper.chmod(0o755)
    shell = spawn([shutil.which("sh") or "/bin/sh", str(wrapper), str(config)], stdout=subprocess.DEVNULL)

    def found() -> list[int]:
        return [p.pid for p in ProcessSource().poll().processes if p.properties_file == str(config)]

    pids = wait_for(found, what="the wrapped JVM")
    assert pids != [shell.pid] and len(pids) == 1
    import psutil

    assert psutil.Process(pids[0]).ppid() == shell.pid  # the java child of the wrapper, not the wrapper


def test_cpu_is_meaningful_on_first_reading(tmp_path: Path, spawn: Spawn) -> None:
    # A JVM spinning a core (a one-class program named kafka.Kafka, compiled here).
    src = tmp_path / "kafka" / "Kafka.java"
    src.parent.mkdir()
    src.write_text(
        "package kafka; public class Kafka { public static void main(String[] a) { long x = 0; "
        "while (true) { x++; if (x == Long.MAX_VALUE) System.out.println(x); } } }"
    )
    subprocess.run([shutil.which("javac") or "javac", "-d", str(tmp_path), str(src)], check=True, timeout=120)
    config = lab_config(tmp_path, 5, free_port())
    proc = spawn([find_java(), "-Xmx32m", "-cp", str(tmp_path), "kafka.Kafka", str(config)])
    wait_for(lambda: own({proc.pid}).poll().processes, what="the spinning JVM")
    # A fresh ProcessSource: its very first poll must already show the spin, not psutil's 0.0 first call.
    (p,) = own({proc.pid}).poll().processes
    assert p.cpu_percent > 10.0, p.cpu_percent  # a spinning core; low bound, as other work may share the 2 cores


def test_finds_real_zookeeper(zookeeper_server: ZooKeeperServer) -> None:
    assert zookeeper_server.pid is not None
    (p,) = own({zookeeper_server.pid}).poll().processes
    assert p.role is ProcessRole.ZOOKEEPER and p.label == "zookeeper"
    assert p.client_port == zookeeper_server.port
    assert zookeeper_server.port in p.listening_ports


def test_missing_properties_file_is_a_problem(tmp_path: Path, standin_classes: Path, spawn: Spawn) -> None:
    config = lab_config(tmp_path, 3, free_port())
    proc = spawn(java_cmd(standin_classes, str(config)), stdout=subprocess.DEVNULL)
    source = own({proc.pid})
    wait_for(lambda: source.poll().processes)
    config.unlink()  # deleted after start: the JVM runs on, its file is gone
    snap = own({proc.pid}).poll()
    (p,) = snap.processes
    assert p.node_id is None and p.problem is not None and "file not found" in p.problem
    assert snap.problems and str(config) in snap.problems[0].reason


def test_exited_process_disappears(tmp_path: Path, standin_classes: Path, spawn: Spawn) -> None:
    config = lab_config(tmp_path, 4, free_port())
    proc = spawn(java_cmd(standin_classes, str(config)), stdout=subprocess.DEVNULL)
    source = own({proc.pid})
    wait_for(lambda: source.poll().processes)
    proc.kill()  # kill -9
    proc.wait(10)
    assert source.poll().processes == ()
