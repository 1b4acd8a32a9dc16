"""The cluster of the scale benchmark: one real Kafka node from KAFKA_HOME with a request-counting proxy in front of a
second listener, or the librdkafka mock in a process of its own; its load (topics, groups with committed offsets)
and groups with a live member."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench._scale import GROUPS, PARTITIONS, TOPICS
from bench.common.process import wait_or_kill

API_NAMES = {
    0: "Produce", 1: "Fetch", 2: "ListOffsets", 3: "Metadata", 8: "OffsetCommit", 9: "OffsetFetch",
    10: "FindCoordinator", 11: "JoinGroup", 12: "Heartbeat", 13: "LeaveGroup", 14: "SyncGroup", 15: "DescribeGroups",
    16: "ListGroups", 17: "SaslHandshake", 18: "ApiVersions", 32: "DescribeConfigs", 60: "DescribeCluster",
    69: "ConsumerGroupDescribe", 75: "DescribeTopicPartitions",
}  # fmt: skip


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


# --- the counting proxy ---------------------------------------------------------------------------------------------
class Tally:
    """Requests counted by API name, by one proxy or by the proxies of all brokers."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.lock = threading.Lock()

    def add(self, name: str) -> None:
        with self.lock:
            self.counts[name] += 1

    def reset(self) -> None:
        with self.lock:
            self.counts = Counter()


class CountingProxy:
    """127.0.0.1:port → a broker's second listener: forwards bytes both ways and counts client requests by API key
    (a request is a size-prefixed frame whose first two bytes are its key)."""

    def __init__(self, target_port: int, tally: Tally | None = None) -> None:
        self.target_port = target_port
        self.tally = tally or Tally()
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def counts(self) -> Counter[str]:
        return self.tally.counts

    def reset(self) -> None:
        self.tally.reset()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            threading.Thread(target=self._requests, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client), daemon=True).start()

    def _requests(self, src: socket.socket, dst: socket.socket) -> None:
        buf = b""
        try:
            while chunk := src.recv(1 << 16):
                dst.sendall(chunk)
                buf += chunk
                while len(buf) >= 6:
                    size = int.from_bytes(buf[:4], "big")
                    if len(buf) < 4 + size:
                        break
                    key = int.from_bytes(buf[4:6], "big", signed=True)
                    self.tally.add(API_NAMES.get(key, f"api {key}"))
                    buf = buf[4 + size :]
        except OSError:
            pass
        finally:
            for s in (src, dst):
                s.close()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while chunk := src.recv(1 << 16):
                dst.sendall(chunk)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                s.close()

    def close(self) -> None:
        self.server.close()


