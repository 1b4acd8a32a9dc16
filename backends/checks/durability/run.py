"""The durability check: does a topic keep every acknowledged record while the leader of a partition fails?

A producer writes N records to explicit partitions in turn, each record carrying this run's id and its partition's
own sequence number. Meanwhile the leader of one partition is killed (SIGKILL) or stopped (controlled shutdown)
through a NodeControl, and later started again. Then each partition is read back from where this run began to
its high watermark, and every record's fate is counted: acked, failed, read, lost (acked but not in the log),
duplicated, out of order, and present although its delivery failed (Kafka is at least once: a record whose answer
never came may well be written).

What the settings promise is stated before the run (`expectation`), and the verdict says whether the log kept it.
This module drives the clients and the fault (`DurabilityCheck`); the pure parts (settings, `check_topic`,
`expectation`, `verify`, `judge`, the report) live in backends/durability_model.py and are re-exported here. Every
wait on Kafka or on a node has a deadline.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, ResourceType

from kafkatop.backends.checks.durability.verdict import (
    acked_ends,
    check_control,
    check_topic,
    decode,
    encode,
    expectation,
    judge,
    verify,
)
from kafkatop.backends.kafka.admin import AdminSource
from kafkatop.backends.kafka.errors import describe_error
from kafkatop.backends.model.cluster import NO_LEADER
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.durability import (
    DurabilityError,
    DurabilityProgress,
    DurabilityRefused,
    DurabilityReport,
    DurabilitySettings,
    Fault,
    FaultEvent,
    FaultTimeline,
    ReadRecord,
    RecordDelivery,
    Step,
    TopicFacts,
    total,
)
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.ports import NodeControl

# Records sent whose delivery report has not come yet, at most: a twentieth of the run, between these bounds. Without
# a cap a fast cluster takes every record in one burst and the fault lands after the last one; with it, the fault
# meets records in flight, and more are sent after it.
WINDOW_MIN, WINDOW_MAX = 10, 1_000
# A SIGKILL'd leader is replaced once the controller gives up on it: KRaft after broker.session.timeout.ms (9 s),
# ZooKeeper mode after zookeeper.session.timeout.ms (18 s).
LEADER_WAIT_S = 60.0
# A control action bounds itself (a lab start waits up to 120 s for the node to serve); this only backstops it.
ACTION_WAIT_S = 300.0
POLL_S = 0.05
CHECK_EVERY_S = 0.2  # between metadata reads while waiting for a new leader or a full ISR
PROGRESS_EVERY_S = 0.1


@dataclass
class _Timeline:
    """The timeline while it is written, by the producing thread and the fault thread."""

    fault: Fault | None
    partition: int
    counts: Callable[[], tuple[int, int]]  # records (sent, reported) now
    lock: threading.Lock = field(default_factory=threading.Lock)
    values: dict[str, Any] = field(default_factory=dict)
    events: list[FaultEvent] = field(default_factory=list)

    def _event(self, at: float, what: str) -> None:
        sent, done = self.counts()
        self.events.append(FaultEvent(at, sent, done, what))

    def set(self, what: str | None = None, **values: Any) -> None:
        with self.lock:
            self.values.update(values)
            if what is not None:
                self._event(time.time(), what)

    def get(self, name: str) -> Any:
        with self.lock:
            return self.values.get(name)

    def claim(self, name: str, what: str) -> bool:
        """Sets `name` to now unless it is set already: True for the one caller that set it."""
        with self.lock:
            if self.values.get(name) is not None:
                return False
            self.values[name] = time.time()
            self._event(self.values[name], what)
            return True

    def frozen(self) -> FaultTimeline:
        with self.lock:
            return FaultTimeline(self.fault, self.partition, events=tuple(self.events), **self.values)


# --- the run --------------------------------------------------------------------------------------------------------
def _error_text(err: KafkaError) -> str:
    return describe_error(KafkaException(err))


def _drain(producer: Producer) -> None:
    """Reports what is still waiting as failed (purged) rather than unknown; close() would wait for it unbounded."""
    if len(producer) > 0:
        producer.flush(1.0)
        producer.purge()
        producer.flush(1.0)


class DurabilityCheck:
    """One durability run against a cluster. `run()` blocks (seconds to minutes): call it from a worker thread.

    `control` performs the fault; it may be None only without one (`kill_at=None`). `on_progress` is called from the
    thread that runs the check; a UI posts it on (Textual's post_message is thread-safe). `cancel()`, from any thread,
    stops producing, starts a broker that was made to fail, and ends the run with an incomplete report.
    """

    def __init__(
        self,
        connection: KafkaConnection,
        settings: DurabilitySettings,
        control: NodeControl | None = None,
        *,
        on_progress: Callable[[DurabilityProgress], None] | None = None,
        timeout_s: float = 10.0,
    ) -> None:
        if settings.kill_at is not None and control is None:
            raise DurabilityRefused(
                "a fault needs a cluster whose nodes kafkatop can kill and start: run on a lab cluster, or without "
                "a fault"
            )
        self.connection = connection
        self.bootstrap_servers = connection.bootstrap_servers
        self.settings = settings
        self.control = control
        self.timeout_s = timeout_s
        self._on_progress = on_progress
        self._cancelled = threading.Event()
        self._admin: AdminClient | None = None
        self._facts: TopicFacts | None = None
        self._sent = self._acked = self._failed = self._read = 0
        self._step: Step = "preflight"
        self._note: str | None = None  # as last reported
        self._fault_note: str | None = None  # the fault step under way, written by the fault thread
        self._progress_at = 0.0
        self._fault_step: Future[None] | None = None
        self._halted: str | None = None  # why the producer could send no more (a fatal error), if it stopped early

    def cancel(self) -> None:
        self._cancelled.set()

    # --- plumbing ------------------------------------------------------------------------------------------------
    def _config(self, client_id: str) -> dict[str, Any]:
        return self.connection.config(client_id)

    def _client_error(self, what: str, exc: BaseException, config: Mapping[str, Any]) -> DurabilityRefused:
        return DurabilityRefused(f"invalid {what} configuration: {self.connection.redact(describe_error(exc))}")

    def _admin_client(self) -> AdminClient:
        if self._admin is None:
            config = self._config("kafkatop-durability")
            try:
                self._admin = AdminClient(config)
            except (KafkaException, ValueError, TypeError) as e:
                raise self._client_error("client", e, config) from None
        return self._admin

    def _progress(self, step: Step, *, force: bool = False) -> None:
        note = self._fault_note
        if step != self._step or note != self._note:
            self._step, self._note, force = step, note, True
        now = time.monotonic()
        if self._on_progress is None or (not force and now - self._progress_at < PROGRESS_EVERY_S):
            return
        self._progress_at = now
        self._on_progress(
            DurabilityProgress(
                self._step,
                self.settings.records,
                self._sent,
                self._acked,
                self._failed,
                self._read,
                self._note,
            )
        )

    @property
    def _done(self) -> int:
        return self._acked + self._failed

    # --- preflight -----------------------------------------------------------------------------------------------
    def _topic_configs(self) -> dict[str, str] | None:
        """min.insync.replicas and unclean.leader.election.enable as the cluster has them; None when unreadable."""
        resource = ConfigResource(ResourceType.TOPIC, self.settings.topic)
        try:
            future = self._admin_client().describe_configs([resource], request_timeout=self.timeout_s)[resource]
            entries = future.result(timeout=self.timeout_s + 1.0)
        except Exception:  # noqa: BLE001 - unreadable configs (the mock has no DescribeConfigs) are "unknown"
            return None
        wanted = ("min.insync.replicas", "unclean.leader.election.enable")
        return {k: str(entries[k].value) for k in wanted if k in entries and entries[k].value is not None}

    def preflight(self) -> TopicFacts:
        """The topic's facts, or DurabilityRefused (nothing produced or signalled yet); SourceUnavailable when the
        cluster does not answer."""
        self._progress("preflight", force=True)
        source = AdminSource(self.connection, timeout_s=self.timeout_s)
        try:
            snapshot = source.poll()
        finally:
            source.close()
        facts = check_topic(snapshot, self.settings, self._topic_configs())
        if self.settings.kill_at is not None and self.control is not None:
            check_control(self.control.poll(), facts.leader, self.settings)
        self._facts = facts
        return facts

    # --- metadata during the run ------------------------------------------------------------------------------
    def _partition_metadata(self) -> dict[int, Any] | None:
        """This topic's partitions from a fresh Metadata request; None when no broker answered in time."""
        try:
            md = self._admin_client().list_topics(topic=self.settings.topic, timeout=min(self.timeout_s, 5.0))
        except KafkaException:
            return None
        topic = md.topics.get(self.settings.topic)
        return None if topic is None or topic.error is not None else dict(topic.partitions)

    def _leader(self) -> int | None:
        parts = self._partition_metadata()
        pm = None if parts is None else parts.get(self.settings.partition)
        return None if pm is None else (pm.leader if pm.leader >= 0 else NO_LEADER)

    # --- the fault (on its own thread, so that deliveries go on being served) -------------------------------------
    def _fault(self, timeline: _Timeline) -> None:
        s = self.settings
        assert self.control is not None
        tp = f"{s.topic}-{s.partition}"
        try:
            leader = self._leader()
            if leader is None or leader == NO_LEADER:
                raise DurabilityError(f"{tp} has no leader to {s.fault} (metadata: {leader})")
            node = check_control(self.control.poll(), leader, s)
            if self._cancelled.is_set():
                return  # cancelled or interrupted while the leader was looked up: no fault after all
            what = f"{s.fault} {node.name} (leader of {tp})"
            self._fault_note = what
            timeline.set(what, node=node.name, leader_before=leader, fault_at=time.time())
            getattr(self.control, s.fault)(node.name)
            timeline.set(f"{node.name} is down", fault_done_at=time.time())
        except KafkatopError as e:
            timeline.set(f"{s.fault} failed: {e}", fault_error=str(e))
        finally:
            self._fault_note = None

    def _await_new_leader(self, timeline: _Timeline) -> None:
        before = timeline.get("leader_before")
        if timeline.get("fault_done_at") is None:
            return
        tp = f"{self.settings.topic}-{self.settings.partition}"
        self._fault_note = f"waiting for a new leader of {tp}"
        deadline = time.monotonic() + LEADER_WAIT_S
        leader = None
        while True:
            leader = self._leader()
            if leader is not None and leader not in (before, NO_LEADER):
                timeline.set(
                    f"leader of {tp}: {before} → {leader}",
                    leader_after=leader,
                    leader_changed_at=time.time(),
                )
                break
            if time.monotonic() >= deadline:
                timeline.set(
                    f"no new leader of {tp} within {LEADER_WAIT_S:g} s (metadata says {leader})",
                    leader_after=leader,
                )
                break
            if self._cancelled.wait(CHECK_EVERY_S):
                break
        self._fault_note = None

    def _restart(self, timeline: _Timeline) -> None:
        node = timeline.get("node")
        if node is None or timeline.get("fault_done_at") is None:
            return
        assert self.control is not None
        if not timeline.claim("restart_at", f"start {node}"):
            return  # started already (a recovery and the planned restart can meet)
        self._fault_note = f"start {node}"
        try:
            self.control.start(node)
            timeline.set(f"{node} is up", restarted_at=time.time())
        except KafkatopError as e:
            timeline.set(f"start failed: {e}", restart_error=str(e))
        finally:
            self._fault_note = None

    # --- producing -----------------------------------------------------------------------------------------------
    def _producer(self) -> Producer:
        config = self._config("kafkatop-durability")
        config.update(self.settings.producer_config())
        try:
            return Producer(config)
        except (KafkaException, ValueError, TypeError) as e:
            raise self._client_error("producer", e, config) from None

    def _produce(
        self, producer: Producer, run_id: str, partitions: int, timeline: _Timeline, faults: ThreadPoolExecutor
    ) -> tuple[list[RecordDelivery], list[Future[None]]]:
        s = self.settings
        n = s.records
        offsets: list[int | None] = [None] * n
        errors: list[str | None] = [None] * n
        acked = bytearray(n)

        def reporter(i: int) -> Callable[[KafkaError | None, Any], None]:
            def report(err: KafkaError | None, msg: Any) -> None:
                if err is None:
                    acked[i] = 1
                    offset = msg.offset()
                    offsets[i] = offset if offset is not None and offset >= 0 else None
                    self._acked += 1
                else:
                    errors[i] = _error_text(err)
                    self._failed += 1

            return report

        steps: list[Future[None]] = []
        fault_step: Future[None] | None = None
        fault_sent_at = 0.0
        restart_step: Future[None] | None = None
        window = max(WINDOW_MIN, min(WINDOW_MAX, n // 20))
        interval = 1.0 / s.rate if s.rate else 0.0
        next_send = time.monotonic()
        last_send = time.monotonic()
        while True:
            now = time.monotonic()
            stopping = self._cancelled.is_set() or self._halted is not None
            if s.kill_after is not None and fault_step is None and self._sent >= s.kill_after and not stopping:
                fault_step = self._fault_step = faults.submit(self._fault, timeline)
                fault_sent_at = now
                steps += [fault_step, faults.submit(self._await_new_leader, timeline)]
            if (
                fault_step is not None
                and restart_step is None
                and s.restart_after is not None
                and (self._sent >= s.restart_after or stopping)
            ):
                restart_step = faults.submit(self._restart, timeline)
                steps.append(restart_step)
            # Sending waits for the kill or stop to return, so the fault lands mid-run however fast the cluster is;
            # and for the start to be issued (not to end: a lab broker takes seconds to serve), so it comes on time.
            paused = fault_step is not None and not fault_step.done() and now - fault_sent_at < ACTION_WAIT_S
            paused = paused or (
                restart_step is not None and not restart_step.done() and timeline.get("restart_at") is None
            )
            if interval and next_send < now - 0.1:
                next_send = now  # no catch-up burst after a pause
            # Sending stops at a step's threshold until the step is under way, so it comes after exactly that many.
            if fault_step is None:
                step_at = s.kill_after
            else:
                step_at = s.restart_after if restart_step is None else None
            while (
                self._sent < n
                and (step_at is None or self._sent < step_at)
                and not stopping
                and not paused
                and self._sent - self._done < window
                and (not interval or next_send <= now)
            ):
                i = self._sent
                p = i % partitions
                try:
                    producer.produce(s.topic, value=encode(run_id, p, i // partitions), partition=p,
                                     on_delivery=reporter(i))  # fmt: skip
                except BufferError:
                    break  # librdkafka's queue is full: let deliveries drain it
                except KafkaException as e:
                    # A fatal producer error (an idempotence failure, say) is a finding: the records sent are verified.
                    self._halted = f"the producer stopped after {self._sent} records ({describe_error(e)})"
                    break
                self._sent += 1
                last_send = now
                next_send += interval
            wait_s = POLL_S
            if interval and self._sent < n:
                wait_s = min(POLL_S, max(0.0, next_send - time.monotonic()))
            producer.poll(wait_s)
            self._progress("producing")
            finished_sending = self._sent >= n or stopping or self._halted is not None
            if finished_sending and self._done >= self._sent:
                break
            # Every record is reported within its delivery timeout of being sent; this is only a backstop.
            if finished_sending and time.monotonic() > last_send + s.delivery_timeout_s + 10.0:
                break
        if fault_step is not None and restart_step is None and s.restart_after is not None:
            steps.append(faults.submit(self._restart, timeline))  # the threshold was not reached: after the last
        _drain(producer)
        deliveries = [
            RecordDelivery(
                partition=i % partitions,
                seq=i // partitions,
                acked=bool(acked[i]),
                offset=offsets[i],
                error=errors[i],
            )
            for i in range(self._sent)
        ]
        return deliveries, steps

    # --- reading back --------------------------------------------------------------------------------------------
    def _consumer(self, run_id: str) -> Consumer:
        config = self._config("kafkatop-durability")
        config.update(
            {
                "group.id": f"kafkatop-durability-{run_id}",  # required by the client; nothing is committed
                "enable.auto.commit": False,
                "enable.auto.offset.store": False,
                # End of partition is an event, not a timeout: the read-back ends the moment each partition is read.
                "enable.partition.eof": True,
                "auto.offset.reset": "earliest",
                # Up to the high watermark, as the watermarks are read: an open transaction must not stall the read.
                "isolation.level": "read_uncommitted",
            }
        )
        try:
            return Consumer(config)
        except (KafkaException, ValueError, TypeError) as e:
            raise self._client_error("consumer", e, config) from None

    def _high_watermarks(
        self, consumer: Consumer, partitions: int, what: str, within_s: float | None = None
    ) -> dict[int, int]:
        within_s = self.timeout_s if within_s is None else within_s
        deadline = time.monotonic() + within_s
        out: dict[int, int] = {}
        for p in range(partitions):
            while True:
                try:
                    _, high = consumer.get_watermark_offsets(
                        KafkaTopicPartition(self.settings.topic, p),
                        timeout=max(0.1, min(2.0, deadline - time.monotonic())),
                        cached=False,
                    )
                    out[p] = int(high)
                    break
                except KafkaException as e:
                    if time.monotonic() >= deadline:
                        raise DurabilityError(
                            f"cannot read the {what} offsets of {self.settings.topic}-{p} within {within_s:g} s "
                            f"({describe_error(e)}): check that its leader is up"
                        ) from None
        return out

    def _read_back(
        self, consumer: Consumer, run_id: str, starts: Mapping[int, int], ends: Mapping[int, int]
    ) -> tuple[list[ReadRecord], list[str], bool]:
        """This run's range of each partition, up to `ends`; the records, problems met, and whether all was read."""
        topic = self.settings.topic
        pending = {p for p in starts if ends[p] > starts[p]}
        records: list[ReadRecord] = []
        problems: list[str] = []
        position = dict(starts)
        if pending:
            consumer.assign([KafkaTopicPartition(topic, p, starts[p]) for p in sorted(pending)])
        deadline = time.monotonic() + self.settings.read_timeout_s
        while pending and time.monotonic() < deadline:
            # consume() waits out its timeout unless the batch fills: a short one, so the last batch is not held back.
            for msg in consumer.consume(num_messages=1000, timeout=min(POLL_S, max(0.0, deadline - time.monotonic()))):
                p, offset, err = msg.partition(), msg.offset(), msg.error()
                if err is not None:
                    if err.code() == KafkaError._PARTITION_EOF:
                        if p is not None and offset is not None and offset >= ends.get(p, 0):
                            pending.discard(p)
                    elif not problems or problems[-1] != _error_text(err):
                        problems.append(_error_text(err))
                    continue
                if p is None or offset is None:
                    continue
                if p not in pending or offset >= ends[p]:
                    pending.discard(p)  # written after this run's end: not read
                    continue
                records.append(ReadRecord(p, offset, decode(msg.value(), run_id, p)))
                position[p] = offset + 1
                self._read += 1
                if position[p] >= ends[p]:
                    pending.discard(p)
            self._progress("reading back")
        for p in sorted(pending):
            problems.append(
                f"{topic}-{p}: read up to offset {position[p]} of {ends[p]} within {self.settings.read_timeout_s:g} s"
            )
        return records, problems, not pending

    # --- the ISR ---------------------------------------------------------------------------------------------------
    def _wait_isr_full(self, timeline: _Timeline) -> str | None:
        """Waits until every partition of the topic has its whole replica set in sync; a problem line if not."""
        self._progress("waiting for ISR", force=True)
        deadline = time.monotonic() + self.settings.isr_timeout_s
        short = "no metadata"
        while True:
            parts = self._partition_metadata()
            if parts is not None:
                short_of = {p: pm for p, pm in parts.items() if pm.leader < 0 or set(pm.replicas) - set(pm.isrs)}
                if not short_of:
                    timeline.set("ISR full again", isr_full_at=time.time())
                    return None
                short = ", ".join(
                    f"{self.settings.topic}-{p} ISR {list(pm.isrs)} of {list(pm.replicas)}"
                    for p, pm in sorted(short_of.items())
                )
            if time.monotonic() >= deadline or self._cancelled.wait(CHECK_EVERY_S):
                return f"ISR not full within {self.settings.isr_timeout_s:g} s: {short}"

    # --- the whole run ---------------------------------------------------------------------------------------------
    def run(self) -> DurabilityReport:
        """Preflight (raises DurabilityRefused before anything is sent), produce with the fault, wait for the ISR,
        read back, judge. A failure after the fault still starts the broker again before it is raised."""
        s = self.settings
        started = time.time()
        facts = self._facts or self.preflight()
        expected = expectation(s, facts)
        run_id = secrets.token_hex(4)
        timeline = _Timeline(s.fault if s.kill_at is not None else None, s.partition, lambda: (self._sent, self._done))
        problems: list[str] = []
        consumer = self._consumer(run_id)
        try:
            starts = self._high_watermarks(consumer, facts.partitions, "start")
            producer = self._producer()
            faults = ThreadPoolExecutor(1, thread_name_prefix="kafkatop-durability-fault")
            try:
                self._progress("producing", force=True)
                deliveries, steps = self._produce(producer, run_id, facts.partitions, timeline, faults)
                wait(steps, timeout=ACTION_WAIT_S + LEADER_WAIT_S)
                for step in steps:
                    if step.done():
                        step.result()  # a bug on the fault thread surfaces here, not silently
                    else:
                        problems.append("a fault step did not finish in time: the broker may still be down")
            except BaseException:
                self._recover(timeline, faults)
                raise
            finally:
                faults.shutdown(wait=False)
                _drain(producer)
                producer.close()
            if timeline.get("restarted_at") is not None:
                if (isr_problem := self._wait_isr_full(timeline)) is not None:
                    problems.append(isr_problem)
            self._progress("reading back", force=True)
            # A client that lived through the fault can keep a stale view of the partition (seen on Kafka 4.1:
            # "Unknown partition" for 10 s after the leader came back): the read-back gets a fresh one.
            consumer.close()
            consumer = self._consumer(run_id)
            try:
                ends = self._high_watermarks(consumer, facts.partitions, "end", self.settings.read_timeout_s)
            except DurabilityError as e:
                # What was produced is not lost with the watermarks: read up to the last acknowledged offsets.
                ends = acked_ends(deliveries, starts)
                problems.append(f"{e}; read up to each partition's last acknowledged offset instead")
            read, read_problems, read_complete = self._read_back(consumer, run_id, starts, ends)
        finally:
            consumer.close()
        problems += read_problems
        frozen = timeline.frozen()
        if frozen.restart_error:
            problems.append(f"{frozen.node} could not be started again: {frozen.restart_error}")
        elif frozen.happened and s.restart_at is None:
            problems.append(f"{frozen.node} is left down (no restart was planned): start it again when done")
        rows = verify(deliveries, read, range(facts.partitions), starts, ends)
        cancelled = self._cancelled.is_set()
        if self._halted is not None:
            problems.insert(0, self._halted)
        verdict, text = judge(
            expected,
            total(rows),
            read_complete=read_complete,
            fault_error=frozen.fault_error,
            cancelled=cancelled,
            halted=self._halted,
        )
        self._progress("done", force=True)
        return DurabilityReport(
            settings=s,
            run_id=run_id,
            bootstrap_servers=self.bootstrap_servers,
            facts=facts,
            expectation=expected,
            partitions=rows,
            timeline=frozen,
            started_at=started,
            finished_at=time.time(),
            read_complete=read_complete,
            cancelled=cancelled,
            verdict=verdict,
            verdict_text=text,
            problems=tuple(problems),
        )

    def _recover(self, timeline: _Timeline, faults: ThreadPoolExecutor) -> None:
        """After a failure or an interrupt: a broker this run took down is started again, as planned."""
        self._cancelled.set()
        faults.shutdown(wait=False, cancel_futures=True)
        if self._fault_step is not None:
            wait([self._fault_step], timeout=ACTION_WAIT_S)  # a kill or stop under way ends before the start
        if self.settings.restart_at is not None:
            self._restart(timeline)  # does nothing unless the fault happened and no start was issued yet

