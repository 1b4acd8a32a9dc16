"""The TUI's producer and consumer consoles, and consumer-group offset resets.

They replace the kafka-console-producer / kafka-console-consumer terminals of the labs and
`kafka-consumer-groups --reset-offsets --execute`:

- `ProducerSession` sends typed or pasted lines (optionally "key<sep>value", like `parse.key=true`) and reports
  each message's delivery (partition, offset, latency, or Kafka's error).
- `ConsumerPool` runs console consumers, each a `confluent_kafka.Consumer` in its own daemon thread, alone in a
  group of its own (publish/subscribe) or sharing one (the group splits the partitions, and rebalances when one
  joins or leaves). Records, assignment changes and each consumer's state are kept for the UI to drain.
- `GroupAdmin` resets a group's committed offsets, refusing while the group has members, as Kafka does.

Threading: the TUI calls these from thread workers and drains results about ten times a second, so every method
is thread-safe, `deliveries`, `drain` and `views` never wait on the network, and every buffer is bounded (what
overflows is counted, never kept). Every call that waits on Kafka has an explicit timeout.

Payloads are shown, not stored: `escape_payload` turns bytes into one safe line of text (capped), and only that
text is buffered.
"""

from __future__ import annotations

import itertools
import secrets
import threading
import time
import unicodedata
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from confluent_kafka import (
    TIMESTAMP_NOT_AVAILABLE,
    Consumer,
    ConsumerGroupTopicPartitions,
    KafkaError,
    KafkaException,
    Producer,
)
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec

from kafkatop.backends.admin import LIBRDKAFKA_LOGGER, describe_error, redact
from kafkatop.backends.errors import KafkatopError
from kafkatop.backends.groups import group_state
from kafkatop.backends.model import GroupState, TopicPartition

Acks = Literal["0", "1", "all"]
Compression = Literal["none", "gzip", "snappy", "lz4", "zstd"]
ConsumerState = Literal["joining", "consuming", "stopping", "stopped", "failed"]
ChangeKind = Literal["assigned", "revoked", "lost"]
ResetTarget = Literal["earliest", "latest", "offset", "timestamp"]

MAX_SHOWN_CHARS = 1000  # per key or value: a console line, not a hex dump
METADATA_TTL_S = 10.0
QUEUE_FULL_WAIT_S = 2.0  # how long send() waits for room in librdkafka's queue before giving up
MAX_DELIVERY_REPORTS = 10_000
MAX_ASSIGNMENT_CHANGES = 1_000
CONSUME_BATCH = 500
CONSUME_WAIT_S = 0.2  # also how fast a consumer thread notices stop()
POSITION_TIMEOUT_S = 5.0
# ListOffsets' special timestamps: the log start and the log end.
_EARLIEST, _LATEST = -2, -1
STOP_TIMEOUT_S = 10.0
# Errors Kafka answers an offset commit with when the group has members (the admin commit is no member of it).
_GROUP_ACTIVE_CODES = frozenset(
    {
        KafkaError.UNKNOWN_MEMBER_ID,
        KafkaError.REBALANCE_IN_PROGRESS,
        KafkaError.ILLEGAL_GENERATION,
        getattr(KafkaError, "FENCED_MEMBER_EPOCH", KafkaError.UNKNOWN_MEMBER_ID),
        getattr(KafkaError, "STALE_MEMBER_EPOCH", KafkaError.UNKNOWN_MEMBER_ID),
    }
)


class ClientError(KafkatopError):
    """A console or group action failed, or was refused before anything was sent; the message says what to do."""


# --- showing payloads -----------------------------------------------------------------------------------------------
_NAMED_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
# Controls (ESC would drive the terminal), invisible format characters (bidi overrides, zero-width), line and
# paragraph separators: shown as escapes, so one record stays one visible line.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def _escape_char(ch: str) -> str:
    named = _NAMED_ESCAPES.get(ch)
    if named is not None:
        return named
    if unicodedata.category(ch) not in _HIDDEN_CATEGORIES:
        return ch
    cp = ord(ch)
    if cp < 0x100:
        return f"\\x{cp:02x}"
    return f"\\u{cp:04x}" if cp < 0x10000 else f"\\U{cp:08x}"


def _utf8_len(ch: str) -> int:
    cp = ord(ch)
    return 1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4


