"""Benchmark: kafkatop at 10,000 partitions and 1,000 consumer groups, beside the same figures of kafkatop "today".

Prints figures and one `RESULT … PASS/FAIL` line per target; asserts nothing. Run from the repository root:

    .venv/bin/python bench/scale.py [--runs 5] [--baseline REV] [--only poll,app,table,console] [--keep DIR]

"Today" is the tree at --baseline (default: the commit before issue 16's work), unpacked with `git archive` and put
first on PYTHONPATH of its child processes; "now" is this working tree. Every figure is taken in a fresh child
process of each, one after the other, in the same run, on the same cluster; the machine's load average is printed
before and after each.

The cluster: with KAFKA_HOME set, one real Kafka (KRaft, broker+controller, heap 2 GiB) started here on 127.0.0.1
with 100 topics x 100 partitions and 1,000 groups that committed offsets (each on one topic's 100 partitions:
100,000 committed offsets), 10 of them with a live member; --keep DIR keeps its data to start again faster. Without
KAFKA_HOME, the librdkafka mock in a process of its own, loaded the same way where it can (its limits are printed).

Targets (issue 16):
  poll     a full AdminSource poll ≤ 1 s (median); the requests of a steady poll counted per API, by a counting
           proxy in front of a second listener of the broker (the mock: its own request tracking);
  app      the app's memory (RSS, headless, polling every 2 s for 30 s) ≤ 300 MB;
  table    a partition-table refresh at 10,000 rows ≤ 50 ms (steady and failover, median), and a keystroke of the `/`
           filter to its frame ≤ 50 ms (median);
  console  the consumer console at 100,000 msg/s for 30 s: every record counted, event-loop lag p99 ≤ 100 ms, memory
           flat (bench/consumer_console.py, cluster in its own process).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "b66f29f"  # main before issue 16
TOPICS, PARTITIONS, GROUPS, LIVE_GROUPS = 100, 100, 1_000, 10
POLL_TARGET_S, MEMORY_TARGET_MB, FRAME_TARGET_MS, LAG_TARGET_MS = 1.0, 300.0, 50.0, 100.0
API_NAMES = {
    0: "Produce", 1: "Fetch", 2: "ListOffsets", 3: "Metadata", 8: "OffsetCommit", 9: "OffsetFetch",
    10: "FindCoordinator", 11: "JoinGroup", 12: "Heartbeat", 13: "LeaveGroup", 14: "SyncGroup", 15: "DescribeGroups",
    16: "ListGroups", 17: "SaslHandshake", 18: "ApiVersions", 32: "DescribeConfigs", 60: "DescribeCluster",
    69: "ConsumerGroupDescribe", 75: "DescribeTopicPartitions",
}  # fmt: skip


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.2f} (1 min) {five:.2f} (5 min), {os.cpu_count()} CPUs"


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


# --- the two trees --------------------------------------------------------------------------------------------------
def baseline_path(rev: str) -> Path:
    """A PYTHONPATH entry whose `kafkatop` is the tree at `rev` (unpacked once, kept in the temp folder)."""
    commit = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.strip()  # fmt: skip
    base = Path(tempfile.gettempdir()) / f"kafkatop-bench-{commit}"
    pkg = base / "path" / "kafkatop"
    if not (pkg / "__init__.py").exists():
        tree = base / "tree"
        tree.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        pkg.mkdir(parents=True, exist_ok=True)
        for name in ("backends", "tui", "spark"):
            link = pkg / name
            if not link.exists():
                link.symlink_to(tree / name)
        (pkg / "__init__.py").write_text("")
    return base / "path"


def child_env(tree: str, baseline: Path) -> dict[str, str]:
    env = dict(os.environ)
    if tree == "today":
        env["PYTHONPATH"] = f"{baseline}{os.pathsep}{env.get('PYTHONPATH', '')}"
    return env


def run_child(tree: str, baseline: Path, *args: str, stdin: str | None = None, timeout: float = 900) -> dict[str, Any]:
    """One measurement in a fresh process of `tree`; its last stdout line is its JSON result."""
    done = subprocess.run(
        [sys.executable, __file__, "--child", *args], cwd=ROOT, env=child_env(tree, baseline), input=stdin,
        capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(
            f"{tree} {args[0]} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        )
    result: dict[str, Any] = json.loads(lines[-1])
    return result


# --- the counting proxy ---------------------------------------------------------------------------------------------
class CountingProxy:
    """127.0.0.1:port → the broker's second listener: forwards bytes both ways and counts client requests by API key
    (a request is a size-prefixed frame whose first two bytes are its key)."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.counts: Counter[str] = Counter()
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def reset(self) -> None:
        with self.lock:
            self.counts = Counter()

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
                    with self.lock:
                        self.counts[API_NAMES.get(key, f"api {key}")] += 1
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
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)


