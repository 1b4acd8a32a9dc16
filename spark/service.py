"""The Spark service: one long-lived process that keeps a SparkSession warm and answers requests as JSON lines.

Started by the TUI or by `kafkatop counts` as `python -m kafkatop.spark.service --master local[*]`, so only the
first request pays for the JVM; the TUI process itself never loads pyspark. One JSON object per line each way.

Requests (stdin):
    {"id": "1", "op": "counts", "bootstrap": "127.0.0.1:9092", "topic": "t",
     "client_config": {...}, "top_keys": 5, "max_records_per_partition": null, "poll_timeout_ms": 30000}
    {"id": "2", "op": "stream", "bootstrap": "...", "topic": "t", "interval_s": 2}
    {"id": "3", "op": "stop", "target": "2"}      stop a stream, or cancel a running count
    {"id": "4", "op": "ping"}
    {"op": "shutdown"}                            also on end of input: the client went away
Events (stdout):
    {"event": "starting", "master": "local[*]"}   the process runs (checks Java and the master)
    {"event": "starting", "step": "jvm"}          Spark's JVM is launching
    {"event": "starting", "step": "warm-up"}      the session is up; a first job loads Python workers
    {"event": "ready", "info": {ServiceInfo}}
    {"event": "fatal", "message": "..."}          the session could not start or died; the process exits
    {"id": "1", "event": "progress", "done": 7, "total": 12, "running": 2, "stage": "...", "job": 3, "stage_id": 5}
    {"id": "1", "event": "result", "counts": {TopicCounts}}
    {"id": "2", "event": "update", "counts": {TopicCounts}}   each micro-batch of a stream
    {"id": "1", "event": "error", "message": "..."}
    {"id": "2", "event": "stopped"}
    {"id": "4", "event": "pong"}
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from kafkatop.backends.model.spark import JobProgress, ServiceInfo, TopicCounts
from kafkatop.spark.session import ServiceError, explain, is_local, preflight, source_archive

PROGRESS_INTERVAL_S = 0.25
DEFAULT_POLL_TIMEOUT_MS = 30_000  # interactive: a partition that stalls this long fails the count with a reason


class Output:
    """The protocol stream. Spark's JVM inherits the process's stdout, so the protocol gets its own copy of fd 1
    and fd 1 itself is pointed at stderr: nothing Spark prints can corrupt a line."""

    def __init__(self) -> None:
        self._stream: IO[str] = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
        os.dup2(2, 1)
        sys.stdout = sys.stderr
        self._lock = threading.Lock()

    def send(self, event: str, request_id: str | None = None, **fields: Any) -> None:
        message = {"event": event, **fields} if request_id is None else {"id": request_id, "event": event, **fields}
        line = json.dumps(message, separators=(",", ":"))
        with self._lock:
            try:
                self._stream.write(line + "\n")
            except (BrokenPipeError, ValueError):
                pass  # the client is gone; end of input follows and shuts us down


# ---------------------------------------------------------------------------------------------------------------------
# The service


class SparkService:
    def __init__(self, master: str, out: Output, work_dir: Path) -> None:
        self.master = master
        self.out = out
        self.work_dir = work_dir
        self.spark: Any = None
        self._running: dict[str, threading.Thread] = {}
        self._streams: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()

    # -- session -------------------------------------------------------------------------------------------------
    def start(self) -> ServiceInfo:
        started = time.monotonic()
        preflight(self.master)
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers import kafkatop from this environment
        from pyspark.sql import SparkSession

        builder = (
            SparkSession.builder.master(self.master)
            .appName("kafkatop")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.local.dir", str(self.work_dir / "spark-local"))
            # A Python worker connects back to the JVM within this; 15 s (the default) is not enough on a loaded
            # machine, and the query then dies with "Python worker failed to connect back".
            .config("spark.python.authenticate.socketTimeout", "60s")
        )
        if is_local(self.master):
            # A local session serves no one else: the driver listens on loopback only.
            builder = builder.config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
        self.out.send("starting", step="jvm")
        try:
            self.spark = builder.getOrCreate()
        except Exception as e:  # noqa: BLE001 — any failure to start is told the same way
            raise ServiceError(f"Spark could not start: {explain(e)}") from None
        sc = self.spark.sparkContext
        sc.setLogLevel("ERROR")
        # Few, small shuffles: one partition per core beats Spark's default of 200.
        self.spark.conf.set("spark.sql.shuffle.partitions", str(max(2, sc.defaultParallelism)))
        from kafkatop.spark.counts import register

        register(self.spark)
        if not is_local(self.master):
            sc.addPyFile(str(source_archive(self.work_dir)))
        self.out.send("starting", step="warm-up")
        notes = self._warm_up()
        return ServiceInfo(
            master=sc.master,
            spark_version=self.spark.version,
            default_parallelism=sc.defaultParallelism,
            started_s=time.monotonic() - started,
            pid=os.getpid(),
            warm=True,
            notes=notes,
        )

    def _warm_up(self) -> tuple[str, ...]:
        """Run the Python data source path once (planner, Python workers, Arrow), so the first count does not pay it."""
        from kafkatop.spark.warmup import WarmUpSource

        try:
            self.spark.dataSource.register(WarmUpSource)
            self.spark.read.format(WarmUpSource.name()).load().groupBy("partition").count().collect()
        except Exception as e:  # noqa: BLE001 — a failed warm-up only costs time; the first request will tell
            return (f"warm-up failed: {explain(e)}",)
        return ()

    def alive(self) -> bool:
        try:
            return (
                self.spark is not None
                and self.spark.sparkContext._jsc is not None
                and not self.spark.sparkContext._jsc.sc().isStopped()
            )
        except Exception:  # noqa: BLE001 — py4j: the JVM is gone
            return False

    # -- requests ------------------------------------------------------------------------------------------------
    def handle(self, request: Mapping[str, Any]) -> None:
        op = request.get("op")
        rid = str(request.get("id", ""))
        if op == "ping":
            self.out.send("pong", rid)
        elif op == "counts":
            self._spawn(rid, self._counts, request)
        elif op == "stream":
            self._spawn(rid, self._stream, request)
        elif op == "stop":
            self._stop(str(request.get("target", "")), rid)
        else:
            self.out.send("error", rid, message=f"unknown op {op!r}: counts, stream, stop, ping or shutdown")

    def _spawn(self, rid: str, target: Any, request: Mapping[str, Any]) -> None:
        with self._lock:
            if rid in self._running or rid in self._streams:
                self.out.send("error", rid, message=f"request id {rid!r} is already in use")
                return
            thread = threading.Thread(target=self._guarded, args=(rid, target, request), name=f"req-{rid}", daemon=True)
            self._running[rid] = thread
        thread.start()

    def _guarded(self, rid: str, target: Any, request: Mapping[str, Any]) -> None:
        try:
            target(rid, request)
        except ServiceError as e:
            self.out.send("error", rid, message=str(e))
        except Exception as e:  # noqa: BLE001 — any failure of one request is an answer, never the end of the service
            self.out.send("error", rid, message=explain(e))
            if not self.alive():
                self.out.send("fatal", message="the Spark session ended; start the service again")
                self._stopping.set()
        finally:
            with self._lock:
                self._running.pop(rid, None)

    def _request_args(self, request: Mapping[str, Any]) -> tuple[str, str, dict[str, str]]:
        bootstrap, topic = request.get("bootstrap"), request.get("topic")
        if not isinstance(bootstrap, str) or not bootstrap:
            raise ServiceError('"bootstrap" is required: the Kafka cluster to read, e.g. 127.0.0.1:9092')
        if not isinstance(topic, str) or not topic:
            raise ServiceError('"topic" is required')
        config = {str(k): str(v) for k, v in (request.get("client_config") or {}).items()}
        timeout = int(request.get("poll_timeout_ms") or DEFAULT_POLL_TIMEOUT_MS)
        config.setdefault("_poll_timeout_ms", str(timeout))
        return bootstrap, topic, config

    def _counts(self, rid: str, request: Mapping[str, Any]) -> None:
        from kafkatop.spark.counts import TOP_KEYS, count_topic
        from kafkatop.spark.source_plan import KafkaSourceError

        bootstrap, topic, config = self._request_args(request)
        poll_timeout = config.pop("_poll_timeout_ms")
        sc = self.spark.sparkContext
        sc.setJobGroup(rid, f"kafkatop counts {topic}", interruptOnCancel=True)
        finished = threading.Event()
        watcher = threading.Thread(target=self._report_progress, args=(rid, finished), daemon=True)
        watcher.start()
        try:
            counts = count_topic(
                self.spark,
                bootstrap,
                topic,
                client_config=config,
                top_keys=int(request.get("top_keys") or TOP_KEYS),
                max_records_per_partition=request.get("max_records_per_partition"),
                poll_timeout_ms=int(poll_timeout),
            )
        except KafkaSourceError as e:
            raise ServiceError(str(e)) from None
        finally:
            finished.set()
            watcher.join(timeout=1)
        self.out.send("result", rid, counts=counts.to_json())

    def _report_progress(self, rid: str, finished: threading.Event) -> None:
        """Task counts of the request's jobs, sent when they change, until the request ends."""
        tracker = self.spark.sparkContext.statusTracker()
        last: JobProgress | None = None
        while not finished.is_set() and not self._stopping.is_set():
            try:
                done = total = running = 0
                stage = ""
                job_id: int | None = None
                stage_id: int | None = None
                named: list[tuple[int, int, int, str]] = []  # (rank, order, stage id, what it does)
                for job in sorted(tracker.getJobIdsForGroup(rid)):
                    job_id = job
                    info = tracker.getJobInfo(job)
                    stage_ids = sorted(info.stageIds) if info else []
                    for sid in stage_ids:
                        s = tracker.getStageInfo(sid)
                        if s is None:
                            continue
                        done, total, running = (
                            done + s.numCompletedTasks,
                            total + s.numTasks,
                            running + s.numActiveTasks,
                        )
                        # Name the newest stage with running tasks, else the first one not finished, else the last
                        # (a sample can fall between two stages). A job's first stage scans Kafka; the later ones
                        # shuffle and aggregate.
                        rank = 2 if s.numActiveTasks else 1 if s.numCompletedTasks < s.numTasks else 0
                        does = "reading Kafka" if sid == stage_ids[0] else "aggregating"
                        named.append((rank, -sid if rank == 1 else sid, sid, does))
                if named:
                    _, _, stage_id, stage = max(named)
            except Exception:  # noqa: BLE001 — progress is best effort; the request reports its own outcome
                return
            now = JobProgress(rid, done, total, running, stage, job_id, stage_id)
            if total and now != last:
                self.out.send(
                    "progress", rid, done=done, total=total, running=running, stage=stage, job=job_id, stage_id=stage_id
                )
                last = now
            finished.wait(PROGRESS_INTERVAL_S)

    def _stream(self, rid: str, request: Mapping[str, Any]) -> None:
        from kafkatop.spark.counts import stream_counts

        bootstrap, topic, config = self._request_args(request)
        config.pop("_poll_timeout_ms")
        interval = float(request.get("interval_s") or 2.0)
        checkpoint = tempfile.mkdtemp(prefix=f"stream-{rid}-", dir=self.work_dir)

        def on_update(counts: TopicCounts) -> None:
            self.out.send("update", rid, counts=counts.to_json())

        query = stream_counts(
            self.spark,
            bootstrap,
            topic,
            on_update,
            client_config=config,
            interval_s=interval,
            checkpoint_dir=checkpoint,
        )
        with self._lock:
            self._streams[rid] = query
        try:
            query.awaitTermination()
        finally:
            with self._lock:
                self._streams.pop(rid, None)
            shutil.rmtree(checkpoint, ignore_errors=True)
        if query.exception() is not None:
            raise ServiceError(explain(query.exception()))
        self.out.send("stopped", rid)

    def _stop(self, target: str, rid: str) -> None:
        with self._lock:
            query = self._streams.get(target)
            running = target in self._running
        if query is not None:
            query.stop()
        elif running:
            self.spark.sparkContext.cancelJobGroup(target)
        else:
            self.out.send("error", rid, message=f"nothing running with id {target!r}")
            return
        self.out.send("pong", rid)

    def shutdown(self) -> None:
        self._stopping.set()
        with self._lock:
            queries = list(self._streams.values())
        for q in queries:
            try:
                q.stop()
            except Exception:  # noqa: BLE001 — stopping anyway
                pass
        if self.spark is not None:
            try:
                self.spark.stop()
            except Exception:  # noqa: BLE001 — the JVM may already be gone
                pass


