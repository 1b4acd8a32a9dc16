"""The clients of a chaos run (backends/chaos.py), each on a thread of its own: the sequenced producer, the consumer
in a group, kafkatop's view poller; and the scan for JVMs left behind in a lab cluster's state directory.

Each keeps counts the run reads from its own thread (plain ints: one writer each), and stops within a bound."""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

import psutil
from confluent_kafka import Consumer, KafkaError, KafkaException
from confluent_kafka import TopicPartition as KafkaTopicPartition

from kafkatop.backends.checks.chaos.verdict import cluster_state
from kafkatop.backends.checks.durability.verdict import decode, encode
from kafkatop.backends.kafka import handles
from kafkatop.backends.kafka.errors import describe_error
from kafkatop.backends.model.chaos import ViewPoll
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.durability import RecordDelivery
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.nodes import NodesSnapshot
from kafkatop.backends.ports import NodeControl

CLIENT_CLOSE_S = 10.0  # joining a client's thread at the end; a close that hangs (a coordinator gone) is left behind
WAIT_STEP_S = 0.05


class ClusterSource(Protocol):
    """What the run needs of an AdminSource: kafkatop's view of the cluster, one snapshot per poll."""

    def poll(self) -> ClusterSnapshot: ...

    def close(self) -> None: ...


AdminFactory = Callable[[KafkaConnection], ClusterSource]


def _error_text(err: KafkaError) -> str:
    return describe_error(KafkaException(err))


# --- the clients ----------------------------------------------------------------------------------------------------
def _ended(thread: threading.Thread, owner: object, handle: str) -> bool:
    """Whether a client's thread has ended; once it has, the client's handle (attribute `handle`) is released. Until
    then the handle stays kept: the thread may still use it."""
    if thread.is_alive():
        return False
    if hasattr(owner, handle):
        handles.release([getattr(owner, handle)])
        delattr(owner, handle)
    return True


class SequencedProducer:
    """Writes `rate` records a second to the topic's partitions in turn on a thread of its own, each carrying the
    run's id and its partition's own sequence number (durability's encoding), acks=all with idempotence."""

    def __init__(
        self, config: dict[str, Any], topic: str, partitions: int, run_id: str, rate: float, flush_s: float
    ) -> None:
        self.topic, self.partitions, self.run_id = topic, partitions, run_id
        self.interval = 1.0 / rate
        self.flush_s = flush_s
        config["error_cb"] = self._client_error
        self._producer = handles.producer(config)
        self.sent = 0
        self.errors = 0  # failed deliveries and client errors (a broker down, all brokers down, …)
        self.halted: str | None = None  # why it stopped sending before it was told to (a fatal error)
        self._next_seq = [0] * partitions
        self._acked: dict[tuple[int, int], int | None] = {}  # (partition, seq) → offset
        self._failed: dict[tuple[int, int], str] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="kafkatop-chaos-producer", daemon=True)

    def _client_error(self, err: KafkaError) -> None:
        self.errors += 1

    def _reporter(self, partition: int, seq: int) -> Callable[[KafkaError | None, Any], None]:
        def report(err: KafkaError | None, msg: Any) -> None:
            if err is None:
                offset = msg.offset()
                self._acked[(partition, seq)] = offset if offset is not None and offset >= 0 else None
            else:
                self._failed[(partition, seq)] = _error_text(err)
                self.errors += 1

        return report

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        next_send = time.monotonic()
        try:
            while not self._stop.is_set():
                now = time.monotonic()
                if next_send < now - 1.0:
                    next_send = now  # after a stall (a full queue), no catch-up burst
                while next_send <= now and self.halted is None and not self._stop.is_set():
                    p = self.sent % self.partitions
                    seq = self._next_seq[p]
                    try:
                        self._producer.produce(self.topic, value=encode(self.run_id, p, seq), partition=p,
                                               on_delivery=self._reporter(p, seq))  # fmt: skip
                    except BufferError:
                        break  # librdkafka's queue is full (every broker down for long): deliveries drain it
                    except KafkaException as e:
                        # A fatal error (an idempotence failure, say) is a finding: what was sent is verified.
                        self.halted = f"the producer stopped after {self.sent} records ({describe_error(e)})"
                        break
                    self._next_seq[p] += 1
                    self.sent += 1
                    next_send += self.interval
                self._producer.poll(min(WAIT_STEP_S, max(0.0, next_send - time.monotonic())))
        finally:
            # Every record is answered within its delivery timeout; what is still waiting after that is purged,
            # so it is reported failed, not unknown (close would wait for it unbounded).
            self._producer.flush(self.flush_s)
            if len(self._producer) > 0:
                self._producer.purge()
                self._producer.flush(1.0)

    def stop(self, flush_s: float | None = None) -> bool:
        """Stops sending and waits for the last deliveries; False when the thread did not end in time."""
        if flush_s is not None:
            self.flush_s = flush_s
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(self.flush_s + CLIENT_CLOSE_S)
        return _ended(self._thread, self, "_producer")

    def deliveries(self) -> list[RecordDelivery]:
        acked, failed = dict(self._acked), dict(self._failed)
        out = []
        for p in range(self.partitions):
            for seq in range(self._next_seq[p]):
                if (p, seq) in acked:
                    out.append(RecordDelivery(p, seq, True, offset=acked[(p, seq)]))
                else:
                    out.append(RecordDelivery(p, seq, False, error=failed.get((p, seq))))
        return out


