"""The `logdirs` figure of bench/scale.py: what the live view's `log_dirs` source (DescribeLogDirs to every broker,
every 30 s) costs at 10,000 partitions, beside a full poll's CPU (the cluster source, every second).

With KAFKA_HOME: one real Kafka, loaded as the other figures load it (10,000 partitions; 1,000 groups), and the
source's own requests, counted by API (one Metadata listing the brokers, one DescribeLogDirs per broker).

Without: the librdkafka mock (3 brokers, 10,000 partitions, RF 3) in a process of its own answers the polls; it
answers no DescribeLogDirs, so the read is measured on the answers recorded-shape: each broker's DescribeLogDirs v4
answer for its 10,000 replicas, decoded and made into the snapshot and the panes' sums (the bytes per broker, the
replicas' sizes) — everything but the sockets (~0.2 MiB a broker, one request each).

CPU is the process's (Python and the client's librdkafka threads), median of --runs; the target, ≤ 10 % of a poll's
CPU, is held to one read beside one poll, and to the reads over time (one every 30 s beside a poll every second).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench._scale import GROUPS, PARTITIONS, ROOT, TOPICS
from bench.common.machine import load
from bench.common.process import quit_and_wait
from bench.common.stats import median, verdict

TARGET = 0.10  # one read of the log directories: at most this much of a poll's CPU
INTERVAL_S, POLL_INTERVAL_S = 30.0, 1.0  # Settings' defaults: log_dirs_interval_s, poll_interval_s
BROKERS, RF = 3, 3
MOCK = f"""
import sys
from kafkatop.backends.kafka.mock import MockCluster
mock = MockCluster({BROKERS})
for t in range({TOPICS}):
    mock.create_topic(f"t-{{t:03d}}", {PARTITIONS}, {RF})
print(mock.bootstrap_servers, flush=True)
sys.stdin.readline()
mock.close()
"""


def cpu(call: Callable[[], object], runs: int, warm: int = 2) -> list[float]:
    """The process's CPU seconds of each of `runs` calls (after `warm` unmeasured)."""
    for _ in range(warm):
        call()
    out = []
    for _ in range(runs):
        t0 = time.process_time()
        call()
        out.append(time.process_time() - t0)
    return out


def encoded_answer(broker: int, topics: int, partitions: int) -> bytes:
    """A DescribeLogDirs v4 answer (after the size) of one directory holding the replicas a broker of BROKERS has at
    RF 3 of `topics` x `partitions` (every replica: each broker holds every partition at RF = brokers)."""
    from kafkatop.backends.protocol.wire import encode_compact_string, encode_uvarint, int16, int32, int64

    tags = encode_uvarint(0)
    body = [int32(7), tags, int32(0), int16(0), encode_uvarint(2)]  # correlation, header tags, throttle, error, 1 dir
    body += [int16(0), encode_compact_string(f"/var/lib/kafka/broker-{broker}"), encode_uvarint(topics + 1)]
    for t in range(topics):
        body += [encode_compact_string(f"t-{t:03d}"), encode_uvarint(partitions + 1)]
        for p in range(partitions):
            body += [int32(p), int64(1_000_000 + 4_096 * (t * partitions + p) + broker), int64(0), b"\x00", tags]
        body.append(tags)
    body += [int64(500 * 2**30), int64(400 * 2**30), tags, tags]
    return b"".join(body)


def recorded_read(answers: dict[int, bytes]) -> Callable[[], object]:
    """What one read does with the brokers' answers, but the sockets: decoded, the snapshot, the panes' sums."""
    from kafkatop.backends.model.disks import BrokerDisks
    from kafkatop.backends.model.log_dirs import BrokerLogDirs
    from kafkatop.backends.protocol.describe_log_dirs import decode_response

    def read() -> object:
        brokers = tuple(BrokerLogDirs(b, decode_response(a, 4).log_dirs, 4) for b, a in answers.items())
        disks = BrokerDisks(time.time(), brokers)
        return disks.bytes_by_broker, disks.replica_sizes()

    return read


