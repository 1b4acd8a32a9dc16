"""Benchmark: time from `kafkatop up` to every node ready for a 3-broker cluster, against starting the same nodes one
after another; target parallel <= 0.6x sequential. Also reports the resident memory of each JVM.

Prints figures; asserts nothing. Needs a real Kafka with KRaft (4.x, or 3.3+). Run from the repository root:

    KAFKA_HOME=/opt/kafka_2.13-4.1.0 .venv/bin/python bench/cluster_up.py [--runs N] [--kafka-home DIR]

Topology of the comparison: KRaft with 1 dedicated controller + 3 brokers (ClusterSpec(mode="kraft", controllers=1,
brokers=3)). In combined mode no node can become ready alone — a 3-voter quorum needs 2 voters before anything
serves — so "one after another" is only defined when the quorum is a separate controller that can start first.

Each run, for each variant, a fresh cluster in a new temp state dir on its own free ports (heap 256m):
  parallel    `cluster.up()`: the controller and the brokers are launched together (what `kafkatop up` does).
  sequential  `cluster.start(name)` for controller-101, broker-1, broker-2, broker-3, each waiting until ready.
  staged      not what up() does today: `start("controller-101")`, then `up()` for the 3 brokers together — the
              way up() already treats ZooKeeper — to see what waiting for the quorum first would buy.
All variants do the same work: storage is formatted by the supervisor's own step (`prepare`) before the clock
starts — all nodes at once as up() does, or one node at a time for sequential, as `start()` would — so the headline
times only the start phase; the format time and the sum are printed beside it. The order of the variants rotates
from run to run, so none always runs first (cold page cache) or right after another cluster's shutdown.
Also timed each run: the default combined 3-node KRaft cluster (3 nodes that are broker and controller, what
`kafkatop up` starts on Kafka 4), with `up()`.

When all nodes are ready: each JVM's resident memory (ProcessSource) and the CPU time it used so far, and the whole
machine's busy CPU time during the start phase — on 2 cores, JVM start-up is CPU-bound, which bounds the ratio.
Every cluster is brought down in a finally, leftover recorded pids are killed (start time verified), temp dirs go.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from kafkatop.backends.lab.cluster import LabCluster
from kafkatop.backends.lab.kafka_homes import KafkaInstall
from kafkatop.backends.lab.processes import ProcessSource
from kafkatop.backends.lab.runner import LAB_JVM_OPTS, port_is_free
from kafkatop.backends.lab.spec import ClusterSpec
from kafkatop.backends.model.nodes import NodeState

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.* also when run as a file
from bench.common.lab import kraft_install, temp_lab
from bench.common.machine import machine_busy

TARGET_RATIO = 0.6
HEAP = "256m"
PORT_BLOCK = 8  # brokers at base..base+2, controller ports at base+4..base+6
# Above the lab ports (9092, 2181) and below Linux's ephemeral range, so no client socket takes one mid-run.
PORT_RANGE = (20000, 32000)
SEQUENTIAL_ORDER = ("controller-101", "broker-1", "broker-2", "broker-3")
PARALLEL, SEQUENTIAL, STAGED, COMBINED = "parallel", "sequential", "staged", "combined"


@dataclass
class Measurement:
    variant: str
    format_s: float
    start_s: float
    ready_at: dict[str, float]  # node -> seconds after the start phase began
    rss_mb: dict[str, float]
    jvm_cpu_s: dict[str, float]  # CPU time each JVM used from launch until all nodes were ready
    machine_busy_s: float  # CPU seconds all processes used during the start phase (all cores)
    self_cpu_s: float  # this Python process (the supervisor's polling) during the start phase
    load: float = field(default=0.0)  # 1-minute load average when the start phase began

    @property
    def total_s(self) -> float:
        return self.format_s + self.start_s

    @property
    def others_cpu_s(self) -> float:
        return max(0.0, self.machine_busy_s - sum(self.jvm_cpu_s.values()) - self.self_cpu_s)


# --- ports, clusters, cleanup ---------------------------------------------------------------------------------------
class Ports:
    def __init__(self) -> None:
        self.rng = random.Random()
        self.used: set[int] = set()

    def block(self) -> int:
        """A base port with PORT_BLOCK free ports, never one handed out before in this bench."""
        for _ in range(200):
            base = self.rng.randrange(PORT_RANGE[0], PORT_RANGE[1] - PORT_BLOCK)
            ports = range(base, base + PORT_BLOCK)
            if self.used.isdisjoint(ports) and all(port_is_free(p) for p in ports):
                self.used.update(ports)
                return base
        raise SystemExit(f"no block of {PORT_BLOCK} free ports in {PORT_RANGE[0]}-{PORT_RANGE[1]}")


def fresh_cluster(install: KafkaInstall, ports: Ports, name: str, **spec: object) -> AbstractContextManager[LabCluster]:
    base = ports.block()
    spec_ = ClusterSpec(name=name, base_port=base, controller_port=base + 4, heap=HEAP, **spec)  # type: ignore[arg-type]
    return temp_lab(install, spec_, "kafkatop-bench-up-", down_timeout_s=15)


# --- measuring ------------------------------------------------------------------------------------------------------
def self_cpu() -> float:
    t = psutil.Process().cpu_times()
    return float(t.user + t.system)


def measure_nodes(cluster: LabCluster) -> tuple[dict[str, float], dict[str, float]]:
    """RSS (MB) and CPU seconds of each node's JVM, by the pids the supervisor recorded."""
    snap = cluster.snapshot()
    not_up = [f"{n.name}={n.state.value}" for n in snap.nodes if n.state is not NodeState.UP]
    if not_up:
        raise RuntimeError(f"not every node is up after the start phase: {', '.join(not_up)}")
    by_pid = {n.pid: n.name for n in snap.nodes if n.pid is not None}
    cpu: dict[str, float] = {}
    for pid, name in by_pid.items():
        t = psutil.Process(pid).cpu_times()
        cpu[name] = t.user + t.system
    found = ProcessSource(selector=lambda p: p.pid in by_pid).poll().processes
    rss = {by_pid[p.pid]: p.rss_bytes / 2**20 for p in found}
    missing = set(by_pid.values()) - set(rss)
    if missing:
        raise RuntimeError(f"ProcessSource did not report the JVM of {', '.join(sorted(missing))}")
    return rss, cpu