# --- the cluster ----------------------------------------------------------------------------------------------------
class RealKafka:
    """One KRaft node from KAFKA_HOME on 127.0.0.1: PLAINTEXT for the timings, COUNTED (advertised as the proxy's port)
    for the request counts."""

    def __init__(self, home: Path, root: Path) -> None:
        self.home, self.root = home, root
        self.port, self.counted_port, self.controller_port = free_port(), free_port(), free_port()
        self.proxy = CountingProxy(self.counted_port)
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def counted_bootstrap(self) -> str:
        return f"127.0.0.1:{self.proxy.port}"

    def start(self) -> None:
        fresh = not (self.root / "data" / "meta.properties").exists()
        self.root.mkdir(parents=True, exist_ok=True)
        config = self.root / "server.properties"
        settings = {
            "process.roles": "broker,controller", "node.id": "1",
            "controller.quorum.voters": f"1@127.0.0.1:{self.controller_port}",
            "listeners": f"PLAINTEXT://127.0.0.1:{self.port},COUNTED://127.0.0.1:{self.counted_port},"
                         f"CONTROLLER://127.0.0.1:{self.controller_port}",
            "advertised.listeners": f"PLAINTEXT://127.0.0.1:{self.port},COUNTED://127.0.0.1:{self.proxy.port}",
            "controller.listener.names": "CONTROLLER", "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,COUNTED:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs": str(self.root / "data"), "num.partitions": "1",
            "offsets.topic.replication.factor": "1", "transaction.state.log.replication.factor": "1",
            "transaction.state.log.min.isr": "1", "share.coordinator.state.topic.replication.factor": "1",
            "share.coordinator.state.topic.min.isr": "1", "group.initial.rebalance.delay.ms": "0",
        }  # fmt: skip
        config.write_text("".join(f"{k}={v}\n" for k, v in settings.items()))
        env = {k: v for k, v in os.environ.items() if k not in ("JMX_PORT", "KAFKA_OPTS")}
        env.update(KAFKA_HEAP_OPTS="-Xmx2g -Xms2g", LOG_DIR=str(self.root / "logs"), KAFKA_JMX_OPTS=" ")
        if fresh:
            from kafkatop.backends.lab.state import new_cluster_id

            subprocess.run([str(self.home / "bin" / "kafka-storage.sh"), "format", "-t", new_cluster_id(), "-c",
                            str(config)], env=env, check=True, capture_output=True, timeout=120)  # fmt: skip
        out = open(self.root / "server.out", "ab")  # noqa: SIM115 - the node's output, for as long as it runs
        self.proc = subprocess.Popen([str(self.home / "bin" / "kafka-server-start.sh"), str(config)], env=env,
                                     stdout=out, stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
        from confluent_kafka.admin import AdminClient

        admin = AdminClient({"bootstrap.servers": self.bootstrap, "log_level": 0})
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                admin.list_topics(timeout=2)
                return
            except Exception:  # noqa: BLE001 - starting
                if self.proc.poll() is not None:
                    said = f"Kafka exited ({self.proc.returncode}): see {self.root / 'server.out'}"
                    raise RuntimeError(said) from None
                time.sleep(0.5)
        raise RuntimeError("Kafka did not answer within 120 s")

    def stop(self) -> None:
        self.proxy.close()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            wait_or_kill(self.proc, 60, group=True)  # the node's script leads a session of its own


def load_cluster(bootstrap: str, topics: int, partitions: int, groups: int, *, mock: Any = None) -> list[str]:
    """Topics, a record per partition, and `groups` groups that committed on one topic's partitions each. Returns
    the group ids. Idempotent on a kept cluster."""
    from confluent_kafka import Producer
    from confluent_kafka import TopicPartition as KTP
    from confluent_kafka.admin import AdminClient, NewTopic

    names = [f"t-{t:03}" for t in range(topics)]
    group_ids = [f"g-{g:04}" for g in range(groups)]
    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 0})
    existing = set(admin.list_topics(timeout=30).topics)
    missing = [n for n in names if n not in existing]
    if mock is not None:
        for n in missing:
            mock.create_topic(n, partitions, 1)
    elif missing:
        # A few topics per request: KRaft refuses one batch of 10,000 partitions ("excessively large batch").
        for i in range(0, len(missing), 10):
            batch = [NewTopic(n, partitions, 1) for n in missing[i : i + 10]]
            for fut in admin.create_topics(batch, request_timeout=120).values():
                fut.result(timeout=180)
        time.sleep(5)  # leaders elected
    if missing:
        producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 50, "log_level": 0})
        for n in missing:
            for p in range(partitions):
                for _ in range(3):
                    producer.produce(n, value=b"x" * 20, partition=p)
                producer.poll(0)
        producer.flush(120)
    done_marker = f"{topics}x{partitions}x{groups}"
    listed = set()
    if mock is None:
        listed = {g.group_id for g in admin.list_consumer_groups(request_timeout=60).result(timeout=90).valid}
    todo = [g for g in group_ids if g not in listed]
    for i, g in enumerate(todo):
        topic = names[group_ids.index(g) % topics]
        commit_group(bootstrap, g, [KTP(topic, p, 1 + (p + i) % 3) for p in range(partitions)])
    print(f"  cluster loaded: {topics} topics x {partitions} partitions, {groups} groups ({done_marker})", flush=True)
    return group_ids


