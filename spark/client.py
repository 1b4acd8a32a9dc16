"""The client side of the Spark service: starts `python -m kafkatop.spark.service` and speaks its JSON lines.

Used by the TUI (from thread workers) and by `kafkatop counts`. Imports neither pyspark nor confluent-kafka: the
process that uses it stays light, and Spark's JVM lives and dies with the service process.
"""

from __future__ import annotations

import itertools
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any

from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.spark import (
    JobProgress,
    ServiceInfo,
    ServiceState,
    SparkJobError,
    SparkServiceError,
    SparkStatus,
    TopicCounts,
)
from kafkatop.spark.status import Lifecycle, StatusWatcher

START_TIMEOUT_S = 180.0  # a cold JVM on a busy 2-core laptop; the service says "fatal" itself when it can
LOG_TAIL_LINES = 12


class _Pending:
    def __init__(self) -> None:
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()


class SparkServiceClient:
    def __init__(
        self,
        master: str = "local[*]",
        *,
        log_path: Path | None = None,
        work_dir: Path | None = None,
        python: str | None = None,
        env: Mapping[str, str] | None = None,
        idle_reason: str = "it starts on the first count",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.master = master
        self.lifecycle = Lifecycle(master, idle_reason, clock)
        self.log_path = log_path
        self.work_dir = work_dir
        self._python = python or sys.executable
        self._env = dict(os.environ if env is None else env)
        self._proc: subprocess.Popen[bytes] | None = None
        self._state: ServiceState = "stopped"
        self._info: ServiceInfo | None = None
        self._failure: str | None = None
        self._ready = threading.Event()
        self._pending: dict[str, _Pending] = {}
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._log: IO[bytes] | None = None
        self._closing = False

    # -- lifecycle -----------------------------------------------------------------------------------------------
    @property
    def state(self) -> ServiceState:
        return self._state

    @property
    def status(self) -> SparkStatus:
        return self.lifecycle.status

    def watch(self, on_status: StatusWatcher) -> None:
        self.lifecycle.watch(on_status)

    @property
    def info(self) -> ServiceInfo | None:
        return self._info

    @property
    def failure(self) -> str | None:
        return self._failure

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    def start(self) -> None:
        """Spawn the service; returns at once (wait_ready waits)."""
        if self._state in ("starting", "ready"):
            return
        self._terminate()  # a failed service that is somehow still there
        if self._log is not None:
            self._log.close()
            self._log = None
        self._ready.clear()
        self._closing = False
        self._failure = None
        self._info = None
        cmd = [self._python, "-m", "kafkatop.spark.service", "--master", self.master]
        if self.work_dir is not None:
            cmd += ["--work-dir", str(self.work_dir)]
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = open(self.log_path, "ab")  # noqa: SIM115 — lives as long as the process
        self.lifecycle.starting("launching")
        try:
            self._proc = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._log if self._log is not None else subprocess.DEVNULL,
                env=self._env,
                # Its own process group: Ctrl-C in the terminal reaches kafkatop, which then stops the service
                # (and Spark's JVM, a child of it) itself.
                start_new_session=True,
            )
        except OSError as e:
            self._fail(f"cannot start the Spark service ({self._python}): {e.strerror or e}")
            raise SparkServiceError(self._failure or "") from None
        self._state = "starting"
        threading.Thread(target=self._read, name="spark-service-reader", daemon=True).start()

    def wait_ready(self, timeout_s: float = START_TIMEOUT_S) -> ServiceInfo:
        if self._state == "stopped":
            self.start()
        if not self._ready.wait(timeout_s):
            self._fail(f"the Spark service did not become ready in {timeout_s:.0f} s{self._log_hint()}")
            self._terminate()
        if self._info is None:
            raise SparkServiceError(self._failure or "the Spark service stopped")
        return self._info

    def close(self, timeout_s: float = 20.0) -> None:
        """Ask the service to stop Spark and exit; terminate its process group if it does not."""
        proc = self._proc
        if proc is None:
            return
        self._closing = True
        if proc.poll() is None:
            try:
                self._send({"op": "shutdown"})
                proc.wait(timeout_s)
            except (OSError, subprocess.TimeoutExpired):
                self._terminate()
        if self._state != "failed":
            self._state = "stopped"
            self.lifecycle.stopped()
        self._ready.set()
        if self._log is not None:
            self._log.close()
            self._log = None

    def _terminate(self) -> None:
        proc = self._proc
        if proc is None or proc.poll() is not None:
            return
        for sig, wait_s in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(proc.pid, sig)  # the group we created: the service and Spark's JVM, nothing else
            except ProcessLookupError:
                return
            try:
                proc.wait(wait_s)
                return
            except subprocess.TimeoutExpired:
                continue

    # -- requests ------------------------------------------------------------------------------------------------
    def counts(
        self,
        bootstrap: str,
        topic: str,
        *,
        client_config: Mapping[str, str] | None = None,
        top_keys: int = 5,
        max_records_per_partition: int | None = None,
        poll_timeout_ms: int | None = None,
        on_progress: Callable[[JobProgress], None] | None = None,
        timeout_s: float | None = None,
    ) -> TopicCounts:
        """Per-partition counts of `topic`, computed by Spark; blocks until the result (or raises SparkJobError)."""
        self.wait_ready()
        rid, pending = self._register()
        self.lifecycle.count_started(rid, topic)
        result: TopicCounts | None = None
        try:
            self._send(
                {
                    "id": rid,
                    "op": "counts",
                    "bootstrap": bootstrap,
                    "topic": topic,
                    "client_config": dict(client_config or {}),
                    "top_keys": top_keys,
                    "max_records_per_partition": max_records_per_partition,
                    "poll_timeout_ms": poll_timeout_ms,
                }
            )
            deadline = None if timeout_s is None else time.monotonic() + timeout_s
            while True:
                event = self._next(pending, deadline, rid)
                kind = event.get("event")
                if kind == "progress":
                    progress = JobProgress(
                        rid,
                        event["done"],
                        event["total"],
                        event.get("running", 0),
                        event.get("stage", ""),
                        event.get("job"),
                        event.get("stage_id"),
                    )
                    self.lifecycle.progressed(rid, progress)
                    if on_progress is not None:
                        on_progress(progress)
                elif kind == "result":
                    result = TopicCounts.from_json(event["counts"])
                    return result
                elif kind == "error":
                    raise SparkJobError(event.get("message", "the count failed"))
        finally:
            self._unregister(rid)
            self.lifecycle.count_ended(rid, result)

    def start_stream(
        self,
        bootstrap: str,
        topic: str,
        on_update: Callable[[TopicCounts], None],
        on_end: Callable[[str | None], None],
        *,
        client_config: Mapping[str, str] | None = None,
        interval_s: float = 2.0,
    ) -> str:
        """Start a streaming count; on_update per micro-batch and on_end(error or None) run on a reader thread."""
        self.wait_ready()
        rid, pending = self._register()
        self.lifecycle.stream_started(rid, topic)

        def pump() -> None:
            try:
                while True:
                    event = self._next(pending, None, rid)
                    kind = event.get("event")
                    if kind == "update":
                        counts = TopicCounts.from_json(event["counts"])
                        self.lifecycle.stream_updated(rid, counts.batch_id)
                        on_update(counts)
                    elif kind == "stopped":
                        on_end(None)
                        return
                    elif kind == "error":
                        on_end(event.get("message", "the stream failed"))
                        return
            except SparkServiceError as e:
                on_end(str(e))
            finally:
                self._unregister(rid)
                self.lifecycle.stream_ended(rid)

        threading.Thread(target=pump, name=f"spark-stream-{rid}", daemon=True).start()
        self._send(
            {
                "id": rid,
                "op": "stream",
                "bootstrap": bootstrap,
                "topic": topic,
                "client_config": dict(client_config or {}),
                "interval_s": interval_s,
            }
        )
        return rid

    def stop(self, request_id: str) -> None:
        """Stop a stream, or cancel a running count (which then raises SparkJobError)."""
        if self._state == "ready":
            self._send({"id": f"stop-{request_id}", "op": "stop", "target": request_id})

    # -- plumbing ------------------------------------------------------------------------------------------------
    def _register(self) -> tuple[str, _Pending]:
        rid = str(next(self._ids))
        pending = _Pending()
        with self._lock:
            self._pending[rid] = pending
        return rid, pending

    def _unregister(self, rid: str) -> None:
        with self._lock:
            self._pending.pop(rid, None)

    def _next(self, pending: _Pending, deadline: float | None, rid: str) -> dict[str, Any]:
        while True:
            wait = 0.5 if deadline is None else min(0.5, deadline - time.monotonic())
            if wait <= 0:
                self.stop(rid)
                raise SparkJobError("timed out waiting for Spark; the job was cancelled")
            try:
                return pending.events.get(timeout=wait)
            except queue.Empty:
                if self._state == "failed":
                    raise SparkServiceError(self._failure or "the Spark service stopped") from None

    def _send(self, message: Mapping[str, Any]) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None or proc.poll() is not None:
            raise SparkServiceError(self._failure or "the Spark service is not running")
        line = (json.dumps(message) + "\n").encode()
        with self._write_lock:
            try:
                proc.stdin.write(line)
                proc.stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                raise SparkServiceError(self._failure or "the Spark service is not running") from None

    def _read(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        for raw in proc.stdout:
            try:
                event = json.loads(raw)
            except ValueError:
                continue  # not ours (the service keeps its protocol on a stream of its own; belt and braces)
            kind = event.get("event")
            rid = event.get("id")
            if rid is not None:
                with self._lock:
                    pending = self._pending.get(str(rid))
                if pending is not None:
                    pending.events.put(event)
            elif kind == "starting" and event.get("step") in ("jvm", "warm-up"):
                self.lifecycle.starting(event["step"])
            elif kind == "ready":
                info = event["info"]
                self._info = ServiceInfo(**{**info, "notes": tuple(info.get("notes", ()))})
                self._state = "ready"
                self.lifecycle.ready(self._info)
                self._ready.set()
            elif kind == "fatal":
                self._fail(event.get("message", "the Spark service failed"))
        code = proc.wait()
        if self._closing and self._failure is None:
            self._state = "stopped"
            self.lifecycle.stopped()
        elif self._failure is None:
            self._fail(f"the Spark service exited (code {code}){self._log_hint()}")
        else:
            self._state = "failed"
        self._ready.set()

    def _fail(self, message: str) -> None:
        self._failure = message
        self._state = "failed"
        self.lifecycle.failed(message)
        self._ready.set()

    def _log_hint(self) -> str:
        if self.log_path is None:
            return ""
        try:
            lines = [ln for ln in self.log_path.read_text(errors="replace").splitlines() if ln.strip()]
        except OSError:
            return ""
        tail = [ln for ln in lines if "ERROR" in ln or "Exception" in ln][-3:] or lines[-3:]
        return f"; see {self.log_path}" + ("".join(f"\n  {ln[:200]}" for ln in tail) if tail else "")


class SparkCounts:
    """The Spark panel's backend: one cluster's counts through a Spark service, started when the panel is first shown
    (warm-up) or by the first request.

    Every method but `watch` and `warm_up` blocks (the TUI calls them from thread workers). A service that failed or
    died is started again by the next request. What Spark is doing is pushed to `watch`ers as a SparkStatus.
    """

    def __init__(
        self,
        connection: KafkaConnection,
        *,
        master: str = "local[*]",
        log_path: Path | None = None,
        warm_up: bool = True,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.connection = connection
        self._warm_up = warm_up
        idle = "it starts when the Spark tab is shown" if warm_up else "it starts when you count"
        self.service = SparkServiceClient(master, log_path=log_path, idle_reason=idle, clock=clock)

    @property
    def master(self) -> str:
        return self.service.master

    def watch(self, on_status: StatusWatcher) -> None:
        self.service.watch(on_status)

    def warm_up(self) -> None:
        """Launch the service now, without waiting for it, so the first count finds Spark up; only once (a failed
        service waits for the next request), and only when warm-up is on."""
        if self._warm_up and self.service.status.phase == "not started":
            self.service.start()

    def start(self) -> ServiceInfo:
        if self.service.state in ("stopped", "failed"):
            self.service.start()
        return self.service.wait_ready()

    def counts(self, topic: str, on_progress: Callable[[JobProgress], None] | None = None) -> TopicCounts:
        self.start()
        return self.service.counts(
            self.connection.bootstrap_servers,
            topic,
            client_config=self.connection.client_settings,
            on_progress=on_progress,
        )

    def start_stream(
        self, topic: str, on_update: Callable[[TopicCounts], None], on_end: Callable[[str | None], None]
    ) -> str:
        self.start()
        return self.service.start_stream(
            self.connection.bootstrap_servers, topic, on_update, on_end, client_config=self.connection.client_settings
        )

    def stop(self, request_id: str) -> None:
        self.service.stop(request_id)

    def close(self) -> None:
        self.service.close()
