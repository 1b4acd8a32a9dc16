"""Group descriptions and committed offsets, read around the librdkafka 2.16 defects that kill the process.

The AdminSource poll asks `GroupReader` for each group's description and committed offsets; the reasons for reading
them this way, and not with the AdminClient's own group requests, are in GroupReader's docstring.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import Consumer, KafkaError, KafkaException
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient

from kafkatop.backends.kafka import handles
from kafkatop.backends.kafka.errors import Deadline, error_code

# --- group requests -------------------------------------------------------------------------------------------------
# librdkafka's own timeout for a DescribeGroups call: its maximum, on purpose (see GroupReader). A call that waits for
# a coordinator is left to wait, and collected by a later poll, rather than ever timed out by librdkafka.
DESCRIBE_TIMEOUT_S = 3600.0


# A describing client whose oldest call has waited this long is given up (destroyed) before librdkafka's timeout above
# can fire: a coordinator gone for most of an hour, the one case left where destroying a client with a call waiting is
# the lesser evil (see GroupReader).
DESCRIBE_GIVE_UP_S = 3000.0


# How long an offset read waits for its group's description of this poll, to name the topics assigned now: a
# coordinator answers in milliseconds; one that does not must not take the offset read's time as well.
DESCRIPTION_WAIT_S = 0.25


# Threads reading committed offsets: Consumer.committed() blocks, and a group whose coordinator is slow must not hold
# the others up. Each thread reads one group at a time, a round trip of a millisecond or two when all is well.
OFFSET_THREADS = 8


# Offset readers kept at most: each is a Consumer, with ~7 threads and ~15 file descriptors (measured: 20 groups on a
# 3-broker cluster cost 134 threads and 294 fds). Past this many groups, readers are recycled and groups take turns,
# rather than running a process out of file descriptors (a common soft limit is 1024).
MAX_READERS = 48


# An offset reader (a Consumer: a few librdkafka threads and connections) of a group no longer seen is closed after
# this long, not at once: a ListGroups that missed a broker for one poll must not cost every reader its coordinator.
READER_IDLE_S = 60.0


# Answers after which the describing client's coordinator cache is wrong: librdkafka never evicts an entry that is
# in use, so the same client would ask the same broker forever.
COORDINATOR_MOVED = frozenset({KafkaError.NOT_COORDINATOR, KafkaError.COORDINATOR_NOT_AVAILABLE})


# close() waits this long for the handles it destroys; a destroy that hangs (see GroupReader) is left behind.
CLOSE_WAIT_S = 2.0


def _ignore(*_: object) -> None:
    """error_cb of the offset readers: a broker going away is seen in the poll's own results, not from here."""


@dataclass
class _OffsetReader:
    """One group's Consumer (never subscribed) and its read in progress."""

    consumer: Consumer
    pending: Future[list[Any]] | None = None
    used_at: float = field(default_factory=time.monotonic)
    poll_id: int = -1  # the last poll it read for

    @property
    def busy(self) -> bool:
        return self.pending is not None and not self.pending.done()


def _read_committed(consumer: Consumer, partitions: Callable[[], list[KafkaTopicPartition]], deadline: Deadline) -> Any:
    consumer.poll(0)  # serves its queued log lines and errors, which nothing else would
    named = partitions()
    if not named:
        return []
    if deadline.left() <= 0:
        raise TimeoutError
    try:
        return consumer.committed(named, timeout=deadline.left())
    except KafkaException as e:
        if error_code(e) == KafkaError._TIMED_OUT:
            raise TimeoutError from None
        raise


@dataclass
class _Describer:
    """An AdminClient that only describes groups, and its calls not answered yet."""

    box: list[AdminClient]  # the client's only reference, for handles.release
    waiting: dict[str, tuple[Future[Any], float]] = field(default_factory=dict)  # group: (call, sent at)

    def prune(self) -> None:
        self.waiting = {g: w for g, w in self.waiting.items() if not w[0].done()}

    def waited(self, now: float) -> float:
        """How long its oldest unanswered call has waited (0 with none)."""
        return max((now - sent for _, sent in self.waiting.values()), default=0.0)