def load_cluster(bootstrap: str, topics: int, partitions: int, groups: int, *, mock: Any = None) -> list[str]:
    """Topics, a record per partition, and `groups` groups that committed on one topic's partitions each. Returns
    the group ids. Idempotent on a kept cluster."""
    from confluent_kafka import Consumer, Producer
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
        c = Consumer({"bootstrap.servers": bootstrap, "group.id": g, "enable.auto.commit": False, "log_level": 0})
        topic = names[group_ids.index(g) % topics]
        offsets = [KTP(topic, p, 1 + (p + i) % 3) for p in range(partitions)]
        for attempt in range(60):  # a restarted node loads its groups first: NOT_COORDINATOR meanwhile
            try:
                c.commit(offsets=offsets, asynchronous=False)
                break
            except Exception:  # noqa: BLE001 - retried, then raised
                if attempt == 59:
                    raise
                time.sleep(0.5)
        c.close()
    print(f"  cluster loaded: {topics} topics x {partitions} partitions, {groups} groups ({done_marker})", flush=True)
    return group_ids


@contextmanager
def live_members(bootstrap: str, count: int) -> Iterator[None]:
    """`count` groups with a member polling, as groups in use (their descriptions change)."""
    from confluent_kafka import Consumer

    stop = threading.Event()
    consumers = [
        Consumer(
            {"bootstrap.servers": bootstrap, "group.id": f"live-{i}", "auto.offset.reset": "earliest", "log_level": 0}
        )  # fmt: skip
        for i in range(count)
    ]
    for i, c in enumerate(consumers):
        c.subscribe([f"t-{i:03}"])

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


# --- children -------------------------------------------------------------------------------------------------------
def rss_mb() -> float:
    import psutil

    return float(psutil.Process().memory_info().rss) / 2**20


