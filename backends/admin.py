"""The AdminClient source: one ClusterSnapshot per poll, from a handful of batched Kafka requests.

Per poll: one Metadata request (brokers, topics, leaders, replicas, ISR), one DescribeCluster (racks, controller),
two ListOffsets calls covering every partition (earliest and latest; librdkafka sends one request per leader
broker), ListGroups, and a DescribeGroups and an OffsetFetch per group. Topic configs
(min.insync.replicas) and the cluster mode change rarely and are re-read every `config_refresh_s`. Nothing is
requested per partition, so the request count grows with brokers and groups, never with partitions.

Every request shares one deadline: a dead broker or an unreachable bootstrap costs at most `timeout_s`, and
whatever answered in time is returned with a Problem for what did not.

Group requests go to each group's coordinator, and not through the AdminClient that does the rest: librdkafka
2.16 can abort, segfault or hang the process over them when a coordinator dies, returns or moves. `_GroupReader` says
how, and how it reads groups without those paths.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import Consumer, KafkaError, KafkaException
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, OffsetSpec, ResourceType

from kafkatop.backends.errors import SourceUnavailable
from kafkatop.backends.groups import OFFSETS_TOPIC, build_group, offsets_partition
from kafkatop.backends.model import (
    NO_LEADER,
    Broker,
    ClusterMode,
    ClusterSnapshot,
    ConsumerGroup,
    Partition,
    Problem,
    Topic,
    TopicPartition,
    merge_brokers,
)

SOURCE = "admin"
# librdkafka logs (connection refused, broker down, …) go here instead of stderr, which the TUI owns.
LIBRDKAFKA_LOGGER = logging.getLogger("kafkatop.librdkafka")
LIBRDKAFKA_LOGGER.addHandler(logging.NullHandler())
LIBRDKAFKA_LOGGER.propagate = False


def is_internal_topic(name: str) -> bool:
    """Kafka's internal topics (__consumer_offsets, __transaction_state, __share_group_state) start with "__"."""
    return name.startswith("__")


_SECRET_WORDS = ("password", "secret", "jaas", "token", "key")


def redact(text: str, config: Mapping[str, Any]) -> str:
    """`text` with the values of secret-looking settings (passwords, keys, JAAS configs) replaced by ***."""
    for k, v in config.items():
        if isinstance(v, str) and v and any(w in k.lower() for w in _SECRET_WORDS):
            text = text.replace(v, "***")
    return text


def describe_error(exc: BaseException) -> str:
    """A KafkaException as one readable line: `LEADER_NOT_AVAILABLE: Broker: Leader not available`."""
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        err: KafkaError = exc.args[0]
        text = err.str().strip()
        # Some errors come with only the request's name ("ConsumerGroupDescribe: "): the code says more.
        return err.name() if not text or text.endswith(":") else f"{err.name()}: {text}"
    if isinstance(exc, TimeoutError):
        return "timed out"
    return str(exc) or type(exc).__name__


def _is_unsupported(exc: BaseException) -> bool:
    return (
        isinstance(exc, KafkaException)
        and bool(exc.args)
        and isinstance(exc.args[0], KafkaError)
        and exc.args[0].code() == KafkaError._UNSUPPORTED_FEATURE
    )


class _Deadline:
    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        return max(0.0, self.end - time.monotonic())


def _result(fut: Future[Any], deadline: _Deadline) -> Any:
    """The future's result, or raise: its own exception, or TimeoutError once the poll's deadline passed."""
    return fut.result(timeout=deadline.left())


def _error_code(exc: BaseException) -> int | None:
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        code: int = exc.args[0].code()
        return code
    return None


