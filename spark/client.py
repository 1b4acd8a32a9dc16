"""The client side of the Spark service: the requests it answers (counts, streams, stop), over the service process
that ServiceProcess (service_process.py) starts and reads.

Used by the TUI (from thread workers, through SparkCounts, counter.py) and by `kafkatop counts`. Imports neither
pyspark nor confluent-kafka: the process that uses it stays light, and Spark's JVM lives and dies with the service
process.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from kafkatop.backends.model.spark import JobProgress, SparkJobError, SparkServiceError, TopicCounts
from kafkatop.spark.service_process import Pending, ServiceProcess


class SparkServiceClient(ServiceProcess):
    """The Spark service's requests: each blocks its caller (or, for a stream, a reader thread of its own) until
    the service answers."""

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

    def _next(self, pending: Pending, deadline: float | None, rid: str) -> dict[str, Any]:
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
