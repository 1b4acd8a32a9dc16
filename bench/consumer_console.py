"""Benchmark: the consumer console receiving 20,000 messages/s for 10 s (librdkafka mock): worst event-loop lag and gap
between frames (target ≤ 100 ms), and peak memory (bounded).

Prints figures; asserts nothing about timings. Run from the repository root:

    .venv/bin/python bench/consumer_console.py [--runs 3] [--rate 20000] [--seconds 10]
                                               [--cluster both|in-process|separate] [--profile]

Each run is a fresh child process (so its peak RSS and ru_maxrss are its own), which:
  1. starts a 3-broker MockCluster with one topic of 6 partitions (RF 3);
  2. runs the app headless (App.run_test, 120×40) with Sources(poll_cluster=AdminSource(...).poll,
     clients=Consoles(bootstrap)), shows the Consume tab (action_tab(4)) and starts one consumer through the hub
     (start_consumer([topic], "bench-PID", from_beginning=True): the topic is empty), waiting until its table says
     "consuming";
  3. produces from a thread (confluent_kafka Producer, linger.ms 5, acks 1, keyed values of --value-bytes), paced
     every millisecond to --rate for --seconds, then waits (up to 20 s) until the consumer has received every
     message that was delivered;
  4. measures, from the first produce until the consumer caught up (the "window"):
     - event-loop lag: a task that sleeps 10 ms in a loop and records how late it wakes (max, p99);
     - frames: the screen's compositor refresh, wrapped as in bench/tui_refresh.py — how many, the worst gap between
       two, how long each took. Textual draws only when something changed, and a headless app does not encode its
       frames for a terminal: the hook does that encoding too (render_segments), as a real terminal needs it;
     - each ClientsDrained the consumer panel handled (show_drained wrapped): records, dropped, the consumer's
       `received`, time in the panel, and how old the newest record shown was (now minus its timestamp);
     - RSS every 100 ms (psutil) and ru_maxrss; CPU time per thread (UI, consumer, producer, librdkafka);
     - what the worst lag spikes overlapped: loop callbacks that ran ≥ 20 ms (with the UI thread's CPU time during
       them: far below the wall time means it was waiting for the GIL or a CPU), garbage collections, frames.
     Frame gaps and drains are counted from the first to the last drain that brought records to the panel. After
     the window: the objects a full garbage collection walks (by type) and what one gc.collect() costs then.

Where the cluster runs (--cluster, default both, runs alternating):
  in-process  the mock brokers and the producer thread live in the app's process, as the demo has them: they share
              its CPUs and its GIL with the UI, and the mock keeps every message in memory (~2.4 MB per 20,000
              messages of 100 B), so this process's RSS grows with what was produced.
  separate    the mock brokers and the producer run in a helper process (this script, --cluster-host): the app's
              process holds what kafkatop holds attached to a real cluster, so its RSS says whether the app's memory
              is bounded. The memory verdict is taken from this layout when it ran: bounded when RSS grows by at
              most max(5 MB, 3 % of the peak) over the second half of the run.
--profile adds one in-process run with cProfile on the UI thread (the event loop) and prints it (--runs 0 --profile:
only that run).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import io
import itertools
import json
import os
import platform
import pstats
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import confluent_kafka
import psutil
from stats import percentile, stats_line  # bench/stats.py (the script's own folder is on sys.path)

from kafkatop.backends.model.connection import KafkaConnection

TARGET_LAG_MS = 100.0
SIZE = (120, 40)
BROKERS = 3
PARTITIONS = 6
TOPIC = "bench-firehose"
GROUP = "bench"
LAG_PROBE_S = 0.010
RSS_SAMPLE_S = 0.100
SLOW_CALLBACK_MS = 20.0
CATCH_UP_TIMEOUT_S = 20.0
START_TIMEOUT_S = 30.0
IN_PROCESS, SEPARATE = "in-process", "separate"


def version_str(v: Any) -> str:
    """confluent_kafka.version()/libversion() answer (str, int) in most releases, a bare str in some."""
    return str(v[0] if isinstance(v, tuple) else v)


@dataclass
class RunResult:
    layout: str
    rate: float
    seconds: float
    produced: int = 0
    delivered: int = 0
    delivery_errors: int = 0
    produce_s: float = 0.0  # first produce to last produce
    flush_s: float = 0.0  # first produce until every delivery report arrived
    catch_up_s: float | None = None  # last produce until the consumer had received every delivered message
    received: int = 0  # the consumer's own count (ConsumerView.received, as the last drain reported it)
    drained: int = 0  # records handed to the UI in ClientsDrained
    dropped: int = 0  # ClientsDrained.dropped: records the pool let go of (its buffer was full)
    left_buffered: int = 0  # records still in the pool's buffer at the end
    window_s: float = 0.0  # first produce until caught up (+0.3 s)
    flow_s: float = 0.0  # first to last drain that brought records to the panel
    lag_ms: list[float] = field(default_factory=list)  # how late each 10 ms sleep woke
    frames: int = 0
    frame_gaps_ms: list[float] = field(default_factory=list)
    frame_ms: list[float] = field(default_factory=list)  # compositor refresh + terminal encoding, each
    drains: int = 0
    drain_records: list[int] = field(default_factory=list)
    drain_gaps_ms: list[float] = field(default_factory=list)
    panel_ms: list[float] = field(default_factory=list)  # ConsumerPanel.show_drained, each
    hub_drain_ms: list[float] = field(default_factory=list)  # Consoles.drain() in the drain worker, each
    hub_drain_gaps_ms: list[float] = field(default_factory=list)  # between two Consoles.drain() calls
    handled_after_ms: list[float] = field(default_factory=list)  # Consoles.drain() returned -> panel started
    to_screen_ms: list[float] = field(default_factory=list)  # Consoles.drain() returned -> its frame drawn
    empty_drains: int = 0  # Consoles.drain() calls that found no new record while records flowed
    frame_gaps_fed_ms: list[float] = field(default_factory=list)  # gaps with no empty drain in between
    shown_age_ms: list[float] = field(default_factory=list)  # per drain: age of the newest record shown
    buffered: list[int] = field(default_factory=list)  # every 100 ms: records waiting in the pool's buffer
    gc_ms: dict[str, list[float]] = field(default_factory=dict)  # per generation: each collection's pause
    slow_callbacks: int = 0
    heap_objects: int = 0  # objects the collector tracks after the run (frozen ones not counted)
    heap_top: list[tuple[str, int]] = field(default_factory=list)
    full_gc_ms: float = 0.0  # one gc.collect() after the run
    spikes: list[str] = field(default_factory=list)  # the worst lag spikes and what they overlapped
    rss_mb: list[tuple[float, float]] = field(default_factory=list)  # (s since the first produce, MB)
    rss_before_mb: float = 0.0  # just before producing
    maxrss_mb: float = 0.0
    cluster_rss_mb: tuple[float, float] | None = None  # separate: the cluster process before / after producing
    cpu_s: dict[str, float] = field(default_factory=dict)  # over the window, per thread kind
    ui_cpu_s: float = 0.0
    others_cpu_s: float = 0.0  # CPU the machine's other processes used over the window
    profile: str = ""


# --- measuring hooks ----------------------------------------------------------------------------------------------
def frames_drawn(app: Any, encode: bool = True) -> list[tuple[float, float]]:
    """(start, end) of each frame drawn: the screen's compositor refresh, wrapped (a measuring hook only).

    With `encode`, the hook also turns each update into the terminal's escape sequences, which a headless app skips
    (App._display returns early when headless) and a real terminal pays for on every frame.
    """
    times: list[tuple[float, float]] = []
    screen = app.screen
    original = screen._compositor_refresh
    original_display = app._display

    def display(screen: Any, renderable: Any) -> None:
        if renderable is not None and hasattr(renderable, "render_segments"):
            renderable.render_segments(app.console)
        original_display(screen, renderable)

    def timed() -> None:
        t0 = time.perf_counter()
        original()
        times.append((t0, time.perf_counter()))

    screen._compositor_refresh = timed  # type: ignore[method-assign]
    if encode:
        app._display = display  # type: ignore[method-assign]
    return times


@dataclass(frozen=True)
class Drain:
    start: float
    end: float  # perf_counter when the panel was done
    records: int
    dropped: int
    received: int  # the consumer's own count, as this drain reported it
    age_ms: float | None  # the newest record shown: now minus its timestamp (set by the producer when sent)
    first: int  # id() of its first record (see HubDrains)


def drains_seen(panel: Any) -> list[Drain]:
    """Each ClientsDrained the consumer panel handled (show_drained wrapped: a measuring hook only)."""
    seen: list[Drain] = []
    original = panel.show_drained

    def show_drained(drained: Any) -> None:
        t0 = time.perf_counter()
        original(drained)
        t1 = time.perf_counter()
        received = max((c.received for c in drained.consumers), default=0)
        newest = drained.received[-1].timestamp_ms if drained.received else None
        age = time.time() * 1000 - newest if newest is not None else None
        first = id(drained.received[0]) if drained.received else 0
        seen.append(Drain(t0, t1, len(drained.received), drained.dropped, received, age, first))

    panel.show_drained = show_drained  # type: ignore[method-assign]
    return seen


class HubDrains:
    """Each Consoles.drain() the app's drain worker made: (start, end, records) — a measuring hook only.

    `returned[id(first record)]` says when the drain that handed out that record returned, so a ClientsDrained the
    panel handles can be matched to the drain it came from (the app passes the same record objects on).
    """

    def __init__(self, consoles: Any) -> None:
        self.calls: list[tuple[float, float, int]] = []
        self.returned: dict[int, float] = {}
        self._keep: list[Any] = []  # the first records, kept alive so their ids stay theirs
        self._original = consoles.drain
        consoles.drain = self._drain

    def _drain(self) -> Any:
        t0 = time.perf_counter()
        activity = self._original()
        t1 = time.perf_counter()
        records = len(activity.received) if activity is not None else 0
        self.calls.append((t0, t1, records))
        if records:
            self._keep.append(activity.received[0])
            self.returned[id(activity.received[0])] = t1
        return activity


class GcPauses:
    """Every garbage collection: (start, end, generation, thread name), through gc.callbacks."""

    def __init__(self) -> None:
        self.pauses: list[tuple[float, float, int, str]] = []
        self._started: dict[int, float] = {}

    def __enter__(self) -> GcPauses:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        now = time.perf_counter()
        ident = threading.get_ident()
        if phase == "start":
            self._started[ident] = now
        elif ident in self._started:
            name = threading.current_thread().name
            self.pauses.append((self._started.pop(ident), now, info["generation"], name))


class SlowCallbacks:
    """Event-loop callbacks that ran ≥ SLOW_CALLBACK_MS: (start, end, UI thread CPU ms, label).

    asyncio's Handle._run wrapped for the run (as asyncio's debug mode does, without its other costs).
    """

    def __init__(self) -> None:
        self.slow: list[tuple[float, float, float, str]] = []
        self._original: Any = None

    def __enter__(self) -> SlowCallbacks:
        import asyncio.events

        original = self._original = asyncio.events.Handle._run
        slow = self.slow
        limit = SLOW_CALLBACK_MS / 1000

        def run(handle: Any) -> None:
            t0, c0 = time.perf_counter(), time.thread_time()
            original(handle)
            t1 = time.perf_counter()
            if t1 - t0 >= limit:
                slow.append((t0, t1, (time.thread_time() - c0) * 1000, callback_label(handle._callback)))

        asyncio.events.Handle._run = run  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        import asyncio.events

        asyncio.events.Handle._run = self._original  # type: ignore[method-assign]


def callback_label(callback: Any) -> str:
    task = getattr(callback, "__self__", None)
    if isinstance(task, asyncio.Task):
        coro = task.get_coro()
        frame = getattr(coro, "cr_frame", None)
        owner = frame.f_locals.get("self") if frame is not None else None
        where = f" of {type(owner).__name__}" if owner is not None else ""
        return f"task {getattr(coro, '__qualname__', coro)}{where}"
    return getattr(callback, "__qualname__", repr(callback))


class RssSampler(threading.Thread):
    """RSS every 100 ms, and how many records wait in the consumer pool's buffer (once `pool` is set)."""

    def __init__(self) -> None:
        super().__init__(name="bench-rss", daemon=True)
        self.proc = psutil.Process()
        self.samples: list[tuple[float, float]] = []  # (perf_counter, MB)
        self.buffered: list[tuple[float, int]] = []  # (perf_counter, records waiting for a drain)
        self.pool: Any = None
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.is_set():
            now = time.perf_counter()
            self.samples.append((now, self.proc.memory_info().rss / 2**20))
            if self.pool is not None:
                self.buffered.append((now, len(self.pool._records)))  # a measuring hook: len() of a deque
            self.stopped.wait(RSS_SAMPLE_S)


