"""Partitions' offsets at a time, as `kafka-get-offsets.sh` reads them: one ListOffsets through confluent-kafka's
AdminClient (`list_offsets`, which batches the partitions by leader)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import OffsetSpec

from kafkatop.backends.kafka.errors import failure, result_within
from kafkatop.backends.kafka.handles import AdminOwner
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.get_offsets import EARLIEST, LATEST, MAX_TIMESTAMP

# What a partition answered: its offset, or the reason it has none (Kafka's error).
Answer = int | str


def _spec(time_ms: int) -> Any:
    if time_ms == LATEST:
        return OffsetSpec.latest()
    if time_ms == EARLIEST:
        return OffsetSpec.earliest()
    if time_ms == MAX_TIMESTAMP:
        return OffsetSpec.max_timestamp()
    return OffsetSpec.for_timestamp(time_ms)


class OffsetsAdmin(AdminOwner):
    """ListOffsets through one AdminClient, every request bounded by the timeout."""

    def __init__(self, connection: KafkaConnection, timeout_s: float) -> None:
        super().__init__(connection, timeout_s, lambda: KafkatopError("the offsets admin client is closed"))

    def offsets_at(self, partitions: Sequence[tuple[str, int]], time_ms: int) -> dict[tuple[str, int], Answer]:
        """Each partition's offset at `time_ms` (LATEST, EARLIEST, MAX_TIMESTAMP or a timestamp): -1 when it has
        none; Kafka's error name and text for a partition that failed."""
        if not partitions:
            return {}
        deadline = time.monotonic() + self.timeout_s
        spec = _spec(time_ms)
        futures = self._client().list_offsets(
            {KafkaTopicPartition(t, p): spec for t, p in partitions}, request_timeout=self.timeout_s
        )
        out: dict[tuple[str, int], Answer] = {}
        for tp, fut in futures.items():
            try:
                out[(tp.topic, tp.partition)] = int(result_within(fut, max(0.0, deadline - time.monotonic())).offset)
            except Exception as e:  # noqa: BLE001 - each partition's failure is said, as the tool does
                name, text = failure(e)
                out[(tp.topic, tp.partition)] = f"{name}: {text}" if name and name != text else text
        return out
