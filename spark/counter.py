"""The SparkCounts port over the Spark service's client (client.py): what the Spark panel and the command line's
composition root hold. Imports neither pyspark nor confluent-kafka: it lives in the app's process; Spark runs in the
service's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.masking import MaskRules, mask_record
from kafkatop.backends.model.messages import BrowsedRecord, TimestampType
from kafkatop.backends.model.spark import JobProgress, KeyCount, ServiceInfo, TopicCounts
from kafkatop.spark.client import SparkServiceClient
from kafkatop.spark.status import StatusWatcher


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
        mask: MaskRules | None = None,
    ) -> None:
        self.connection = connection
        self.mask = mask if mask is not None and mask.active else None  # a context's: its top keys shown masked
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
        return self._masked(self.service.counts(
            self.connection.bootstrap_servers,
            topic,
            client_config=self.connection.client_settings,
            on_progress=on_progress,
        ))  # fmt: skip

    def start_stream(
        self, topic: str, on_update: Callable[[TopicCounts], None], on_end: Callable[[str | None], None]
    ) -> str:
        self.start()
        return self.service.start_stream(
            self.connection.bootstrap_servers, topic, lambda c: on_update(self._masked(c)), on_end,
            client_config=self.connection.client_settings,
        )  # fmt: skip

    def _masked(self, counts: TopicCounts) -> TopicCounts:
        return masked_counts(counts, self.mask)

    def stop(self, request_id: str) -> None:
        self.service.stop(request_id)

    def close(self) -> None:
        self.service.close()


def masked_counts(counts: TopicCounts, mask: MaskRules | None) -> TopicCounts:
    """The top keys as a context's mask lets them be seen (Spark reads the records as they are)."""
    if mask is None or not mask.active:
        return counts

    def key(text: str) -> str:
        record = BrowsedRecord(counts.topic, 0, 0, None, TimestampType.NOT_AVAILABLE, text.encode(), None)
        return (mask_record(record, mask).key or b"").decode("utf-8", "replace")

    def merged(keys: tuple[KeyCount, ...]) -> tuple[KeyCount, ...]:
        # Two keys the mask makes one are one line: two "[masked]" lines would say the values differ
        totals: dict[str, int] = {}
        for k in keys:
            shown = key(k.key)
            totals[shown] = totals.get(shown, 0) + k.records
        return tuple(KeyCount(k, n) for k, n in sorted(totals.items(), key=lambda kv: -kv[1]))

    return replace(counts, partitions=tuple(replace(p, top_keys=merged(p.top_keys)) for p in counts.partitions))
