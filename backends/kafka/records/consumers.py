"""The consumer console: consumers, each a `confluent_kafka.Consumer` in its own daemon thread, alone in a group of
its own (publish/subscribe) or sharing one (the group splits the partitions, and rebalances when one joins or
leaves) — the labs' kafka-console-consumer. Records, assignment changes and each consumer's state are kept, bounded,
for the UI to drain; `drain` and `views` never wait on the network.
"""

from __future__ import annotations

import itertools
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import Consumer, KafkaError, KafkaException
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient

from kafkatop.backends.insight.grants import grants_for, principal_of, refusals
from kafkatop.backends.kafka import handles
from kafkatop.backends.kafka.cluster.metadata import METADATA_TTL_S, TopicCache
from kafkatop.backends.kafka.errors import describe_error, error_text
from kafkatop.backends.kafka.records.consumed import Taken, received
from kafkatop.backends.kafka.refusal import admin_naming_topics, error_name, topic_refusal
from kafkatop.backends.model.acls import Grant
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.consoles import (
    AssignmentChange,
    ChangeKind,
    ClientError,
    ConsumerState,
    ConsumerView,
    Received,
)
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.masking import MaskRules
from kafkatop.backends.model.topic_partition import TopicPartition

MAX_ASSIGNMENT_CHANGES = 1_000
CONSUME_BATCH = 500
CONSUME_WAIT_S = 0.2  # also how fast a consumer thread notices stop()
POSITION_TIMEOUT_S = 5.0
# ListOffsets' special timestamps: the log start and the log end.
_EARLIEST, _LATEST = -2, -1
STOP_TIMEOUT_S = 10.0


@dataclass(slots=True, eq=False)
class _Member:
    """One console consumer's state: written by its thread and by stop(), always under the pool's lock."""

    name: str
    group: str
    topics: tuple[str, ...]
    from_beginning: bool
    incremental: bool  # cooperative or KIP-848 assignment (if the connection's settings ask): partitions come and go
    stop: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None
    state: ConsumerState = "joining"
    assignment: set[TopicPartition] = field(default_factory=set)
    received: int = 0
    paused: bool = False  # asked for; its thread pauses (and resumes) the assignment at its next consume
    error: str | None = None
    grants: tuple[Grant, ...] = ()  # the error is the authorizer's refusal: what would end it

    def view(self) -> ConsumerView:
        return ConsumerView(
            self.name, self.group, self.topics, self.state, tuple(sorted(self.assignment)), self.received, self.error,
            self.grants,
        )  # fmt: skip