def escape_payload(data: bytes | None, max_chars: int = MAX_SHOWN_CHARS) -> str:
    """A key or value as one printable line: never raises, whatever the bytes.

    Valid UTF-8 is decoded; newline, tab and CR become \\n, \\t, \\r, other control and invisible characters
    \\xNN / \\uNNNN, and bytes that are not UTF-8 \\xNN. A backslash in the data is left as it is (JSON reads
    better that way), so the text is for reading, not for turning back into bytes. Beyond `max_chars` the text
    is cut (never inside an escape) and ends with "…(+N bytes)", N being the bytes not shown. None (a tombstone,
    or no payload) gives "".
    """
    if data is None:
        return ""
    if max_chars < 1:
        raise ValueError(f"max_chars must be at least 1, not {max_chars}")
    # Every shown piece eats at most 4 bytes, so this prefix always fills max_chars; a character cut at its end
    # is never reached. Payloads of megabytes cost no more than short ones.
    head = bytes(data[: max_chars * 4 + 8])
    out: list[str] = []
    shown = 0  # characters in `out`
    pos = 0  # bytes of `data` shown

    def cut() -> str:
        return "".join(out) + f"…(+{len(data) - pos} bytes)"

    while pos < len(head):
        try:
            text, bad_end = head[pos:].decode("utf-8"), None
        except UnicodeDecodeError as e:
            text, bad_end = head[pos : pos + e.start].decode("utf-8"), pos + e.end
        if text.isprintable() and shown + len(text) <= max_chars:  # the common case: nothing to escape
            out.append(text)
            shown += len(text)
            pos += len(text.encode("utf-8"))
        else:
            for ch in text:
                piece = _escape_char(ch)
                if shown + len(piece) > max_chars:
                    return cut()
                out.append(piece)
                shown += len(piece)
                pos += _utf8_len(ch)
        if bad_end is not None:
            while pos < bad_end:
                if shown + 4 > max_chars:
                    return cut()
                out.append(f"\\x{head[pos]:02x}")
                shown += 4
                pos += 1
    return cut() if pos < len(data) else "".join(out)


# --- shared plumbing ------------------------------------------------------------------------------------------------
def _kafka_error_text(err: KafkaError) -> str:
    return describe_error(KafkaException(err))


def _error_code(exc: BaseException) -> int | None:
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        return int(exc.args[0].code())
    return None


def _client_config(bootstrap: str, client_config: Mapping[str, str] | None, client_id: str) -> dict[str, Any]:
    config: dict[str, Any] = dict(client_config or {})
    config["bootstrap.servers"] = bootstrap
    config.setdefault("client.id", client_id)
    config["logger"] = LIBRDKAFKA_LOGGER  # never onto the terminal, which the TUI owns
    return config


def _admin_client(bootstrap: str, client_config: Mapping[str, str] | None) -> AdminClient:
    config = _client_config(bootstrap, client_config, "kafkatop")
    try:
        return AdminClient(config)
    except (KafkaException, ValueError, TypeError) as e:
        raise ClientError(f"invalid client configuration: {redact(describe_error(e), config)}") from None


def _no_topic(topic: str) -> ClientError:
    return ClientError(
        f"topic '{topic}' does not exist: create it first (kafka-topics.sh --create --topic {topic} …, or kafkatop's "
        "create-topic), then try again"
    )


class _TopicCache:
    """Partition counts of the cluster's topics, from an all-topics Metadata request re-read every `ttl_s`.

    Topics are never asked for by name: a Metadata request naming a topic makes a broker with
    auto.create.topics.enable (Kafka's default, and the librdkafka mock's) create it, and a console must not
    create topics by mistyping them. A topic not found is asked for again at once (it may have just been created).
    """

    def __init__(self, fetch: Callable[[float], Any], bootstrap: str, timeout_s: float, ttl_s: float) -> None:
        self._fetch = fetch
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
                errors[name] = _kafka_error_text(t.error)
        self._counts, self._errors = counts, errors
        self._read_at = time.monotonic()

    def partitions(self, topic: str) -> int:
        """The topic's partition count; ClientError when it does not exist or has no partitions yet."""
        with self._lock:
            if topic not in self._counts or time.monotonic() - self._read_at >= self._ttl_s:
                self._refresh()
            count, error = self._counts.get(topic), self._errors.get(topic)
        if count is None:
            raise _no_topic(topic)
        if count == 0:
            raise ClientError(f"topic '{topic}' has no partitions yet ({error or 'no leader'}): try again in a moment")
        return count


def _check_partition(topic: str, partition: int | None, count: int) -> None:
    if partition is not None and not 0 <= partition < count:
        raise ClientError(
            f"partition {partition} does not exist: topic '{topic}' has {count} partition{'s' if count != 1 else ''} "
            f"(0–{count - 1})"
        )


