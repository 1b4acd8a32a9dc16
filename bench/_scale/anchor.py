"""The anchor's shape (issue 45, kafbat #1776): 9,000 topics, 39,000 partitions, 2,200 groups with committed offsets,
on a real Kafka 4.1 of several brokers — as many as this machine's per-process limits need — and its load.

A broker keeps one open file per partition's active log segment (FileRecords' channel) and maps two indexes per
segment it has touched (LazyIndex maps on first use: every partition written to here), so its partitions are held
to a share of `ulimit -n` and of vm.max_map_count: the broker count is computed from both, printed with them, and the
brokers' open files and maps are read from /proc after the load and printed beside the limits.
"""

from __future__ import annotations

import math
import os
import resource
import signal
import subprocess
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench._scale.cluster import CountingProxy, Tally, commit_group, free_port, load_kip848
from bench.common.process import wait_or_kill

SMALL_TOPICS, SMALL_PARTITIONS = 7_500, 3  # most topics are small …
LARGE_TOPICS, LARGE_PARTITIONS = 1_500, 11  # … a few carry the traffic: 9,000 topics, 39,000 partitions
TOPICS = SMALL_TOPICS + LARGE_TOPICS
PARTITIONS = SMALL_TOPICS * SMALL_PARTITIONS + LARGE_TOPICS * LARGE_PARTITIONS
CLASSIC_GROUPS, KIP848_GROUPS, LIVE_GROUPS = 1_990, 200, 10  # 2,200 groups, each with committed offsets
GROUPS = CLASSIC_GROUPS + KIP848_GROUPS + LIVE_GROUPS
RECORDS_PER_PARTITION = 2
SHARE_OF_LIMIT = 0.66  # a broker's partitions keep a third of its open files and maps free: sockets, jars, the JVM
BROKER_HEAP, CONTROLLER_HEAP = "-Xmx1536m -Xms1536m", "-Xmx1g -Xms1g"


def topic_names() -> list[tuple[str, int]]:
    small = [(f"a-{t:04d}", SMALL_PARTITIONS) for t in range(SMALL_TOPICS)]
    large = [(f"b-{t:04d}", LARGE_PARTITIONS) for t in range(LARGE_TOPICS)]
    return small + large


def limits() -> tuple[int, int]:
    """(open files, memory maps) a process may hold on this machine."""
    files = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    maps = int(Path("/proc/sys/vm/max_map_count").read_text())
    return files, maps


def brokers_needed() -> tuple[int, str]:
    """How many brokers hold the anchor's partitions (and __consumer_offsets' 50) within this machine's limits, and
    why, in words."""
    files, maps = limits()
    held = PARTITIONS + 50
    by_files = math.ceil(held * 1 / (files * SHARE_OF_LIMIT))
    by_maps = math.ceil(held * 2 / (maps * SHARE_OF_LIMIT))
    count = max(by_files, by_maps, 1)
    why = (f"a broker holds 1 open file and 2 index maps per partition it has written; {held:,} partitions within "
           f"{SHARE_OF_LIMIT:.0%} of this machine's limits (ulimit -n {files:,}, vm.max_map_count {maps:,}) need "
           f"{by_files} broker(s) for the files and {by_maps} for the maps: {count} brokers, RF 1, and one KRaft "
           f"controller of its own")  # fmt: skip
    return count, why


