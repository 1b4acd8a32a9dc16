"""One run of the consumer console benchmark, in a child process of its own: the app, the consumer, the producer,
and every figure taken over the window."""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import dataclasses
import gc
import io
import itertools
import os
import pstats
import resource
import subprocess
import time
from dataclasses import dataclass, field
from typing import Any

import psutil

from bench._consumer_console import (
    BROKERS,
    GROUP,
    IN_PROCESS,
    LAG_PROBE_S,
    PARTITIONS,
    SIZE,
    SLOW_CALLBACK_MS,
    START_TIMEOUT_S,
    TOPIC,
)
from bench._consumer_console.bare import COUNT_EVERY_S, DRAIN_IDLE_S, DRAIN_LIMIT_S, Counts, Drained, drain_figures
from bench._consumer_console.cluster import PacedProducer, RemoteProducer, start_host, stop_host
from bench._consumer_console.hooks import (
    GcPauses,
    HubDrains,
    RssSampler,
    SlowCallbacks,
    buffered,
    drains_seen,
    thread_cpu,
    thread_kinds,
)
from bench.common.frames import frame_spans
from bench.common.loop import LoopLag
from bench.common.machine import machine_busy
from kafkatop.backends.model.connection import KafkaConnection


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
    drained: int = 0  # records handed to the UI in consoles' Polled
    dropped: int = 0  # the consoles' Polled activity's `dropped`: records the pool let go of (its buffer was full)
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
    panel_ms: list[float] = field(default_factory=list)  # ConsumerPane.show_drained, each
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
    consumed: dict[str, Any] = field(default_factory=dict)  # bare.Drained: how the console's consumer kept up


async def wait_for(condition: Any, what: str, timeout_s: float, pilot: Any) -> None:
    deadline = time.perf_counter() + timeout_s
    while not condition():
        if time.perf_counter() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        await pilot.pause(0.05)


def overlapping(events: list[tuple[float, float, str]], t0: float, t1: float) -> list[str]:
    return [label for a, b, label in events if a < t1 and b > t0]


async def one_run(args: argparse.Namespace) -> RunResult:
    from kafkatop.backends.kafka.admin.admin import AdminSource
    from kafkatop.backends.kafka.mock import MockCluster
    from kafkatop.backends.kafka.records.consoles import Consoles
    from kafkatop.tui.live.app import KafkatopApp
    from kafkatop.tui.live.sources import Settings, Sources
    from kafkatop.tui.live.tabs.consume.pane import ConsumerPane

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
        # bench/scale.py runs this in an older tree too, where the hub was Sources.clients and the tabs the app's.
        hub = "consoles" if "consoles" in {f.name for f in dataclasses.fields(Sources)} else "clients"
        app = KafkatopApp(Sources(poll_cluster=admin.poll, **{hub: consoles}), Settings())
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(lambda: app.snapshot is not None, "the first poll", START_TIMEOUT_S, pilot)
            (app if hasattr(app, "action_tab") else app.main_screen).action_tab(4)
            await pilot.pause()
            frames = frame_spans(app, not args.no_encode)
            panel = app.query_one(ConsumerPane)
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

            if host is not None:
                producer = RemoteProducer(host)
            else:
                producer = PacedProducer(bootstrap, args.rate, args.seconds, args.value_bytes)
            prober = LoopLag(LAG_PROBE_S)
            prober.start()
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
                views = consoles._consumer_pool().views  # a measuring hook: the pool's views never wait
                counts, last, last_at = Counts(), 0, 0.0
                while producer.is_alive():
                    counts.add(views()[0].received)
                    await asyncio.sleep(COUNT_EVERY_S)
                # Drained: the consumer's own count reached what was delivered, or nothing came for DRAIN_IDLE_S.
                delivered = producer.sent - producer.left - producer.errors
                while True:
                    now, received = time.perf_counter(), views()[0].received
                    counts.add(received)
                    if received > last:
                        last, last_at = received, now
                    if received >= delivered:
                        result.catch_up_s = now - producer.produced_at
                        break
                    if now - max(last_at, producer.produced_at) > DRAIN_IDLE_S:
                        break
                    if now - producer.produced_at > DRAIN_LIMIT_S:
                        break
                    await asyncio.sleep(COUNT_EVERY_S)
                counts.samples.append((time.perf_counter(), views()[0].received))
                console = Drained("console", received=views()[0].received)
                drain_figures(console, counts, producer, last_at or time.perf_counter())
                result.consumed = dataclasses.asdict(console)
                await asyncio.sleep(0.3)  # the drains of the last records reach the panel
                end = time.perf_counter()
                if profiler is not None:
                    profiler.disable()
                result.ui_cpu_s = time.thread_time() - ui0
                cpu1 = thread_cpu(kinds)
                proc_cpu = sum(me.cpu_times()[:2]) - proc_cpu0
                busy = machine_busy() - busy0
            await prober.stop()
            lags = prober.samples

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
            result.left_buffered = buffered(consoles._consumer_pool())

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
            # and a Polled arriving then would find no widgets (NoMatches).
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