class GroupReader:
    """Group descriptions and committed offsets, read without the librdkafka 2.16 defects that kill the process.

    The AdminClient's coordinator requests (DescribeGroups, OffsetFetch) have three:
    - a call whose request_timeout passes while its request still waits for the coordinator (down, or not found yet)
      leaves the request queued; once a coordinator is found, librdkafka sends it with the call's freed state and
      aborts: `rd_kafka_enq_once_del_source_return: Assertion eonce->refcnt > 0` (librdkafka #4605, #3663; a fix is
      proposed in #5397). Shorter timeouts only make it likelier;
    - ListConsumerGroupOffsets dereferences the consumer-group handle an AdminClient does not have when a broker
      answers OffsetFetch with NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE, as the old coordinator does once the
      group moved: a segfault (librdkafka #5040);
    - destroying a client whose request waits for a coordinator can hang rd_kafka_destroy for good (seen on Kafka 4.1
      with the coordinator killed and __consumer_offsets at RF 1: a broker thread never let go).
    Hence:
    - committed offsets come from one Consumer per group, never subscribed, through `committed()`: its group handle
      finds and follows the coordinator, and a call that times out leaves nothing behind (its reply queue is
      destroyed, late replies are dropped);
    - DescribeGroups goes through an AdminClient of its own, with librdkafka's longest request_timeout. A call not
      answered by the poll's deadline is neither timed out nor abandoned: it waits for its coordinator, a later poll
      uses its answer, and no second call is made for that group meanwhile. A client is only destroyed once nothing
      of it waits: when an answer says the coordinator moved (its coordinator cache, which librdkafka never evicts,
      is wrong) or the cluster cannot describe groups, it is retired and a new one takes the new calls. Only a call
      left waiting for most of an hour (see DESCRIBE_GIVE_UP_S) gets its client destroyed anyway, on a daemon thread
      that may hang: a leak, not a crash.
    """

    def __init__(self, config: Mapping[str, Any]) -> None:
        self._config = dict(config)
        # librdkafka backs off reconnects up to 10 s: a coordinator back from the dead would stay dark that long to
        # these handles (measured on the mock: 6-7 s, against under 1 s with this). A retry a second costs nothing.
        self._config.setdefault("reconnect.backoff.max.ms", 1000)
        self._describer: _Describer | None = None  # takes the new calls
        self._retired: list[_Describer] = []  # destroyed once nothing of theirs waits
        self._readers: dict[str, _OffsetReader] = {}
        self._pool: ThreadPoolExecutor | None = None

    def _waiting_call(self, group_id: str) -> Future[Any] | None:
        for d in (self._describer, *self._retired):
            if d is not None and group_id in d.waiting and not d.waiting[group_id][0].done():
                return d.waiting[group_id][0]
        return None

    def describe(self, group_ids: list[str]) -> dict[str, Future[Any]]:
        """A call per group: the one still waiting from an earlier poll, or a new one."""
        calls: dict[str, Future[Any]] = {}
        now = time.monotonic()
        for g in group_ids:
            waiting = self._waiting_call(g)
            if waiting is not None:
                calls[g] = waiting
                continue
            if self._describer is None:
                self._describer = _Describer([handles.admin_client(self._config)])
            # One call per group: librdkafka answers a call for several groups only once every group is answered, so
            # a group whose coordinator is dead would hold back the description of every other group.
            call = self._describer.box[0].describe_consumer_groups([g], request_timeout=DESCRIBE_TIMEOUT_S)[g]
            self._describer.waiting[g] = (call, now)
            calls[g] = call
        return calls

    def settle(self, *, coordinator_moved: bool, unsupported: bool) -> None:
        """After the poll's deadline: retires the describing client if it must not take new calls, and destroys the
        retired clients that have nothing waiting (or have waited too long, see DESCRIBE_GIVE_UP_S)."""
        now = time.monotonic()
        current = self._describer
        if current is not None:
            current.prune()
            if coordinator_moved or unsupported or current.waited(now) > DESCRIBE_GIVE_UP_S:
                self._retired.append(current)
                self._describer = None
        keep = []
        for d in self._retired:
            d.prune()
            if d.waiting and d.waited(now) <= DESCRIBE_GIVE_UP_S:
                keep.append(d)
            else:
                handles.release(d.box)
        self._retired = keep

    def committed(
        self, wanted: Mapping[str, Callable[[], list[KafkaTopicPartition]]], deadline: Deadline, poll_id: int
    ) -> dict[str, Future[list[Any]]]:
        """Each group's committed offsets for the partitions its callable names (called on a reading thread), read
        by the deadline. `poll_id` tells polls apart: a reader serves one group per poll at most."""
        # Groups read longest ago first: with more groups than readers, they take turns (see MAX_READERS).
        order = sorted(wanted, key=lambda g: self._readers[g].used_at if g in self._readers else float("-inf"))
        return {g: self._read(g, wanted[g], deadline, poll_id) for g in order}

    def _read(
        self, group_id: str, partitions: Callable[[], list[KafkaTopicPartition]], deadline: Deadline, poll_id: int
    ) -> Future[list[Any]]:
        failed: Future[list[Any]] = Future()
        reader = self._readers.get(group_id)
        if reader is None:
            if len(self._readers) >= MAX_READERS and not self._evict(poll_id):
                failed.set_exception(
                    RuntimeError(
                        f"not read this poll: offsets are read for {MAX_READERS} groups per poll (a Consumer each), "
                        "the groups taking turns"
                    )
                )
                return failed
            try:
                reader = self._readers[group_id] = _OffsetReader(handles.consumer(self._reader_config(group_id)))
            except (KafkaException, ValueError, TypeError) as e:
                failed.set_exception(e)
                return failed
        if reader.busy:
            # The last poll's read is about to time out; two at once on one consumer would gain nothing.
            failed.set_exception(TimeoutError())
            return failed
        if self._pool is None:
            self._pool = ThreadPoolExecutor(OFFSET_THREADS, thread_name_prefix="kafkatop-offsets")
        reader.pending = self._pool.submit(_read_committed, reader.consumer, partitions, deadline)
        reader.used_at = time.monotonic()
        reader.poll_id = poll_id
        return reader.pending

    def _evict(self, poll_id: int) -> bool:
        """Closes the reader read longest ago, if one is idle and not used by this poll."""
        idle = [(r.used_at, g) for g, r in self._readers.items() if r.poll_id != poll_id and not r.busy]
        if not idle:
            return False
        handles.release([self._readers.pop(min(idle)[1]).consumer])
        return True

    def _reader_config(self, group_id: str) -> dict[str, Any]:
        config = dict(self._config)
        config.update(
            {
                "group.id": group_id,
                "enable.auto.commit": False,
                "enable.auto.offset.store": False,
                # As AdminClient's OffsetFetch: committed offsets as they are, pending transactional ones too
                # (read_committed would make the broker answer UNSTABLE_OFFSET_COMMIT, retried until timeout).
                "isolation.level": "read_uncommitted",
                "error_cb": _ignore,
            }
        )
        return config

    def forget_idle(self, keep: Iterable[str]) -> None:
        """Closes the readers of groups not polled for a while (and not reading)."""
        kept = set(keep)
        now = time.monotonic()
        idle = [g for g, r in self._readers.items() if g not in kept and now - r.used_at > READER_IDLE_S and not r.busy]
        handles.release([self._readers.pop(g).consumer for g in idle])

    def close(self) -> None:
        """Waits for reads in progress (each ends by its poll's deadline), then destroys every handle, waiting for
        that up to CLOSE_WAIT_S."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        box: list[Any] = [r.consumer for r in self._readers.values()]
        self._readers.clear()
        for d in (self._describer, *self._retired):
            if d is not None:
                box.extend(d.box)
                d.box.clear()
        self._describer, self._retired = None, []
        thread = handles.release(box)
        if thread is not None:
            thread.join(CLOSE_WAIT_S)
