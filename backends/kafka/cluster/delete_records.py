"""Records deleted below an offset, as kafka-delete-records.sh deletes them: one DeleteRecords through
confluent-kafka's AdminClient (`delete_records`, sent to each partition's leader)."""

from __future__ import annotations

import time
from collections.abc import Mapping

from confluent_kafka import TopicPartition as KafkaTopicPartition

from kafkatop.backends.kafka.errors import failure, result_within
from kafkatop.backends.kafka.handles import AdminOwner
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.delete_records import JAVA_ERRORS
from kafkatop.backends.model.errors import KafkatopError


class RecordsAdmin(AdminOwner):
    """DeleteRecords through one AdminClient, bounded by the timeout."""

    def __init__(self, connection: KafkaConnection, timeout_s: float) -> None:
        super().__init__(connection, timeout_s, lambda: KafkatopError("the records admin client is closed"))

    def delete_below(self, offsets: Mapping[tuple[str, int], int]) -> dict[tuple[str, int], int | str]:
        """Each partition's new low watermark, or why not (the Java exception the tool prints, where kafkatop knows
        it; else Kafka's error name and text)."""
        if not offsets:
            return {}
        deadline = time.monotonic() + self.timeout_s
        futures = self._client().delete_records(
            [KafkaTopicPartition(t, p, o) for (t, p), o in offsets.items()], request_timeout=self.timeout_s,
            operation_timeout=self.timeout_s,
        )  # fmt: skip
        out: dict[tuple[str, int], int | str] = dict.fromkeys(offsets, "")  # in the order asked
        for tp, fut in futures.items():
            try:
                out[(tp.topic, tp.partition)] = int(
                    result_within(fut, max(0.0, deadline - time.monotonic())).low_watermark
                )
            except Exception as e:  # noqa: BLE001 - each partition's failure is said, as the tool does
                name, text = failure(e)
                out[(tp.topic, tp.partition)] = JAVA_ERRORS.get(name or "") or (f"{name}: {text}" if name else text)
        return out
