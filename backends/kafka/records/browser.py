"""The message browser: pages of one partition's records, a search over a bounded range, and a plain read for
`kafkatop consume` — each a Consumer that assign()s partitions and joins no group.

librdkafka wants a group.id even so; each consumer gets a random one it never uses: with assign(), no
auto-commit and no offset store, no group's offsets move. librdkafka still looks up that group's coordinator, which
a principal who may only Read the topic is refused: that error is not the read's (errors.of_unjoined_group).
`enable.partition.eof` tells where a partition ends (its high watermark, or under read_committed its last stable
offset), as kcat -e does, so a read stops at the end instead of waiting for more.

With a RecordCodec, a search also finds a word in the decoded key or value (an Avro record's field) and takes a path
(`.customer.id == 42`); a record is decoded only when its bytes are not its text, or when the path reads it
(payloads.compile_search). Without one, the bytes are searched as they are and a path reads them as JSON.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Generator, Sequence
from contextlib import closing
from functools import partial
from typing import Any

from confluent_kafka import (
    Consumer,
    KafkaError,
    KafkaException,
    Message,
)
from confluent_kafka import TopicPartition as KafkaTopicPartition

from kafkatop.backends.insight.payloads import compile_search
from kafkatop.backends.kafka import handles
from kafkatop.backends.kafka.errors import describe_error, error_text, of_unjoined_group
from kafkatop.backends.kafka.records.browsed import record_of, seen
from kafkatop.backends.kafka.refusal import refusal
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.consoles import ClientError, check_partition
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.formats import AUTO
from kafkatop.backends.model.masking import MaskRules
from kafkatop.backends.model.messages import (
    MAX_MATCHES,
    PAGE_SIZE,
    BrowsedRecord,
    BrowseRefused,
    Isolation,
    Page,
    SearchProgress,
    SearchRequest,
    Seek,
    SeekKind,
    Watermarks,
)
from kafkatop.backends.ports import RecordCodec

Head = tuple[str, int]  # (topic, partition)


def _some(names: list[str], shown: int = 5) -> str:
    """The first few names, and how many more: a read of 300 topics' heads names a few in its error, not all."""
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


BATCH = 1_000  # records per consume() call: one call into librdkafka for many records
POLL_S = 0.1  # how long one consume() waits, and so how soon a cancel or a stop is seen
PROGRESS_EVERY_S = 0.1


