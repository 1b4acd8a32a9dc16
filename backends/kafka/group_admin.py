"""Deleting consumer groups (kafka-consumer-groups.sh --delete), through one AdminClient, each request bounded.
Kafka refuses a group with members (NON_EMPTY_GROUP) or one it does not know (GROUP_ID_NOT_FOUND); each group's
answer comes back on its own, with Kafka's error name and message."""

from __future__ import annotations

import time
from collections.abc import Sequence
from types import TracebackType
from typing import Any

from confluent_kafka.admin import AdminClient

from kafkatop.backends.kafka import handles
from kafkatop.backends.kafka.errors import failure, unreachable_reason
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError, SourceUnavailable


class GroupAdmin:
    def __init__(self, connection: KafkaConnection, timeout_s: float = 15.0) -> None:
        self.connection = connection
        self.timeout_s = timeout_s
        self._created = time.monotonic()
        self._admin: AdminClient | None = handles.new_admin_client(connection, lambda r: SourceUnavailable("kafka", r))

    def close(self) -> None:
        box: list[Any] = [self._admin] if self._admin is not None else []
        self._admin = None
        handles.release(box)  # destroyed on a thread of kafkatop's own (handles.py says why)

    def __enter__(self) -> GroupAdmin:
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def delete_groups(self, group_ids: Sequence[str]) -> dict[str, str | None]:
        """Each group's outcome: None when deleted, else Kafka's error name and message ("NON_EMPTY_GROUP: The
        group is not empty."). KafkatopError when Kafka could not be asked at all."""
        if self._admin is None:
            raise KafkatopError("the group admin client is closed")
        deadline = time.monotonic() + self.timeout_s + 1.0
        futures = self._admin.delete_consumer_groups(list(group_ids), request_timeout=self.timeout_s)
        out: dict[str, str | None] = {}
        for group_id, fut in futures.items():
            try:
                fut.result(timeout=max(0.0, deadline - time.monotonic()))
                out[group_id] = None
            except Exception as e:  # noqa: BLE001 - each group's refusal is its answer
                code, text = failure(e)
                if code in ("_TIMED_OUT", "_TRANSPORT"):
                    reason = unreachable_reason(self.connection, self._created, self._admin)
                    raise KafkatopError(
                        f"cannot delete consumer groups: cannot talk to {self.connection}: {reason or text}"
                    ) from None
                # librdkafka's "Broker: The group is not empty" is Kafka's "The group is not empty."
                text = self.connection.redact(text).removeprefix("Broker: ").rstrip(".") + "."
                out[group_id] = f"{code}: {text}" if code and not text.startswith(code) else text
        return out