class ConsumerPool:
    """Console consumers, each in its own thread; the UI drains what they receive.

    Consumers use Kafka's classic group protocol with librdkafka's default assignors (range, then roundrobin: eager,
    "stop the world" rebalances), so a lab sees every partition revoked and reassigned when a consumer joins or
    leaves. Offsets are auto-committed (every 5 s, and on revoke and close), so the group's committed offsets and lag
    show in the groups panel. group.instance.id is never set: a stopped consumer leaves its group at once instead of
    holding its partitions for session.timeout.ms. A consumer is "consuming" once its partitions are assigned at
    known offsets (see _fix_positions): whatever is sent after that, it receives. Received records share one buffer
    of `max_buffered` (the oldest dropped and counted when nobody drains), masked as drained by a context's `mask`.
    """

    def __init__(
        self,
        connection: KafkaConnection,
        max_buffered: int = 20_000,
        metadata_timeout_s: float = 5.0,
        mask: MaskRules | None = None,
    ) -> None:
        if max_buffered < 1:
            raise ClientError(f"max_buffered must be at least 1, not {max_buffered}")
        self.connection = connection
        self._mask = mask if mask is not None and mask.active else None  # a context's, applied as records are drained
        self._settings = connection.client_settings
        self._lock = threading.Lock()
        self._records = Taken(max_buffered)
        self._changes: deque[AssignmentChange] = deque(maxlen=MAX_ASSIGNMENT_CHANGES)
        self._dropped = 0
        self._members: dict[str, _Member] = {}
        self._numbers = itertools.count(1)
        self._closed = False
        self._admin: AdminClient | None = None
        self._topics = TopicCache(
            self._list_topics, connection.bootstrap_servers, metadata_timeout_s, METADATA_TTL_S, self._refused
        )
        self._principal = principal_of(self._settings)

    def _list_topics(self, timeout_s: float, topic: str | None = None) -> Any:
        with self._lock:
            if self._admin is None:
                self._admin = admin_naming_topics(self.connection, ClientError)
            admin = self._admin
        return admin.list_topics(topic, timeout=timeout_s)

    def _refused(self, topic: str, timeout_s: float) -> KafkatopError | None:
        return topic_refusal(lambda t, s: self._list_topics(s, t), topic, timeout_s, "consume", self.connection,
                             f"cannot consume '{topic}'")  # fmt: skip

    def _problem(self, member: _Member, err: KafkaError, topic: str | None = None) -> None:
        """The consumer's latest problem, under the pool's lock: Kafka's words, or the authorizer's refusal with what
        to grant (the topic or the group a consumer needs Read on)."""
        topics = (topic,) if topic else member.topics
        member.grants = grants_for(err.name(), "consume", self._principal, topics=topics, group=member.group)
        member.error = f"{err.name()}: {refusals(member.grants)}" if member.grants else error_text(err)

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
            strategy = str(self._settings.get("partition.assignment.strategy", ""))
            member = _Member(
                name,
                group or f"kafkatop-console-{name}-{secrets.token_hex(3)}",
                wanted,
                from_beginning,
                "cooperative" in strategy or self._settings.get("group.protocol") == "consumer",
            )
            config = self._consumer_config(member)
            try:
                consumer = handles.consumer(config)
            except (KafkaException, ValueError, TypeError) as e:
                raise ClientError(
                    f"invalid consumer configuration: {self.connection.redact(describe_error(e))}"
                ) from None
            self._members.pop(name, None)  # a stopped namesake gives way; the new one goes last in views()
            self._members[name] = member
            member.thread = threading.Thread(
                target=self._run, args=(member, consumer), name=f"kafkatop-consumer-{name}", daemon=True
            )
            member.thread.start()
        return name

    def _consumer_config(self, member: _Member) -> dict[str, Any]:
        config = self.connection.config(f"kafkatop-{member.name}")
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

    def pause(self, name: str, paused: bool) -> None:
        """Pause (or resume) fetching: the consumer stays in its group, heartbeating and holding its partitions, and
        commits nothing new — what a consumer stuck on a slow downstream looks like to the group (lag grows, the
        committed offsets hold: Burrow's STALL)."""
        with self._lock:
            member = self._member(name)
            if member.state in ("stopping", "stopped", "failed"):
                raise ClientError(f"{name} is {member.state}: start a consumer to consume again")
            member.paused = paused
            if member.state in ("consuming", "paused"):
                member.state = "paused" if paused else "consuming"

    def _member(self, name: str) -> _Member:
        member = self._members.get(name)
        if member is None:
            known = ", ".join(self._members) or "none"
            raise ClientError(f"no consumer named '{name}' (consumers: {known})")
        return member

    def stop(self, name: str) -> None:
        """Close the consumer: it commits, leaves its group (the others rebalance) and stops. Waits up to 10 s for
        that; a close still running then (brokers gone) finishes in the background, "stopping" meanwhile."""
        with self._lock:
            thread = self._request_stop(self._member(name))
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
            box: list[Any] = [self._admin] if self._admin is not None else []
            self._admin = None
        handles.release(box)  # AdminClient has no close(): destroyed on a thread of kafkatop's own

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
            held = False  # the assignment is paused
            while not member.stop.is_set():
                held = self._hold(member, consumer, held)
                messages = consumer.consume(num_messages=CONSUME_BATCH, timeout=CONSUME_WAIT_S)
                if messages:
                    self._take(member, messages)
        except Exception as e:  # noqa: BLE001 - a consumer thread reports its failure in views(), never dies silently
            failure = describe_error(e)
            if isinstance(e, KafkaException) and error_name(e) is not None:
                with self._lock:
                    self._problem(member, e.args[0])
                    failure = member.error
        with self._lock:
            if member.state != "failed":
                member.state = "stopping"
        try:
            consumer.close()  # commits, and leaves the group: the others rebalance now
        except Exception as e:  # noqa: BLE001
            failure = failure or f"close failed: {describe_error(e)}"
        handles.release([consumer])  # freed once this thread is gone (see model/lifetime.py)
        with self._lock:
            member.assignment.clear()
            member.state = "failed" if failure else "stopped"
            member.error = failure or member.error

    def _hold(self, member: _Member, consumer: Consumer, held: bool) -> bool:
        """Pause or resume the assignment as asked; whether it is paused now. Partitions assigned while paused are
        paused as they are assigned (_on_change)."""
        with self._lock:
            wanted = member.paused
        if wanted != held and (assigned := consumer.assignment()):
            (consumer.pause if wanted else consumer.resume)(assigned)
        return wanted

    def _take(self, member: _Member, messages: list[Any]) -> None:
        """A batch consumed: its records kept as librdkafka gave them. They become `Received` (escaped for display)
        only when drained: of a firehose, most are dropped unseen from the buffer, and the per-record work held the
        GIL the UI needs (bench/consumer_console.py)."""
        kept = [m for m in messages if m.error() is None]
        problem: tuple[KafkaError, str | None] | None = None
        if len(kept) < len(messages):
            for msg in messages:
                err = msg.error()
                if err is None or err.code() == KafkaError._PARTITION_EOF:
                    continue
                if err.fatal():
                    raise KafkaException(err)
                problem = err, msg.topic()  # e.g. the topic was deleted, or the authorizer refused
        with self._lock:
            self._dropped += self._records.add(member.name, member.group, kept)
            member.received += len(kept)
            if problem is not None:
                self._problem(member, *problem)
            elif kept:
                member.error, member.grants = None, ()

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
                with self._lock:
                    paused = member.paused
                if paused:
                    consumer.pause(partitions)  # assigned just now by _fix_positions: paused before any fetch
            tps = tuple(sorted(TopicPartition(p.topic, p.partition) for p in partitions))
            with self._lock:
                if kind == "assigned":
                    member.assignment.update(tps)
                    if member.state == "joining":
                        member.state = "paused" if member.paused else "consuming"
                else:
                    member.assignment.difference_update(tps)
                    if not member.assignment and member.state in ("consuming", "paused"):
                        member.state = "joining"
                self._changes.append(AssignmentChange(member.name, member.group, kind, tps, time.time()))

        return changed

    def _on_error(self, member: _Member, err: KafkaError) -> None:
        with self._lock:
            self._problem(member, err)

    # --- results ----------------------------------------------------------------------------------------------------
    def drain(self, max_records: int = 2000) -> tuple[list[Received], list[AssignmentChange], int]:
        """(records, assignment changes, records dropped since the last drain), oldest first; never waits."""
        with self._lock:
            taken = self._records.take(max_records)
            changes = list(self._changes)
            self._changes.clear()
            dropped, self._dropped = self._dropped, 0
        return [received(n, g, m, self._mask) for n, g, msgs in taken for m in msgs], changes, dropped

    def buffered(self) -> int:
        """Records waiting to be drained."""
        with self._lock:
            return self._records.count

    def views(self) -> tuple[ConsumerView, ...]:
        """Every consumer started, stopped ones included, in the order they were started."""
        with self._lock:
            return tuple(m.view() for m in self._members.values())
