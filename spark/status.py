"""What Spark is doing, as one frozen SparkStatus kept by the Spark service's client and pushed to its watchers.

The client feeds it the service's own lifecycle (process launched, JVM starting, warm-up job, ready, fatal, exit,
closed) and the requests it serves (a count and its job progress, streams and their micro-batches). Imports neither
pyspark nor confluent-kafka: it lives in the app's process.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from kafkatop.backends.model.spark import (
    JobProgress,
    LastCount,
    ServiceInfo,
    SparkPhase,
    SparkStatus,
    StartStep,
    TopicCounts,
)

StatusWatcher = Callable[[SparkStatus], None]


@dataclass(frozen=True, slots=True)
class _Request:
    topic: str
    since: float
    progress: JobProgress | None = None
    batch_id: int | None = None


class Lifecycle:
    """Thread-safe: the client's reader threads and its callers' threads all report here. Watchers are called with
    the new status on the reporting thread, in order, and only when it changed."""

    def __init__(self, master: str, idle_reason: str, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._watchers: list[StatusWatcher] = []
        self._counts: dict[str, _Request] = {}
        self._streams: dict[str, _Request] = {}
        self._last: LastCount | None = None
        # The process's own state; requests refine "ready" into counting or streaming.
        self._process = SparkStatus("not started", master, clock(), reason=idle_reason)
        self._status = self._process

    @property
    def status(self) -> SparkStatus:
        return self._status

    def watch(self, on_status: StatusWatcher) -> None:
        """Call `on_status` now with the current status, then on every change."""
        with self._lock:
            self._watchers.append(on_status)
            on_status(self._status)

    def unwatch(self, on_status: StatusWatcher) -> None:
        with self._lock:
            if on_status in self._watchers:
                self._watchers.remove(on_status)

    # -- the service process -------------------------------------------------------------------------------------
    def starting(self, step: StartStep) -> None:
        with self._lock:
            since = self._process.since if self._process.phase == "starting" else self._clock()
            self._set_process(replace(self._blank("starting", since), step=step))

    def ready(self, info: ServiceInfo) -> None:
        with self._lock:
            status = self._blank("ready", self._clock())
            self._set_process(replace(status, master=info.master, spark_version=info.spark_version,
                                      cores=info.default_parallelism))  # fmt: skip

    def failed(self, reason: str) -> None:
        with self._lock:
            self._drop_requests()
            self._set_process(replace(self._blank("failed", self._clock()), reason=_one_line(reason)))

    def stopped(self) -> None:
        with self._lock:
            if self._process.phase in ("failed", "stopped"):
                return  # a failure stays on screen until the next start
            self._drop_requests()
            self._set_process(self._blank("stopped", self._clock()))

    # -- requests ------------------------------------------------------------------------------------------------
    def count_started(self, request_id: str, topic: str) -> None:
        with self._lock:
            self._counts[request_id] = _Request(topic, self._clock())
            self._publish()

    def progressed(self, request_id: str, progress: JobProgress) -> None:
        with self._lock:
            request = self._counts.get(request_id)
            if request is not None:
                self._counts[request_id] = replace(request, progress=progress)
                self._publish()

    def count_ended(self, request_id: str, counts: TopicCounts | None) -> None:
        """A count finished: with its result, or None when it failed or was cancelled."""
        with self._lock:
            self._counts.pop(request_id, None)
            if counts is not None:
                self._last = LastCount(self._clock(), counts.topic, counts.records, counts.elapsed_s)
            self._publish()

    def stream_started(self, request_id: str, topic: str) -> None:
        with self._lock:
            self._streams[request_id] = _Request(topic, self._clock())
            self._publish()

    def stream_updated(self, request_id: str, batch_id: int | None) -> None:
        with self._lock:
            request = self._streams.get(request_id)
            if request is not None:
                self._streams[request_id] = replace(request, batch_id=batch_id)
                self._publish()

    def stream_ended(self, request_id: str) -> None:
        with self._lock:
            if self._streams.pop(request_id, None) is not None:
                self._publish()

    # -- under the lock ------------------------------------------------------------------------------------------
    def _blank(self, phase: SparkPhase, since: float) -> SparkStatus:
        """A process state keeping only what outlives it: the master asked for and the last count."""
        return SparkStatus(phase, self._process.master, since)

    def _set_process(self, status: SparkStatus) -> None:
        self._process = status
        self._publish()

    def _drop_requests(self) -> None:
        self._counts.clear()
        self._streams.clear()

    def _publish(self) -> None:
        status = replace(self._process, last_count=self._last, streams=len(self._streams))
        if status.phase == "ready" and self._counts:
            count = list(self._counts.values())[-1]  # the newest
            status = replace(status, phase="counting", since=count.since, topic=count.topic, progress=count.progress)
        elif status.phase == "ready" and self._streams:
            stream = list(self._streams.values())[-1]
            status = replace(status, phase="streaming", since=stream.since, topic=stream.topic,
                             batch_id=stream.batch_id)  # fmt: skip
        if status == self._status:
            return
        self._status = status
        for watcher in list(self._watchers):
            watcher(status)


def _one_line(reason: str) -> str:
    """A failure's first line (the client appends the log's last lines below it; the log path stays)."""
    return reason.strip().splitlines()[0] if reason.strip() else "the Spark service stopped"