def commit_group(bootstrap: str, group: str, offsets: list[Any]) -> None:
    """`group` commits `offsets` (confluent_kafka TopicPartitions) without joining: a group with committed offsets."""
    from confluent_kafka import Consumer

    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False, "log_level": 0})
    try:
        for attempt in range(60):  # a restarted node loads its groups first: NOT_COORDINATOR meanwhile
            try:
                c.commit(offsets=offsets, asynchronous=False)
                return
            except Exception:  # noqa: BLE001 - retried, then raised
                if attempt == 59:
                    raise
                time.sleep(0.5)
    finally:
        c.close()


def load_kip848(bootstrap: str, groups: int, topics: list[tuple[str, int]]) -> list[str]:
    """`groups` KIP-848 groups (`k-0000`…), on `topics` (name, partitions) in turn, each made by a consumer-protocol
    member that joins, is assigned, commits and leaves: the group stays, Empty, of type consumer (a commit without
    joining would make a classic group). Idempotent on a kept cluster."""
    from concurrent.futures import ThreadPoolExecutor

    from confluent_kafka import Consumer
    from confluent_kafka import TopicPartition as KTP
    from confluent_kafka.admin import AdminClient

    group_ids = [f"k-{g:04}" for g in range(groups)]
    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 0})
    listed = admin.list_consumer_groups(request_timeout=60).result(timeout=90).valid
    todo = [g for g in group_ids if g not in {x.group_id for x in listed if getattr(x.type, "name", "") == "CONSUMER"}]

    def join_and_leave(i: int, g: str) -> None:
        topic, partitions = topics[i % len(topics)]
        c = Consumer({"bootstrap.servers": bootstrap, "group.id": g, "group.protocol": "consumer",
                      "enable.auto.commit": False, "log_level": 0})  # fmt: skip
        try:
            c.subscribe([topic])
            deadline = time.monotonic() + 120
            while not c.assignment() and time.monotonic() < deadline:
                c.poll(0.1)
            c.commit(offsets=[KTP(topic, p, 1) for p in range(0, partitions, 10)], asynchronous=False)
        finally:
            c.close()

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(lambda ig: join_and_leave(*ig), ((group_ids.index(g), g) for g in todo)))
    print(f"  {groups} KIP-848 groups ({len(todo)} made now)", flush=True)
    return group_ids


@contextmanager
def live_members(bootstrap: str, count: int, topics: list[str] | None = None) -> Iterator[None]:
    """`count` groups with a member polling (on `topics` in turn, else t-000…), as groups in use (their descriptions
    change)."""
    from confluent_kafka import Consumer

    stop = threading.Event()
    consumers = [
        Consumer(
            {"bootstrap.servers": bootstrap, "group.id": f"live-{i}", "auto.offset.reset": "earliest", "log_level": 0}
        )  # fmt: skip
        for i in range(count)
    ]
    for i, c in enumerate(consumers):
        c.subscribe([topics[i % len(topics)] if topics else f"t-{i:03}"])

    def polling() -> None:
        while not stop.is_set():
            for c in consumers:
                c.poll(0.05)

    thread = threading.Thread(target=polling, daemon=True)
    thread.start()
    try:
        time.sleep(8)  # joined
        yield
    finally:
        stop.set()
        thread.join(10)
        for c in consumers:
            c.close()


# --- the mock's host process ----------------------------------------------------------------------------------------
def mock_host() -> None:
    """The librdkafka mock with the scale load, in a process of its own; commands on stdin: track, counts, quit."""
    from kafkatop.backends.kafka.mock import MockCluster

    with MockCluster(3) as mock:
        t0 = time.monotonic()
        groups = load_cluster(mock.bootstrap_servers, TOPICS, PARTITIONS, GROUPS, mock=mock)
        print(json.dumps({"bootstrap": mock.bootstrap_servers, "groups": groups, "load_s": time.monotonic() - t0}),
              flush=True)  # fmt: skip
        for line in sys.stdin:
            command = line.strip()
            if command == "track":
                mock.start_request_tracking()
                print("{}", flush=True)
            elif command == "counts":
                counts = dict(mock.request_counts())
                mock.stop_request_tracking()
                print(json.dumps(counts), flush=True)
            else:
                return