class GroupConsumer:
    """Reads the topic in a consumer group on a thread of its own, from the run's start offsets. Its own position
    per partition is handed to every assignment, so a rebalance (a coordinator that moved) neither skips records nor
    goes back to the start; a record read twice is one record (by offset)."""

    def __init__(self, config: dict[str, Any], topic: str, run_id: str, starts: Mapping[int, int]) -> None:
        self.topic, self.run_id = topic, run_id
        config["error_cb"] = self._client_error
        self._consumer = handles.consumer(config)
        self._positions = dict(starts)  # the next offset to read, per partition
        self._records: dict[tuple[int, int], int | None] = {}  # (partition, offset) → seq (None: not this run's)
        self.errors = 0
        self.assigned = threading.Event()
        self.closed_cleanly = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="kafkatop-chaos-consumer", daemon=True)

    def _client_error(self, err: KafkaError) -> None:
        self.errors += 1

    def _on_assign(self, consumer: Consumer, partitions: list[KafkaTopicPartition]) -> None:
        for tp in partitions:
            if tp.partition in self._positions:
                tp.offset = self._positions[tp.partition]
        consumer.assign(partitions)
        self.assigned.set()

    def start(self) -> None:
        self._consumer.subscribe([self.topic], on_assign=self._on_assign)
        self._thread.start()

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                for msg in self._consumer.consume(num_messages=500, timeout=0.1):
                    err = msg.error()
                    if err is not None:
                        if err.code() != KafkaError._PARTITION_EOF:
                            self.errors += 1
                        continue
                    p, offset = msg.partition(), msg.offset()
                    if p is None or offset is None:
                        continue
                    self._records[(p, offset)] = decode(msg.value(), self.run_id, p)
                    if offset + 1 > self._positions.get(p, 0):
                        self._positions[p] = offset + 1
        except KafkaException:
            self.errors += 1
        finally:
            try:
                self._consumer.close()  # commits, and leaves the group at once rather than after its session
                self.closed_cleanly = True
            except (KafkaException, RuntimeError):
                pass

    def positions(self) -> dict[int, int]:
        return dict(self._positions)

    def stop(self) -> bool:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(CLIENT_CLOSE_S)
        return _ended(self._thread, self, "_consumer")

    def read_by_offset(self) -> dict[tuple[int, int], int | None]:
        """Every record read: (partition, offset) → its sequence number (None: not this run's)."""
        return dict(self._records)