def child_poll(bootstrap: str, counted: str, groups_file: str, runs: int) -> dict[str, Any]:
    """Timed full polls on `bootstrap`, then one steady poll through `counted` (the parent counts its requests)."""
    from kafkatop.backends.kafka.admin import AdminSource
    from kafkatop.backends.model.connection import KafkaConnection

    watch = json.loads(Path(groups_file).read_text()) if groups_file else []
    source = AdminSource(KafkaConnection.parse(bootstrap), timeout_s=10.0, watch_groups=watch)
    for _ in range(3):
        source.poll()
    times, fresh, problems = [], [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        snap = source.poll()
        times.append(time.perf_counter() - t0)
        fresh.append(sum(1 for g in snap.groups if g.offsets))
        problems.append(len(snap.problems))
    partitions = len(snap.partitions)
    groups = len(snap.groups)
    import psutil

    me = psutil.Process()
    out: dict[str, Any] = {
        "times": times, "fresh": fresh, "problems": problems, "partitions": partitions, "groups": groups,
        "rss_mb": rss_mb(), "threads": me.num_threads(), "fds": me.num_fds(),
        "sample_problems": sorted({f"{p.what}: {p.reason}"[:120] for p in snap.problems})[:3],
    }  # fmt: skip
    source.close()
    # The counted poll: through the counting proxy, or on the mock (which counts itself).
    counting = AdminSource(KafkaConnection.parse(counted or bootstrap), timeout_s=10.0, watch_groups=watch)
    for _ in range(3):
        counting.poll()
    print("READY", flush=True)
    sys.stdin.readline()  # the parent reset its counts
    counting.poll()
    print("DONE", flush=True)
    sys.stdin.readline()
    counting.close()
    return out


async def _app_memory(bootstrap: str, groups_file: str, seconds: float) -> dict[str, Any]:
    from kafkatop.backends.kafka.admin import AdminSource
    from kafkatop.backends.model.connection import KafkaConnection
    from kafkatop.tui.live.app import KafkatopApp
    from kafkatop.tui.live.sources import Settings, Sources

    watch = json.loads(Path(groups_file).read_text()) if groups_file else []
    source = AdminSource(KafkaConnection.parse(bootstrap), timeout_s=10.0, watch_groups=watch)
    app = KafkatopApp(Sources(source.poll), Settings(poll_interval_s=2.0))
    samples = []
    async with app.run_test(size=(160, 45)) as pilot:
        end = time.monotonic() + seconds
        tab = 0
        while time.monotonic() < end:
            await pilot.pause(1.0)
            tab = tab % 5 + 1  # every tab drawn in turn: Partitions, Brokers, Produce, Consume, Groups
            app.action_tab(tab)
            samples.append(rss_mb())
        polled = app.snapshot is not None and len(app.snapshot.partitions)
    source.close()
    return {"samples": samples, "peak": max(samples), "end": samples[-1], "partitions": polled}


def ten_thousand(taken_at: float, failed_broker: int | None = None) -> Any:
    """A 10,000-partition snapshot (100 topics x 100 partitions, RF 3 on 3 brokers)."""
    from kafkatop.backends.model.cluster import Broker, ClusterSnapshot, Partition, Topic

    brokers = tuple(Broker(b, "127.0.0.1", 9092 + b, alive=b != failed_broker) for b in (1, 2, 3))
    topics = []
    for t in range(TOPICS):
        name = f"t-{t:03}"
        parts = []
        for p in range(PARTITIONS):
            replicas = tuple(((p + i) % 3) + 1 for i in range(3))
            isr = tuple(r for r in replicas if r != failed_broker)
            leader = replicas[0] if replicas[0] != failed_broker else replicas[1]
            offline = (failed_broker,) if failed_broker else ()
            parts.append(Partition(name, p, leader, replicas, isr, offline, 0, 1000 + p + int(taken_at)))
        topics.append(Topic(name, tuple(parts)))
    return ClusterSnapshot("bench", taken_at, "bench", "kraft", None, brokers, tuple(topics))


async def _table(runs: int) -> dict[str, Any]:
    from kafkatop.backends.insight.history import History
    from kafkatop.tui.live.app import KafkatopApp
    from kafkatop.tui.live.messages import ClusterPolled
    from kafkatop.tui.live.sources import Settings, Sources
    from kafkatop.tui.live.widgets import partitions as module

    base = ten_thousand(1.0)
    app = KafkatopApp(Sources(lambda: base), Settings(poll_interval_s=86_400), clock=lambda: 1.0)
    out: dict[str, list[float]] = {"steady": [], "failover": [], "keystroke": [], "order": [], "topic rows": []}
    async with app.run_test(size=(160, 45)) as pilot:
        pane = app.query_one(module.PartitionsPane)
        if hasattr(pane, "by_topic"):
            pane.by_topic = False  # every partition: the worst case (now starts with one row per topic here)
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        from tui_refresh import frames_drawn  # bench/tui_refresh.py: when each frame finished drawing

        times = frames_drawn(app)
        history = History()  # sparklines as the app has them: the Feed's history, fed each poll
        clock = 10.0

        async def refresh(snap: Any) -> float:
            nonlocal clock
            clock += 2.0
            snap = replace(snap, taken_at=clock)
            history.observe_cluster(snap)
            times.clear()
            t0 = time.perf_counter()
            app.post_message(ClusterPolled(snap))
            await pilot.pause()
            return (times[-1] - t0) * 1000 if times else float("nan")

        for _ in range(3):
            await refresh(base)
        for _ in range(runs):
            out["steady"].append(await refresh(base))
            out["failover"].append(await refresh(ten_thousand(1.0, failed_broker=2)))
            await refresh(base)
        table = app.query_one(module.PartitionTable)
        rows = table.row_count
        await pilot.press("slash")
        for ch in "t-042-7":
            times.clear()
            t0 = time.perf_counter()
            await pilot.press(ch)
            out["keystroke"].append((times[-1] - t0) * 1000 if times else float("nan"))
        filtered = table.row_count
        await pilot.press("escape")
        if hasattr(table, "order"):  # `o` (now only): faults first, most messages first, by leader, back
            table.focus()
            await pilot.pause()
            for _ in range(runs):
                times.clear()
                t0 = time.perf_counter()
                await pilot.press("o")
                out["order"].append((times[-1] - t0) * 1000 if times else float("nan"))
        if hasattr(pane, "by_topic"):
            pane.by_topic = True
            for _ in range(runs):
                out["topic rows"].append(await refresh(base))
    return {**out, "rows": rows, "filtered": filtered}


def child(argv: list[str]) -> None:
    mode = argv[0]
    if mode == "poll":
        result = child_poll(argv[1], argv[2], argv[3], int(argv[4]))
    elif mode == "app":
        result = asyncio.run(_app_memory(argv[1], argv[2], float(argv[3])))
    elif mode == "table":
        result = asyncio.run(_table(int(argv[1])))
    else:
        raise SystemExit(f"unknown child mode {mode}")
    print(json.dumps(result), flush=True)


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


# --- the parent -----------------------------------------------------------------------------------------------------
def show_poll(tree: str, r: dict[str, Any], counts: dict[str, int]) -> None:
    t = sorted(r["times"])
    print(f"  {tree:5s} full poll median {median(t):6.3f} s (min {t[0]:.3f}, max {t[-1]:.3f}) over {len(t)} polls;"
          f" {r['partitions']:,} partitions, {r['groups']:,} groups, {median(r['fresh']):.0f} with offsets read this"
          f" poll; problems {median(r['problems']):.0f}")  # fmt: skip
    print(f"        RSS {r['rss_mb']:.0f} MB, {r['threads']} threads, {r['fds']} fds after the polls")
    for p in r["sample_problems"]:
        print(f"        e.g. {p}")
    total = sum(v for k, v in counts.items() if k != "ApiVersions")
    shown = ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1]) if k != "ApiVersions")
    print(f"        requests in one steady poll: {total} ({shown})")