def timed_start(cluster: LabCluster, variant: str, start: Callable[[dict[str, float], float], None]) -> Measurement:
    load = os.getloadavg()[0]
    ready: dict[str, float] = {}
    busy0, self0, t0 = machine_busy(), self_cpu(), time.monotonic()
    start(ready, t0)
    start_s = time.monotonic() - t0
    busy, own = machine_busy() - busy0, self_cpu() - self0
    rss, cpu = measure_nodes(cluster)
    return Measurement(variant, 0.0, start_s, ready, rss, cpu, busy, own, load)


def run_parallel(install: KafkaInstall, ports: Ports, timeout_s: float, variant: str, **spec: object) -> Measurement:
    with fresh_cluster(install, ports, variant, mode="kraft", brokers=3, **spec) as cluster:
        t = time.monotonic()
        cluster.prepare(cluster.nodes)  # the formatting step up() runs first: all nodes at once
        format_s = time.monotonic() - t

        def start(ready: dict[str, float], _t0: float) -> None:
            cluster.up(timeout_s=timeout_s, on_ready=lambda node, t: ready.__setitem__(node.name, t))

        m = timed_start(cluster, variant, start)
    m.format_s = format_s
    return m


def run_sequential(install: KafkaInstall, ports: Ports, timeout_s: float) -> Measurement:
    with fresh_cluster(install, ports, SEQUENTIAL, mode="kraft", brokers=3, controllers=1) as cluster:
        format_s = 0.0
        for name in SEQUENTIAL_ORDER:
            t = time.monotonic()
            cluster.prepare((cluster.node(name),))  # what start(name) would format: one node at a time
            format_s += time.monotonic() - t

        def start(ready: dict[str, float], t0: float) -> None:
            for name in SEQUENTIAL_ORDER:
                cluster.start(name, timeout_s=timeout_s)
                ready[name] = time.monotonic() - t0

        m = timed_start(cluster, SEQUENTIAL, start)
    m.format_s = format_s
    return m


