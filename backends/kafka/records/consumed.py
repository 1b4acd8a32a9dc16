"""What the console's consumers took and the UI has not drained yet: librdkafka's messages as they came, in batches,
made into `Received` lines only when drained. Of a firehose most are dropped unseen from the bounded buffer; the
per-record work of escaping each for display held the GIL that the UI thread needs (bench/consumer_console.py)."""

from __future__ import annotations

from collections import deque
from typing import Any

from confluent_kafka import TIMESTAMP_NOT_AVAILABLE

from kafkatop.backends.kafka.records.browsed import seen
from kafkatop.backends.model.consoles import Received, escape_payload
from kafkatop.backends.model.masking import MaskRules


class Taken:
    """The records consumed and not yet drained, as batches of librdkafka's messages, at most `limit` (the oldest
    dropped first). Not thread-safe: the pool's lock guards it."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.count = 0
        self._batches: deque[tuple[str, str, list[Any]]] = deque()  # (consumer, group, messages)

    def add(self, consumer: str, group: str, messages: list[Any]) -> int:
        """Keeps `messages`; returns how many of the oldest records were dropped to make room."""
        if not messages:
            return 0
        self._batches.append((consumer, group, messages))
        self.count += len(messages)
        dropped = 0
        while self.count > self.limit:
            name, of, oldest = self._batches[0]
            excess = self.count - self.limit
            if len(oldest) <= excess:
                self._batches.popleft()
                excess = len(oldest)
            else:
                self._batches[0] = (name, of, oldest[excess:])
            self.count -= excess
            dropped += excess
        return dropped

    def take(self, most: int) -> list[tuple[str, str, list[Any]]]:
        """The oldest `most` records at most, in batches, oldest first."""
        taken: list[tuple[str, str, list[Any]]] = []
        while most > 0 and self._batches:
            name, group, messages = self._batches[0]
            if len(messages) <= most:
                self._batches.popleft()
                taken.append((name, group, messages))
            else:
                self._batches[0] = (name, group, messages[most:])
                taken.append((name, group, messages[:most]))
            n = len(taken[-1][2])
            self.count -= n
            most -= n
        return taken


def received(consumer: str, group: str, msg: Any, mask: MaskRules | None = None) -> Received:
    """A librdkafka message as the console shows it (masked first, in a context with a mask)."""
    ts_type, ts = msg.timestamp()
    key, value = msg.key(), msg.value()
    if mask is not None:
        r = seen(msg, mask)
        key, value = r.key, r.value
    return Received(
        consumer=consumer,
        group=group,
        topic=msg.topic() or "",
        partition=msg.partition(),
        offset=msg.offset(),
        timestamp_ms=None if ts_type == TIMESTAMP_NOT_AVAILABLE else ts,
        key=None if key is None else escape_payload(key),
        value=escape_payload(value),
    )
