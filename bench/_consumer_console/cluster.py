"""The cluster of the consumer console benchmark and its producer: the librdkafka mock (or a real Kafka given by
--bootstrap-server), in the app's process or in a helper process of its own (--cluster-host) driven over stdin and
stdout."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import confluent_kafka
import psutil

from bench._consumer_console import BROKERS, PARTITIONS, SCRIPT, TOPIC
from bench.common.process import wait_or_kill


class PacedProducer(threading.Thread):
    """Produces `rate` messages a second for `seconds`, paced every millisecond, then flushes."""

    def __init__(self, bootstrap: str, rate: float, seconds: float, value_bytes: int) -> None:
        super().__init__(name="bench-producer", daemon=True)
        self.rate, self.seconds, self.value_bytes = rate, seconds, value_bytes
        self.errors = self.sent = self.left = 0
        self.started_at = self.produced_at = self.flushed_at = 0.0
        self.cpu_s = 0.0  # this thread's own CPU time (it ends before the run's CPU is read)
        self.producer = confluent_kafka.Producer(
            {
                "bootstrap.servers": bootstrap,
                "linger.ms": 5,
                "acks": "1",
                "enable.idempotence": False,
                "queue.buffering.max.messages": 1_000_000,
                "delivery.report.only.error": True,  # reports cost Python time per message: only failures come back
                "on_delivery": self._report,
                "log_level": 0,
            }
        )

    def _report(self, err: Any, msg: Any) -> None:
        if err is not None:
            self.errors += 1

    def run(self) -> None:
        c0 = time.thread_time()
        p, total = self.producer, int(self.rate * self.seconds)
        pad = b"x" * max(0, self.value_bytes - 24)
        self.started_at = t0 = time.perf_counter()
        sent = 0
        while sent < total:
            due = min(total, int(self.rate * (time.perf_counter() - t0)) + 1)
            while sent < due:
                try:
                    p.produce(TOPIC, value=b'{"order": %08d, "pad": "' % sent + pad + b'"}', key=b"k%d" % (sent % 997))
                except BufferError:
                    p.poll(0.005)
                    continue
                sent += 1
            self.sent = sent
            p.poll(0)
            time.sleep(0.001)
        self.produced_at = time.perf_counter()
        self.left = p.flush(30)
        self.flushed_at = time.perf_counter()
        self.cpu_s = time.thread_time() - c0

    def stats(self) -> dict[str, Any]:
        keys = ("sent", "left", "errors", "started_at", "produced_at", "flushed_at", "cpu_s")
        return {k: getattr(self, k) for k in keys}


@contextmanager
def real_cluster(bootstrap: str) -> Iterator[str]:
    """--bootstrap-server: a Kafka of your own (the mock keeps 100,000 records per partition at most and drops the
    oldest, so a consumer more than a few seconds behind 100,000 msg/s loses records there, not in kafkatop)."""
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    if TOPIC in admin.list_topics(timeout=10).topics:  # empty for each run, as the mock's is
        admin.delete_topics([TOPIC])[TOPIC].result(30)
        while TOPIC in admin.list_topics(timeout=10).topics:
            time.sleep(0.2)
    for _ in range(50):  # the deletion settles before the name can be taken again
        try:
            admin.create_topics([NewTopic(TOPIC, PARTITIONS, 1)])[TOPIC].result(30)
            break
        except Exception:  # noqa: BLE001 - TOPIC_ALREADY_EXISTS while the deletion completes
            time.sleep(0.2)
    time.sleep(2)  # leaders elected
    yield bootstrap


@contextmanager
def mock_cluster() -> Iterator[str]:
    from kafkatop.backends.kafka.mock import MockCluster

    with MockCluster(BROKERS) as cluster:
        cluster.create_topic(TOPIC, PARTITIONS, 3)
        yield cluster.bootstrap_servers


def cluster_host(rate: float, seconds: float, value_bytes: int, bootstrap: str | None) -> int:
    """--cluster-host: the mock cluster (or a real one's producer) in a process of its own, driven over stdin/stdout."""
    me = psutil.Process()
    with real_cluster(bootstrap) if bootstrap else mock_cluster() as servers:
        print(servers, flush=True)
        if sys.stdin.readline().strip() != "go":
            return 0
        rss0, cpu0 = me.memory_info().rss, sum(me.cpu_times()[:2])
        producer = PacedProducer(servers, rate, seconds, value_bytes)
        producer.start()
        while producer.started_at == 0.0:
            time.sleep(0.001)
        print(f"started {producer.started_at!r}", flush=True)
        producer.join()
        stats = producer.stats()
        stats["process_cpu_s"] = sum(me.cpu_times()[:2]) - cpu0
        stats["rss_mb"] = (rss0 / 2**20, me.memory_info().rss / 2**20)
        print(json.dumps(stats), flush=True)
        sys.stdin.readline()  # "quit"
    return 0


class RemoteProducer:
    """The producer of a --cluster-host process, with PacedProducer's attributes."""

    def __init__(self, host: subprocess.Popen[str]) -> None:
        self.host = host
        self.errors = self.sent = self.left = 0
        self.started_at = self.produced_at = self.flushed_at = 0.0
        self.cpu_s = self.process_cpu_s = 0.0
        self.rss_mb: tuple[float, float] | None = None
        self._reader = threading.Thread(target=self._read, name="bench-host-reader", daemon=True)

    def start(self) -> None:
        assert self.host.stdin is not None and self.host.stdout is not None
        self.host.stdin.write("go\n")
        self.host.stdin.flush()
        line = self.host.stdout.readline().split()
        self.started_at = float(line[1])
        self._reader.start()

    def _read(self) -> None:
        assert self.host.stdout is not None
        stats = json.loads(self.host.stdout.readline())
        self.rss_mb = tuple(stats.pop("rss_mb"))  # type: ignore[assignment]
        for key, value in stats.items():
            setattr(self, key, value)

    def is_alive(self) -> bool:
        return self._reader.is_alive()

    def join(self, timeout: float | None = None) -> None:
        self._reader.join(timeout)


def start_host(args_rate: float, seconds: float, value_bytes: int, bootstrap: str | None) -> subprocess.Popen[str]:
    cmd = [sys.executable, str(SCRIPT), "--cluster-host", "--rate", str(args_rate), "--seconds", str(seconds),
           "--value-bytes", str(value_bytes)]  # fmt: skip
    if bootstrap:
        cmd += ["--bootstrap-server", bootstrap]
    return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def stop_host(host: subprocess.Popen[str]) -> None:
    try:
        if host.stdin is not None:
            host.stdin.write("quit\n")
            host.stdin.close()
    except OSError:
        pass
    wait_or_kill(host, 15)