# --- group requests -------------------------------------------------------------------------------------------------
# librdkafka's own timeout for a DescribeGroups call: its maximum, on purpose (see _GroupReader). A call that waits for
# a coordinator is left to wait, and collected by a later poll, rather than ever timed out by librdkafka.
_DESCRIBE_TIMEOUT_S = 3600.0
# A describing client whose oldest call has waited this long is given up (destroyed) before librdkafka's timeout above
# can fire: a coordinator gone for most of an hour, the one case left where destroying a client with a call waiting is
# the lesser evil (see _GroupReader).
_DESCRIBE_GIVE_UP_S = 3000.0
# How long an offset read waits for its group's description of this poll, to name the topics assigned now: a
# coordinator answers in milliseconds; one that does not must not take the offset read's time as well.
_DESCRIPTION_WAIT_S = 0.25
# Threads reading committed offsets: Consumer.committed() blocks, and a group whose coordinator is slow must not hold
# the others up. Each thread reads one group at a time, a round trip of a millisecond or two when all is well.
_OFFSET_THREADS = 8
# Offset readers kept at most: each is a Consumer, with ~7 threads and ~15 file descriptors (measured: 20 groups on a
# 3-broker cluster cost 134 threads and 294 fds). Past this many groups, readers are recycled and groups take turns,
# rather than running a process out of file descriptors (a common soft limit is 1024).
_MAX_READERS = 48
# An offset reader (a Consumer: a few librdkafka threads and connections) of a group no longer seen is closed after
# this long, not at once: a ListGroups that missed a broker for one poll must not cost every reader its coordinator.
_READER_IDLE_S = 60.0
# Answers after which the describing client's coordinator cache is wrong: librdkafka never evicts an entry that is
# in use, so the same client would ask the same broker forever.
_COORDINATOR_MOVED = frozenset({KafkaError.NOT_COORDINATOR, KafkaError.COORDINATOR_NOT_AVAILABLE})
# close() waits this long for the handles it destroys; a destroy that hangs (see _GroupReader) is left behind.
_CLOSE_WAIT_S = 2.0


def _ignore(*_: object) -> None:
    """error_cb of the offset readers: a broker going away is seen in the poll's own results, not from here."""


def _destroy_later(box: list[Any]) -> threading.Thread | None:
    """Destroys the librdkafka handles in `box`, which holds their only references, on a thread of its own.

    rd_kafka_destroy waits for the handle's threads, longer with a broker down, and in one case for ever (see
    _GroupReader): the poll must not wait for it, and neither must the interpreter's exit (a daemon thread).
    """
    if not box:
        return None
    thread = threading.Thread(target=_destroy, args=(box,), name="kafkatop-destroy", daemon=True)
    thread.start()
    return thread


def _destroy(box: list[Any]) -> None:
    while box:
        handle = box.pop(0)  # in order: callers put the handles whose destroy may hang last
        try:
            if isinstance(handle, Consumer):
                handle.close()  # leaves nothing to do for the destructor below
        except Exception:  # noqa: BLE001 - a handle being thrown away has nothing left to report to
            pass
        del handle  # the last reference: the destructor runs rd_kafka_destroy here, on this thread


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


def _read_committed(
    consumer: Consumer, partitions: Callable[[], list[KafkaTopicPartition]], deadline: _Deadline
) -> Any:
    consumer.poll(0)  # serves its queued log lines and errors, which nothing else would
    named = partitions()
    if not named:
        return []
    if deadline.left() <= 0:
        raise TimeoutError
    try:
        return consumer.committed(named, timeout=deadline.left())
    except KafkaException as e:
        if _error_code(e) == KafkaError._TIMED_OUT:
            raise TimeoutError from None
        raise


@dataclass
class _Describer:
    """An AdminClient that only describes groups, and its calls not answered yet."""

    box: list[AdminClient]  # the client's only reference, for _destroy_later
    waiting: dict[str, tuple[Future[Any], float]] = field(default_factory=dict)  # group: (call, sent at)

    def prune(self) -> None:
        self.waiting = {g: w for g, w in self.waiting.items() if not w[0].done()}

    def waited(self, now: float) -> float:
        """How long its oldest unanswered call has waited (0 with none)."""
        return max((now - sent for _, sent in self.waiting.values()), default=0.0)


