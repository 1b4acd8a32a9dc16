"""The Spark service's process, as its client sees it: `python -m kafkatop.spark.service` started in a process group
of its own, its JSON lines read on a thread and handed to the request they answer, and the process stopped (with
Spark's JVM, a child of it) when the client closes.

Imports neither pyspark nor confluent-kafka: the process that uses it stays light, and Spark's JVM lives and dies with
the service process. The requests themselves are SparkServiceClient's (client.py).
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

from kafkatop.backends.model.spark import ServiceInfo, ServiceState, SparkServiceError, SparkStatus
from kafkatop.spark.status import Lifecycle, StatusWatcher

START_TIMEOUT_S = 180.0  # a cold JVM on a busy 2-core laptop; the service says "fatal" itself when it can


class Pending:
    """The events that answer one request, in the order the service wrote them."""

    def __init__(self) -> None:
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()


class ServiceProcess:
    """One Spark service process at a time: started again by `start` once it failed or stopped."""

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
        self._pending: dict[str, Pending] = {}
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
            except (OSError, SparkServiceError, subprocess.TimeoutExpired):
                # SparkServiceError: it exited between poll() and the write (a failed start ends it on its own)
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

    # -- the JSON lines ------------------------------------------------------------------------------------------
    def _register(self) -> tuple[str, Pending]:
        rid = str(next(self._ids))
        pending = Pending()
        with self._lock:
            self._pending[rid] = pending
        return rid, pending

    def _unregister(self, rid: str) -> None:
        with self._lock:
            self._pending.pop(rid, None)

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
