"""A real ZooKeeper (pyspark's jars, 127.0.0.1, a temporary data directory) holding the znodes of a ZooKeeper-mode
Kafka cluster as Kafka writes them (tests/fixtures/kafka_znodes.py): 3 brokers, each an ephemeral registration in its
own kazoo session, controller 1, `topics` x `partitions` partition state znodes."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from kazoo.client import KazooClient

from kafkatop.backends.zookeeper.server import ZooKeeperServer
from tests.fixtures import kafka_znodes as kz


@dataclass
class ZkBench:
    server: ZooKeeperServer
    zk: KazooClient  # a session of the bench's own, to write znodes
    sessions: dict[int, KazooClient]  # broker id -> the session of its registration; stopped and closed at the end
    start_s: float  # server.start()
    write_s: float  # connecting and writing the cluster's znodes


@contextmanager
def bench_zookeeper(prefix: str, topics: int, partitions: int) -> Iterator[ZkBench]:
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        server = ZooKeeperServer(tmp)
        zk: KazooClient | None = None
        sessions: dict[int, KazooClient] = {}
        try:
            t0 = time.perf_counter()
            server.start()
            start_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            zk = KazooClient(hosts=server.address)
            zk.start(timeout=10)
            sessions.update(kz.write_bench_cluster(zk, server.address, topics, partitions))
            yield ZkBench(server, zk, sessions, start_s, time.perf_counter() - t0)
        finally:
            for session in sessions.values():
                session.stop()
                session.close()
            if zk is not None:
                zk.stop()
                zk.close()
            server.stop()
