"""The KRaft lab (kafkatop's own supervisor) for the benchmarks that need a real Kafka: a cluster in a temp dir,
brought down at the end, any node down() missed killed by its recorded pid, the dir deleted."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil

from kafkatop.backends.lab.cluster import LabCluster
from kafkatop.backends.lab.kafka_homes import KafkaInstall, KafkaInstallError, open_install
from kafkatop.backends.lab.runner import port_is_free
from kafkatop.backends.lab.spec import ClusterSpec
from kafkatop.backends.lab.state import STATE_FILE


def kraft_install(home: str | Path, bench: str) -> KafkaInstall:
    """The Kafka install at `home`, able to run KRaft; exits with `bench: why` if it is not."""
    try:
        install = open_install(home)
        install.check_mode("kraft")
    except KafkaInstallError as e:
        raise SystemExit(f"{bench}: {e}") from None
    return install


def kill_leftovers(state_dir: Path) -> None:
    """Kill, by recorded pid, any node down() did not stop — only when its start time matches the record."""
    try:
        state = json.loads((state_dir / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    for node in state.get("nodes", []):
        pid, ctime = node.get("pid"), node.get("create_time")
        if not pid or not ctime:
            continue
        try:
            p = psutil.Process(pid)
            if abs(p.create_time() - ctime) < 0.05:
                p.kill()
                p.wait(10)
                print(f"  (cleanup: killed leftover {node['name']} pid {pid})")
        except psutil.Error:
            pass


@contextmanager
def temp_lab(install: KafkaInstall, spec: ClusterSpec, prefix: str, down_timeout_s: float) -> Iterator[LabCluster]:
    """The lab cluster of `spec` in a new temp dir (not started); down, leftovers killed and the dir deleted after."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        cluster, _ = LabCluster.create_or_open(root, install, spec)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    try:
        yield cluster
    finally:
        try:
            cluster.down(timeout_s=down_timeout_s)
        finally:
            kill_leftovers(cluster.state_dir)
            shutil.rmtree(root, ignore_errors=True)


def free_block(count: int) -> int:
    """A first port with `count` free ports after it (brokers at +0…, controllers at +100…)."""
    for base in range(21_000, 31_000, 50):
        if all(port_is_free(base + i) for i in range(count)):
            return base
    raise SystemExit("no block of free ports")


@contextmanager
def kraft_lab(name: str, brokers: int = 3) -> Iterator[LabCluster]:
    """A real KRaft lab (abort_stress, soak): `brokers` combined nodes from $KAFKA_HOME, bound to 127.0.0.1 on a block
    of free ports, heap 256m, not started."""
    home = os.environ.get("KAFKA_HOME")
    if not home:
        raise SystemExit("set KAFKA_HOME to an Apache Kafka install (e.g. /opt/kafka_2.13-4.1.0)")
    base = free_block(300)
    spec = ClusterSpec(
        name=name, mode="kraft", brokers=brokers, base_port=base, controller_port=base + 100, heap="256m"
    )
    with temp_lab(kraft_install(Path(home), name), spec, f"kafkatop-{name}-", down_timeout_s=30) as cluster:
        yield cluster
