"""`kafkatop produce`'s producer: records queued as fast as librdkafka takes them (a full queue is waited out by
serving delivery reports, so the input is read no faster than Kafka takes it), every delivery counted, and at the
end a bounded wait for the last ones. Kafka's refusal of the Write becomes the Refused that names what to grant.

As kafka-console-producer.sh: acks=all with idempotence by default, and Java's partitioner (murmur2 of the key), so
a keyed record lands in the partition the Java tool would choose."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Mapping
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Producer

from kafkatop.backends.insight.grants import Doing
from kafkatop.backends.kafka import handles
from kafkatop.backends.kafka.cluster.metadata import METADATA_TTL_S, TopicCache
from kafkatop.backends.kafka.errors import PURGED, describe_error, error_text
from kafkatop.backends.kafka.refusal import is_refusal, refusal, topic_refusal
from kafkatop.backends.model.connection import LIBRDKAFKA_LOGGER, KafkaConnection
from kafkatop.backends.model.consoles import ClientError, NoSuchTopic, check_partition
from kafkatop.backends.model.errors import BadInput, KafkatopError
from kafkatop.backends.model.produce import Produced, ProducerRecord

# Settings a secret goes in: a file (--command-config), never the command line, where `ps` shows it.
SECRET_SETTINGS = ("password", "secret", "jaas", "oauthbearer.config", "key.pem")
POLL_EVERY = 100  # records queued between two polls for deliveries: a poll per record costs as much as the record
MAX_BYTES = 1_000_000  # librdkafka's message.max.bytes
# librdkafka's names of settings it also takes by Java's (or another) name: its errors say the first.
ALIASES = {
    "queue.buffering.max.ms": "linger.ms", "message.send.max.retries": "retries", "compression.codec":
    "compression.type", "request.required.acks": "acks", "max.in.flight.requests.per.connection": "max.in.flight",
    "message.timeout.ms": "delivery.timeout.ms", "sasl.mechanisms": "sasl.mechanism",
    "metadata.broker.list": "bootstrap.servers",
}  # fmt: skip


def logged_fatal(line: str) -> KafkaError | None:
    """The fatal error a librdkafka log line says ("… Fatal error: Broker: Cluster authorization failed: Failed to
    acquire idempotence PID …"), as the KafkaError it was: its code found by librdkafka's own description of it."""
    _, sep, said = line.partition("Fatal error: ")
    if not sep:
        return None
    known = [(KafkaError(code).str(), code) for code in _error_codes()]
    found = [(text, code) for text, code in known if said == text or said.startswith(text + ": ")]
    if not found:
        return None
    text, code = max(found, key=lambda f: len(f[0]))
    return KafkaError(code, said[len(text) + 2 :] or text, fatal=True)


def _error_codes() -> list[int]:
    return [v for k, v in vars(KafkaError).items() if k.isupper() and isinstance(v, int) and not isinstance(v, bool)]


class NotProducible(ClientError, BadInput):
    """What was asked cannot be produced as asked (no such topic or partition, producer settings librdkafka
    refuses): the message says what to change (exit 2)."""


class MissingTopic(NotProducible):
    """The topic is not in the cluster's metadata: Kafka's producer would ask the brokers to create it
    (records/first_use.py)."""


def as_given(said: str, given: Mapping[str, str]) -> str:
    """librdkafka's error with the setting named as it was given (linger.ms, not queue.buffering.max.ms)."""
    for name, alias in ALIASES.items():
        if f'"{name}"' in said and alias in given and name not in given:
            said = said.replace(f'"{name}"', f'"{alias}" (librdkafka\'s {name})')
    return said


def producer_properties(given: list[str]) -> dict[str, str]:
    """--producer-property K=V, each once; a secret's setting is refused (it belongs in --command-config)."""
    out: dict[str, str] = {}
    for prop in given:
        name, sep, value = prop.partition("=")
        name = name.strip()
        if not sep or not name:
            raise BadInput(f"--producer-property {prop!r}: write NAME=VALUE (a librdkafka producer setting)")
        if any(word in name.lower() for word in SECRET_SETTINGS):
            raise BadInput(f"--producer-property {name}: a secret does not go on the command line, where others see "
                           "it: put it in the --command-config file")  # fmt: skip
        out[name] = value
    return out


class RecordProducer:
    """One producer for one run of `kafkatop produce`: `partitions` checks the topic, `send` queues a record,
    `finish` waits for the deliveries and says what became of them. Not thread-safe: one thread sends and polls."""

    def __init__(
        self,
        connection: KafkaConnection,
        *,
        acks: str = "all",
        compression: str = "none",
        properties: Mapping[str, str] | None = None,
        timeout_s: float = 30.0,
    ) -> None:
        self.connection = connection
        self.timeout_s = timeout_s
        config = connection.config("kafkatop-producer")
        config.setdefault("message.timeout.ms", 30_000)  # not librdkafka's 5 minutes: a stopped lab fails in 30 s
        config.update({
            "acks": acks, "enable.idempotence": acks == "all", "compression.type": compression,
            "partitioner": "murmur2_random",  # Java's: a key goes where kafka-console-producer.sh puts it
        })  # fmt: skip
        config.update(properties or {})
        config["allow.auto.create.topics"] = False  # a topic asked for by name (TopicCache) is never created
        config["error_cb"] = self._on_error
        config["logger"] = self
        self._idempotent = str(config.get("enable.idempotence")).lower() == "true"
        try:
            self._producer: Producer = handles.producer(config)
        except (KafkaException, ValueError, TypeError) as e:
            said = as_given(describe_error(e), properties or {})
            raise NotProducible(f"invalid producer configuration: {connection.redact(said)}") from None
        self._max_bytes = str(config.get("message.max.bytes", MAX_BYTES))
        self._topics = TopicCache(self._list_topics, connection.bootstrap_servers, timeout_s, METADATA_TTL_S,
                                  self._refused)  # fmt: skip
        self._delivered = 0
        self._failed: Counter[str] = Counter()
        self._refusal: str | None = None  # Kafka's authorization error, when one came back
        self._client_error: str | None = None
        self._fatal: KafkaError | None = None
        self._logged_fatal: KafkaError | None = None
        self._progress_at = time.monotonic()
        self._queued = 0

    @property
    def doing(self) -> Doing:
        return "idempotent produce" if self._idempotent else "produce"

    # --- the topic ----------------------------------------------------------------------------------------------------
    def _list_topics(self, timeout_s: float) -> Any:
        return self._producer.list_topics(timeout=timeout_s)

    def _refused(self, topic: str, timeout_s: float) -> KafkatopError | None:
        list_topic = self._producer.list_topics  # allow.auto.create.topics is off: a topic named is never created
        return topic_refusal(list_topic, topic, timeout_s, self.doing, self.connection, f"cannot send to '{topic}'")

    def partitions(self, topic: str, partition: int | None = None) -> int:
        """The topic's partition count, and `partition` checked against it; NotProducible when either is not there,
        Refused when the authorizer hides the topic."""
        try:
            count = self._topics.partitions(topic)
        except NoSuchTopic as e:
            raise MissingTopic(str(e)) from None
        try:
            check_partition(topic, partition, count)
        except ClientError as e:
            raise NotProducible(str(e)) from None
        return count

    # --- sending --------------------------------------------------------------------------------------------------
    # Every callback begins with _pending (see _serve).
    def _on_error(self, err: KafkaError) -> None:
        self._pending()
        self._client_error = error_text(err)  # client-wide trouble (all brokers down), said beside the failures
        if err.fatal():
            self._fatal = err

    def log(self, level: int, msg: str, *args: object) -> None:
        """librdkafka's log (the producer's `logger`), on to kafkatop's; its fatal error kept, for when confluent-kafka
        loses the exception it raised of it (see _serve)."""
        self._pending()
        LIBRDKAFKA_LOGGER.log(level, msg, *args)
        if level >= logging.CRITICAL and self._logged_fatal is None:
            self._logged_fatal = logged_fatal(msg % args)

    def _on_delivery(self, err: KafkaError | None, _msg: Any) -> None:
        self._pending()
        self._count(err)

    def _pending(self) -> None:
        """Keeps the fatal error confluent-kafka left set, if it did: the first call of a C function raises it as a
        SystemError caused by it, here, caught (which clears it) before any code that would swallow it (logging's
        own `except Exception`) or fail of it."""
        try:
            time.monotonic()
        except SystemError as e:
            self._keep_fatal(e)

    def _keep_fatal(self, e: SystemError | KafkaException) -> None:
        """The fatal KafkaError `e` is, or is caused by."""
        cause = e if isinstance(e, KafkaException) else e.__cause__
        if isinstance(cause, KafkaException) and cause.args and isinstance(cause.args[0], KafkaError):
            self._fatal = self._fatal or cause.args[0]

    def _count(self, err: KafkaError | None) -> None:
        self._progress_at = time.monotonic()
        if err is None:
            self._delivered += 1
        elif err.code() not in PURGED:  # a purged record's why is known at the end (finish): the --timeout, or a
            self._failed[error_text(err)] += 1  # fatal error met meanwhile
            if is_refusal(err):
                self._refusal = str(err.name())

    def _serve(self, timeout_s: float, *, flush: bool = False) -> int:
        """poll() or flush(): what is still queued. A fatal error (an idempotent producer refused its producer id)
        comes as an exception out of them; but confluent-kafka 2.16 goes on calling back into Python (the logger,
        the error and delivery reports) with it set, where the first call fails as a SystemError caused by it — kept
        there (_pending), which clears it, and poll() or flush() then fail as a SystemError of nothing."""
        try:
            return int(self._producer.flush(timeout_s) if flush else self._producer.poll(timeout_s))
        except (KafkaException, SystemError) as e:
            self._keep_fatal(e)
            if self._fatal is None and isinstance(e, KafkaException):
                raise
            if self._fatal is None:  # the exception lost: librdkafka's log said it, else its name is unknown
                self._fatal = self._logged_fatal or KafkaError(KafkaError._FATAL, "a fatal error", fatal=True)
            return len(self._producer)

    def send(self, topic: str, record: ProducerRecord) -> None:
        """Queue one record; a full queue is waited out serving deliveries (ClientError when none came for
        --timeout); a refusal librdkafka meets before sending (a fatal error, an authorization error) raised as the
        Refused or ClientError that says it."""
        producer = self._producer
        while self._fatal is None:
            try:
                producer.produce(
                    topic,
                    value=record.value,
                    key=record.key,
                    partition=-1 if record.partition is None else record.partition,
                    on_delivery=self._on_delivery,
                    timestamp=record.timestamp_ms or 0,
                    headers=list(record.headers) or None,
                )
            except BufferError:
                # librdkafka's queue is full (queue.buffering.max.messages/kbytes): deliveries make room.
                if time.monotonic() - self._progress_at > self.timeout_s:
                    raise ClientError(
                        f"nothing was delivered for {self.timeout_s:g} s with {len(producer)} records waiting for "
                        f"Kafka{f' ({self._client_error})' if self._client_error else ''}: check the brokers"
                    ) from None
                self._serve(0.05)
                continue
            except KafkaException as e:
                if e.args and isinstance(e.args[0], KafkaError) and e.args[0].code() == KafkaError.MSG_SIZE_TOO_LARGE:
                    raise self._too_large(topic, record) from None
                self._serve(0)  # a fatal error's own name (not _FATAL), when the serving raises it
                raise self._stopped(topic, e) from None
            self._queued += 1
            if not self._queued % POLL_EVERY:
                self._serve(0)  # deliveries served as we go, not all at the end
            return
        raise self._stopped(topic, None)

    def _too_large(self, topic: str, record: ProducerRecord) -> NotProducible:
        """A record over the producer's own limit (librdkafka refuses it before sending)."""
        size = sum(len(data or b"") for data in (record.key, record.value, *(v for _, v in record.headers)))
        return NotProducible(
            f"the record is {size} bytes (key, value and headers), over the producer's message.max.bytes "
            f"({self._max_bytes}): give --producer-property message.max.bytes=N, N at most the topic's "
            f"max.message.bytes (`kafkatop configs --topic {topic}` shows it; --alter max.message.bytes=N raises it)"
        )

    def _stopped(self, topic: str, e: KafkaException | None) -> KafkatopError:
        said = f"cannot send to '{topic}'"
        failure: KafkaException | KafkaError | None = e
        words = "the producer stopped" if e is None else describe_error(e)
        if self._fatal is not None:  # its own name, not _FATAL
            failure, words = self._fatal, error_text(self._fatal)
        return refusal(failure, self.doing, self.connection, said, topics=[topic]) or ClientError(f"{said}: {words}")

    def finish(self, timeout_s: float | None = None) -> Produced:
        """Wait up to `timeout_s` (the producer's --timeout) for every delivery; what is still unanswered then is
        purged and counted as failed. After a fatal error nothing more is delivered: what was queued failed."""
        wait = self.timeout_s if timeout_s is None else timeout_s
        if self._fatal is None and self._serve(wait, flush=True) > 0 and self._fatal is None:
            # Without a purge, librdkafka's close would wait for the last record's own message.timeout.ms.
            self._producer.purge()
            self._serve(1.0, flush=True)  # serves the purged records' reports
        if self._fatal is not None:  # nothing more is sent after a fatal error: it is why the rest failed
            why = error_text(self._fatal)
        else:
            why = f"not delivered within --timeout {self.timeout_s:g} s (purged)"
            why += f"; the client said {self._client_error}" if self._client_error else ""
        unanswered = self.unanswered  # purged, or never reported
        if unanswered > 0:
            self._failed[why] += unanswered
        return self.produced

    @property
    def unanswered(self) -> int:
        """Records sent whose delivery was not reported yet."""
        return self._queued - self._delivered - sum(self._failed.values())

    @property
    def produced(self) -> Produced:
        return Produced(self._delivered, sum(self._failed.values()), tuple(self._failed.most_common()), self._refusal)

    def refused(self, topic: str) -> KafkatopError | None:
        """The Refused of an authorization error met (a delivery's, or the fatal error of an idempotent producer
        refused its producer id: what to grant, on `topic`), or None."""
        failure = self._fatal if is_refusal(self._fatal) else self._refusal
        return None if failure is None else refusal(failure, self.doing, self.connection, f"cannot send to '{topic}'",
                                                    topics=[topic])  # fmt: skip

    def close(self) -> None:
        box: list[Any] = [self._producer]
        del self._producer
        handles.release(box)
