"""A context's `audit-topic` (README "Who changed what"): each entry of the audit trail also as a record of a topic of
the cluster it was written to, so that a team sees each other's writes where they already look. The local trail stays
the record of truth: the topic is best effort, its first failure said once (the topic missing, an ACL, the cluster
gone), and never a reason for a write not to be done or its entry not to be kept.

A record's key is the cluster's id (one cluster's entries in one partition, in order), its value the trail's JSON line.
The topic is the operator's to create (its retention, its ACLs): kafkatop never creates it.
"""

from __future__ import annotations

import threading
from typing import Any

from confluent_kafka import KafkaError, KafkaException

from kafkatop.backends.kafka.errors import describe_error
from kafkatop.backends.kafka.handles import producer, release
from kafkatop.backends.model.audit import AuditEntry, dumps
from kafkatop.backends.model.connection import KafkaConnection

# A missing topic or an unreachable cluster is known this soon, so a command's exit waits no longer than this for it.
DELIVERY_TIMEOUT_MS = 5000


class AuditTopic:
    """Publishes audit entries to `topic` of `connection`'s cluster; thread-safe (the live view's workers write)."""

    def __init__(self, connection: KafkaConnection, topic: str) -> None:
        self.topic = topic
        self._problem: str | None = None
        self._timed_out = False
        self._lock = threading.Lock()
        config: dict[str, Any] = connection.config("kafkatop-audit") | {
            "acks": "all",
            "enable.idempotence": True,  # retried, never twice
            "linger.ms": 0,
            "allow.auto.create.topics": False,  # the operator's topic: a missing one is said, not made with defaults
            "message.timeout.ms": DELIVERY_TIMEOUT_MS,
            "error_cb": self._on_error,
        }
        try:
            self._box: list[Any] = [producer(config)]
        except (KafkaException, ValueError, TypeError) as e:
            self._box = []
            self._problem = connection.redact(describe_error(e))

    def publish(self, entry: AuditEntry) -> None:
        if not self._box:
            return
        try:
            self._box[0].produce(self.topic, key=(entry.cluster_id or "").encode(), value=dumps(entry).encode(),
                                 on_delivery=self._delivered)  # fmt: skip
            self._box[0].poll(0)
        except (KafkaException, BufferError) as e:
            self._keep(describe_error(e) if isinstance(e, KafkaException) else str(e))

    def close(self, timeout_s: float = DELIVERY_TIMEOUT_MS / 1000 + 1) -> str | None:
        """Waits for what was published (at most `timeout_s`), lets the producer go; the first problem, said as
        `audit-topic 'x': …`, or None."""
        if self._box:
            left = self._box[0].flush(timeout_s)
            if left:
                self._keep(f"{left} entr{'y' if left == 1 else 'ies'} not delivered in {timeout_s:.0f} s")
            missing = self._missing() if self._timed_out else None
            if missing is not None:
                with self._lock:
                    self._problem = missing  # why it timed out: said instead
            release(self._box)
        with self._lock:
            problem = self._problem
        return None if problem is None else f"audit-topic {self.topic!r}: {problem}"

    def _missing(self) -> str | None:
        """Whether the topic is missing, once a delivery timed out (librdkafka waits for a topic to appear)."""
        try:
            found = self._box[0].list_topics(self.topic, timeout=2).topics.get(self.topic)
        except KafkaException:
            return None
        if found is None or found.error is None or found.error.code() != KafkaError.UNKNOWN_TOPIC_OR_PART:
            return None
        return f"no such topic on this cluster: create it (kafkatop create-topic {self.topic}); kafkatop never does"

    def _delivered(self, err: KafkaError | None, _msg: Any) -> None:
        if err is not None and err.code() == KafkaError._MSG_TIMED_OUT:
            self._timed_out = True
        if err is not None:
            self._keep(describe_error(KafkaException(err)))

    def _on_error(self, err: KafkaError) -> None:
        if err.fatal() or err.code() in (KafkaError._AUTHENTICATION, KafkaError._ALL_BROKERS_DOWN):
            self._keep(describe_error(KafkaException(err)))

    def _keep(self, problem: str) -> None:
        with self._lock:
            self._problem = self._problem or problem