# --- producer -------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ProducerSettings:
    """What kafka-console-producer takes as --producer-property / --property; checked when built."""

    acks: Acks = "all"
    idempotence: bool = True  # enable.idempotence; librdkafka refuses it with acks other than all
    compression: Compression = "none"
    key_separator: str | None = None  # parse.key=true key.separator=…; None: no keys
    partition: int | None = None  # every message to this partition; None: the partitioner decides
    linger_ms: int = 5

    def __post_init__(self) -> None:
        if self.acks not in get_args(Acks):
            raise ClientError(f"acks must be one of 0, 1, all, not {self.acks!r}")
        if self.idempotence and self.acks != "all":
            raise ClientError(
                f"idempotence needs acks=all (acks={self.acks} cannot guarantee exactly one copy per message): "
                "set acks to all, or turn idempotence off"
            )
        if self.compression not in get_args(Compression):
            raise ClientError(
                f"compression must be one of {', '.join(get_args(Compression))}, not {self.compression!r}"
            )
        if self.key_separator is not None and (not self.key_separator or "\n" in self.key_separator):
            raise ClientError("the key separator must be one or more characters on one line (for example ':')")
        if self.partition is not None and self.partition < 0:
            raise ClientError(f"the partition must be 0 or more, not {self.partition}")
        if not 0 <= self.linger_ms <= 900_000:
            raise ClientError(f"linger.ms must be between 0 and 900000, not {self.linger_ms}")

    def producer_config(self) -> dict[str, Any]:
        return {
            "acks": self.acks,
            "enable.idempotence": self.idempotence,
            "compression.type": self.compression,
            "linger.ms": self.linger_ms,
        }


DEFAULT_PRODUCER_SETTINGS = ProducerSettings()


def split_key(line: str, key_separator: str | None, line_number: int | None = None) -> tuple[str | None, str]:
    """(key, value) of a console line: no key without a separator setting, else the text around the first one.

    A line without the separator is refused with kafka-console-producer's own words (LineMessageReader).
    """
    if key_separator is None:
        return None, line
    key, sep, value = line.partition(key_separator)
    if not sep:
        where = f" number {line_number}" if line_number is not None else ""
        raise ClientError(
            f"No key separator found on line{where}: '{line}'. Write KEY{key_separator}VALUE, or turn keys off"
        )
    return key, value


@dataclass(frozen=True, slots=True)
class Delivery:
    """The outcome of one sent message, as its delivery report told it."""

    seq: int  # send()'s return value
    topic: str
    partition: int | None
    offset: int | None  # None with acks=0 (nobody answers) or on error
    key: str | None  # escaped for display
    value: str  # escaped for display
    error: str | None  # Kafka's error, e.g. "NOT_ENOUGH_REPLICAS: …", or "_MSG_TIMED_OUT: …"
    latency_ms: float | None  # send() to acknowledgement; None on error