class AnchorKafka:
    """A KRaft controller and `brokers` brokers from KAFKA_HOME on 127.0.0.1. Each broker has PLAINTEXT for the timings
    and COUNTED, advertised as a counting proxy's port (all proxies add to one tally), for the request counts."""

    def __init__(self, home: Path, root: Path, brokers: int) -> None:
        self.home, self.root, self.count = home, root, brokers
        self.tally = Tally()
        self.controller_port = free_port()
        self.ports = [free_port() for _ in range(brokers)]
        self.counted_ports = [free_port() for _ in range(brokers)]
        self.proxies = [CountingProxy(p, self.tally) for p in self.counted_ports]
        self.procs: dict[int, subprocess.Popen[bytes]] = {}

    @property
    def bootstrap(self) -> str:
        return ",".join(f"127.0.0.1:{p}" for p in self.ports)

    @property
    def counted_bootstrap(self) -> str:
        return ",".join(f"127.0.0.1:{p.port}" for p in self.proxies)

    @property
    def counts(self) -> Counter[str]:
        return self.tally.counts

    def _config(self, node: int) -> Path:
        common = {
            "controller.quorum.bootstrap.servers": f"127.0.0.1:{self.controller_port}",
            "controller.listener.names": "CONTROLLER", "log.dirs": str(self.root / f"data-{node}"),
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,COUNTED:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "num.partitions": "1", "offsets.topic.replication.factor": "1",
            "transaction.state.log.replication.factor": "1", "transaction.state.log.min.isr": "1",
            "share.coordinator.state.topic.replication.factor": "1", "share.coordinator.state.topic.min.isr": "1",
            "group.initial.rebalance.delay.ms": "0", "node.id": str(node),
        }  # fmt: skip
        if node == 0:
            role = {"process.roles": "controller", "listeners": f"CONTROLLER://127.0.0.1:{self.controller_port}"}
        else:
            i = node - 1
            role = {
                "process.roles": "broker", "inter.broker.listener.name": "PLAINTEXT",
                "listeners": f"PLAINTEXT://127.0.0.1:{self.ports[i]},COUNTED://127.0.0.1:{self.counted_ports[i]}",
                "advertised.listeners": f"PLAINTEXT://127.0.0.1:{self.ports[i]},"
                                        f"COUNTED://127.0.0.1:{self.proxies[i].port}",
            }  # fmt: skip
        config = self.root / f"node-{node}.properties"
        config.write_text("".join(f"{k}={v}\n" for k, v in {**common, **role}.items()))
        return config

    def start(self) -> None:
        """Ports are new at each start (free ones), so a kept cluster's configs are written again; its data stays."""
        self.root.mkdir(parents=True, exist_ok=True)
        fresh = not (self.root / "data-0" / "meta.properties").exists()
        cluster_id = (self.root / "cluster-id").read_text().strip() if not fresh else ""
        if fresh:
            from kafkatop.backends.lab.state import new_cluster_id

            cluster_id = new_cluster_id()
            (self.root / "cluster-id").write_text(cluster_id)
        for node in range(self.count + 1):
            config = self._config(node)
            env = {k: v for k, v in os.environ.items() if k not in ("JMX_PORT", "KAFKA_OPTS")}
            env.update(KAFKA_HEAP_OPTS=CONTROLLER_HEAP if node == 0 else BROKER_HEAP, KAFKA_JMX_OPTS=" ",
                       LOG_DIR=str(self.root / f"logs-{node}"))  # fmt: skip
            if fresh:
                extra = ["--standalone"] if node == 0 else []
                storage = str(self.home / "bin" / "kafka-storage.sh")
                subprocess.run([storage, "format", "-t", cluster_id, "-c", str(config), *extra], env=env, check=True,
                               capture_output=True, timeout=120)  # fmt: skip
            out = open(self.root / f"node-{node}.out", "ab")  # noqa: SIM115 - the node's output, while it runs
            self.procs[node] = subprocess.Popen([str(self.home / "bin" / "kafka-server-start.sh"), str(config)],
                                                env=env, stdout=out, stderr=subprocess.STDOUT,
                                                start_new_session=True)  # fmt: skip
        self._wait_ready()

    def _wait_ready(self) -> None:
        from confluent_kafka.admin import AdminClient

        admin = AdminClient({"bootstrap.servers": self.bootstrap, "log_level": 0})
        deadline = time.monotonic() + 600  # a kept cluster loads 39,000 partitions' logs first
        while time.monotonic() < deadline:
            for node, proc in self.procs.items():
                if proc.poll() is not None:
                    raise RuntimeError(f"Kafka node {node} exited ({proc.returncode}): see {self.root}/node-{node}.out")
            try:
                if len(admin.list_topics(timeout=5).brokers) == self.count:
                    return
            except Exception:  # noqa: BLE001 - starting
                pass
            time.sleep(1)
        raise RuntimeError(f"the anchor cluster did not answer with {self.count} brokers within 600 s")

    def held(self) -> list[str]:
        """Each broker's open files and memory maps now, from /proc (its JVM is the script's child)."""
        import psutil

        said = []
        for node, proc in sorted(self.procs.items()):
            try:
                java = next((c for c in psutil.Process(proc.pid).children(recursive=True) if "java" in c.name()),
                            psutil.Process(proc.pid))  # fmt: skip
                maps = sum(1 for _ in open(f"/proc/{java.pid}/maps"))  # noqa: SIM115 - read once
                said.append(f"node {node}: {java.num_fds():,} open files, {maps:,} maps, "
                            f"RSS {java.memory_info().rss / 2**20:,.0f} MB")  # fmt: skip
            except (OSError, psutil.Error) as e:
                said.append(f"node {node}: unreadable ({e})")
        return said

    def stop(self) -> None:
        """The brokers first, each let finish its controlled shutdown (which asks the controller), then the controller:
        a kept cluster then starts again without recovering 39,000 logs."""
        for proxy in self.proxies:
            proxy.close()
        brokers = [self.procs[n] for n in sorted(self.procs) if n != 0]
        for proc in brokers:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in brokers:
            wait_or_kill(proc, 180, group=True)  # the node's script leads a session of its own
        if 0 in self.procs:
            if self.procs[0].poll() is None:
                self.procs[0].send_signal(signal.SIGTERM)
            wait_or_kill(self.procs[0], 60, group=True)