def counted_requests(read: Callable[[], object]) -> dict[str, int]:
    """The requests kafkatop's own protocol code sends during `read`, by API."""
    from kafkatop.backends.protocol import connection

    counts: dict[str, int] = {}
    original = connection.BrokerConnection.call

    def call(self: Any, api: Any, body: Any) -> Any:
        counts[api.name] = counts.get(api.name, 0) + 1
        return original(self, api, body)

    connection.BrokerConnection.call = call  # type: ignore[method-assign]
    try:
        read()
    finally:
        connection.BrokerConnection.call = original  # type: ignore[method-assign]
    return counts


def log_dirs_figures(args: Any, results: list[str]) -> None:
    from kafkatop.backends.kafka.admin.admin import AdminSource
    from kafkatop.backends.kafka.cluster.log_dirs import LogDirsPoll
    from kafkatop.backends.model.connection import KafkaConnection

    home = os.environ.get("KAFKA_HOME")
    kafka = mock = None
    try:
        if home:
            from bench._scale.cluster import RealKafka, load_cluster

            kafka = RealKafka(Path(home), Path(args.keep) if args.keep else Path(args.tmp) / "kafka")
            kafka.start()
            load_cluster(kafka.bootstrap, TOPICS, PARTITIONS, GROUPS)
            bootstrap, where = kafka.bootstrap, f"real Kafka from {home} (1 node)"
        else:
            mock = subprocess.Popen([sys.executable, "-c", MOCK], cwd=ROOT, stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, text=True)  # fmt: skip
            assert mock.stdout is not None
            bootstrap, where = mock.stdout.readline().strip(), f"the librdkafka mock ({BROKERS} brokers, RF {RF})"
        print(f"-- logdirs: {TOPICS * PARTITIONS:,} partitions on {where} ({load()})")
        connection = KafkaConnection.parse(bootstrap)
        source = AdminSource(connection, timeout_s=10.0)
        try:
            polls = cpu(source.poll, args.runs)
        finally:
            source.close()
        if kafka is not None:
            reader = LogDirsPoll(connection, timeout_s=10.0)
            counts = counted_requests(reader.poll)
            reads = cpu(reader.poll, args.runs)
            how = "its requests"
        else:
            answers = {b: encoded_answer(b, TOPICS, PARTITIONS) for b in range(1, BROKERS + 1)}
            reads = cpu(recorded_read(answers), args.runs)
            counts = {"Metadata": 1, "DescribeLogDirs": BROKERS}  # LogDirsPoll's, by construction (the mock has none)
            size = sum(map(len, answers.values())) / BROKERS / 2**20
            how = f"the recorded-shape answers ({size:.1f} MiB a broker; the sockets aside)"
        poll_cpu, read_cpu = median(polls), median(reads)
        ratio = read_cpu / poll_cpu
        shown = ", ".join(f"{k} {v}" for k, v in counts.items())
        print(f"   a poll's CPU median {poll_cpu * 1000:.0f} ms; a read of the log directories ({how}) median "
              f"{read_cpu * 1000:.0f} ms; requests per read: {shown} ({load()})")  # fmt: skip
        per_second = ratio * POLL_INTERVAL_S / INTERVAL_S
        results.append(
            f"RESULT logdirs: one read at {TOPICS * PARTITIONS:,} partitions, {shown}, CPU {read_cpu * 1000:.0f} ms = "
            f"{ratio:.1%} of a poll's {poll_cpu * 1000:.0f} ms; target one read ≤ {TARGET:.0%} of a poll -> "
            f"{verdict(ratio <= TARGET)}"
        )
        results.append(
            f"RESULT logdirs over time: a read every {INTERVAL_S:g} s beside a poll every {POLL_INTERVAL_S:g} s adds "
            f"{per_second:.2%} to the polls' CPU; target ≤ {TARGET:.0%} -> {verdict(per_second <= TARGET)}"
        )
    finally:
        if kafka is not None:
            kafka.stop()
        if mock is not None:
            quit_and_wait(mock, 60)