class ProducerSession:
    """One producer for the console; `reconfigure` replaces it with other settings.

    Messages fail after message.timeout.ms, 30 s unless client_config says otherwise (librdkafka's 5 minutes
    would leave a console waiting long after a lab stopped the brokers).
    """

    def __init__(
        self,
        bootstrap: str,
        client_config: Mapping[str, str] | None = None,
        settings: ProducerSettings = DEFAULT_PRODUCER_SETTINGS,
        metadata_timeout_s: float = 5.0,
    ) -> None:
        self.bootstrap = bootstrap
        self._client_config = dict(client_config or {})
        # Guards the producer handle: sends, reconfigure and close take turns; deliveries() never waits for it.
        self._lock = threading.RLock()
        self._reports_lock = threading.Lock()
        self._reports: deque[Delivery] = deque(maxlen=MAX_DELIVERY_REPORTS)
        self._dropped = 0
        self._pending = 0
        self._last_error: str | None = None
        self._seq = itertools.count(1)
        self._settings = settings
        self._producer: Producer | None = self._new_producer(settings)
        self._topics = _TopicCache(self._list_topics, bootstrap, metadata_timeout_s, METADATA_TTL_S)

    # --- the handle -------------------------------------------------------------------------------------------------
    def _new_producer(self, settings: ProducerSettings) -> Producer:
        config = _client_config(self.bootstrap, self._client_config, "kafkatop-producer")
        config.setdefault("message.timeout.ms", 30_000)
        config.update(settings.producer_config())
        config["error_cb"] = self._on_error
        try:
            return Producer(config)
        except (KafkaException, ValueError, TypeError) as e:
            raise ClientError(f"invalid producer configuration: {redact(describe_error(e), config)}") from None

    def _current(self) -> Producer:
        producer = self._producer
        if producer is None:
            raise ClientError("the producer is closed: open a new producer console")
        return producer

    def _list_topics(self, timeout_s: float) -> Any:
        return self._current().list_topics(timeout=timeout_s)

    def _on_error(self, err: KafkaError) -> None:
        # Client-wide trouble (all brokers down, authentication): shown beside the deliveries.
        self._last_error = _kafka_error_text(err)

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

    def close(self, timeout_s: float = 5.0) -> None:
        """Deliver what is queued for up to `timeout_s`; what is left then is reported as failed (purged)."""
        with self._lock:
            producer, self._producer = self._producer, None
            if producer is not None:
                self._shutdown(producer, timeout_s)

    def _shutdown(self, producer: Producer, timeout_s: float) -> None:
        if producer.flush(timeout_s) > 0:
            # Without a purge, librdkafka's close would wait for the last message's own timeout.
            producer.purge()
            producer.flush(1.0)  # serves the purged messages' reports
        producer.close()

    # --- sending ----------------------------------------------------------------------------------------------------
    def send(self, topic: str, line: str) -> int:
        """Queue one line (split into key and value when a key separator is set); returns its sequence number.

        Nothing is sent when the line has no key separator, the topic does not exist (checked in metadata, read
        at most every 10 s) or the partition is out of range: a ClientError says why.
        """
        settings = self._settings
        key, value = split_key(line, settings.key_separator)
        _check_partition(topic, settings.partition, self._topics.partitions(topic))
        return self._produce(topic, key, value, settings.partition)

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
        _check_partition(topic, settings.partition, self._topics.partitions(topic))
        for queued, (key, value) in enumerate(parsed):
            try:
                self._produce(topic, key, value, settings.partition)
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
        _check_partition(topic, settings.partition, partitions)
        for i in range(1, count + 1):
            key = f"k{i}" if settings.key_separator is not None else None
            partition = settings.partition
            if partition is None and key is None:
                partition = (i - 1) % partitions
            try:
                self._produce(topic, key, f"{prefix}{i}", partition)
            except ClientError as e:
                raise ClientError(f"{e} ({i - 1} of {count} test messages were queued before)") from None
        return count

    def _produce(self, topic: str, key: str | None, value: str, partition: int | None) -> int:
        key_bytes = None if key is None else key.encode("utf-8")
        value_bytes = value.encode("utf-8")
        shown_key = None if key_bytes is None else escape_payload(key_bytes)
        shown_value = escape_payload(value_bytes)
        with self._lock:
            producer = self._current()
            seq = next(self._seq)
            started = time.monotonic()
            report = self._reporter(seq, topic, shown_key, shown_value, started)
            with self._reports_lock:
                self._pending += 1  # before produce(): another thread's poll may report it at once
            give_up = started + QUEUE_FULL_WAIT_S
            try:
                while True:
                    try:
                        producer.produce(
                            topic,
                            value=value_bytes,
                            key=key_bytes,
                            partition=-1 if partition is None else partition,
                            on_delivery=report,
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
                raise ClientError(f"cannot send to '{topic}': {describe_error(e)}") from None
            except ClientError:
                with self._reports_lock:
                    self._pending -= 1
                raise
            producer.poll(0)  # serve reports while sending in bulk, even when nobody drains
        return seq

    def _reporter(
        self, seq: int, topic: str, key: str | None, value: str, started: float
    ) -> Callable[[KafkaError | None, Any], None]:
        def report(err: KafkaError | None, msg: Any) -> None:
            partition, offset = msg.partition(), msg.offset()
            delivery = Delivery(
                seq=seq,
                topic=topic,
                partition=partition if partition is not None and partition >= 0 else None,
                offset=offset if err is None and offset is not None and offset >= 0 else None,
                key=key,
                value=value,
                error=None if err is None else _kafka_error_text(err),
                latency_ms=(time.monotonic() - started) * 1000 if err is None else None,
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
            finally:
                self._lock.release()
        with self._reports_lock:
            return [self._reports.popleft() for _ in range(min(max_items, len(self._reports)))]

    def in_flight(self) -> int:
        """Messages sent whose delivery report has not arrived yet."""
        with self._reports_lock:
            return self._pending


# --- consumers ------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Received:
    consumer: str
    group: str
    topic: str
    partition: int
    offset: int
    timestamp_ms: int | None
    key: str | None  # escaped for display; None: no key
    value: str  # escaped for display


@dataclass(frozen=True, slots=True)
class AssignmentChange:
    consumer: str
    group: str
    kind: ChangeKind  # "lost": taken away without a proper revoke (session timed out, fenced)
    partitions: tuple[TopicPartition, ...]
    at: float  # time.time()


@dataclass(frozen=True, slots=True)
class ConsumerView:
    name: str
    group: str
    topics: tuple[str, ...]
    state: ConsumerState  # "joining": waiting for its (next) assignment, also while the group rebalances
    assignment: tuple[TopicPartition, ...]
    received: int
    error: str | None  # the latest problem (cleared when records flow again); the reason when failed


@dataclass(slots=True, eq=False)
class _Member:
    """One console consumer's state: written by its thread and by stop(), always under the pool's lock."""

    name: str
    group: str
    topics: tuple[str, ...]
    from_beginning: bool
    incremental: bool  # cooperative or KIP-848 assignment (only if client_config asks for it): partitions come and go
    stop: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None
    state: ConsumerState = "joining"
    assignment: set[TopicPartition] = field(default_factory=set)
    received: int = 0
    error: str | None = None

    def view(self) -> ConsumerView:
        return ConsumerView(
            self.name, self.group, self.topics, self.state, tuple(sorted(self.assignment)), self.received, self.error
        )


class ConsumerPool:
    """Console consumers, each in its own thread; the UI drains what they receive.

    Consumers use Kafka's classic group protocol with librdkafka's default assignors (range, then roundrobin:
    eager, "stop the world" rebalances), so a lab sees every partition revoked and reassigned when a consumer
    joins or leaves. Offsets are auto-committed (every 5 s, and on revoke and close), so the group's committed
    offsets and lag show in the groups panel. group.instance.id is never set: a stopped consumer leaves its group
    at once instead of holding its partitions for session.timeout.ms. A consumer is "consuming" once its
    partitions are assigned at known offsets (see _fix_positions): whatever is sent after that, it receives.

    Received records share one buffer of `max_buffered`; when nobody drains, the oldest are dropped and counted.
    """

    def __init__(
        self,
        bootstrap: str,
        client_config: Mapping[str, str] | None = None,
        max_buffered: int = 20_000,
        metadata_timeout_s: float = 5.0,
    ) -> None:
        if max_buffered < 1:
            raise ClientError(f"max_buffered must be at least 1, not {max_buffered}")
        self.bootstrap = bootstrap
        self._client_config = dict(client_config or {})
        self._lock = threading.Lock()
        self._records: deque[Received] = deque(maxlen=max_buffered)
        self._changes: deque[AssignmentChange] = deque(maxlen=MAX_ASSIGNMENT_CHANGES)
        self._dropped = 0
        self._members: dict[str, _Member] = {}
        self._numbers = itertools.count(1)
        self._closed = False
        self._admin: AdminClient | None = None
        self._topics = _TopicCache(self._list_topics, bootstrap, metadata_timeout_s, METADATA_TTL_S)

    def _list_topics(self, timeout_s: float) -> Any:
        with self._lock:
            if self._admin is None:
                self._admin = _admin_client(self.bootstrap, self._client_config)
            admin = self._admin
        return admin.list_topics(timeout=timeout_s)

    # --- starting and stopping --------------------------------------------------------------------------------------
    def start(
        self, topics: Sequence[str], group: str | None = None, from_beginning: bool = False, name: str | None = None
    ) -> str:
        """Start a consumer of `topics`; returns its name (c1, c2, … unless given).

        `group` None gives it a group of its own ("kafkatop-console-<name>-<random>"): publish/subscribe, it gets
        every record. Consumers sharing a group split the partitions between them.

        `from_beginning` is kafka-console-consumer's --from-beginning: auto.offset.reset=earliest. Like there, it
        only matters where the group has no committed offset; a group that committed resumes where it stopped,
        and without it a consumer starts at the end (only records produced from now on).
        """
        wanted = tuple(dict.fromkeys(t.strip() for t in topics if t.strip()))
        if not wanted:
            raise ClientError("no topic given: name at least one topic to consume")
        if name is not None and not name.strip():
            raise ClientError("a consumer's name cannot be blank")
        with self._lock:
            if self._closed:
                raise ClientError("the consumer pool is closed")
        for topic in wanted:
            self._topics.partitions(topic)
        with self._lock:
            if name is None:
                name = next(n for n in (f"c{i}" for i in self._numbers) if n not in self._members)
            name = name.strip()
            old = self._members.get(name)
            if old is not None and old.state not in ("stopped", "failed"):
                raise ClientError(f"a consumer named '{name}' is already running: stop it first, or pick another name")
            group = group.strip() if group is not None and group.strip() else None
            strategy = str(self._client_config.get("partition.assignment.strategy", ""))
            member = _Member(
                name,
                group or f"kafkatop-console-{name}-{secrets.token_hex(3)}",
                wanted,
                from_beginning,
                "cooperative" in strategy or self._client_config.get("group.protocol") == "consumer",
            )
            config = self._consumer_config(member)
            try:
                consumer = Consumer(config)
            except (KafkaException, ValueError, TypeError) as e:
                raise ClientError(f"invalid consumer configuration: {redact(describe_error(e), config)}") from None
            self._members.pop(name, None)  # a stopped namesake gives way; the new one goes last in views()
            self._members[name] = member
            member.thread = threading.Thread(
                target=self._run, args=(member, consumer), name=f"kafkatop-consumer-{name}", daemon=True
            )
            member.thread.start()
        return name

    def _consumer_config(self, member: _Member) -> dict[str, Any]:
        config = _client_config(self.bootstrap, self._client_config, f"kafkatop-{member.name}")
        config.pop("group.instance.id", None)  # static membership would keep a stopped consumer's partitions
        config.update(
            {
                "group.id": member.group,
                "auto.offset.reset": "earliest" if member.from_beginning else "latest",
                "enable.auto.commit": True,
                "error_cb": lambda err: self._on_error(member, err),
            }
        )
        # librdkafka prefetches up to 64 MB per consumer by default; a console needs far less.
        config.setdefault("queued.max.messages.kbytes", 16384)
        return config

    def stop(self, name: str) -> None:
        """Close the consumer: it commits, leaves its group (the others rebalance) and stops.

        Waits up to 10 s for that; a close still running then (brokers gone) finishes in the background, the
        consumer showing as "stopping" meanwhile.
        """
        with self._lock:
            member = self._members.get(name)
            if member is None:
                known = ", ".join(self._members) or "none"
                raise ClientError(f"no consumer named '{name}' (consumers: {known})")
            thread = self._request_stop(member)
        if thread is not None:
            thread.join(STOP_TIMEOUT_S)

    def stop_all(self) -> None:
        """Stop every consumer, together: at most 10 s in all."""
        with self._lock:
            threads = [t for m in self._members.values() if (t := self._request_stop(m)) is not None]
        deadline = time.monotonic() + STOP_TIMEOUT_S
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))

    def _request_stop(self, member: _Member) -> threading.Thread | None:
        if member.state in ("stopped", "failed"):
            return None
        member.state = "stopping"
        member.stop.set()
        return member.thread

    def close(self) -> None:
        """Stop every consumer (bounded: see stop_all) and refuse new ones."""
        with self._lock:
            self._closed = True
        self.stop_all()
        with self._lock:
            self._admin = None  # AdminClient has no close(): dropping it closes its connections

    # --- the consumer threads ---------------------------------------------------------------------------------------
    def _run(self, member: _Member, consumer: Consumer) -> None:
        failure: str | None = None
        try:
            consumer.subscribe(
                list(member.topics),
                on_assign=self._on_change(member, "assigned"),
                on_revoke=self._on_change(member, "revoked"),
                on_lost=self._on_change(member, "lost"),
            )
            while not member.stop.is_set():
                messages = consumer.consume(num_messages=CONSUME_BATCH, timeout=CONSUME_WAIT_S)
                if messages:
                    self._take(member, messages)
        except Exception as e:  # noqa: BLE001 - a consumer thread reports its failure in views(), never dies silently
            failure = describe_error(e)
        with self._lock:
            if member.state != "failed":
                member.state = "stopping"
        try:
            consumer.close()  # commits, and leaves the group: the others rebalance now
        except Exception as e:  # noqa: BLE001
            failure = failure or f"close failed: {describe_error(e)}"
        with self._lock:
            member.assignment.clear()
            member.state = "failed" if failure else "stopped"
            member.error = failure or member.error

    def _take(self, member: _Member, messages: list[Any]) -> None:
        records: list[Received] = []
        problem: str | None = None
        for msg in messages:
            err = msg.error()
            if err is not None:
                if err.code() == KafkaError._PARTITION_EOF:
                    continue
                if err.fatal():
                    raise KafkaException(err)
                problem = _kafka_error_text(err)  # e.g. the topic was deleted
                continue
            ts_type, ts = msg.timestamp()
            key = msg.key()
            records.append(
                Received(
                    consumer=member.name,
                    group=member.group,
                    topic=msg.topic() or "",
                    partition=msg.partition(),
                    offset=msg.offset(),
                    timestamp_ms=None if ts_type == TIMESTAMP_NOT_AVAILABLE else ts,
                    key=None if key is None else escape_payload(key),
                    value=escape_payload(msg.value()),
                )
            )
        with self._lock:
            overflow = len(self._records) + len(records) - (self._records.maxlen or 0)
            if overflow > 0:
                self._dropped += overflow  # the deque lets go of the oldest
            self._records.extend(records)
            member.received += len(records)
            if problem is not None:
                member.error = problem
            elif records:
                member.error = None

    def _fix_positions(self, member: _Member, consumer: Consumer, partitions: list[Any]) -> None:
        """Assign `partitions` at known offsets: the committed ones, else the log start or end, looked up now.

        Left to itself, librdkafka looks up the log end only once fetching starts, after the assignment is
        reported: a record sent in between (the lab's "start a consumer, then send m1…m7") would be skipped. So
        "consuming" means: everything sent from now on will be seen. If the lookup fails, librdkafka does it.
        """
        try:
            positions = consumer.committed(partitions, timeout=POSITION_TIMEOUT_S)
            missing = [tp for tp in positions if tp.offset < 0]
            if missing:
                where = _EARLIEST if member.from_beginning else _LATEST
                found = consumer.offsets_for_times(
                    [KafkaTopicPartition(tp.topic, tp.partition, where) for tp in missing], timeout=POSITION_TIMEOUT_S
                )
                offsets = {(tp.topic, tp.partition): tp.offset for tp in found if tp.error is None}
                for tp in missing:
                    offset = offsets.get((tp.topic, tp.partition))
                    if offset is not None and offset >= 0:
                        tp.offset = offset
        except KafkaException as e:
            with self._lock:
                member.error = f"could not look up where to start: {describe_error(e)}"
            positions = partitions
        if member.incremental:
            consumer.incremental_assign(positions)
        else:
            consumer.assign(positions)

    def _on_change(self, member: _Member, kind: ChangeKind) -> Callable[[Any, list[Any]], None]:
        def changed(consumer: Any, partitions: list[Any]) -> None:
            # Runs in the consumer's thread, inside consume() or close().
            if kind == "assigned" and partitions:
                self._fix_positions(member, consumer, partitions)
            tps = tuple(sorted(TopicPartition(p.topic, p.partition) for p in partitions))
            with self._lock:
                if kind == "assigned":
                    member.assignment.update(tps)
                    if member.state == "joining":
                        member.state = "consuming"
                else:
                    member.assignment.difference_update(tps)
                    if not member.assignment and member.state == "consuming":
                        member.state = "joining"
                self._changes.append(AssignmentChange(member.name, member.group, kind, tps, time.time()))

        return changed

    def _on_error(self, member: _Member, err: KafkaError) -> None:
        with self._lock:
            member.error = _kafka_error_text(err)

    # --- results ----------------------------------------------------------------------------------------------------
    def drain(self, max_records: int = 2000) -> tuple[list[Received], list[AssignmentChange], int]:
        """(records, assignment changes, records dropped since the last drain), oldest first; never waits."""
        with self._lock:
            records = [self._records.popleft() for _ in range(min(max_records, len(self._records)))]
            changes = list(self._changes)
            self._changes.clear()
            dropped, self._dropped = self._dropped, 0
        return records, changes, dropped

    def views(self) -> tuple[ConsumerView, ...]:
        """Every consumer started, stopped ones included, in the order they were started."""
        with self._lock:
            return tuple(m.view() for m in self._members.values())