def run_staged(install: KafkaInstall, ports: Ports, timeout_s: float) -> Measurement:
    """Not what up() does today: the controller alone first (as up() treats ZooKeeper), then the brokers together."""
    with fresh_cluster(install, ports, STAGED, mode="kraft", brokers=3, controllers=1) as cluster:
        t = time.monotonic()
        cluster.prepare(cluster.nodes)
        format_s = time.monotonic() - t

        def start(ready: dict[str, float], t0: float) -> None:
            cluster.start(SEQUENTIAL_ORDER[0], timeout_s=timeout_s)
            ready[SEQUENTIAL_ORDER[0]] = time.monotonic() - t0
            offset = ready[SEQUENTIAL_ORDER[0]]
            cluster.up(timeout_s=timeout_s, on_ready=lambda node, t: ready.__setitem__(node.name, offset + t))

        m = timed_start(cluster, STAGED, start)
    m.format_s = format_s
    return m


# --- printing -------------------------------------------------------------------------------------------------------
def s_line(values: list[float]) -> str:
    return f"median {statistics.median(values):6.2f} s   min {min(values):6.2f} s   max {max(values):6.2f} s"


def print_run(m: Measurement) -> None:
    order = sorted(m.ready_at, key=m.ready_at.__getitem__)
    ready = ", ".join(f"{n} {m.ready_at[n]:.1f}" for n in order)
    jvm = sum(m.jvm_cpu_s.values())
    print(
        f"  {m.variant:<10} start {m.start_s:6.2f} s  (+ format {m.format_s:5.2f} s = {m.total_s:6.2f} s)   "
        f"load {m.load:4.2f}"
    )
    print(f"             ready at: {ready}")
    print(
        f"             CPU in start phase: JVMs {jvm:5.1f} s, kafkatop {m.self_cpu_s:4.1f} s, other processes "
        f"{m.others_cpu_s:4.1f} s; machine busy {m.machine_busy_s / m.start_s:4.2f} of {psutil.cpu_count()} cores"
    )


def print_memory(runs: list[Measurement], label: str) -> None:
    names = list(runs[0].rss_mb)
    cells = []
    for name in names:
        values = [m.rss_mb[name] for m in runs if name in m.rss_mb]
        cells.append(f"{name} {statistics.median(values):.0f} MB ({min(values):.0f}-{max(values):.0f})")
    total = statistics.median(sum(m.rss_mb.values()) for m in runs)
    print(f"  {label:<28} {'; '.join(cells)}; total {total:.0f} MB")


def print_cpu(runs: list[Measurement], label: str) -> None:
    names = list(runs[0].jvm_cpu_s)
    cells = [f"{n} {statistics.median(m.jvm_cpu_s[n] for m in runs):.1f}" for n in names]
    total = statistics.median(sum(m.jvm_cpu_s.values()) for m in runs)
    print(f"  {label:<28} {', '.join(cells)}; total {total:.1f} CPU-s")


