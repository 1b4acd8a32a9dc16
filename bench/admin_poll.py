"""Benchmark: one full AdminSource poll of a 1,000-partition cluster with 20 consumer groups (librdkafka mock).

Prints figures; asserts nothing about timings. Run from the repository root:

    .venv/bin/python bench/admin_poll.py [--polls N] [--profile]

What it does:
  1. Starts a 3-broker librdkafka mock cluster on 127.0.0.1 with 50 topics x 20 partitions (RF 3), produces a few
     messages to every partition and makes 20 consumer groups commit offsets on 2-3 topics each (some below the
     high watermark, so they lag). The mock cannot list or describe groups, so the source is given the 20 group
     ids as `watch_groups`, as kafkatop does for groups it knows of.
  2. Times AdminSource.poll() (2 warm-up polls, then --polls timed ones): median / p90 / min / max, against the
     target, and for scale the same poll with no group watched; --profile adds a cProfile of 5 polls.
  3. Counts the requests each poll sends, server-side (the mock's request tracking; ApiVersions excluded), and
     does the same on a cluster with the same 20 groups but 50 topics x 2 partitions (100 partitions): the
     request count should not grow with partitions.

The mock brokers are librdkafka threads inside this same process, so they share its CPUs with the poll.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import platform
import pstats
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import confluent_kafka
from confluent_kafka import Consumer, Producer, TopicPartition

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.* also when run as a file
from bench.common.machine import version_str
from bench.common.stats import percentile, stats_line

TARGET_MS = 100.0
BROKERS = 3
TOPICS = 50
PARTITIONS = 20  # per topic: 50 x 20 = 1,000 partitions
SMALL_PARTITIONS = 2  # per topic in the comparison cluster: 50 x 2 = 100 partitions
RF = 3
GROUPS = 20
WARMUP_POLLS = 2
TIMED_POLLS = 20
COUNTED_POLLS = 9  # polls whose requests are counted, per cluster (FindCoordinator varies from poll to poll)
POLL_TIMEOUT_S = 10.0


# --- small helpers --------------------------------------------------------------------------------------------------
def topic_name(i: int) -> str:
    return f"topic-{i:02d}"


def group_name(g: int) -> str:
    return f"group-{g:02d}"


def group_topics(g: int) -> list[int]:
    """Even groups read 3 topics, odd groups 2; consecutive groups overlap on one topic."""
    n = 3 if g % 2 == 0 else 2
    return [(g * 2 + k) % TOPICS for k in range(n)]


def messages_for(topic_index: int, partition: int) -> int:
    return 3 + (topic_index + partition) % 4  # 3..6 messages per partition


# --- the cluster ----------------------------------------------------------------------------------------------------
def build_cluster(cluster: MockCluster, partitions: int) -> tuple[int, int]:
    """Topics, messages and committed group offsets; returns (messages produced, offsets committed)."""
    for t in range(TOPICS):
        cluster.create_topic(topic_name(t), partitions, RF)

    producer = Producer({"bootstrap.servers": cluster.bootstrap_servers, "linger.ms": 5})
    produced = 0
    for t in range(TOPICS):
        for p in range(partitions):
            for i in range(messages_for(t, p)):
                producer.produce(topic_name(t), value=f"m{i}".encode(), partition=p)
                produced += 1
    left = producer.flush(30)
    if left:
        raise RuntimeError(f"{left} messages not delivered to the mock cluster")
    del producer

    committed = 0
    for g in range(GROUPS):
        # 0..2 messages short of the high watermark: some partitions lag, some do not.
        offsets = [
            TopicPartition(topic_name(t), p, messages_for(t, p) - (g + p) % 3)
            for t in group_topics(g)
            for p in range(partitions)
        ]
        consumer = Consumer(
            {"bootstrap.servers": cluster.bootstrap_servers, "group.id": group_name(g), "enable.auto.commit": False}
        )
        try:
            consumer.assign(offsets)
            consumer.commit(offsets=offsets, asynchronous=False)
        finally:
            consumer.close()
        committed += len(offsets)
    return produced, committed


def new_source(cluster: MockCluster) -> AdminSource:
    return AdminSource(
        KafkaConnection.parse(cluster.bootstrap_servers),
        watch_groups=[group_name(g) for g in range(GROUPS)],
        timeout_s=POLL_TIMEOUT_S,
    )


def check_snapshot(snap: ClusterSnapshot, partitions: int) -> bool:
    parts = snap.partitions
    lagging = [o for g in snap.groups for o in g.offsets if o.lag]
    print(
        f"  snapshot: {len(snap.brokers)} brokers, {len(snap.topics)} topics, {len(parts)} partitions "
        f"({sum(1 for p in parts if p.high_watermark is not None)} with watermarks), {len(snap.groups)} groups "
        f"({sum(1 for g in snap.groups if g.offsets)} with committed offsets, "
        f"{sum(len(g.offsets) for g in snap.groups)} group-partitions), "
        f"lag > 0 on {len(lagging)} group-partitions (total lag {sum(o.lag or 0 for o in lagging)})"
    )
    for p in snap.problems:
        print(f"  problem reported (expected on the mock): {p}")
    ok = len(parts) == TOPICS * partitions and len(snap.groups) == GROUPS and bool(lagging)
    print(
        f"  check: {TOPICS * partitions} partitions, {GROUPS} groups, non-zero lag -> "
        f"{'OK' if ok else 'UNEXPECTED SNAPSHOT'}"
    )
    return ok


# --- measurements ---------------------------------------------------------------------------------------------------
def time_polls(source: AdminSource, polls: int) -> tuple[list[float], list[float]]:
    """Wall and process-CPU milliseconds per poll (CPU includes the in-process mock brokers' threads)."""
    wall, cpu = [], []
    for _ in range(polls):
        c0, w0 = time.process_time(), time.perf_counter()
        source.poll()
        wall.append((time.perf_counter() - w0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return wall, cpu


def count_requests(cluster: MockCluster, source: AdminSource, polls: int) -> list[Counter[str]]:
    """Per poll, the requests the mock brokers received (ApiVersions excluded)."""
    out = []
    cluster.start_request_tracking()
    try:
        for _ in range(polls):
            cluster.clear_requests()
            source.poll()  # returns once every response is in, so every request has been received
            counts = cluster.request_counts()
            counts.pop("ApiVersions", None)
            out.append(counts)
    finally:
        cluster.stop_request_tracking()
    return out


@dataclass
class Run:
    partitions: int
    wall_ms: list[float]
    cpu_ms: list[float]
    requests: list[Counter[str]]


def run_cluster(partitions_per_topic: int, polls: int, *, detail: bool, profile: bool) -> Run:
    total = TOPICS * partitions_per_topic
    print()
    print(f"-- cluster: {BROKERS} brokers, {TOPICS} topics x {partitions_per_topic} partitions = {total} (RF {RF}) --")
    with MockCluster(brokers=BROKERS) as cluster:
        t0 = time.perf_counter()
        produced, committed = build_cluster(cluster, partitions_per_topic)
        print(
            f"  setup: {produced} messages produced, {GROUPS} groups with {committed} committed offsets "
            f"({time.perf_counter() - t0:.1f} s)"
        )
        source = new_source(cluster)
        try:
            t0 = time.perf_counter()
            snap = source.poll()
            cold_ms = (time.perf_counter() - t0) * 1000
            for _ in range(WARMUP_POLLS - 1):
                snap = source.poll()
            check_snapshot(snap, partitions_per_topic)
            wall, cpu = time_polls(source, polls)
            print(f"  poll, {polls} timed polls after {WARMUP_POLLS} warm-up (cold first poll {cold_ms:.1f} ms):")
            print(f"    wall {stats_line(wall)}")
            print(f"    CPU  {stats_line(cpu)}  (process CPU, mock brokers included)")
            if detail:
                # For scale: the same cluster polled with no group to report (topics, watermarks, brokers only).
                bare = AdminSource(KafkaConnection.parse(cluster.bootstrap_servers), timeout_s=POLL_TIMEOUT_S)
                try:
                    for _ in range(WARMUP_POLLS):
                        bare.poll()
                    bare_wall, _ = time_polls(bare, polls)
                finally:
                    bare.close()
                print(f"  for scale, the same poll with no groups watched ({polls} polls):")
                print(f"    wall {stats_line(bare_wall)}")
            if profile:
                prof = cProfile.Profile()
                prof.enable()
                for _ in range(5):
                    source.poll()
                prof.disable()
                buf = io.StringIO()
                pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(25)
                print("  cProfile of 5 polls (cumulative; the profiler itself slows the Python parts):")
                print(buf.getvalue())
            requests = count_requests(cluster, source, COUNTED_POLLS)
        finally:
            source.close()
    return Run(total, wall, cpu, requests)


def print_request_table(big: Run, small: Run) -> None:
    names = sorted(
        {n for c in big.requests + small.requests for n in c},
        key=lambda n: (-statistics.median(c[n] for c in big.requests), n),
    )

    def cell(run: Run, name: str | None) -> str:
        values = [c.total() if name is None else c[name] for c in run.requests]
        med, lo, hi = statistics.median(values), min(values), max(values)
        spread = "" if lo == hi else f" ({lo}-{hi})"
        return f"{med:g}{spread}"

    big_label, small_label = f"{big.partitions} partitions", f"{small.partitions} partitions"
    print()
    print(
        f"requests per poll, counted by the mock brokers (ApiVersions excluded): median over {COUNTED_POLLS} polls, "
        "(min-max) when polls differ"
    )
    print(f"  {'request':<18} {big_label:>18} {small_label:>18}")
    for name in names:
        print(f"  {name:<18} {cell(big, name):>18} {cell(small, name):>18}")
    print(f"  {'total':<18} {cell(big, None):>18} {cell(small, None):>18}")
    big_total = statistics.median(c.total() for c in big.requests)
    small_total = statistics.median(c.total() for c in small.requests)
    steady = [n for n in names if n != "FindCoordinator"]
    big_steady = statistics.median(sum(c[n] for n in steady) for c in big.requests)
    small_steady = statistics.median(sum(c[n] for n in steady) for c in small.requests)
    print(
        f"  ratio requests({big_label}) / requests({small_label}) = {big_total / small_total:.2f} "
        f"for {big.partitions // small.partitions}x the partitions "
        f"(without FindCoordinator: {big_steady:g}/{small_steady:g} = {big_steady / small_steady:.2f})"
    )
    offset_fetch = statistics.median(c["OffsetFetch"] for c in big.requests)
    print(
        f"  OffsetFetch per group: {offset_fetch / GROUPS:g} (the mock cannot describe groups, so "
        "partitions are named: every partition once, then only the topics the group committed on)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--polls", type=int, default=TIMED_POLLS, help="timed polls (default %(default)s)")
    parser.add_argument("--profile", action="store_true", help="also profile 5 polls of the big cluster")
    args = parser.parse_args()
    polls = max(15, args.polls)

    print("== kafkatop bench: AdminSource.poll() on the librdkafka mock cluster ==")
    print(
        f"machine: cpu_count={os.cpu_count()} python={platform.python_version()} "
        f"confluent_kafka={version_str(confluent_kafka.version())} "
        f"librdkafka={version_str(confluent_kafka.libversion())} ({platform.system()} {platform.machine()}) "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    started = time.perf_counter()
    big = run_cluster(PARTITIONS, polls, detail=True, profile=args.profile)
    small = run_cluster(SMALL_PARTITIONS, polls, detail=False, profile=False)
    print_request_table(big, small)

    median = statistics.median(big.wall_ms)
    print()
    print(
        f"RESULT: poll of {big.partitions} partitions + {GROUPS} groups: median {median:.1f} ms "
        f"(p90 {percentile(big.wall_ms, 90):.1f}, min {min(big.wall_ms):.1f}, max {max(big.wall_ms):.1f}); "
        f"target median <= {TARGET_MS:.0f} ms -> {'PASS' if median <= TARGET_MS else 'MISS'}"
    )
    print(
        f"        {small.partitions} partitions + {GROUPS} groups: median "
        f"{statistics.median(small.wall_ms):.1f} ms (for scale)"
    )
    print(f"        bench wall time {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