class _GroupReader:
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
      left waiting for most of an hour (see _DESCRIBE_GIVE_UP_S) gets its client destroyed anyway, on a daemon thread
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
                self._describer = _Describer([AdminClient(self._config)])
            # One call per group: librdkafka answers a call for several groups only once every group is answered, so
            # a group whose coordinator is dead would hold back the description of every other group.
            call = self._describer.box[0].describe_consumer_groups([g], request_timeout=_DESCRIBE_TIMEOUT_S)[g]
            self._describer.waiting[g] = (call, now)
            calls[g] = call
        return calls

    def settle(self, *, coordinator_moved: bool, unsupported: bool) -> None:
        """After the poll's deadline: retires the describing client if it must not take new calls, and destroys the
        retired clients that have nothing waiting (or have waited too long, see _DESCRIBE_GIVE_UP_S)."""
        now = time.monotonic()
        current = self._describer
        if current is not None:
            current.prune()
            if coordinator_moved or unsupported or current.waited(now) > _DESCRIBE_GIVE_UP_S:
                self._retired.append(current)
                self._describer = None
        keep = []
        for d in self._retired:
            d.prune()
            if d.waiting and d.waited(now) <= _DESCRIBE_GIVE_UP_S:
                keep.append(d)
            else:
                _destroy_later(d.box)
        self._retired = keep

    def committed(
        self, wanted: Mapping[str, Callable[[], list[KafkaTopicPartition]]], deadline: _Deadline, poll_id: int
    ) -> dict[str, Future[list[Any]]]:
        """Each group's committed offsets for the partitions its callable names (called on a reading thread), read
        by the deadline. `poll_id` tells polls apart: a reader serves one group per poll at most."""
        # Groups read longest ago first: with more groups than readers, they take turns (see _MAX_READERS).
        order = sorted(wanted, key=lambda g: self._readers[g].used_at if g in self._readers else float("-inf"))
        return {g: self._read(g, wanted[g], deadline, poll_id) for g in order}

    def _read(
        self, group_id: str, partitions: Callable[[], list[KafkaTopicPartition]], deadline: _Deadline, poll_id: int
    ) -> Future[list[Any]]:
        failed: Future[list[Any]] = Future()
        reader = self._readers.get(group_id)
        if reader is None:
            if len(self._readers) >= _MAX_READERS and not self._evict(poll_id):
                failed.set_exception(
                    RuntimeError(
                        f"not read this poll: offsets are read for {_MAX_READERS} groups per poll (a Consumer each), "
                        "the groups taking turns"
                    )
                )
                return failed
            try:
                reader = self._readers[group_id] = _OffsetReader(Consumer(self._reader_config(group_id)))
            except (KafkaException, ValueError, TypeError) as e:
                failed.set_exception(e)
                return failed
        if reader.busy:
            # The last poll's read is about to time out; two at once on one consumer would gain nothing.
            failed.set_exception(TimeoutError())
            return failed
        if self._pool is None:
            self._pool = ThreadPoolExecutor(_OFFSET_THREADS, thread_name_prefix="kafkatop-offsets")
        reader.pending = self._pool.submit(_read_committed, reader.consumer, partitions, deadline)
        reader.used_at = time.monotonic()
        reader.poll_id = poll_id
        return reader.pending

    def _evict(self, poll_id: int) -> bool:
        """Closes the reader read longest ago, if one is idle and not used by this poll."""
        idle = [(r.used_at, g) for g, r in self._readers.items() if r.poll_id != poll_id and not r.busy]
        if not idle:
            return False
        _destroy_later([self._readers.pop(min(idle)[1]).consumer])
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
        idle = [
            g for g, r in self._readers.items() if g not in kept and now - r.used_at > _READER_IDLE_S and not r.busy
        ]
        _destroy_later([self._readers.pop(g).consumer for g in idle])

    def close(self) -> None:
        """Waits for reads in progress (each ends by its poll's deadline), then destroys every handle, waiting for
        that up to _CLOSE_WAIT_S."""
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
        thread = _destroy_later(box)
        if thread is not None:
            thread.join(_CLOSE_WAIT_S)