def machine_busy() -> float:
    """CPU seconds the whole machine spent busy so far, all cores added (idle and iowait are not busy)."""
    t = psutil.cpu_times()
    return float(sum(t) - t.idle - getattr(t, "iowait", 0.0))


def thread_cpu(kinds: dict[int, str]) -> dict[str, float]:
    """CPU seconds (user + system) of the process's live threads, summed per kind; `kinds` maps native ids."""
    ticks = os.sysconf("SC_CLK_TCK")
    out: dict[str, float] = {}
    for task in Path("/proc/self/task").iterdir():
        try:
            comm = (task / "comm").read_text().strip()
            stat = (task / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        cpu = (int(fields[11]) + int(fields[12])) / ticks
        kind = kinds.get(int(task.name)) or ("librdkafka threads" if comm.startswith("rdk:") else "other threads")
        out[kind] = out.get(kind, 0.0) + cpu
    return out


def thread_kinds() -> dict[int, str]:
    kinds = {threading.main_thread().native_id or 0: "UI (main thread, event loop)"}
    for t in threading.enumerate():
        if t.native_id is None:
            continue
        if t.name.startswith("kafkatop-consumer-"):
            kinds[t.native_id] = "consumer thread (ConsumerPool._run)"
        elif t.name == "bench-rss":
            kinds[t.native_id] = "bench RSS sampler"
    return kinds


# --- the producer -------------------------------------------------------------------------------------------------
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
    cmd = [sys.executable, __file__, "--cluster-host", "--rate", str(args_rate), "--seconds", str(seconds),
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
    try:
        host.wait(15)
    except subprocess.TimeoutExpired:
        host.kill()  # by its own pid: the helper this run started
        host.wait()


# --- one run (in a child process) ---------------------------------------------------------------------------------
async def wait_for(condition: Any, what: str, timeout_s: float, pilot: Any) -> None:
    deadline = time.perf_counter() + timeout_s
    while not condition():
        if time.perf_counter() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        await pilot.pause(0.05)


def overlapping(events: list[tuple[float, float, str]], t0: float, t1: float) -> list[str]:
    return [label for a, b, label in events if a < t1 and b > t0]


async def one_run(args: argparse.Namespace) -> RunResult:
    from kafkatop.backends.kafka.admin import AdminSource
    from kafkatop.backends.kafka.consoles import Consoles
    from kafkatop.backends.kafka.mock import MockCluster
    from kafkatop.tui.live.app import KafkatopApp
    from kafkatop.tui.live.sources import Settings, Sources
    from kafkatop.tui.live.widgets.consumer import ConsumerPanel

    layout = args.cluster
    result = RunResult(layout, args.rate, args.seconds)
    rss = RssSampler()
    rss.start()
    cluster: MockCluster | None = None
    host: subprocess.Popen[str] | None = None
    consoles: Consoles | None = None
    admin: AdminSource | None = None
    producer: PacedProducer | RemoteProducer | None = None
    try:
        if layout == IN_PROCESS:
            cluster = MockCluster(BROKERS)
            cluster.create_topic(TOPIC, PARTITIONS, 3)
            bootstrap = cluster.bootstrap_servers
        else:
            host = start_host(args.rate, args.seconds, args.value_bytes, args.bootstrap_server)
            assert host.stdout is not None
            bootstrap = host.stdout.readline().strip()
            if not bootstrap:
                raise SystemExit("the cluster process did not start")
        admin = AdminSource(KafkaConnection.parse(bootstrap), timeout_s=2.0)
        consoles = Consoles(KafkaConnection.parse(bootstrap))
        app = KafkatopApp(Sources(poll_cluster=admin.poll, clients=consoles), Settings())
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(lambda: app.snapshot is not None, "the first poll", START_TIMEOUT_S, pilot)
            app.action_tab(4)
            await pilot.pause()
            frames = frames_drawn(app, not args.no_encode)
            panel = app.query_one(ConsumerPanel)
            drains = drains_seen(panel)
            hub = HubDrains(consoles)
            rss.pool = consoles._consumer_pool()
            # From the beginning of an empty topic, in a group of its own: a consumer starting at the end would skip
            # what was produced before its first fetch found the end (a race at 100,000 msg/s, not a loss).
            group = f"{GROUP}-{os.getpid()}"
            name = await asyncio.to_thread(consoles.start_consumer, [TOPIC], group, True)
            table: Any = app.query_one("#consumers")

            def consuming() -> bool:
                return name in (getattr(panel, "_rows", None) or {}) and table.get_row(name)[2].plain == "consuming"

            await wait_for(consuming, "the consumer to be consuming", START_TIMEOUT_S, pilot)
            await pilot.pause(0.5)  # let the start settle (the table redraws, the first drains)

            loop = asyncio.get_running_loop()
            lags: list[tuple[float, float]] = []
            probing = True

            async def probe() -> None:
                while probing:
                    t0 = time.perf_counter()
                    await asyncio.sleep(LAG_PROBE_S)
                    t1 = time.perf_counter()
                    lags.append((t1, (t1 - t0 - LAG_PROBE_S) * 1000))

            if host is not None:
                producer = RemoteProducer(host)
            else:
                producer = PacedProducer(bootstrap, args.rate, args.seconds, args.value_bytes)
            prober = loop.create_task(probe())
            await asyncio.sleep(0.1)
            me = psutil.Process()
            result.rss_before_mb = me.memory_info().rss / 2**20
            profiler = cProfile.Profile() if args.profile else None
            with GcPauses() as gcs, SlowCallbacks() as slow:
                producer.start()
                while producer.started_at == 0.0:
                    await asyncio.sleep(0.001)
                kinds = thread_kinds()
                cpu0, ui0, proc_cpu0 = thread_cpu(kinds), time.thread_time(), sum(me.cpu_times()[:2])
                busy0 = machine_busy()
                if profiler is not None:
                    profiler.enable()
                while producer.is_alive():
                    await asyncio.sleep(0.05)
                # Caught up: the consumer's own count reached what was delivered.
                delivered = producer.sent - producer.left - producer.errors
                deadline = time.perf_counter() + CATCH_UP_TIMEOUT_S
                views = consoles._consumer_pool().views  # a measuring hook: the pool's views never wait
                while time.perf_counter() < deadline:
                    if views()[0].received >= delivered:
                        result.catch_up_s = time.perf_counter() - producer.produced_at
                        break
                    await asyncio.sleep(0.01)
                await asyncio.sleep(0.3)  # the drains of the last records reach the panel
                end = time.perf_counter()
                if profiler is not None:
                    profiler.disable()
                result.ui_cpu_s = time.thread_time() - ui0
                cpu1 = thread_cpu(kinds)
                proc_cpu = sum(me.cpu_times()[:2]) - proc_cpu0
                busy = machine_busy() - busy0
            probing = False
            await prober

            cpu = {k: cpu1.get(k, 0.0) - cpu0.get(k, 0.0) for k in cpu1}
            if isinstance(producer, PacedProducer):
                cpu["bench producer thread"] = producer.cpu_s
            cpu["threads that ended (Textual workers: drains, polls)"] = proc_cpu - sum(cpu.values())
            if isinstance(producer, RemoteProducer):
                cpu["[cluster process: mock brokers + producer]"] = producer.process_cpu_s
                result.cluster_rss_mb = producer.rss_mb
            result.cpu_s = cpu
            # Whatever else the machine ran meanwhile (not this run's processes): a noisy machine shows here.
            result.others_cpu_s = max(0.0, busy - proc_cpu - (producer.process_cpu_s if host is not None else 0.0))

            start = producer.started_at
            result.window_s = end - start
            result.produced = producer.sent
            result.delivered = delivered
            result.delivery_errors = producer.errors
            result.produce_s = producer.produced_at - start
            result.flush_s = producer.flushed_at - start
            result.lag_ms = [lag for t, lag in lags if start <= t <= end]
            flowing = [d for d in drains if d.records and start <= d.end <= end]
            flow0, flow1 = (flowing[0].end, flowing[-1].end) if flowing else (start, end)
            result.flow_s = flow1 - flow0
            in_flow = [f for f in frames if flow0 <= f[1] <= flow1]
            result.frames = len(in_flow)
            result.frame_ms = [(b - a) * 1000 for a, b in in_flow]
            result.frame_gaps_ms = [(in_flow[i][1] - in_flow[i - 1][1]) * 1000 for i in range(1, len(in_flow))]
            result.drains = len(flowing)
            result.drain_records = [d.records for d in flowing]
            result.drain_gaps_ms = [(flowing[i].end - flowing[i - 1].end) * 1000 for i in range(1, len(flowing))]
            result.panel_ms = [(d.end - d.start) * 1000 for d in flowing]
            hub_flow = [c for c in hub.calls if flow0 - 0.15 <= c[0] <= flow1]
            result.hub_drain_ms = [(c[1] - c[0]) * 1000 for c in hub_flow]
            result.hub_drain_gaps_ms = [(hub_flow[i][0] - hub_flow[i - 1][0]) * 1000 for i in range(1, len(hub_flow))]
            result.handled_after_ms = [
                (d.start - hub.returned[d.first]) * 1000 for d in flowing if d.first in hub.returned
            ]
            result.buffered = [n for t, n in rss.buffered if flow0 <= t <= flow1]
            # The consumer's intake is bursty: a drain that found nothing new draws nothing. Gaps that span such a
            # drain say so about the intake, not the UI; the others (every drain in between brought records) do.
            empty = [c[1] for c in hub.calls if flow0 <= c[1] <= flow1 and not c[2]]
            result.empty_drains = len(empty)
            result.frame_gaps_fed_ms = [
                (b[1] - a[1]) * 1000 for a, b in itertools.pairwise(in_flow) if not any(a[1] < t < b[1] for t in empty)
            ]
            # Drain to screen: Consoles.drain() returned its records -> the end of the first frame after the panel.
            for d in flowing:
                after = next((f for f in frames if f[0] >= d.end), None)
                if after is not None and d.first in hub.returned:
                    result.to_screen_ms.append((after[1] - hub.returned[d.first]) * 1000)
            result.shown_age_ms = [d.age_ms for d in flowing if d.age_ms is not None]
            result.drained = sum(d.records for d in drains)
            result.dropped = sum(d.dropped for d in drains)
            result.received = drains[-1].received if drains else 0
            result.left_buffered = len(consoles._consumer_pool()._records)  # a measuring hook

            gc_window = [p for p in gcs.pauses if start <= p[1] <= end]
            for a, b, gen, _ in gc_window:
                result.gc_ms.setdefault(f"gen{gen}", []).append((b - a) * 1000)
            slow_window = [s for s in slow.slow if start <= s[1] <= end]
            result.slow_callbacks = len(slow_window)
            events = (
                [(a, b, f"callback {(b - a) * 1000:.0f} ms (UI CPU {c:.0f} ms): {lbl}") for a, b, c, lbl in slow_window]
                + [(a, b, f"gc gen{g} {(b - a) * 1000:.0f} ms in {who}") for a, b, g, who in gc_window
                   if b - a >= 0.002]
                + [(a, b, f"frame {(b - a) * 1000:.0f} ms") for a, b in in_flow if b - a >= SLOW_CALLBACK_MS / 1000]
                + [(d.start, d.end, f"show_drained {(d.end - d.start) * 1000:.0f} ms") for d in flowing
                   if d.end - d.start >= SLOW_CALLBACK_MS / 1000]
            )  # fmt: skip
            worst = sorted([x for x in lags if start <= x[0] <= end], key=lambda x: -x[1])[:3]
            for t, lag in worst:
                t0 = t - (lag + LAG_PROBE_S * 1000) / 1000
                seen = overlapping(events, t0, t) or ["nothing recorded (the loop was waiting: GIL or CPU)"]
                result.spikes.append(f"{lag:.0f} ms at {t - start:.2f} s: " + "; ".join(seen))
            if profiler is not None:
                buf = io.StringIO()
                stats = pstats.Stats(profiler, stream=buf)
                stats.sort_stats("tottime").print_stats(30)
                stats.sort_stats("cumulative").print_stats(45)
                result.profile = buf.getvalue()
            # The heap a full collection walks (what gc.freeze() at mount did not set aside), and what it costs now.
            tracked = gc.get_objects()
            result.heap_objects = len(tracked)
            counts: dict[str, int] = {}
            for obj in tracked:
                counts[type(obj).__qualname__] = counts.get(type(obj).__qualname__, 0) + 1
            result.heap_top = sorted(counts.items(), key=lambda kv: -kv[1])[:6]
            del tracked
            t0 = time.perf_counter()
            gc.collect()
            result.full_gc_ms = (time.perf_counter() - t0) * 1000
            # Quiet the app before run_test's teardown: it prunes the screens while the app still handles messages,
            # and a ClientsDrained or ClusterPolled arriving then would find no widgets (NoMatches).
            await asyncio.to_thread(consoles.close)
            app.hold()
            await app.workers.wait_for_complete()
            await pilot.pause(0.3)
    finally:
        if isinstance(producer, PacedProducer) and producer.is_alive():
            producer.join(40)
        if consoles is not None:
            consoles.close()
        if admin is not None:
            admin.close()
        if cluster is not None:
            cluster.close()
        if host is not None:
            stop_host(host)
        rss.stopped.set()
        rss.join()
    t0 = producer.started_at if producer is not None else 0.0
    result.rss_mb = [(t - t0, mb) for t, mb in rss.samples]
    result.maxrss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    return result


# --- the parent: runs, medians, verdicts --------------------------------------------------------------------------
def run_child(args: argparse.Namespace, layout: str, profile: bool) -> RunResult:
    with tempfile.TemporaryDirectory(prefix="kafkatop-bench-") as tmp:
        out = Path(tmp) / "result.json"
        cmd = [sys.executable, __file__, "--child", str(out), "--cluster", layout, "--rate", str(args.rate),
               "--seconds", str(args.seconds), "--value-bytes", str(args.value_bytes)]  # fmt: skip
        if profile:
            cmd.append("--profile")
        if args.no_encode:
            cmd.append("--no-encode")
        proc = subprocess.Popen(cmd)
        limit = args.seconds + 120
        try:
            code = proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise SystemExit(f"a run did not end within {limit:.0f} s: killed its process {proc.pid}") from None
        if code != 0 or not out.exists():
            raise SystemExit(f"a run failed (exit code {code})")
        data = json.loads(out.read_text())
    data["rss_mb"] = [tuple(x) for x in data["rss_mb"]]
    if data["cluster_rss_mb"] is not None:
        data["cluster_rss_mb"] = tuple(data["cluster_rss_mb"])
    return RunResult(**data)


def rss_at(result: RunResult, s: float) -> float:
    """RSS (MB) of the last sample at or before `s` seconds after the first produce."""
    before = [mb for t, mb in result.rss_mb if t <= s]
    return before[-1] if before else result.rss_mb[0][1]


def med(values: list[float]) -> float:
    return statistics.median(values)


def worst(values: list[float]) -> float:
    return max(values, default=float("nan"))


def report(layout: str, results: list[RunResult], args: argparse.Namespace) -> dict[str, Any]:
    """Prints one layout's figures; returns the medians the verdicts are made of."""
    n = len(results)
    print()
    print(f"==== cluster {layout}: {n} runs ====")
    print(f"-- throughput (target {args.rate:,.0f} msg/s for {args.seconds:g} s) --")
    for i, r in enumerate(results, 1):
        catch = f"{r.catch_up_s:.2f} s" if r.catch_up_s is not None else f"NOT within {CATCH_UP_TIMEOUT_S:.0f} s"
        print(
            f"  run {i}: produced {r.produced:,} in {r.produce_s:.2f} s = {r.produced / r.produce_s:,.0f} msg/s, "
            f"all delivered after {r.flush_s:.2f} s ({r.delivery_errors} failed); consumer received {r.received:,}, "
            f"caught up {catch} after the last produce; to the UI {r.drained:,}, dropped {r.dropped:,}, "
            f"left in the buffer {r.left_buffered:,}"
        )
    print(f"  achieved produce rate, median {med([r.produced / r.produce_s for r in results]):,.0f} msg/s")

    print("-- the UI (lag: first produce until caught up; frames, drains: first to last drain with records) --")
    for i, r in enumerate(results, 1):
        lag, gaps = r.lag_ms, r.frame_gaps_ms
        print(
            f"  run {i}: {r.window_s:4.1f} s: loop lag max {worst(lag):6.1f} ms p99 {percentile(lag, 99):5.1f} ms "
            f"({len(lag)} probes) | {r.flow_s:4.1f} s flowing: {r.frames} frames ({r.frames / r.flow_s:.1f}/s), "
            f"worst gap {worst(gaps):6.1f} ms; {r.drains} drains, worst gap {worst(r.drain_gaps_ms):6.1f} ms"
        )
    print(f"  event-loop lag, max per run:       {stats_line([worst(r.lag_ms) for r in results])}")
    print(f"  event-loop lag, p99 per run:       {stats_line([percentile(r.lag_ms, 99) for r in results])}")
    print(f"  worst gap between frames, per run: {stats_line([worst(r.frame_gaps_ms) for r in results])}")
    print(
        f"    the same, only gaps with records in every drain between:  "
        f"{stats_line([worst(r.frame_gaps_fed_ms) for r in results])}"
    )
    print(
        f"    (drains that found nothing new while records flowed, per run: {[r.empty_drains for r in results]}: "
        "the consumer receives in bursts)"
    )
    print(f"  drain to screen, worst per run:    {stats_line([worst(r.to_screen_ms) for r in results])}")
    frames = [r.frames for r in results]
    print(f"  frames drawn per run:              median {med(frames):.0f}   min {min(frames)}   max {max(frames)}")
    all_frames = [x for r in results for x in r.frame_ms]
    all_records = [float(x) for r in results for x in r.drain_records]
    encoded = "" if args.no_encode else " + encoding"
    print(f"  each frame (compositor{encoded}): {stats_line(all_frames)}  ({len(all_frames)})")
    print(f"  each gap between frames:           {stats_line([x for r in results for x in r.frame_gaps_ms])}")
    print(f"  each ConsumerPanel.show_drained:   {stats_line([x for r in results for x in r.panel_ms])}")
    print(f"  each gap between drains handled:   {stats_line([x for r in results for x in r.drain_gaps_ms])}")
    print(f"  each gap between Consoles.drain(): {stats_line([x for r in results for x in r.hub_drain_gaps_ms])}")
    print(f"  each Consoles.drain() (worker):    {stats_line([x for r in results for x in r.hub_drain_ms])}")
    print(f"  drain returned -> panel began:     {stats_line([x for r in results for x in r.handled_after_ms])}")
    print(f"  drain returned -> frame drawn:     {stats_line([x for r in results for x in r.to_screen_ms])}")
    print(
        f"  records per drain:                 median {med(all_records):.0f}   p90 {percentile(all_records, 90):.0f}"
        f"   min {min(all_records):.0f}   max {max(all_records):.0f}  (ConsumerPool.drain takes at most 2,000)"
    )
    print(f"  age of the newest line shown:      {stats_line([x for r in results for x in r.shown_age_ms], 0)}")
    buffered = [float(x) for r in results for x in r.buffered]
    print(
        f"  records waiting in the pool's buffer (every 100 ms): median {med(buffered):,.0f}   "
        f"p90 {percentile(buffered, 90):,.0f}   max {max(buffered):,.0f}  (it holds 20,000; beyond, the oldest drop)"
    )
    gens = sorted({g for r in results for g in r.gc_ms})
    gc_parts = []
    for g in gens:
        count = med([len(r.gc_ms.get(g, [])) for r in results])
        pause = max(x for r in results for x in r.gc_ms.get(g, [0.0]))
        gc_parts.append(f"{g} {count:.0f}× (max {pause:.1f} ms)")
    print(f"  garbage collections per run (median count, worst pause): {', '.join(gc_parts) or 'none'}")
    print(f"  loop callbacks ≥ {SLOW_CALLBACK_MS:.0f} ms per run: {[r.slow_callbacks for r in results]}")
    middle = len(results) // 2
    heap = med([r.heap_objects for r in results])
    full_gc = med([r.full_gc_ms for r in results])
    common = ", ".join(f"{name} {n:,}" for name, n in results[middle].heap_top)
    print(
        f"  heap a full collection walks, after the run (not frozen): median {heap:,.0f} objects; one gc.collect() "
        f"then took median {full_gc:.0f} ms; most common (run {middle + 1}): {common}"
    )
    print("  the worst lag spikes and what they overlapped:")
    for i, r in enumerate(results, 1):
        for spike in r.spikes:
            print(f"    run {i}: {spike}")

    window = med([r.window_s for r in results])
    print(f"-- CPU over the lag window (s, median of runs; {os.cpu_count()} CPUs) --")
    kinds = sorted({k for r in results for k in r.cpu_s}, key=lambda k: -med([r.cpu_s.get(k, 0.0) for r in results]))
    for k in kinds:
        v = med([r.cpu_s.get(k, 0.0) for r in results])
        print(f"  {k:<54} {v:6.2f} s  ({v / window * 100:5.1f} % of one CPU)")
    others = [r.others_cpu_s for r in results]
    print(
        f"  {'[other processes on the machine]':<54} {med(others):6.2f} s  ({med(others) / window * 100:5.1f} % of one "
        f"CPU; per run {', '.join(f'{x:.1f}' for x in others)} s: above ~0.5 s, the machine was busy with other work)"
    )

    print(f"-- memory: RSS of the app's process ({'with' if layout == IN_PROCESS else 'without'} the mock brokers) --")
    marks = sorted({s for s in (0, 1, 2, 4, 6, 8, args.seconds, args.seconds + 2) if s <= args.seconds + 2})
    print("  MB at s after the first produce: " + "  ".join(f"{s:g}s" for s in marks))
    for i, r in enumerate(results, 1):
        cluster = ""
        if r.cluster_rss_mb is not None:
            cluster = f" | cluster process {r.cluster_rss_mb[0]:.0f} -> {r.cluster_rss_mb[1]:.0f} MB"
        print(
            f"    run {i}: before {r.rss_before_mb:5.1f} | " + "  ".join(f"{rss_at(r, s):.0f}" for s in marks)
            + f" | peak (sampled) {max(mb for _, mb in r.rss_mb):.1f} | ru_maxrss {r.maxrss_mb:.1f}{cluster}"
        )  # fmt: skip
    peak = med([max(mb for _, mb in r.rss_mb) for r in results])
    growth = med([rss_at(r, args.seconds) - r.rss_before_mb for r in results])
    late = med([rss_at(r, args.seconds) - rss_at(r, 2) for r in results])
    half = args.seconds / 2
    second_half = med([rss_at(r, args.seconds) - rss_at(r, half) for r in results])
    flat = second_half <= max(5.0, 0.03 * peak)
    print(
        f"  peak RSS median {peak:.1f} MB; growth median {growth:+.1f} MB (before producing -> {args.seconds:g} s): "
        f"{late:+.1f} MB after the first 2 s, {second_half:+.1f} MB in the second half ({half:g} -> {args.seconds:g} s)"
        f" -> {'flat' if flat else 'GROWING'} (flat: the second half within max(5 MB, 3 % of the peak))"
    )
    if layout == IN_PROCESS:
        print(
            "  (this process holds the mock brokers, which keep every message produced — about 2.4 MB per 20,000 "
            "messages of 100 B — so it grows with them; the separate layout shows the app's process without them)"
        )
    return {
        "lag": med([worst(r.lag_ms) for r in results]),
        "gap": med([worst(r.frame_gaps_ms) for r in results]),
        "gap_fed": med([worst(r.frame_gaps_fed_ms) for r in results]),
        "to_screen": med([worst(r.to_screen_ms) for r in results]),
        "flat": flat,
        "dropped": sum(r.dropped for r in results),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per cluster layout (default 3)")
    parser.add_argument("--rate", type=float, default=20_000.0, help="messages per second (default 20000)")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long to produce (default 10)")
    parser.add_argument("--value-bytes", type=int, default=100, help="size of each message value (default 100)")
    parser.add_argument("--cluster", choices=("both", IN_PROCESS, SEPARATE), default="both")
    parser.add_argument("--profile", action="store_true", help="one more run, with cProfile on the UI thread")
    parser.add_argument("--no-encode", action="store_true", help="do not encode frames for a terminal (headless)")
    parser.add_argument("--child", metavar="FILE", help=argparse.SUPPRESS)
    parser.add_argument("--cluster-host", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--bootstrap-server", help="a real Kafka instead of the mock (--cluster separate only)")
    args = parser.parse_args()
    if args.cluster_host:
        return cluster_host(args.rate, args.seconds, args.value_bytes, args.bootstrap_server)
    if args.child:
        result = asyncio.run(one_run(args))
        Path(args.child).write_text(json.dumps(asdict(result)))
        return 0

    import textual

    layouts = [IN_PROCESS, SEPARATE] if args.cluster == "both" else [args.cluster]
    if args.bootstrap_server and args.cluster != SEPARATE:
        parser.error("--bootstrap-server needs --cluster separate (the producer runs in a process of its own)")
    where = f"Kafka at {args.bootstrap_server}" if args.bootstrap_server else "librdkafka mock cluster"
    print(f"== kafkatop bench: the consumer console under a firehose ({where}) ==")
    print(
        f"python {platform.python_version()}, textual {textual.__version__}, confluent-kafka "
        f"{version_str(confluent_kafka.version())}, librdkafka {version_str(confluent_kafka.libversion())}, "
        f"{os.cpu_count()} CPUs; {BROKERS} brokers, topic {TOPIC} with {PARTITIONS} partitions; "
        f"{args.rate:,.0f} msg/s x {args.seconds:g} s, values of {args.value_bytes} B; headless {SIZE[0]}×{SIZE[1]}; "
        f"{args.runs} runs per layout ({', '.join(layouts)}), each in a fresh process"
    )
    results: dict[str, list[RunResult]] = {layout: [] for layout in layouts}
    for i in range(args.runs):
        for layout in layouts:
            t0 = time.perf_counter()
            results[layout].append(run_child(args, layout, profile=False))
            print(f"  run {i + 1} {layout} done ({time.perf_counter() - t0:.1f} s)", flush=True)
    verdicts = {layout: report(layout, rs, args) for layout, rs in results.items() if rs}
    print()
    for layout, v in verdicts.items():
        print(
            f"RESULT ({layout}): worst event-loop lag, median of {args.runs} runs {v['lag']:.1f} ms; "
            f"target ≤ {TARGET_LAG_MS:.0f} ms -> {'PASS' if v['lag'] <= TARGET_LAG_MS else 'FAIL'}"
        )
        print(
            f"        worst gap between frames {v['gap']:.1f} ms ({v['gap_fed']:.1f} ms where every drain in between "
            f"brought records; frames follow the 100 ms drain timer), worst drain-to-screen {v['to_screen']:.1f} ms; "
            f"{v['dropped']:,} messages dropped in all runs"
        )
    if verdicts:
        memory_layout = SEPARATE if SEPARATE in verdicts else layouts[0]
        flat = verdicts[memory_layout]["flat"]
        note = "" if memory_layout == SEPARATE else " (the mock's own message log is in this process: see above)"
        print(
            f"RESULT memory ({memory_layout} layout): "
            f"{'bounded — RSS levels off, flat in the second half' if flat else 'NOT flat — RSS keeps growing'}{note}"
        )
    if args.profile:
        print()
        print("-- cProfile of the UI thread (event loop), one more in-process run; the profiler slows Python code --")
        r = run_child(args, IN_PROCESS, profile=True)
        print(
            f"  (that run: loop lag max {worst(r.lag_ms):.1f} ms, frames {r.frames}, drains {r.drains}, "
            f"UI thread CPU {r.ui_cpu_s:.2f} s of {r.window_s:.1f} s)"
        )
        print(r.profile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