def serve(master: str, work_dir: Path | None = None) -> int:
    out = Output()
    out.send("starting", master=master, pid=os.getpid())
    own_dir = work_dir is None
    work = Path(tempfile.mkdtemp(prefix="kafkatop-spark-")) if work_dir is None else work_dir
    work.mkdir(parents=True, exist_ok=True)
    service = SparkService(master, out, work)
    try:
        try:
            info = service.start()
        except ServiceError as e:
            out.send("fatal", message=str(e))
            return 1
        out.send("ready", info=_info_json(info))
        for line in sys.stdin:
            if service._stopping.is_set():
                break
            line = line.strip()
            if not line:
                continue
            try:
                request = json.loads(line)
                if not isinstance(request, dict):
                    raise ValueError("not an object")
            except ValueError as e:
                out.send("error", None, message=f"not a JSON object ({e}): {line[:80]}")
                continue
            if request.get("op") == "shutdown":
                break
            service.handle(request)
        return 0
    finally:
        service.shutdown()
        if own_dir:
            shutil.rmtree(work, ignore_errors=True)


def _info_json(info: ServiceInfo) -> dict[str, Any]:
    return {
        "master": info.master,
        "spark_version": info.spark_version,
        "default_parallelism": info.default_parallelism,
        "started_s": round(info.started_s, 3),
        "pid": info.pid,
        "warm": info.warm,
        "notes": list(info.notes),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kafkatop.spark.service", description=__doc__.splitlines()[0])
    parser.add_argument("--master", default="local[*]", help="local[*] (default), local[N] or spark://HOST:7077")
    parser.add_argument("--work-dir", type=Path, help="scratch space for Spark (default: a temporary directory)")
    args = parser.parse_args(argv)
    return serve(args.master, args.work_dir)


if __name__ == "__main__":
    sys.exit(main())