@dataclass
class _GroupReads:
    """One poll's group requests, started as soon as the poll knows which groups to ask about."""

    poll_id: int
    metadata: Any
    partitions: dict[str, list[KafkaTopicPartition]]  # every partition of the topics shown, by topic
    deadline: _Deadline
    down: dict[str, str] = field(default_factory=dict)  # groups not asked: their coordinator is down (why)
    descriptions: dict[str, Future[Any]] = field(default_factory=dict)
    offsets: dict[str, Future[list[Any]]] = field(default_factory=dict)


class AdminSource:
    """Polls a Kafka cluster through one long-lived AdminClient (connections are reused between polls), and its
    consumer groups through handles of their own (see _GroupReader)."""

    def __init__(
        self,
        bootstrap_servers: str,
        *,
        client_config: Mapping[str, str] | None = None,
        timeout_s: float = 2.0,
        include_internal: bool = False,
        watch_groups: Iterable[str] = (),
        config_refresh_s: float = 30.0,
    ) -> None:
        self.bootstrap_servers = bootstrap_servers
        self.timeout_s = timeout_s
        self.include_internal = include_internal
        # Groups to report even when the cluster does not list them (kafkatop's own consumers; brokers whose
        # ListGroups is restricted by ACLs; the librdkafka mock).
        self.watch_groups = tuple(watch_groups)
        self.config_refresh_s = config_refresh_s
        config: dict[str, Any] = dict(client_config or {})
        config["bootstrap.servers"] = bootstrap_servers
        config.setdefault("client.id", "kafkatop")
        config["logger"] = LIBRDKAFKA_LOGGER
        try:
            self._admin = AdminClient(config)
        except (KafkaException, ValueError, TypeError) as e:
            raise SourceUnavailable(
                "kafka", f"invalid client configuration: {redact(describe_error(e), config)}"
            ) from None
        self._known_brokers: dict[int, Broker] = {}
        self._mode: ClusterMode | None = None
        self._min_isr: dict[str, int | None] = {}
        self._configs_read_at = float("-inf")
        self._groups_describable = True
        # Where each group committed, so that its offsets are read for those topics only (see _offset_partitions).
        self._group_topics: dict[str, set[str]] = {}
        self._group_topics_read_at = float("-inf")
        self._assigned_topics: dict[str, set[str]] = {}  # topics assigned to each group's members, last described
        self._group_reader = _GroupReader(config)
        self._listed_before: set[str] = set()  # by the last ListGroups answered: read before this poll's answers
        # Whether this cluster places groups as Kafka does (see _coordinators_down); learnt from DescribeGroups.
        self._placement_confirmed = False
        self._polls = 0

    def close(self) -> None:
        self._group_reader.close()
        # AdminClient has no close(); dropping the last reference destroys the handle and its connections.
        self._admin = None  # type: ignore[assignment]

    # --- the poll ---------------------------------------------------------------------------------------------
    def poll(self) -> ClusterSnapshot:
        """One snapshot; raises SourceUnavailable only when not even metadata could be read."""
        deadline = _Deadline(self.timeout_s)
        problems: list[Problem] = []
        self._admin.poll(0)  # serve queued librdkafka log lines
        metadata = self._metadata(deadline)

        topic_meta = {
            name: t for name, t in metadata.topics.items() if self.include_internal or not is_internal_topic(name)
        }
        tps = [KafkaTopicPartition(name, p) for name, t in topic_meta.items() for p in t.partitions]
        request_timeout = max(deadline.left(), 0.1)

        cluster_f = self._admin.describe_cluster(request_timeout=request_timeout)
        low_f = self._list_offsets(tps, OffsetSpec.earliest(), request_timeout)
        high_f = self._list_offsets(tps, OffsetSpec.latest(), request_timeout)
        groups_f = self._admin.list_consumer_groups(request_timeout=request_timeout)
        config_fs = self._start_config_reads(list(topic_meta), metadata.controller_id, request_timeout)
        # Group reads start now, not after the waits below: a dead broker can hold ListOffsets or ListGroups until
        # the deadline, and groups on live coordinators must not time out for it.
        group_reads = self._start_group_reads(metadata, topic_meta, deadline)

        # --- brokers and controller ---
        racks: dict[int, str | None] = {}
        controller_id = metadata.controller_id if metadata.controller_id >= 0 else None
        cluster_id = metadata.cluster_id
        try:
            desc = _result(cluster_f, deadline)
            racks = {n.id: n.rack for n in desc.nodes}
            cluster_id = desc.cluster_id or cluster_id
            if desc.controller is not None and desc.controller.id >= 0:
                controller_id = desc.controller.id
        except Exception as e:  # noqa: BLE001 - any failure of one request becomes a Problem, not a crash
            problems.append(Problem(SOURCE, "DescribeCluster", describe_error(e)))
        alive = {b.id: Broker(b.id, b.host, b.port, racks.get(b.id), alive=True) for b in metadata.brokers.values()}

        # --- watermarks and leader epochs ---
        low = self._collect_offsets(low_f, deadline, "ListOffsets(earliest)", problems)
        high = self._collect_offsets(high_f, deadline, "ListOffsets(latest)", problems)

        # --- configs (mode, min.insync.replicas), when due ---
        self._collect_configs(config_fs, deadline, problems)

        topics = tuple(self._topic(name, topic_meta[name], alive, low, high) for name in sorted(topic_meta))
        brokers = self._brokers(alive, topics)
        groups = self._groups(groups_f, group_reads, high, problems)
        return ClusterSnapshot(
            source=SOURCE,
            taken_at=time.time(),
            cluster_id=cluster_id,
            mode=self._mode or "unknown",
            controller_id=None if self._mode == "kraft" else controller_id,
            brokers=brokers,
            topics=topics,
            groups=groups,
            problems=tuple(problems),
        )

    # --- pieces ---------------------------------------------------------------------------------------------------
    def _metadata(self, deadline: _Deadline) -> Any:
        """Metadata, in several shorter attempts within the poll's deadline.

        A request that went to a broker the moment it died waits on that broker; the next attempt goes to a live
        one. One long attempt would turn "one of three brokers is down" into "no data at all".
        """
        attempt_s = max(0.5, self.timeout_s / 3)
        while True:
            try:
                return self._admin.list_topics(timeout=max(min(attempt_s, deadline.left()), 0.05))
            except KafkaException as e:
                if deadline.left() < 0.05:
                    raise SourceUnavailable(
                        "kafka",
                        f"no metadata from bootstrap server {self.bootstrap_servers} within {self.timeout_s:g} s "
                        f"({describe_error(e)}). Check that a broker listens there and that --bootstrap-server is "
                        "right.",
                    ) from None
                time.sleep(min(0.05, deadline.left()))  # an instant failure must not become a busy loop

    def _list_offsets(
        self, tps: list[KafkaTopicPartition], spec: OffsetSpec, request_timeout: float
    ) -> dict[KafkaTopicPartition, Future[Any]]:
        if not tps:
            return {}
        return self._admin.list_offsets({tp: spec for tp in tps}, request_timeout=request_timeout)

    @staticmethod
    def _collect_offsets(
        futures: Mapping[KafkaTopicPartition, Future[Any]],
        deadline: _Deadline,
        what: str,
        problems: list[Problem],
    ) -> dict[TopicPartition, tuple[int, int | None]]:
        wait(list(futures.values()), timeout=deadline.left())
        out: dict[TopicPartition, tuple[int, int | None]] = {}
        failures: dict[str, list[str]] = {}
        for ktp, fut in futures.items():
            tp = TopicPartition(ktp.topic, ktp.partition)
            if not fut.done():
                failures.setdefault("timed out", []).append(str(tp))
                continue
            exc = fut.exception()
            if exc is not None:
                failures.setdefault(describe_error(exc), []).append(str(tp))
                continue
            res = fut.result()
            out[tp] = (res.offset, res.leader_epoch)
        for reason, names in failures.items():
            shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            problems.append(Problem(SOURCE, what, f"{reason} for {shown}"))
        return out

    def _topic(
        self,
        name: str,
        meta: Any,
        alive: Mapping[int, Broker],
        low: Mapping[TopicPartition, tuple[int, int | None]],
        high: Mapping[TopicPartition, tuple[int, int | None]],
    ) -> Topic:
        parts = []
        for pid in sorted(meta.partitions):
            pm = meta.partitions[pid]
            tp = TopicPartition(name, pid)
            lo, hi = low.get(tp), high.get(tp)
            replicas = tuple(pm.replicas)
            parts.append(
                Partition(
                    topic=name,
                    id=pid,
                    leader=pm.leader if pm.leader >= 0 else NO_LEADER,
                    replicas=replicas,
                    isr=tuple(pm.isrs),
                    # A replica on a broker missing from metadata (down, fenced) is offline.
                    offline_replicas=tuple(r for r in replicas if r not in alive),
                    low_watermark=lo[0] if lo else None,
                    high_watermark=hi[0] if hi else None,
                    leader_epoch=hi[1] if hi else None,
                )
            )
        return Topic(
            name=name,
            partitions=tuple(parts),
            internal=is_internal_topic(name),
            min_insync_replicas=self._min_isr.get(name),
        )

    def _brokers(self, alive: Mapping[int, Broker], topics: tuple[Topic, ...]) -> tuple[Broker, ...]:
        self._known_brokers.update(alive)
        return merge_brokers(alive, self._known_brokers, (r for t in topics for p in t.partitions for r in p.replicas))

    def _start_config_reads(
        self, topics: list[str], controller_id: int, request_timeout: float
    ) -> dict[ConfigResource, Future[Any]]:
        now = time.monotonic()
        unknown = [t for t in topics if t not in self._min_isr]
        due = now - self._configs_read_at >= self.config_refresh_s
        wanted = topics if due else unknown
        resources = [ConfigResource(ResourceType.TOPIC, t) for t in wanted]
        futures: dict[ConfigResource, Future[Any]] = {}
        if resources:
            futures.update(self._admin.describe_configs(resources, request_timeout=request_timeout))
        if self._mode is None or due:
            broker = controller_id if controller_id >= 0 else None
            if broker is not None:
                res = ConfigResource(ResourceType.BROKER, str(broker))
                futures.update(self._admin.describe_configs([res], request_timeout=request_timeout))
        if due:
            self._configs_read_at = now
        return futures

    def _collect_configs(
        self, futures: Mapping[ConfigResource, Future[Any]], deadline: _Deadline, problems: list[Problem]
    ) -> None:
        unsupported = False
        for res, fut in futures.items():
            try:
                entries = _result(fut, deadline)
            except Exception as e:  # noqa: BLE001
                if _is_unsupported(e):
                    unsupported = True
                    if res.restype == ResourceType.TOPIC:
                        self._min_isr[res.name] = None  # do not ask again until the next refresh
                    else:
                        self._mode = self._mode or "unknown"
                    continue
                problems.append(Problem(SOURCE, f"DescribeConfigs {res.name}", describe_error(e)))
                continue
            if res.restype == ResourceType.TOPIC:
                entry = entries.get("min.insync.replicas")
                self._min_isr[res.name] = int(entry.value) if entry is not None and entry.value else None
            else:
                self._mode = _mode_from_broker_config(entries)
        if unsupported:
            problems.append(
                Problem(SOURCE, "DescribeConfigs", "not supported by this cluster: min.insync.replicas unknown")
            )

    def _offset_partitions(
        self,
        group_id: str,
        description: Future[Any] | None,
        partitions: Mapping[str, list[KafkaTopicPartition]],
        deadline: _Deadline,
    ) -> Callable[[], list[KafkaTopicPartition]]:
        """The partitions to read a group's committed offsets for; called on an offset-reading thread.

        A Consumer reads offsets only for partitions it names (an "all partitions" OffsetFetch is AdminClient's,
        see _GroupReader), and naming every partition for every group each poll would cost groups × partitions. So
        a group is asked once for every partition, then for the topics it has committed on and those assigned to its
        members now; every `config_refresh_s` it is asked for every partition again. Offsets committed on a topic
        that no member of the group is assigned (an offset reset, a consumer using assign()) show up by then.
        """
        # Copies: the poll thread updates both while a late read may still be naming partitions.
        known = set(self._group_topics[group_id]) if group_id in self._group_topics else None
        assigned = set(self._assigned_topics.get(group_id, ()))

        def named() -> list[KafkaTopicPartition]:
            if known is None:
                return [tp for tps in partitions.values() for tp in tps]
            wanted = known | assigned  # assigned as of the last description, if this poll's comes too late
            if description is not None:
                try:
                    desc = description.result(timeout=min(deadline.left(), _DESCRIPTION_WAIT_S))
                    wanted.update(_assigned_topics(desc))
                except Exception:  # noqa: BLE001 - the poll reports the description's failure where it collects it
                    pass
            return [tp for name in sorted(wanted) for tp in partitions.get(name, ())]

        return named

    def _coordinators_down(self, metadata: Any, group_ids: list[str]) -> dict[str, str]:
        """Groups whose coordinator is down in this poll's metadata, with the reason; they are not asked at all.

        Kafka's coordinator of a group is the leader of its __consumer_offsets partition (see offsets_partition), so
        metadata shows when there is none, and when another broker took over. Trusted only once a DescribeGroups
        answer came from the coordinator so computed: the librdkafka mock and Kafka-compatible brokers place groups
        their own way, and there every group is asked.
        """
        offsets = metadata.topics.get(OFFSETS_TOPIC)
        if not self._placement_confirmed or offsets is None or not offsets.partitions:
            return {}
        down: dict[str, str] = {}
        for g in group_ids:
            pid = offsets_partition(g, len(offsets.partitions))
            pm = offsets.partitions.get(pid)
            if pm is None:
                continue
            if pm.leader < 0:
                down[g] = (
                    f"no coordinator: {OFFSETS_TOPIC}-{pid} has no leader: group state unknown until a broker takes "
                    "it over"
                )
            elif pm.leader not in metadata.brokers:
                down[g] = (
                    f"coordinator broker {pm.leader} is down: group state unknown until it returns or another "
                    "broker takes over"
                )
        return down

    def _confirm_placement(self, metadata: Any, descriptions: Mapping[str, Any]) -> None:
        offsets = metadata.topics.get(OFFSETS_TOPIC)
        if self._placement_confirmed or offsets is None or not offsets.partitions:
            return
        for g, desc in descriptions.items():
            pm = offsets.partitions.get(offsets_partition(g, len(offsets.partitions)))
            coordinator = getattr(desc.coordinator, "id", None)
            if pm is not None and coordinator is not None and pm.leader == coordinator:
                self._placement_confirmed = True
                return

    def _start_group_reads(self, metadata: Any, topic_meta: Mapping[str, Any], deadline: _Deadline) -> _GroupReads:
        now = time.monotonic()
        if now - self._group_topics_read_at >= self.config_refresh_s:
            self._group_topics.clear()
            self._group_topics_read_at = now
        partitions = {name: [KafkaTopicPartition(name, p) for p in t.partitions] for name, t in topic_meta.items()}
        self._polls += 1
        reads = _GroupReads(self._polls, metadata, partitions, deadline)
        self._ask(reads, sorted(set(self.watch_groups) | self._listed_before))
        return reads

    def _ask(self, reads: _GroupReads, group_ids: list[str]) -> None:
        """Starts DescribeGroups and the committed-offset reads of the groups not asked yet in this poll."""
        new = [g for g in group_ids if g not in reads.down and g not in reads.offsets]
        if not new:
            return
        reads.down.update(self._coordinators_down(reads.metadata, new))
        asked = [g for g in new if g not in reads.down]
        if asked and self._groups_describable:
            reads.descriptions.update(self._group_reader.describe(asked))
        wanted = {
            g: self._offset_partitions(g, reads.descriptions.get(g), reads.partitions, reads.deadline) for g in asked
        }
        reads.offsets.update(self._group_reader.committed(wanted, reads.deadline, reads.poll_id))

    def _groups(
        self,
        listed_f: Future[Any],
        reads: _GroupReads,
        high: Mapping[TopicPartition, tuple[int, int | None]],
        problems: list[Problem],
    ) -> tuple[ConsumerGroup, ...]:
        deadline = reads.deadline
        coordinator_moved = False
        try:
            listed_state: dict[str, Any] = {}
            try:
                listed = _result(listed_f, deadline)
                listed_state = {g.group_id: g.state for g in listed.valid}
                self._listed_before = set(listed_state)
                # ListGroups goes to every broker: one line per distinct failure, not one per broker.
                for reason in sorted({describe_error(KafkaException(err)) for err in listed.errors}):
                    problems.append(Problem(SOURCE, "ListGroups", reason))
            except Exception as e:  # noqa: BLE001
                problems.append(Problem(SOURCE, "ListGroups", describe_error(e)))
            group_ids = sorted(set(listed_state) | set(self.watch_groups))
            self._group_reader.forget_idle(group_ids)
            for gone in set(self._assigned_topics).difference(group_ids):
                del self._assigned_topics[gone]
            self._ask(reads, group_ids)  # groups listed for the first time

            descriptions: dict[str, Any] = {}
            for g, fut in reads.descriptions.items():
                if g not in group_ids:
                    continue  # asked for as listed last time, gone since
                try:
                    descriptions[g] = _result(fut, deadline)
                except Exception as e:  # noqa: BLE001
                    if _is_unsupported(e):
                        self._groups_describable = False
                    else:
                        coordinator_moved = coordinator_moved or _error_code(e) in _COORDINATOR_MOVED
                        problems.append(Problem(SOURCE, f"DescribeGroups {g}", describe_error(e)))
            self._confirm_placement(reads.metadata, descriptions)
            for g, desc in descriptions.items():
                self._assigned_topics[g] = _assigned_topics(desc)
            if group_ids and not self._groups_describable:
                problems.append(Problem(SOURCE, "DescribeGroups", "not supported by this cluster: members unknown"))

            high_marks = {tp: v[0] for tp, v in high.items()}
            groups = []
            for g in group_ids:
                if g in reads.down:
                    problems.append(Problem(SOURCE, f"group {g}", reads.down[g]))
                committed = None
                try:
                    if g in reads.offsets:
                        committed = _result(reads.offsets[g], deadline)
                except Exception as e:  # noqa: BLE001
                    problems.append(Problem(SOURCE, f"OffsetFetch {g}", describe_error(e)))
                if committed is not None:
                    # Kept as long as the group has offsets there, with members or without (an Empty group).
                    self._group_topics.setdefault(g, set()).update(tp.topic for tp in committed if tp.offset >= 0)
                groups.append(build_group(g, descriptions.get(g), committed, high_marks, listed_state.get(g)))
            return tuple(groups)
        finally:
            # Past every wait on this poll's deadline: which describing clients may go.
            self._group_reader.settle(coordinator_moved=coordinator_moved, unsupported=not self._groups_describable)


def _assigned_topics(description: Any) -> set[str]:
    return {tp.topic for m in description.members for tp in getattr(m.assignment, "topic_partitions", None) or ()}


def _mode_from_broker_config(entries: Mapping[str, Any]) -> ClusterMode:
    roles = entries.get("process.roles")
    if roles is not None and roles.value:
        return "kraft"
    zk = entries.get("zookeeper.connect")
    if zk is not None and zk.value:
        return "zk"
    return "unknown"