class MessageBrowser:
    """Pages of a partition (one consumer per isolation level, kept warm between pages), searches (a consumer each,
    so paging goes on while one runs) and plain reads. Every call blocks: the app calls it from thread workers."""

    def __init__(
        self,
        connection: KafkaConnection,
        timeout_s: float = 10.0,
        codec: RecordCodec | None = None,
        mask: MaskRules | None = None,
    ) -> None:
        self.connection = connection
        self.timeout_s = timeout_s
        self.codec = codec  # the topics' formats: a search decodes by it (None: the bytes only)
        # A context's mask: applied to each record as it is read, before a page, a search or a read sees it.
        self.mask = mask if mask is not None and mask.active else None
        self._lock = threading.Lock()  # one page at a time per consumer
        self._consumers: dict[Isolation, Consumer] = {}
        self._closed = False

    # --- consumers -----------------------------------------------------------------------------------------------
    def _new_consumer(self, isolation: Isolation) -> Consumer:
        config = self.connection.config("kafkatop-browser")
        config.update({
            "group.id": f"kafkatop-browser-{secrets.token_hex(4)}",  # required by librdkafka, never joined
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
            "auto.offset.reset": "earliest",  # an offset deleted meanwhile (retention): from the log start
            "enable.partition.eof": True,
            "isolation.level": isolation,
            "fetch.wait.max.ms": 100,  # at the end of a partition, an empty fetch comes back this soon
        })  # fmt: skip
        try:
            return handles.consumer(config)
        except (KafkaException, ValueError, TypeError) as e:
            raise ClientError(f"invalid client configuration: {self.connection.redact(describe_error(e))}") from None

    def _page_consumer(self, isolation: Isolation) -> Consumer:
        if self._closed:
            raise ClientError("the message browser is closed")
        consumer = self._consumers.get(isolation)
        if consumer is None:
            consumer = self._consumers[isolation] = self._new_consumer(isolation)
        return consumer

    def close(self) -> None:
        """Never waits for a page being read (a dead broker holds one for timeout_s): a consumer still in use is
        released once its reader lets go of it (model/lifetime.py)."""
        self._closed = True
        box: list[Any] = list(self._consumers.values())
        self._consumers.clear()
        handles.release(box)

    def _failed(self, said: str, failure: KafkaException | KafkaError, topic: str) -> KafkatopError:
        """`said`, with Kafka's error; the authorizer's refusal with what to grant (Read on the topic)."""
        words = describe_error(failure) if isinstance(failure, KafkaException) else error_text(failure)
        return refusal(failure, "browse", self.connection, said, topics=[topic]) or ClientError(f"{said}: {words}")

    # --- what a topic holds --------------------------------------------------------------------------------------
    def _partitions(self, consumer: Consumer, topic: str) -> list[int]:
        try:
            metadata = consumer.list_topics(topic, timeout=self.timeout_s)
        except KafkaException as e:
            raise self._failed(f"cannot read topic '{topic}'", e, topic) from None
        found = metadata.topics.get(topic)
        if found is None or found.error is not None and found.error.code() == KafkaError.UNKNOWN_TOPIC_OR_PART:
            raise BrowseRefused(f"no topic '{topic}' in the cluster")
        if found.error is not None:
            raise self._failed(f"cannot read topic '{topic}'", found.error, topic)
        return sorted(found.partitions)

    def _watermarks(self, consumer: Consumer, topic: str, partition: int) -> Watermarks:
        try:
            low, high = consumer.get_watermark_offsets(
                KafkaTopicPartition(topic, partition), timeout=self.timeout_s, cached=False
            )
        except KafkaException as e:
            raise self._failed(f"cannot read where {topic}-{partition} starts and ends", e, topic) from None
        return Watermarks(partition, int(low), int(high))

    def watermarks(self, topic: str, partitions: Sequence[int] | None = None) -> tuple[Watermarks, ...]:
        """Each partition's log start and end (all of the topic's when `partitions` is None)."""
        with self._lock:
            consumer = self._page_consumer("read_uncommitted")
            return self._watermarks_of(consumer, topic, partitions)

    def _watermarks_of(
        self, consumer: Consumer, topic: str, partitions: Sequence[int] | None
    ) -> tuple[Watermarks, ...]:
        known = self._partitions(consumer, topic)
        for p in partitions or ():
            try:
                check_partition(topic, p, len(known))
            except ClientError as e:
                raise BrowseRefused(str(e)) from None
        return tuple(self._watermarks(consumer, topic, p) for p in (partitions if partitions is not None else known))

    # --- where a read starts -------------------------------------------------------------------------------------
    def _start(self, consumer: Consumer, topic: str, wm: Watermarks, seek: Seek, size: int) -> tuple[int, str | None]:
        """The first offset to read for `seek`, and a note when it is not what was asked."""
        if seek.kind is SeekKind.BEGINNING:
            return wm.low, None
        if seek.kind is SeekKind.END:
            return max(wm.low, wm.high - size), None
        assert seek.value is not None
        if seek.kind is SeekKind.OFFSET:
            offset = seek.value if seek.value >= 0 else wm.high + seek.value  # kcat's -o -N: N before the end
            if offset < wm.low:
                return wm.low, f"offset {offset} is before the log start: from {wm.low}"
            if offset > wm.high:
                return wm.high, f"offset {offset} is past the end: the partition ends at {wm.high}"
            return offset, None
        return self._offset_for_time(consumer, topic, wm, seek.value)

    def _offset_for_time(self, consumer: Consumer, topic: str, wm: Watermarks, ms: int) -> tuple[int, str | None]:
        """ListOffsets by time: the first record whose timestamp is at or after `ms`."""
        try:
            [found] = consumer.offsets_for_times([KafkaTopicPartition(topic, wm.partition, ms)], timeout=self.timeout_s)
        except KafkaException as e:
            raise ClientError(f"cannot look up a time in {topic}-{wm.partition}: {describe_error(e)}") from None
        if found.error is not None:
            raise ClientError(f"cannot look up a time in {topic}-{wm.partition}: {error_text(found.error)}")
        if found.offset >= 0:
            return max(wm.low, int(found.offset)), None
        # -1: no record at or after the time. A broker without a time index (librdkafka's mock cluster) answers so
        # for every time: the newest record's timestamp tells, and then the log is searched by halves.
        if wm.count == 0:
            return wm.high, "the partition is empty"
        newest = self._timestamp_at(consumer, topic, wm.partition, wm.high - 1)
        if newest is None or newest < ms:
            return wm.high, "no record at or after that time: at the end"
        lo, hi = wm.low, wm.high - 1
        while lo < hi:
            mid = (lo + hi) // 2
            ts = self._timestamp_at(consumer, topic, wm.partition, mid)
            if ts is not None and ts >= ms:
                hi = mid
            else:
                lo = mid + 1
        return lo, None

    def _timestamp_at(self, consumer: Consumer, topic: str, partition: int, offset: int) -> int | None:
        with closing(self._scan(consumer, topic, {partition: offset}, {partition: offset + 1}, lambda: False)) as read:
            return next((record_of(m).timestamp_ms for m in read), None)

    def first_timestamps(self, starts: dict[Head, int], ends: dict[Head, int]) -> dict[Head, int]:
        """Each partition's (topic, partition) first record at or after its start, before its end: its timestamp
        (ms); a partition with none there, or none with a timestamp, is left out. Every topic in one assignment:
        at 300 topics, one read of their heads, where a read per topic took a fetch cycle each (3 minutes)."""
        found: dict[Head, int] = {}
        with self._lock:
            consumer = self._page_consumer("read_uncommitted")
            with closing(self._scan_heads(consumer, starts, ends, lambda: len(found) == len(starts))) as read:
                for m in read:
                    stamp = record_of(m).timestamp_ms
                    if stamp is not None:
                        found.setdefault((str(m.topic()), int(m.partition() or 0)), stamp)
        return found

    # --- reading -------------------------------------------------------------------------------------------------
    def _scan(self, consumer: Consumer, topic: str, starts: dict[int, int], ends: dict[int, int],
              stopped: Callable[[], bool], batch: int = BATCH) -> Generator[Message, None, None]:  # fmt: skip
        """The records of each partition of `topic` from its start up to its end (exclusive) or the partition's end,
        whichever comes first. Stops when `stopped()` says so; a ClientError when nothing arrives for timeout_s."""
        heads = {(topic, p): start for p, start in starts.items()}
        return self._scan_heads(consumer, heads, {(topic, p): end for p, end in ends.items()}, stopped, batch)

    def _scan_heads(self, consumer: Consumer, starts: dict[Head, int], ends: dict[Head, int],
                    stopped: Callable[[], bool], batch: int = BATCH) -> Generator[Message, None, None]:  # fmt: skip
        """As `_scan`, over partitions of any topics, each keyed (topic, partition)."""
        left = {h: end for h, end in ends.items() if starts[h] < end}
        if not left:
            return
        consumer.assign([KafkaTopicPartition(t, p, starts[(t, p)]) for t, p in left])
        try:
            quiet_since = time.monotonic()
            while left and not stopped():
                messages = consumer.consume(batch, POLL_S)
                if not messages:
                    if time.monotonic() - quiet_since > self.timeout_s:
                        where = _some([f"{t}-{p}" for t, p in sorted(left)])
                        raise ClientError(f"nothing read from {where} in {self.timeout_s:g} s: is its leader up?")
                    continue
                quiet_since = time.monotonic()
                for m in messages:
                    err = m.error()
                    head = (str(m.topic()), int(m.partition() or 0))
                    if err is not None:
                        if err.code() == KafkaError._PARTITION_EOF:
                            left.pop(head, None)
                            continue
                        if of_unjoined_group(err):
                            continue
                        raise self._failed(f"reading {head[0]}-{head[1]}", err, head[0])
                    end = left.get(head)
                    if end is None:
                        continue  # a partition already read to its end, or a record fetched before a re-assign
                    offset = m.offset()
                    if offset is None or offset < starts[head]:
                        continue
                    if offset >= end:
                        left.pop(head)
                        continue
                    yield m
                    if offset + 1 >= end:
                        left.pop(head)
        except KafkaException as e:
            topics = sorted({t for t, _ in starts})
            raise self._failed(f"reading {_some(topics)}", e, topics[0]) from None
        finally:
            consumer.unassign()

    def _record(self, m: Message) -> BrowsedRecord:
        return seen(m, self.mask)

    def page(
        self, topic: str, partition: int, seek: Seek, isolation: Isolation = "read_uncommitted", size: int = PAGE_SIZE
    ) -> Page:
        """Up to `size` records of `partition` from where `seek` points."""
        if size < 1:
            raise BrowseRefused(f"a page holds at least 1 record, not {size}")
        with self._lock:
            consumer = self._page_consumer(isolation)
            [wm] = self._watermarks_of(consumer, topic, [partition])
            start, note = self._start(consumer, topic, wm, seek, size)
            end = min(wm.high, start + size)
            read = self._scan(consumer, topic, {partition: start}, {partition: end}, lambda: False, size)
            with closing(read):
                records = tuple(self._record(m) for m in read)
        return Page(topic, partition, start, records, wm.low, wm.high, isolation, note)

    def previous(self, page: Page, size: int = PAGE_SIZE) -> Page:
        """The page before `page` (from the log start at most)."""
        start = Seek.offset(max(page.low, page.start - size))
        return self.page(page.topic, page.partition, start, page.isolation, size)

    def next(self, page: Page, size: int = PAGE_SIZE) -> Page:
        return self.page(page.topic, page.partition, Seek.offset(page.next_start), page.isolation, size)

    def search(
        self,
        request: SearchRequest,
        on_progress: Callable[[SearchProgress], None],
        cancelled: Callable[[], bool],
    ) -> SearchProgress:
        """Reads the request's range once, matching each record; reports progress about every 0.1 s and once at the
        end (done, cancelled or failed). A consumer of its own: pages can be read meanwhile."""
        codec = None if self.mask is not None else self.codec  # masked records are text, or masked whole
        decode = None if codec is None else partial(codec.decode, request.topic)
        try:
            matches_record = compile_search(request, decode, AUTO if codec is None else codec.format_of(request.topic))
        except ValueError as e:
            raise BrowseRefused(str(e)) from None
        began = time.monotonic()
        found: list[BrowsedRecord] = []
        scanned = matches = total = 0

        def progress(**end: Any) -> SearchProgress:
            return SearchProgress(scanned, total, matches, tuple(found), time.monotonic() - began, **end)

        box: list[Any] = [self._new_consumer(request.isolation)]
        try:
            consumer = box[0]
            wms = self._watermarks_of(consumer, request.topic, request.partitions)
            starts = {w.partition: min(w.high, max(w.low, request.start if request.start is not None else w.low))
                      for w in wms}  # fmt: skip
            ends = {w.partition: w.high for w in wms}
            total = min(request.limit, sum(ends[p] - starts[p] for p in starts))
            reported = began
            with closing(self._scan(consumer, request.topic, starts, ends, cancelled)) as scan:
                for m in scan:
                    scanned += 1
                    # A masked value is never found: with a mask, the match is on what may be seen.
                    seen = self._record(m) if self.mask is not None else None
                    fields = (seen.key, seen.value, list(seen.headers)) if seen else (m.key(), m.value(), m.headers())
                    if matches_record(*fields):
                        matches += 1
                        if len(found) < MAX_MATCHES:
                            found.append(seen or record_of(m))
                    if scanned >= request.limit:
                        break
                    if scanned % 1024 == 0 and time.monotonic() - reported >= PROGRESS_EVERY_S:
                        reported = time.monotonic()
                        on_progress(progress())
            last = progress(done=True, cancelled=cancelled())
        except ClientError as e:
            last = progress(done=True, error=str(e))
        finally:
            consumer = scan = None  # type: ignore[assignment]  # the box holds the last reference
            handles.release(box)
        on_progress(last)
        return last

    def read(
        self,
        topic: str,
        partitions: Sequence[int] | None,
        seek: Seek,
        on_record: Callable[[BrowsedRecord], None],
        isolation: Isolation = "read_uncommitted",
        max_records: int | None = None,
        stopped: Callable[[], bool] = lambda: False,
    ) -> int:
        """`kafkatop consume`: each partition from `seek` to its end, records handed over as they arrive (in order
        within a partition); returns how many. A timestamp seeks each partition to its first record at or after it."""
        box: list[Any] = [self._new_consumer(isolation)]
        count = 0
        try:
            consumer = box[0]
            wms = self._watermarks_of(consumer, topic, partitions)
            starts = {w.partition: self._start(consumer, topic, w, seek, max_records or 0)[0] for w in wms}
            # An END seek without a count reads nothing, as kcat -o end -e.
            ends = {w.partition: w.high for w in wms}
            with closing(self._scan(consumer, topic, starts, ends, stopped)) as scan:
                for m in scan:
                    on_record(self._record(m))
                    count += 1
                    if max_records is not None and count >= max_records:
                        break
        finally:
            consumer = scan = None  # type: ignore[assignment]  # the box holds the last reference
            handles.release(box)
        return count
