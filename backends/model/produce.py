"""`kafkatop produce`'s records and its outcome: a record as read from a line or a JSON line, before its topic's
formats encode it, and what became of the records sent (standard library only)."""

from __future__ import annotations

from dataclasses import dataclass, field

from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.formats import RecordField

Header = tuple[str, bytes | None]


@dataclass(frozen=True, slots=True)
class ProducerRecord:
    """One record to produce, as Kafka's ProducerRecord: None for no key, no value (a tombstone) or no header value;
    partition None: the partitioner places it (by its key); timestamp None: the producer's clock. `binary` names the
    fields given as bytes (base64 in a JSON line): their topic's format never encodes them, they go as they are."""

    key: bytes | None
    value: bytes | None
    headers: tuple[Header, ...] = ()
    partition: int | None = None
    timestamp_ms: int | None = None
    binary: frozenset[RecordField] = frozenset()


class BadLine(BadInput):
    """A line of the input that cannot be read as a record: its number and why (exit 2)."""

    def __init__(self, number: int, reason: str) -> None:
        super().__init__(f"line {number}: {reason}")
        self.number = number
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Produced:
    """What became of the records sent: delivered, failed (each reason once, with how many it failed), and those
    still unanswered when the wait ended (purged: failed too, said so)."""

    delivered: int = 0
    failed: int = 0
    reasons: tuple[tuple[str, int], ...] = ()
    refusal: str | None = field(default=None, compare=False)  # Kafka's authorization error name, if one was met

    @property
    def sent(self) -> int:
        return self.delivered + self.failed

    def summary(self) -> str:
        """'1000 records produced', '998 records produced, 2 failed'."""
        head = f"{self.delivered} record{'s' if self.delivered != 1 else ''} produced"
        return head + (f", {self.failed} failed" if self.failed else "")