# --- consumer-group offsets -----------------------------------------------------------------------------------------
def _active_group(group: str, detail: str) -> ClientError:
    return ClientError(
        f"group '{group}' is active ({detail}): stop its consumers first — Kafka only resets an inactive group"
    )


class GroupAdmin:
    """Consumer-group offset resets: `kafka-consumer-groups --reset-offsets --topic T --execute`."""

    def __init__(self, bootstrap: str, client_config: Mapping[str, str] | None = None, timeout_s: float = 10.0) -> None:
        self.bootstrap = bootstrap
        self.timeout_s = timeout_s
        self._admin: AdminClient | None = _admin_client(bootstrap, client_config)
        self._topics = _TopicCache(
            lambda t: self._client().list_topics(timeout=t), bootstrap, timeout_s, ttl_s=METADATA_TTL_S
        )

    def close(self) -> None:
        # AdminClient has no close(); dropping the last reference destroys the handle and its connections.
        self._admin = None

    def _client(self) -> AdminClient:
        if self._admin is None:
            raise ClientError("the group admin client is closed")
        return self._admin

    def _result(self, fut: Future[Any], deadline: float) -> Any:
        # librdkafka fails the future itself after request_timeout; this wait is only a backstop.
        return fut.result(timeout=max(0.0, deadline - time.monotonic()))

    def _deadline(self) -> float:
        return time.monotonic() + self.timeout_s + 1.0

    def _no_answer(self, what: str, e: BaseException) -> ClientError:
        if isinstance(e, TimeoutError) or _error_code(e) == KafkaError._TIMED_OUT:
            return ClientError(
                f"{what}: no answer from Kafka at {self.bootstrap} within {self.timeout_s:g} s: check the brokers"
            )
        return ClientError(f"{what}: {describe_error(e)}")

    # --- reading ----------------------------------------------------------------------------------------------------
    def _partitions(self, topic: str, partitions: Sequence[int] | None) -> list[int]:
        count = self._topics.partitions(topic)
        if partitions is None:
            return list(range(count))
        for p in partitions:
            _check_partition(topic, p, count)
        return sorted(set(partitions))

    def _list_offsets(self, topic: str, partitions: list[int], spec: OffsetSpec, what: str) -> dict[int, int]:
        deadline = self._deadline()
        futures = self._client().list_offsets(
            {KafkaTopicPartition(topic, p): spec for p in partitions}, request_timeout=self.timeout_s
        )
        out: dict[int, int] = {}
        for ktp, fut in futures.items():
            try:
                out[ktp.partition] = int(self._result(fut, deadline).offset)
            except Exception as e:  # noqa: BLE001 - any failure names the partition
                raise self._no_answer(f"cannot read the {what} offset of {topic}-{ktp.partition}", e) from None
        return out

    def committed_offsets(self, group: str, topic: str) -> dict[int, int | None]:
        """The group's committed offset per partition of `topic`; None where it never committed."""
        partitions = self._partitions(topic, None)
        request = ConsumerGroupTopicPartitions(group, [KafkaTopicPartition(topic, p) for p in partitions])
        deadline = self._deadline()
        fut = self._client().list_consumer_group_offsets([request], request_timeout=self.timeout_s)[group]
        try:
            result = self._result(fut, deadline)
        except Exception as e:  # noqa: BLE001
            raise self._no_answer(f"cannot read the offsets of group '{group}'", e) from None
        return {tp.partition: tp.offset if tp.offset >= 0 else None for tp in result.topic_partitions}

    def plan_offsets(
        self,
        group: str,
        topic: str,
        to: ResetTarget,
        value: int | None = None,
        partitions: Sequence[int] | None = None,
    ) -> dict[int, int]:
        """The offsets a reset would commit, per partition (kafka-consumer-groups' --dry-run); nothing changes.

        earliest / latest: the log start / end. offset: `value`, moved into [log start, log end] as Kafka's tool
        does. timestamp: the first offset at or after `value` (epoch ms); where there is none, the log end.
        `value` is ignored for earliest and latest. `partitions` None: all of the topic's.
        """
        if to not in get_args(ResetTarget):
            raise ClientError(f"reset to what? One of {', '.join(get_args(ResetTarget))}, not {to!r}")
        if to in ("offset", "timestamp") and value is None:
            raise ClientError(f"a reset to {'an offset' if to == 'offset' else 'a timestamp'} needs a value")
        if not group.strip():
            raise ClientError("a group id cannot be blank")
        chosen = self._partitions(topic, partitions)
        if to == "earliest":
            return self._list_offsets(topic, chosen, OffsetSpec.earliest(), "earliest")
        latest = self._list_offsets(topic, chosen, OffsetSpec.latest(), "latest")
        if to == "latest":
            return latest
        assert value is not None
        if to == "offset":
            earliest = self._list_offsets(topic, chosen, OffsetSpec.earliest(), "earliest")
            return {p: min(max(value, earliest[p]), latest[p]) for p in chosen}
        found = self._list_offsets(topic, chosen, OffsetSpec.for_timestamp(value), "timestamp's")
        return {p: found[p] if found[p] >= 0 else latest[p] for p in chosen}

    # --- the reset --------------------------------------------------------------------------------------------------
    def _refuse_if_active(self, group: str) -> None:
        deadline = self._deadline()
        fut = self._client().describe_consumer_groups([group], request_timeout=self.timeout_s)[group]
        try:
            desc = self._result(fut, deadline)
        except Exception as e:  # noqa: BLE001
            # Clusters that cannot describe groups (the librdkafka mock, old brokers): the commit itself is
            # refused for a group with members (see reset_offsets). An unknown group has nothing to protect.
            if _error_code(e) in (KafkaError._UNSUPPORTED_FEATURE, KafkaError.GROUP_ID_NOT_FOUND):
                return
            raise self._no_answer(f"cannot describe group '{group}'", e) from None
        state = group_state(desc.state)
        members = len(desc.members or ())
        if state.inactive or (state is GroupState.UNKNOWN and members == 0):
            return
        raise _active_group(group, f"{members} member{'s' if members != 1 else ''}, {state.value}")

    def reset_offsets(
        self,
        group: str,
        topic: str,
        to: ResetTarget,
        value: int | None = None,
        partitions: Sequence[int] | None = None,
    ) -> dict[int, int]:
        """Commit new offsets for `group` on `topic` (see plan_offsets for `to` and `value`); partition -> offset.

        Refused while the group has members, as Kafka refuses it: checked first with DescribeGroups, and, where a
        cluster cannot describe groups, by Kafka's own answer to the commit (UNKNOWN_MEMBER_ID and the like).
        (The librdkafka mock gives that answer for every group that ever had a member, even once it is empty.)
        A consumer of the group started afterwards begins at these offsets.
        """
        self._refuse_if_active(group)
        plan = self.plan_offsets(group, topic, to, value, partitions)
        request = ConsumerGroupTopicPartitions(group, [KafkaTopicPartition(topic, p, o) for p, o in plan.items()])
        deadline = self._deadline()
        fut = self._client().alter_consumer_group_offsets([request], request_timeout=self.timeout_s)[group]
        what = f"cannot reset the offsets of group '{group}'"
        try:
            result = self._result(fut, deadline)
        except Exception as e:  # noqa: BLE001
            if _error_code(e) in _GROUP_ACTIVE_CODES:
                raise _active_group(group, f"Kafka refused the commit: {e.args[0].name()}") from None
            raise self._no_answer(what, e) from None
        failed = [tp for tp in result.topic_partitions if tp.error is not None]
        if failed:
            refused = next((tp.error for tp in failed if tp.error.code() in _GROUP_ACTIVE_CODES), None)
            if refused is not None:
                raise _active_group(group, f"Kafka refused the commit: {refused.name()}")
            reasons = "; ".join(f"{tp.topic}-{tp.partition}: {_kafka_error_text(tp.error)}" for tp in failed)
            raise ClientError(f"{what}: {reasons}")
        return plan


__all__ = [
    "AssignmentChange",
    "ClientError",
    "ConsumerPool",
    "ConsumerView",
    "Delivery",
    "GroupAdmin",
    "ProducerSession",
    "ProducerSettings",
    "Received",
    "escape_payload",
    "split_key",
]
