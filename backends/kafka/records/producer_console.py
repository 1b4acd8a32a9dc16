"""The producer console: sends typed or pasted lines (optionally "key<sep>value", like `parse.key=true`), or records
already encoded (a key, a value and headers as bytes: the live view's console in a topic's formats), and reports each
message's delivery (partition, offset, latency, or Kafka's error) — the labs' kafka-console-producer.

Threading: the TUI calls it from thread workers and drains reports about ten times a second, so every method is
thread-safe, `deliveries` never waits on the network, and the report buffer is bounded (what overflows is counted,
never kept). Every call that waits on Kafka has an explicit timeout.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Producer

from kafkatop.backends.insight.grants import Doing, grants_for, principal_of, refusals
from kafkatop.backends.kafka import handles
from kafkatop.backends.kafka.cluster.metadata import METADATA_TTL_S, TopicCache
from kafkatop.backends.kafka.errors import PURGED, describe_error, error_text
from kafkatop.backends.kafka.refusal import refusal, topic_refusal
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.consoles import (
    DEFAULT_PRODUCER_SETTINGS,
    ClientError,
    Delivery,
    ProducerSettings,
    check_partition,
    escape_payload,
    split_key,
)
from kafkatop.backends.model.errors import KafkatopError

QUEUE_FULL_WAIT_S = 2.0  # how long send() waits for room in librdkafka's queue before giving up


MAX_DELIVERY_REPORTS = 10_000


def _utf8(text: str | None) -> bytes | None:
    return None if text is None else text.encode("utf-8")


def _fatal(err: KafkaError) -> bool:
    """The producer's fatal error, or produce()'s refusal once there is one (_FATAL, not itself flagged fatal)."""
    return bool(err.fatal()) or err.code() == KafkaError._FATAL


class ProducerSession:
    """One producer for the console; `reconfigure` replaces it with other settings.

    Messages fail after message.timeout.ms, 30 s unless the connection's settings say otherwise (librdkafka's 5 minutes
    would leave a console waiting long after a lab stopped the brokers).
    """

    def __init__(
        self,
        connection: KafkaConnection,
        settings: ProducerSettings = DEFAULT_PRODUCER_SETTINGS,
        metadata_timeout_s: float = 5.0,
    ) -> None:
        self.connection = connection
        # Guards the producer handle: sends, reconfigure and close take turns; deliveries() never waits for it.
        self._lock = threading.RLock()
        self._reports_lock = threading.Lock()
        self._reports: deque[Delivery] = deque(maxlen=MAX_DELIVERY_REPORTS)
        self._dropped = 0
        self._pending = 0
        self._last_error: str | None = None
        self._fatal = False  # librdkafka said the handle cannot go on (_renew)
        # Why: the records it purged then are reported as _PURGE_QUEUE, which names neither the refusal nor a grant.
        self._fatal_error: KafkaError | None = None
        self._seq = itertools.count(1)
        self._settings = settings
        self._producer: Producer | None = self._new_producer(settings)
        self._topics = TopicCache(
            self._list_topics, connection.bootstrap_servers, metadata_timeout_s, METADATA_TTL_S, self._refused
        )
        self._principal = principal_of(connection.client_settings)

    # --- the handle -------------------------------------------------------------------------------------------------
    def _new_producer(self, settings: ProducerSettings) -> Producer:
        config = self.connection.config("kafkatop-producer")
        config.setdefault("message.timeout.ms", 30_000)
        config.update(settings.producer_config())
        config["allow.auto.create.topics"] = False  # a topic asked for by name (TopicCache) is never created
        config["error_cb"] = self._on_error
        try:
            return handles.producer(config)
        except (KafkaException, ValueError, TypeError) as e:
            raise ClientError(f"invalid producer configuration: {self.connection.redact(describe_error(e))}") from None

    def _current(self) -> Producer:
        producer = self._producer
        if producer is None:
            raise ClientError("the producer is closed: open a new producer console")
        return producer

    def _list_topics(self, timeout_s: float) -> Any:
        return self._current().list_topics(timeout=timeout_s)

    def _refused(self, topic: str, timeout_s: float) -> KafkatopError | None:
        list_topic = self._current().list_topics  # allow.auto.create.topics is off: a topic named is never created
        return topic_refusal(list_topic, topic, timeout_s, self._doing, self.connection, f"cannot send to '{topic}'")

    @property
    def _doing(self) -> Doing:
        return "idempotent produce" if self._settings.idempotence else "produce"

    def _on_error(self, err: KafkaError) -> None:
        # Client-wide trouble (all brokers down, authentication): shown beside the deliveries.
        self._last_error = error_text(err)
        self._fatal = self._fatal or _fatal(err)
        if err.fatal():
            self._fatal_error = err

    def _keep_fatal(self, e: KafkaException | SystemError) -> None:
        """A fatal error poll() raised (or left set, so that confluent-kafka's next call back into Python failed of
        it as a SystemError): the handle goes no further, and its purged records say it."""
        cause = e if isinstance(e, KafkaException) else e.__cause__
        if isinstance(cause, KafkaException) and cause.args and isinstance(cause.args[0], KafkaError):
            if _fatal(cause.args[0]):
                self._fatal = True
                self._fatal_error = self._fatal_error or cause.args[0]
                self._last_error = error_text(self._fatal_error)
            return
        if isinstance(e, KafkaException):
            raise e

    @property
    def settings(self) -> ProducerSettings:
        return self._settings

    @property
    def last_error(self) -> str | None:
        """The latest client-wide error librdkafka reported (e.g. all brokers down), if any."""
        return self._last_error

    @property
    def dropped(self) -> int:
        """Delivery reports dropped, since the session started, because nobody drained them in time."""
        with self._reports_lock:
            return self._dropped

    def reconfigure(self, settings: ProducerSettings) -> None:
        """Deliver what is queued, then go on with a new producer made with `settings`.

        The new producer is made first: settings librdkafka refuses leave the session as it was.
        """
        with self._lock:
            old = self._current()
            new = self._new_producer(settings)
            self._shutdown(old, 5.0)
            self._producer, self._settings = new, settings
            handles.release([old])
            del old

    def close(self, timeout_s: float = 5.0) -> None:
        """Deliver what is queued for up to `timeout_s`; what is left then is reported as failed (purged)."""
        with self._lock:
            producer, self._producer = self._producer, None
            if producer is not None:
                self._shutdown(producer, timeout_s)
                handles.release([producer])
                del producer

    def _shutdown(self, producer: Producer, timeout_s: float) -> None:
        try:
            if producer.flush(timeout_s) > 0:
                # Without a purge, librdkafka's close would wait for the last message's own timeout.
                producer.purge()
                producer.flush(1.0)  # serves the purged messages' reports
        except KafkaException:  # a fatal error (see _renew): nothing more is delivered, and nothing waits
            pass
        producer.close()

    def _renew(self) -> None:
        """After a fatal error librdkafka's handle sends nothing more: an idempotent producer refused its producer id
        (InitProducerId: CLUSTER_AUTHORIZATION_FAILED while its user may Write on no topic) stays refused even once an
        ACL lets it. The next send makes a new producer with the same settings."""
        if self._fatal:
            self._fatal = False
            self.reconfigure(self._settings)
            self._fatal_error = None  # its purged records were reported by the old handle, named by it

    # --- sending ----------------------------------------------------------------------------------------------------
    def send(self, topic: str, line: str) -> int:
        """Queue one line (split into key and value when a key separator is set); returns its sequence number.

        Nothing is sent when the line has no key separator, the topic does not exist (checked in metadata, read
        at most every 10 s) or the partition is out of range: a ClientError says why.
        """
        settings = self._settings
        key, value = split_key(line, settings.key_separator)
        check_partition(topic, settings.partition, self._topics.partitions(topic))
        return self._produce(topic, _utf8(key), value.encode("utf-8"), settings.partition)

    def send_record(
        self, topic: str, key: bytes | None, value: bytes | None, headers: Sequence[tuple[str, bytes]] = ()
    ) -> int:
        """Queue one record as its bytes (None: no key; a None value is a tombstone), with its headers, to the
        partition the settings name; returns its sequence number. Checked as send() is, the key separator aside."""
        settings = self._settings
        check_partition(topic, settings.partition, self._topics.partitions(topic))
        return self._produce(topic, key, value, settings.partition, tuple(headers))

    def send_many(self, topic: str, lines: Sequence[str]) -> int:
        """Queue pasted lines, blank ones skipped; returns how many were queued.

        Every line's key is checked before any is sent, so a bad line sends nothing.
        """
        settings = self._settings
        parsed = [
            split_key(line, settings.key_separator, number)
            for number, line in enumerate(lines, start=1)
            if line.strip()
        ]
        if not parsed:
            return 0
        check_partition(topic, settings.partition, self._topics.partitions(topic))
        for queued, (key, value) in enumerate(parsed):
            try:
                self._produce(topic, _utf8(key), value.encode("utf-8"), settings.partition)
            except ClientError as e:
                raise ClientError(f"{e} ({queued} of {len(parsed)} lines were queued before)") from None
        return len(parsed)

    def send_test_messages(self, topic: str, count: int, prefix: str = "m") -> int:
        """Queue the labs' test messages: values m1…mN, keyed k1…kN when a key separator is set.

        Keyless ones go round-robin over the partitions (unless a partition is set): sent in one burst, librdkafka's
        sticky partitioner would put them all on one partition, and the labs want to see them spread.
        """
        if not 1 <= count <= 1_000_000:
            raise ClientError(f"the number of test messages must be between 1 and 1000000, not {count}")
        settings = self._settings
        partitions = self._topics.partitions(topic)
        check_partition(topic, settings.partition, partitions)
        for i in range(1, count + 1):
            key = f"k{i}" if settings.key_separator is not None else None
            partition = settings.partition
            if partition is None and key is None:
                partition = (i - 1) % partitions
            try:
                self._produce(topic, _utf8(key), f"{prefix}{i}".encode(), partition)
            except ClientError as e:
                raise ClientError(f"{e} ({i - 1} of {count} test messages were queued before)") from None
        return count

    def _produce(
        self,
        topic: str,
        key: bytes | None,
        value: bytes | None,
        partition: int | None,
        headers: tuple[tuple[str, bytes], ...] = (),
        renewed: bool = False,
    ) -> int:
        shown_key = None if key is None else escape_payload(key)
        shown_value = escape_payload(value)
        with self._lock:
            self._renew()
            producer = self._current()
            seq = next(self._seq)
            started = time.monotonic()
            report = self._reporter(seq, topic, shown_key, shown_value, len(headers), started)
            with self._reports_lock:
                self._pending += 1  # before produce(): another thread's poll may report it at once
            give_up = started + QUEUE_FULL_WAIT_S
            try:
                while True:
                    try:
                        producer.produce(
                            topic,
                            value=value,
                            key=key,
                            partition=-1 if partition is None else partition,
                            on_delivery=report,
                            headers=list(headers) if headers else None,
                        )
                        break
                    except BufferError:
                        # librdkafka's queue is full (queue.buffering.max.messages/kbytes): let deliveries drain it.
                        if time.monotonic() >= give_up:
                            raise ClientError(
                                f"the producer's queue is full ({len(producer)} messages waiting for Kafka): "
                                "the brokers do not keep up or do not answer; wait, or check the brokers"
                            ) from None
                        producer.poll(0.05)
            except KafkaException as e:
                with self._reports_lock:
                    self._pending -= 1
                if not renewed and e.args and isinstance(e.args[0], KafkaError) and _fatal(e.args[0]):
                    self._fatal = True  # its error_cb not served yet: a new producer, and this line through it
                    return self._produce(topic, key, value, partition, headers, renewed=True)
                said = f"cannot send to '{topic}'"
                raise refusal(e, self._doing, self.connection, said, topics=[topic]) or ClientError(
                    f"{said}: {describe_error(e)}"
                ) from None
            except ClientError:
                with self._reports_lock:
                    self._pending -= 1
                raise
            producer.poll(0)  # serve reports while sending in bulk, even when nobody drains
        return seq

    def _reporter(
        self, seq: int, topic: str, key: str | None, value: str, headers: int, started: float
    ) -> Callable[[KafkaError | None, Any], None]:
        def report(err: KafkaError | None, msg: Any) -> None:
            partition, offset = msg.partition(), msg.offset()
            if err is not None and err.code() in PURGED and self._fatal_error is not None:
                err = self._fatal_error  # purged because the handle stopped: that is the why, and what to grant
            grants = grants_for(err.name(), self._doing, self._principal, topics=[topic]) if err is not None else ()
            delivery = Delivery(
                seq=seq,
                topic=topic,
                partition=partition if partition is not None and partition >= 0 else None,
                offset=offset if err is None and offset is not None and offset >= 0 else None,
                key=key,
                value=value,
                error=None if err is None else f"{err.name()}: {refusals(grants)}" if grants else error_text(err),
                latency_ms=(time.monotonic() - started) * 1000 if err is None else None,
                grants=grants,
                headers=headers,
            )
            with self._reports_lock:
                self._pending -= 1
                if len(self._reports) == self._reports.maxlen:
                    self._dropped += 1
                self._reports.append(delivery)

        return report

    # --- results ----------------------------------------------------------------------------------------------------
    def deliveries(self, max_items: int = 1000) -> list[Delivery]:
        """Delivery reports that arrived since the last call, oldest first; never waits on the network."""
        # A send or reconfigure holding the handle serves reports itself; skip polling rather than wait for it.
        if self._lock.acquire(blocking=False):
            try:
                if self._producer is not None:
                    self._producer.poll(0)
            except (KafkaException, SystemError) as e:  # a fatal error: kept, said by the records it stopped
                self._keep_fatal(e)
            finally:
                self._lock.release()
        with self._reports_lock:
            return [self._reports.popleft() for _ in range(min(max_items, len(self._reports)))]

    def in_flight(self) -> int:
        """Messages sent whose delivery report has not arrived yet."""
        with self._reports_lock:
            return self._pending
