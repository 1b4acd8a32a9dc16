"""The producer and consumer consoles' settings and results (standard library only).

Payloads are shown, not stored: `escape_payload` turns bytes into one safe line of text (capped), and only that text
is kept in `Delivery` and `Received`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

from kafkatop.backends.model.acls import Grant
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.text import escaped
from kafkatop.backends.model.topic_partition import TopicPartition

Acks = Literal["0", "1", "all"]


Compression = Literal["none", "gzip", "snappy", "lz4", "zstd"]


# "paused": in its group, holding its partitions, fetching nothing (the console's Pause: a stuck consumer, on purpose)
ConsumerState = Literal["joining", "consuming", "paused", "stopping", "stopped", "failed"]


ChangeKind = Literal["assigned", "revoked", "lost"]


MAX_SHOWN_CHARS = 1000  # per key or value: a console line, not a hex dump


class ClientError(KafkatopError):
    """A console or group action failed, or was refused before anything was sent; the message says what to do."""


def check_partition(topic: str, partition: int | None, count: int) -> None:
    """A partition asked for (None: any) against the topic's `count`: ClientError when it is not one of them."""
    if partition is not None and not 0 <= partition < count:
        raise ClientError(
            f"partition {partition} does not exist: topic '{topic}' has {count} partition{'s' if count != 1 else ''} "
            f"(0–{count - 1})"
        )


class NoSuchTopic(ClientError):
    """The topic a console or a reset named is not in the cluster's metadata. The message says how to create it from
    the command line; the live view says which key does it."""

    def __init__(self, topic: str, message: str) -> None:
        super().__init__(message)
        self.topic = topic


# --- showing payloads -----------------------------------------------------------------------------------------------


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
                piece = escaped(ch)
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
    grants: tuple[Grant, ...] = ()  # refused by the authorizer: the ACLs that would let it through
    headers: int = 0  # how many headers the record carried


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
    grants: tuple[Grant, ...] = ()  # when the problem is the authorizer's refusal: the ACLs that would end it


@dataclass(frozen=True, slots=True)
class ConsoleActivity:
    deliveries: tuple[Delivery, ...]
    received: tuple[Received, ...]
    changes: tuple[AssignmentChange, ...]
    dropped: int
    consumers: tuple[ConsumerView, ...]