def read_range(
    config: dict[str, Any],
    topic: str,
    run_id: str,
    starts: Mapping[int, int],
    ends: Mapping[int, int],
    timeout_s: float,
) -> tuple[dict[tuple[int, int], int | None], dict[int, int]]:
    """Each partition from `starts` up to `ends`, read by a fresh consumer outside any group: a client that lived
    through the faults can keep a stale view of a partition for a while (seen on Kafka 4.1: "Unknown partition" for
    10 s after its leader came back). The records by (partition, offset), and where each partition's read stopped."""
    config = {
        **config,
        "group.id": f"kafkatop-chaos-read-{run_id}",  # required by the client; nothing is committed
        "enable.auto.commit": False,
        "enable.auto.offset.store": False,
        "isolation.level": "read_uncommitted",
    }
    positions = {p: starts.get(p, 0) for p in ends}
    pending = {p for p, end in ends.items() if end > positions[p]}
    records: dict[tuple[int, int], int | None] = {}
    consumer = handles.consumer(config)
    try:
        if pending:
            consumer.assign([KafkaTopicPartition(topic, p, positions[p]) for p in sorted(pending)])
        deadline = time.monotonic() + timeout_s
        while pending and time.monotonic() < deadline:
            for msg in consumer.consume(num_messages=500, timeout=0.1):
                p, offset = msg.partition(), msg.offset()
                if msg.error() is not None or p is None or offset is None:
                    continue
                records[(p, offset)] = decode(msg.value(), run_id, p)
                positions[p] = max(positions.get(p, 0), offset + 1)
                if p in pending and positions[p] >= ends[p]:
                    pending.discard(p)
    finally:
        consumer.close()
        handles.release([consumer])
        del consumer
    return records, positions


class ViewPoller:
    """kafkatop's view, polled as the app polls it: one long-lived AdminSource and the node panes' control, the
    next poll scheduled when the last one finished (polls never overlap)."""

    def __init__(self, source: ClusterSource, control: NodeControl, interval_s: float) -> None:
        self.source, self.control, self.interval_s = source, control, interval_s
        self._polls: deque[ViewPoll] = deque(maxlen=20_000)
        self._lock = threading.Lock()
        self.count = 0
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="kafkatop-chaos-view", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            error = None
            snapshot: ClusterSnapshot | None = None
            reason = None
            try:
                snapshot = self.source.poll()
            except KafkatopError as e:  # SourceUnavailable: what the app shows as "cluster unavailable"
                reason = str(e)
            except Exception as e:  # noqa: BLE001 - the app would report this as a failed poll: a finding
                reason = error = f"cluster poll: {type(e).__name__}: {e}"
            nodes: NodesSnapshot | None = None
            try:
                nodes = self.control.poll()
            except Exception as e:  # noqa: BLE001 - likewise for the node panes
                error = f"node poll: {type(e).__name__}: {e}"
            poll = ViewPoll(self.count, started, time.monotonic(), cluster_state(snapshot, nodes, reason), error)
            with self._lock:
                self._polls.append(poll)
                self.count += 1
                if error is not None:
                    self.errors.append(error)
            self._stop.wait(self.interval_s)

    def polls(self, from_index: int = 0) -> list[ViewPoll]:
        with self._lock:
            return [p for p in self._polls if p.index >= from_index]

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(CLIENT_CLOSE_S)
        if not self._thread.is_alive():
            self.source.close()


def jvms_under(state_dir: Path) -> dict[int, list[str]]:
    """JVMs whose command line names a path inside `state_dir` (a lab node's config, its log dir): pid → cmdline."""
    inside = f"{state_dir}{os.sep}"
    found: dict[int, list[str]] = {}
    for proc in psutil.process_iter(["pid", "cmdline", "status"]):
        try:
            cmdline = proc.info.get("cmdline") or []
            if proc.info.get("status") == psutil.STATUS_ZOMBIE or not cmdline:
                continue
            if not os.path.basename(cmdline[0]).startswith("java"):
                continue
            if any(inside in arg for arg in cmdline):
                found[int(proc.info["pid"])] = list(cmdline)
        except (psutil.Error, OSError):
            continue
    return found