# --- main -----------------------------------------------------------------------------------------------------------
def open_kafka(explicit: str | None) -> KafkaInstall:
    home = explicit or os.environ.get("KAFKA_HOME", "").strip()
    if not home:
        raise SystemExit(
            "cluster_up bench needs a real Kafka: set KAFKA_HOME or pass --kafka-home DIR "
            "(e.g. KAFKA_HOME=/opt/kafka_2.13-4.1.0 .venv/bin/python bench/cluster_up.py)"
        )
    return kraft_install(home, "cluster_up bench")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="runs of each variant (default %(default)s)")
    parser.add_argument("--kafka-home", help="the Kafka install (default: $KAFKA_HOME)")
    parser.add_argument("--timeout", type=float, default=180.0, help="per start, seconds (default %(default)s)")
    args = parser.parse_args()
    install = open_kafka(args.kafka_home)
    runs = max(1, args.runs)

    print("== kafkatop bench: lab cluster start, parallel `up()` against one node after another ==")
    print(
        f"machine: cpu_count={psutil.cpu_count()} python={platform.python_version()} {install} "
        f"heap {HEAP} ({platform.system()} {platform.machine()}) load average {os.getloadavg()[0]:.2f}"
    )
    jvm = os.environ.get("KAFKA_JVM_PERFORMANCE_OPTS")
    origin = "from KAFKA_JVM_PERFORMANCE_OPTS" if jvm else "kafkatop lab default"
    print(f"JVM options: {jvm or LAB_JVM_OPTS} ({origin})")
    if os.environ.get("KAFKA_OPTS"):  # the supervisor passes the environment on to every node
        print(f"note: KAFKA_OPTS={os.environ['KAFKA_OPTS']}")
    started = time.monotonic()
    ports = Ports()
    results: dict[str, list[Measurement]] = {PARALLEL: [], SEQUENTIAL: [], STAGED: [], COMBINED: []}
    variants: dict[str, Callable[[], Measurement]] = {
        PARALLEL: lambda: run_parallel(install, ports, args.timeout, PARALLEL, controllers=1),
        SEQUENTIAL: lambda: run_sequential(install, ports, args.timeout),
        STAGED: lambda: run_staged(install, ports, args.timeout),
    }
    for i in range(runs):
        print(f"\n-- run {i + 1}/{runs} --")
        # Rotated each run, so every variant runs first, second and third equally often.
        order = [*variants][i % 3 :] + [*variants][: i % 3]
        for variant in order:
            m = variants[variant]()
            results[variant].append(m)
            print_run(m)
        m = run_parallel(install, ports, args.timeout, COMBINED, controllers=0)
        results[COMBINED].append(m)
        print_run(m)

    par, seq, staged, comb = results[PARALLEL], results[SEQUENTIAL], results[STAGED], results[COMBINED]
    print(f"\nsummary over {runs} run(s) (start phase: launch until every node is ready; format excluded)")
    print(f"  1 controller + 3 brokers, parallel up()      {s_line([m.start_s for m in par])}")
    print(f"  1 controller + 3 brokers, one after another  {s_line([m.start_s for m in seq])}")
    print(f"  controller first, then 3 brokers together    {s_line([m.start_s for m in staged])}")
    print(f"  3 combined nodes, up() (Kafka 4 default)     {s_line([m.start_s for m in comb])}")
    print("  including storage format (format + start):")
    print(f"    parallel                                   {s_line([m.total_s for m in par])}")
    print(f"    one after another                          {s_line([m.total_s for m in seq])}")
    print(f"    controller first, then brokers             {s_line([m.total_s for m in staged])}")
    print(f"    3 combined nodes                           {s_line([m.total_s for m in comb])}")

    print("\nresident memory of each JVM when all nodes are ready (median, min-max over runs):")
    print_memory(par, "parallel (controller+3)")
    print_memory(seq, "one after another")
    print_memory(staged, "controller first")
    print_memory(comb, "3 combined nodes")
    print("\nCPU time each JVM used from launch until all were ready (median):")
    print_cpu(par, "parallel (controller+3)")
    print_cpu(seq, "one after another")
    print_cpu(staged, "controller first")
    print_cpu(comb, "3 combined nodes")

    cores = psutil.cpu_count() or 1
    ratio = statistics.median(m.start_s for m in par) / statistics.median(m.start_s for m in seq)
    paired = [p.start_s / s.start_s for p, s in zip(par, seq, strict=True)]
    total_ratio = statistics.median(m.total_s for m in par) / statistics.median(m.total_s for m in seq)
    # However well the starts overlap, the parallel start cannot beat the CPU its JVMs need spread over all cores.
    bound = statistics.median(sum(m.jvm_cpu_s.values()) for m in par) / cores
    alone = statistics.median(sum(m.jvm_cpu_s.values()) / m.start_s for m in seq)
    print()
    verdict = "PASS" if ratio <= TARGET_RATIO else "FAIL"
    print(
        f"RESULT: start phase parallel/sequential = {ratio:.2f} (median/median; per-run pairs "
        f"{min(paired):.2f}-{max(paired):.2f}); target <= {TARGET_RATIO} -> {verdict}"
    )
    print(f"        with storage format included: {total_ratio:.2f}")
    staged_ratio = statistics.median(m.start_s for m in staged) / statistics.median(m.start_s for m in seq)
    print(f"        controller first, then brokers together (not what up() does): {staged_ratio:.2f}")
    print(
        f"        CPU bound: the parallel start's JVMs need {bound * cores:.1f} CPU-s, so >= {bound:.1f} s on "
        f"{cores} cores; starting one at a time, the JVMs already keep {alone:.2f} cores busy"
    )
    print(f"        bench wall time {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