def poll_figures(tree: str, baseline: Path, bootstrap: str, counted: str | None, groups_file: str, runs: int,
                 count: Callable[[str], dict[str, int]]) -> tuple[dict[str, Any], dict[str, int]]:  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, __file__, "--child", "poll", bootstrap, counted or "", groups_file, str(runs)],
        cwd=ROOT, env=child_env(tree, baseline), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    counts: dict[str, int] = {}
    result: dict[str, Any] | None = None
    for line in proc.stdout:
        if line.startswith("READY"):
            count("reset")
            proc.stdin.write("\n")
            proc.stdin.flush()
        elif line.startswith("DONE"):
            counts = count("read")
            proc.stdin.write("\n")
            proc.stdin.flush()
        elif line.startswith("{"):
            result = json.loads(line)
    proc.wait(60)
    if result is None:
        raise RuntimeError(f"{tree} poll failed ({proc.returncode})")
    return result, counts


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", default=BASELINE, help=f"the tree measured as today (default {BASELINE})")
    parser.add_argument("--only", default="poll,app,table,console")
    parser.add_argument("--keep", metavar="DIR", help="keep the real Kafka's data here, to start faster next time")
    parser.add_argument("--app-seconds", type=float, default=30.0)
    parser.add_argument("--child", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    parser.add_argument("--mock-host", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return 0
    if args.mock_host:
        mock_host()
        return 0
    only = set(args.only.split(","))
    baseline = baseline_path(args.baseline)
    import confluent_kafka
    import textual

    print("== kafkatop bench: 10,000 partitions, 1,000 consumer groups ==")
    ck = confluent_kafka.version()
    print(f"python {sys.version.split()[0]}, textual {textual.__version__}, confluent-kafka "
          f"{ck[0] if isinstance(ck, tuple) else ck}, librdkafka {confluent_kafka.libversion()[0]}; "
          f"today = {args.baseline}; {args.runs} runs per figure; {load()}")  # fmt: skip
    results: list[str] = []
    tmp = Path(tempfile.mkdtemp(prefix="kafkatop-scale-"))
    try:
        if only & {"poll", "app"}:
            cluster_figures(args, baseline, tmp, only, results)
        if "table" in only:
            table_figures(args, baseline, results)
        if "console" in only:
            console_figures(baseline, results, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print()
    for line in results:
        print(line)
    return 0


def cluster_figures(args: Any, baseline: Path, tmp: Path, only: set[str], results: list[str]) -> None:
    home = os.environ.get("KAFKA_HOME")
    groups_file = ""
    mock: subprocess.Popen[str] | None = None
    kafka: RealKafka | None = None
    if home:
        root = Path(args.keep) if args.keep else tmp / "kafka"
        kafka = RealKafka(Path(home), root)
        t0 = time.monotonic()
        try:
            kafka.start()
            load_cluster(kafka.bootstrap, TOPICS, PARTITIONS, GROUPS)
        except BaseException:
            kafka.stop()
            raise
        print(f"-- cluster: real Kafka from {home} (1 KRaft node, heap 2 GiB), ready in {time.monotonic() - t0:.0f} s")
        bootstrap, counted = kafka.bootstrap, kafka.counted_bootstrap

        def count(what: str) -> dict[str, int]:
            assert kafka is not None
            if what == "reset":
                kafka.proxy.reset()
                return {}
            time.sleep(0.2)  # the last bytes forwarded
            return dict(kafka.proxy.counts)
    else:
        print("-- cluster: the librdkafka mock (no KAFKA_HOME), in a process of its own")
        mock = subprocess.Popen([sys.executable, __file__, "--mock-host"], cwd=ROOT, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True)  # fmt: skip
        assert mock.stdout is not None and mock.stdin is not None
        line = mock.stdout.readline()
        while line and not line.startswith("{"):  # what load_cluster says
            print(line.rstrip())
            line = mock.stdout.readline()
        if not line:
            raise RuntimeError("the mock's host process ended before the cluster was loaded")
        ready = json.loads(line)
        print(f"   loaded in {ready['load_s']:.0f} s; the mock lists no groups: the source watches the 1,000")
        bootstrap, counted = ready["bootstrap"], None
        groups_file = str(tmp / "groups.json")
        Path(groups_file).write_text(json.dumps(ready["groups"]))

        def count(what: str) -> dict[str, int]:
            assert mock is not None and mock.stdin is not None and mock.stdout is not None
            mock.stdin.write("track\n" if what == "reset" else "counts\n")
            mock.stdin.flush()
            answer: dict[str, int] = json.loads(mock.stdout.readline())
            return answer

    try:
        with live_members(bootstrap, LIVE_GROUPS) if kafka is not None else nullcontext():
            if "poll" in only:
                print(f"-- poll ({load()})")
                figures = {}
                for tree in ("today", "now"):
                    r, counts = poll_figures(tree, baseline, bootstrap, counted, groups_file, args.runs, count)
                    show_poll(tree, r, counts)
                    figures[tree] = (r, counts)
                print(f"   ({load()})")
                now, today = figures["now"], figures["today"]
                t_now, t_today = median(now[0]["times"]), median(today[0]["times"])
                req_now = sum(v for k, v in now[1].items() if k != "ApiVersions")
                req_today = sum(v for k, v in today[1].items() if k != "ApiVersions")
                results.append(
                    f"RESULT poll: full poll at {now[0]['partitions']:,} partitions / {now[0]['groups']:,} groups "
                    f"median {t_now:.3f} s (today {t_today:.3f} s, ratio now/today {t_now / t_today:.2f}), offsets of "
                    f"{median(now[0]['fresh']):.0f} groups read per poll (today {median(today[0]['fresh']):.0f}); "
                    f"target ≤ {POLL_TARGET_S:g} s -> {verdict(t_now <= POLL_TARGET_S)}"
                )
                results.append(
                    f"RESULT requests: {req_now} requests in a steady poll (today {req_today}; "
                    f"ratio {req_now / max(req_today, 1):.3f}) -> "
                    f"{verdict(req_now < req_today or req_today == 0)}"
                )
            if "app" in only:
                print(
                    f"-- the app's memory, headless 160x45, polling every 2 s for {args.app_seconds:.0f} s ({load()})"
                )
                mem = {}
                for tree in ("today", "now"):
                    r = run_child(tree, baseline, "app", bootstrap, groups_file, str(args.app_seconds))
                    mem[tree] = r
                    print(
                        f"  {tree:5s} RSS peak {r['peak']:.0f} MB, at the end {r['end']:.0f} MB; samples "
                        + " ".join(f"{v:.0f}" for v in r["samples"][:: max(1, len(r["samples"]) // 8)])
                    )
                print(f"   ({load()})")
                peak = mem["now"]["peak"]
                results.append(
                    f"RESULT memory: app RSS peak {peak:.0f} MB (today {mem['today']['peak']:.0f} MB); target ≤ "
                    f"{MEMORY_TARGET_MB:.0f} MB -> {verdict(peak <= MEMORY_TARGET_MB)}"
                )
    finally:
        if kafka is not None:
            kafka.stop()
        if mock is not None:
            assert mock.stdin is not None
            mock.stdin.write("quit\n")
            mock.stdin.flush()
            mock.wait(60)


@contextmanager
def nullcontext() -> Iterator[None]:
    yield


def table_figures(args: Any, baseline: Path, results: list[str]) -> None:
    print(f"-- the partition table at 10,000 rows, headless 160x45 ({load()})")
    figures = {}
    for tree in ("today", "now"):
        r = run_child(tree, baseline, "table", str(args.runs))
        figures[tree] = r
        parts = [f"{k} {median(v):.1f} ms" for k, v in r.items() if isinstance(v, list) and v]
        print(f"  {tree:5s} rows {r['rows']:,} ({r['filtered']} after the filter): " + ", ".join(parts))
    print(f"   ({load()})")
    now, today = figures["now"], figures["today"]
    worst = max(median(now["steady"]), median(now["failover"]))
    worst_today = max(median(today["steady"]), median(today["failover"]))
    results.append(
        f"RESULT table refresh: 10,000 rows, slowest median (steady, failover) {worst:.1f} ms (today "
        f"{worst_today:.1f} ms, ratio {worst / worst_today:.2f}); target ≤ {FRAME_TARGET_MS:.0f} ms -> "
        f"{verdict(worst <= FRAME_TARGET_MS)}"
    )
    if now.get("order"):
        order = median(now["order"])
        results.append(
            f"RESULT order: `o` over 10,000 rows to its frame median {order:.1f} ms (today: no ordering); target ≤ "
            f"{FRAME_TARGET_MS:.0f} ms -> {verdict(order <= FRAME_TARGET_MS)}"
        )
    key, key_today = median(now["keystroke"]), median(today["keystroke"])
    results.append(
        f"RESULT filter keystroke: to its frame median {key:.1f} ms (today {key_today:.1f} ms, ratio "
        f"{key / key_today:.2f}); target ≤ {FRAME_TARGET_MS:.0f} ms -> {verdict(key <= FRAME_TARGET_MS)}"
    )


def console_figures(baseline: Path, results: list[str], tmp: Path) -> None:
    """With KAFKA_HOME, on a Kafka node of its own: the mock keeps 100,000 records per partition and drops the
    oldest, so a consumer a few seconds behind 100,000 msg/s loses records there, whatever kafkatop does."""
    home = os.environ.get("KAFKA_HOME")
    kafka = RealKafka(Path(home), tmp / "console-kafka") if home else None
    where = "a real Kafka node" if kafka else "the librdkafka mock"
    print(f"-- the consumer console at 100,000 msg/s for 30 s (bench/consumer_console.py, {where} in a process of its "
          f"own) ({load()})")  # fmt: skip
    figures = {}
    try:
        if kafka is not None:
            kafka.start()
        for tree in ("today", "now"):
            figures_of(tree, baseline, kafka, figures)
    finally:
        if kafka is not None:
            kafka.stop()
    print(f"   ({load()})")
    if "now" in figures:
        f = figures["now"]
        t = figures.get("today", {})
        ok = f["received"] == f["produced"] and f["p99"] <= LAG_TARGET_MS and f["memory"] == "bounded"
        results.append(
            f"RESULT console: {f['received']:,} of {f['produced']:,} records counted, loop lag p99 {f['p99']:.1f} ms "
            f"(today {t.get('p99', float('nan')):.1f} ms, {t.get('received', 0):,} counted), memory {f['memory']} "
            f"(today {t.get('memory', '?')}); target every record, p99 ≤ {LAG_TARGET_MS:.0f} ms, flat -> {verdict(ok)}"
        )


def figures_of(tree: str, baseline: Path, kafka: RealKafka | None, figures: dict[str, dict[str, Any]]) -> None:
    """One run of bench/consumer_console.py in `tree`, its figures read from what it prints."""
    where = ["--bootstrap-server", kafka.bootstrap] if kafka is not None else []
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "consumer_console.py"), "--runs", "1", "--rate", "100000",
         "--seconds", "30", "--cluster", "separate", *where],
        cwd=ROOT, env=child_env(tree, baseline), capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    text = done.stdout
    received = re.search(r"produced ([\d,]+) .*? consumer received ([\d,]+)", text)
    p99 = re.search(r"loop lag max +([\d.]+) ms p99 +([\d.]+) ms", text)
    flat = re.search(r"RESULT memory \(separate layout\): (\w+)", text)
    growth = re.search(r"growth median ([+\-\d.]+) MB.*?second half[^)]*\) -> (\w+)", text)
    if not (received and p99):
        print(f"  {tree}: no figures ({done.returncode}):\n{text[-1500:]}\n{done.stderr[-1500:]}")
        return
    figures[tree] = f = {
        "produced": int(received.group(1).replace(",", "")),
        "received": int(received.group(2).replace(",", "")),
        "max": float(p99.group(1)), "p99": float(p99.group(2)),
        "memory": flat.group(1) if flat else "?", "growth": growth.group(0) if growth else "",
    }  # fmt: skip
    print(f"  {tree:5s} produced {f['produced']:,}, consumer received {f['received']:,}; loop lag p99 "
          f"{f['p99']:.1f} ms (max {f['max']:.1f}); memory {f['memory']}: {f['growth']}")  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
