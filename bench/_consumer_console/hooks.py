"""Measuring hooks of the consumer console benchmark, inside the app's process: what the consumer panel handled,
what the hub's drains returned, garbage collections, slow loop callbacks, RSS and CPU per thread."""

from __future__ import annotations

import asyncio
import gc
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from bench._consumer_console import RSS_SAMPLE_S, SLOW_CALLBACK_MS


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
    """Each consoles' Polled the consumer panel handled (show_drained wrapped: a measuring hook only)."""
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

    `returned[id(first record)]` says when the drain that handed out that record returned, so a consoles' Polled the
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
                self.buffered.append((now, buffered(self.pool)))
            self.stopped.wait(RSS_SAMPLE_S)


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


def buffered(pool: Any) -> int:
    """Records waiting in the consumer pool's buffer (a measuring hook: the pool's `buffered()`, or in a tree before
    issue 30, the length of its deque of records)."""
    return int(pool.buffered()) if hasattr(pool, "buffered") else len(pool._records)
