"""The message browser's values: records as a partition holds them, where to start reading, a page of them, and a
search over a bounded range. Read with assign() and no group: browsing commits nothing and moves no group's offsets."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Literal

from kafkatop.backends.model.consoles import ClientError
from kafkatop.backends.model.errors import BadInput

Isolation = Literal["read_uncommitted", "read_committed"]
ISOLATIONS: tuple[Isolation, ...] = ("read_uncommitted", "read_committed")

PAGE_SIZE = 50
MAX_MATCHES = 500  # a search keeps the first matches; it still counts them all


class BrowseRefused(ClientError, BadInput):
    """What was asked cannot be read (no such topic or partition, an empty search, an invalid regular expression);
    the message says what to change."""


class TimestampType(Enum):
    """A record's timestamp: set by its producer (CreateTime) or by the broker (LogAppendTime, the topic's
    message.timestamp.type)."""

    CREATE_TIME = "CreateTime"
    LOG_APPEND_TIME = "LogAppendTime"
    NOT_AVAILABLE = "NoTimestamp"


@dataclass(frozen=True, slots=True)
class BrowsedRecord:
    topic: str
    partition: int
    offset: int
    timestamp_ms: int | None
    timestamp_type: TimestampType
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...] = ()
    leader_epoch: int | None = None
    masked: tuple[str, ...] = ()  # the fields a context's mask changed (key, value, headers): model/masking.py

    @property
    def size(self) -> int:
        """Bytes of key, value and headers (names and values): what the record carries, framing aside."""
        return (
            len(self.key or b"")
            + len(self.value or b"")
            + sum(len(name.encode()) + len(value or b"") for name, value in self.headers)
        )


class SeekKind(Enum):
    OFFSET = "offset"
    TIMESTAMP = "timestamp"  # the first record at or after it (ListOffsets by time)
    BEGINNING = "beginning"
    END = "end"  # the last page: the records before the end


@dataclass(frozen=True, slots=True)
class Seek:
    kind: SeekKind
    value: int | None = None  # the offset, or the timestamp in ms since the epoch

    @classmethod
    def offset(cls, offset: int) -> Seek:
        return cls(SeekKind.OFFSET, offset)

    @classmethod
    def timestamp(cls, ms: int) -> Seek:
        return cls(SeekKind.TIMESTAMP, ms)


BEGINNING = Seek(SeekKind.BEGINNING)
END = Seek(SeekKind.END)


@dataclass(frozen=True, slots=True)
class Watermarks:
    """A partition's log start (low) and end (high: the next offset to be written)."""

    partition: int
    low: int
    high: int

    @property
    def count(self) -> int:
        return self.high - self.low


@dataclass(frozen=True, slots=True)
class Page:
    """Records of one partition from `start` on, at most the page size, never past the end read when it was asked."""

    topic: str
    partition: int
    start: int
    records: tuple[BrowsedRecord, ...]
    low: int
    high: int
    isolation: Isolation
    note: str | None = None  # how the seek was read: "offset 3 is before the log start 120: from 120"

    @property
    def next_start(self) -> int:
        return self.records[-1].offset + 1 if self.records else self.start

    @property
    def has_previous(self) -> bool:
        return self.start > self.low

    @property
    def has_next(self) -> bool:
        return self.next_start < self.high


SearchField = Literal["key", "value", "headers"]
SEARCH_FIELDS: tuple[SearchField, ...] = ("key", "value", "headers")


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """A substring (or regular expression) over key, value and/or headers (names and values) of the records of
    `partitions` (None: all) from `start` (per partition; None: each partition's log start) on, at most `limit`
    records in all, never past the ends read when the search began. The key and value are searched as bytes and,
    where the browser has a codec, decoded; a text starting with `.`, `key.` or `value.` (not a regex) is a path
    over the decoded key or value (`.customer.id == 42`: backends/insight/record_path.py)."""

    topic: str
    text: str
    regex: bool = False
    ignore_case: bool = False
    fields: tuple[SearchField, ...] = SEARCH_FIELDS
    partitions: tuple[int, ...] | None = None
    start: int | None = None
    limit: int = 1_000_000
    isolation: Isolation = "read_uncommitted"


@dataclass(frozen=True, slots=True)
class SearchProgress:
    scanned: int
    total: int  # records in the range (an upper bound under read_committed: aborted records are never read)
    matches: int
    found: tuple[BrowsedRecord, ...]  # the first MAX_MATCHES
    elapsed_s: float
    done: bool = False
    cancelled: bool = False
    error: str | None = None

    @property
    def records_per_s(self) -> float:
        return self.scanned / self.elapsed_s if self.elapsed_s > 0 else 0.0