def load_anchor(bootstrap: str) -> list[str]:
    """The topics, RECORDS_PER_PARTITION records in each partition, the classic groups' commits (each on one topic's
    partitions, one behind its end) and the KIP-848 groups. Idempotent on a kept cluster; returns every group id."""
    from confluent_kafka import Producer
    from confluent_kafka import TopicPartition as KTP
    from confluent_kafka.admin import AdminClient, NewTopic

    names = topic_names()
    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 0})
    existing = set(admin.list_topics(timeout=60).topics)
    missing = [(n, p) for n, p in names if n not in existing]
    t0 = time.monotonic()
    for i in range(0, len(missing), 200):  # ~800 partitions a request: KRaft refuses an excessively large batch
        batch = [NewTopic(n, p, 1) for n, p in missing[i : i + 200]]
        for fut in admin.create_topics(batch, request_timeout=300).values():
            try:
                fut.result(timeout=600)
            except Exception as e:  # noqa: BLE001 - a topic a killed earlier load made: fine
                if "TOPIC_ALREADY_EXISTS" not in str(e):
                    raise
        print(f"  topics {min(i + 200, len(missing)):,}/{len(missing):,} ({time.monotonic() - t0:.0f} s)", flush=True)
    if missing:
        time.sleep(10)  # leaders elected
        producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 50, "log_level": 0})
        for n, partitions in missing:
            for p in range(partitions):
                for _ in range(RECORDS_PER_PARTITION):
                    producer.produce(n, value=b"x" * 20, partition=p)
            producer.poll(0)
        left = producer.flush(600)
        print(f"  produced {RECORDS_PER_PARTITION} records to each new partition ({left} undelivered, "
              f"{time.monotonic() - t0:.0f} s)", flush=True)  # fmt: skip
    listed = {g.group_id for g in admin.list_consumer_groups(request_timeout=120).result(timeout=180).valid}
    classic = [f"g-{g:04d}" for g in range(CLASSIC_GROUPS)]
    todo = [(i, g) for i, g in enumerate(classic) if g not in listed]

    def commit(i: int, g: str) -> None:
        topic, partitions = names[i * 37 % len(names)]
        commit_group(bootstrap, g, [KTP(topic, p, RECORDS_PER_PARTITION - 1) for p in range(partitions)])

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda ig: commit(*ig), todo))
    print(f"  {CLASSIC_GROUPS:,} classic groups ({len(todo):,} made now, {time.monotonic() - t0:.0f} s)", flush=True)
    kip848 = load_kip848(bootstrap, KIP848_GROUPS, names[:100])
    return classic + kip848
