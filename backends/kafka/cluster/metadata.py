"""Which topics exist and how many partitions each has, as the consoles and offset resets check before they act."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from confluent_kafka import KafkaError, KafkaException

from kafkatop.backends.kafka.errors import describe_error, error_text
from kafkatop.backends.model.consoles import ClientError, NoSuchTopic
from kafkatop.backends.model.errors import KafkatopError

METADATA_TTL_S = 10.0


def no_topic(topic: str) -> NoSuchTopic:
    return NoSuchTopic(
        topic,
        f"topic '{topic}' does not exist: create it first (kafka-topics.sh --create --topic {topic} …, or kafkatop's "
        "create-topic), then try again",
    )


class TopicCache:
    """Partition counts of the cluster's topics, from an all-topics Metadata request re-read every `ttl_s`.

    Topics are never asked for by name: a Metadata request naming a topic makes a broker with
    auto.create.topics.enable (Kafka's default, and the librdkafka mock's) create it, and a console must not
    create topics by mistyping them. A topic not found is asked for again at once (it may have just been created).
    Under an authorizer, a topic the principal may not Describe is left out of every listing: `refused(topic,
    timeout_s)`, when given, asks for it by name on a handle that never creates one (allow.auto.create.topics=false),
    and returns the refusal to raise (its Refused: what to grant), else None.
    """

    def __init__(
        self,
        fetch: Callable[[float], Any],
        bootstrap: str,
        timeout_s: float,
        ttl_s: float,
        refused: Callable[[str, float], KafkatopError | None] | None = None,
    ) -> None:
        self._fetch = fetch
        self._refused = refused
        self._bootstrap = bootstrap
        self._timeout_s = timeout_s
        self._ttl_s = ttl_s
        self._lock = threading.Lock()
        self._counts: dict[str, int] = {}
        self._errors: dict[str, str] = {}
        self._read_at = float("-inf")

    def _refresh(self) -> None:
        try:
            metadata = self._fetch(self._timeout_s)
        except (KafkaException, RuntimeError) as e:
            raise ClientError(
                f"no metadata from Kafka at {self._bootstrap} within {self._timeout_s:g} s ({describe_error(e)}): "
                "check that the brokers are up"
            ) from None
        counts, errors = {}, {}
        for name, t in metadata.topics.items():
            if t.error is not None and t.error.code() == KafkaError.UNKNOWN_TOPIC_OR_PART:
                continue
            counts[name] = len(t.partitions)
            if t.error is not None:
                errors[name] = error_text(t.error)
        self._counts, self._errors = counts, errors
        self._read_at = time.monotonic()

    def partitions(self, topic: str) -> int:
        """The topic's partition count; ClientError when it does not exist or has no partitions yet."""
        with self._lock:
            if topic not in self._counts or time.monotonic() - self._read_at >= self._ttl_s:
                self._refresh()
            count, error = self._counts.get(topic), self._errors.get(topic)
        if count is None:
            refusal = self._refused(topic, self._timeout_s) if self._refused is not None else None
            raise refusal or no_topic(topic)
        if count == 0:
            raise ClientError(f"topic '{topic}' has no partitions yet ({error or 'no leader'}): try again in a moment")
        return count
