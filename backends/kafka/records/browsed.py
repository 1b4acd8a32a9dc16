"""A librdkafka message as kafkatop sees a record (a BrowsedRecord): its headers as bytes, its timestamp's kind — and,
in a context with a mask, as the mask lets it be seen (model/masking.py), before anything else gets it: the browser's
pages, searches and reads, and the consumer console (consumed.py)."""

from __future__ import annotations

from confluent_kafka import TIMESTAMP_CREATE_TIME, TIMESTAMP_LOG_APPEND_TIME, Message

from kafkatop.backends.model.masking import MaskRules, mask_record
from kafkatop.backends.model.messages import BrowsedRecord, TimestampType

_TIMESTAMP_TYPES = {
    TIMESTAMP_CREATE_TIME: TimestampType.CREATE_TIME,
    TIMESTAMP_LOG_APPEND_TIME: TimestampType.LOG_APPEND_TIME,
}


def headers_of(m: Message) -> tuple[tuple[str, bytes | None], ...]:
    raw = m.headers()
    if not raw:
        return ()
    pairs = raw.items() if isinstance(raw, dict) else raw
    return tuple((name, value.encode() if isinstance(value, str) else value) for name, value in pairs)


def record_of(m: Message) -> BrowsedRecord:
    ts_type, ts = m.timestamp()
    kind = _TIMESTAMP_TYPES.get(ts_type, TimestampType.NOT_AVAILABLE)
    headers = headers_of(m)
    return BrowsedRecord(
        str(m.topic()), int(m.partition() or 0), int(m.offset() or 0), ts if kind is not TimestampType.NOT_AVAILABLE
        else None, kind, m.key(), m.value(), headers, m.leader_epoch(),
    )  # fmt: skip


def seen(m: Message, mask: MaskRules | None) -> BrowsedRecord:
    """The record as this context may see it."""
    r = record_of(m)
    return r if mask is None else mask_record(r, mask)
