"""A real KRaft lab for the benchmarks that need one (abort_stress, soak): 3 combined nodes from $KAFKA_HOME, bound to
127.0.0.1 on a block of free ports, its state in a temp dir. The caller brings it down."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from kafkatop.backends.lab.cluster import LabCluster
from kafkatop.backends.lab.install import open_install
from kafkatop.backends.lab.runner import port_is_free
from kafkatop.backends.lab.spec import ClusterSpec


def free_block(count: int) -> int:
    """A first port with `count` free ports after it (brokers at +0…, controllers at +100…)."""
    for base in range(21_000, 31_000, 50):
        if all(port_is_free(base + i) for i in range(count)):
            return base
    raise SystemExit("no block of free ports")


def kraft_lab(name: str, brokers: int = 3) -> LabCluster:
    home = os.environ.get("KAFKA_HOME")
    if not home:
        raise SystemExit("set KAFKA_HOME to an Apache Kafka install (e.g. /opt/kafka_2.13-4.1.0)")
    root = Path(tempfile.mkdtemp(prefix=f"kafkatop-{name}-"))
    base = free_block(300)
    spec = ClusterSpec(
        name=name, mode="kraft", brokers=brokers, base_port=base, controller_port=base + 100, heap="256m"
    )
    cluster, _ = LabCluster.create_or_open(root, open_install(Path(home)), spec)
    return cluster
