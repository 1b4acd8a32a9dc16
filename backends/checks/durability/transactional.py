"""The producing phase of a transactional durability check (`--transactional`): a transactional producer sends the
records in transactions of `transaction_records` each (begin, produce…, commit). A transaction that fails with an
abortable error — its records timed out while their leader was down — is aborted, and its records are sent again in a
new transaction: each record is committed once. The fault lands in the middle of a transaction (after its share of
the records, once half the transaction's are sent and written), so that the transaction is open on its coordinator,
and in the log, when the leader fails."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Producer

from kafkatop.backends.checks.durability.context import DurabilityContext
from kafkatop.backends.checks.durability.fault import (
    ACTION_WAIT_S,
    LEADER_WAIT_S,
    POLL_S,
    FaultLog,
    await_new_leader,
    fault,
    restart,
)
from kafkatop.backends.checks.durability.produce import drain
from kafkatop.backends.checks.durability.verdict import encode
from kafkatop.backends.kafka import handles
from kafkatop.backends.kafka.errors import describe_error, error_text
from kafkatop.backends.model.durability import DurabilityRefused, RecordDelivery, TransactionOutcome

# The first init_transactions on a cluster creates __transaction_state (50 partitions): seconds, not minutes.
INIT_S = 60.0
# A commit or an abort is resumed in slices of this (librdkafka's way: call it again after a timeout), so that
# progress goes on being reported while it waits for a new leader.
SLICE_S = 1.0
# The same records aborted this many times in a row: the cluster cannot take them (a leader that does not come back).
MAX_ABORTS_IN_A_ROW = 10


def transactional_id(run_id: str) -> str:
    return f"kafkatop-durability-{run_id}"


def new_transactional_producer(run: DurabilityContext, run_id: str) -> Producer:
    """A transactional producer, its transactions initialised; DurabilityRefused (nothing sent) when the cluster
    cannot do transactions."""
    config = run.config("kafkatop-durability")
    config.update(run.settings.producer_config())
    config["transactional.id"] = transactional_id(run_id)
    # librdkafka refuses a message.timeout.ms above transaction.timeout.ms (60 s unless set).
    config["transaction.timeout.ms"] = max(60_000, int(config["message.timeout.ms"]))
    try:
        producer = handles.producer(config)
    except (KafkaException, ValueError, TypeError) as e:
        raise run.client_error("producer", e, config) from None
    run.fault_note = f"initialising transactions ({config['transactional.id']})"
    run.progress("producing", force=True)
    try:
        producer.init_transactions(INIT_S)
    except KafkaException as e:
        box: list[Any] = [producer]
        del producer
        handles.release(box)
        raise DurabilityRefused(
            f"the cluster cannot do transactions: init_transactions failed within {INIT_S:g} s "
            f"({run.connection.redact(describe_error(e))}); nothing was sent. Transactions need a transaction "
            "coordinator (Kafka 0.11 or later, as many brokers up as transaction.state.log.replication.factor and, "
            "on a secured cluster, WRITE on the transactional id): run without --transactional"
        ) from None
    finally:
        run.fault_note = None
    return producer


@dataclass
class Attempts:
    """Every record sent and its delivery report, a record sent again after its transaction was aborted included."""

    run: DurabilityContext
    partitions: int
    records: list[tuple[int, int]] = field(default_factory=list)  # (record, transaction) per attempt
    acked: bytearray = field(default_factory=bytearray)
    offsets: list[int | None] = field(default_factory=list)
    errors: list[str | None] = field(default_factory=list)

    def send(self, producer: Producer, run_id: str, record: int, transaction: int) -> None:
        """Sends one record (BufferError and KafkaException as produce() raises them)."""
        k = len(self.records)
        p, seq = record % self.partitions, record // self.partitions
        producer.produce(self.run.settings.topic, value=encode(run_id, p, seq, transaction), partition=p,
                         on_delivery=self._reporter(k))  # fmt: skip
        self.records.append((record, transaction))
        self.acked.append(0)
        self.offsets.append(None)
        self.errors.append(None)
        self.run.sent += 1

    def _reporter(self, k: int) -> Callable[[KafkaError | None, Any], None]:
        def report(err: KafkaError | None, msg: Any) -> None:
            if err is None:
                self.acked[k] = 1
                offset = msg.offset()
                self.offsets[k] = offset if offset is not None and offset >= 0 else None
                self.run.acked += 1
            else:
                self.errors[k] = error_text(err)
                self.run.failed += 1

        return report

    def deliveries(self) -> list[RecordDelivery]:
        n = self.partitions
        return [
            RecordDelivery(i % n, i // n, bool(self.acked[k]), self.offsets[k], self.errors[k], transaction=t)
            for k, (i, t) in enumerate(self.records)
        ]


def _stop(run: DurabilityContext, what: str, e: KafkaException) -> None:
    """The producer can send no more (a fatal error): the run ends with what was sent."""
    run.halted = run.halted or f"the producer stopped after {run.sent} records: {what} ({describe_error(e)})"


def _send(run: DurabilityContext, producer: Producer, attempts: Attempts, run_id: str, i: int, txn: int) -> bool:
    """Sends record `i`; False when the transaction cannot take it: failed already (abortable: `run.halted` stays
    None) or the producer stopped (`run.halted` says why)."""
    while True:
        try:
            attempts.send(producer, run_id, i, txn)
            return True
        except BufferError:
            producer.poll(POLL_S)  # librdkafka's queue is full: let deliveries drain it
        except KafkaException as e:
            if not e.args[0].txn_requires_abort():
                _stop(run, "a record was refused", e)
            return False


def _started(timeline: FaultLog, step: Future[None]) -> Callable[[], bool]:
    """The start is issued (not ended: a lab broker takes seconds to serve)."""
    return lambda: timeline.get("restart_at") is not None or step.done()


def _wait(run: DurabilityContext, producer: Producer, done: Callable[[], bool]) -> None:
    """Serves deliveries until `done()` (a fault step under way), within ACTION_WAIT_S."""
    deadline = time.monotonic() + ACTION_WAIT_S
    while not done() and time.monotonic() < deadline:
        producer.poll(POLL_S)
        run.progress("producing")


def _end(run: DurabilityContext, producer: Producer, *, commit: bool) -> TransactionOutcome:
    """Commits (or aborts) the open transaction; one that fails with an abortable error is aborted."""
    deadline = time.monotonic() + run.settings.delivery_timeout_s + LEADER_WAIT_S
    while commit:
        try:
            producer.commit_transaction(SLICE_S)
            return "committed"
        except KafkaException as e:
            err: KafkaError = e.args[0]
            if err.txn_requires_abort():
                break
            if not err.retriable() or time.monotonic() >= deadline:
                _stop(run, "a commit failed", e)
                return "unresolved"  # maybe committed, maybe not
        run.progress("producing")
    while True:
        try:
            producer.abort_transaction(SLICE_S)
            return "aborted"
        except KafkaException as e:
            if not e.args[0].retriable() or time.monotonic() >= deadline:
                _stop(run, "an abort failed", e)
                return "aborted"  # never committed: its coordinator aborts it after transaction.timeout.ms
        run.progress("producing")


def produce_transactions(
    run: DurabilityContext,
    producer: Producer,
    run_id: str,
    partitions: int,
    timeline: FaultLog,
    faults: ThreadPoolExecutor,
) -> tuple[list[RecordDelivery], dict[int, TransactionOutcome], list[Future[None]]]:
    """The records in transactions, the fault (and the restart) at their shares of the records; every attempt's
    delivery report and every transaction's outcome."""
    s = run.settings
    n = s.records
    attempts = Attempts(run, partitions)
    outcomes: dict[int, TransactionOutcome] = {}
    steps: list[Future[None]] = []
    fault_step: Future[None] | None = None
    restart_step: Future[None] | None = None
    first = 0  # records sent at least once
    start = 0  # the first record of the next transaction
    aborts = 0  # in a row, of the records from `start`
    interval = 1.0 / s.rate if s.rate else 0.0
    next_send = time.monotonic()

    def stopping() -> bool:
        return run.cancelled.is_set() or run.halted is not None

    while start < n and not stopping():
        batch = range(start, min(n, start + s.transaction_records))
        transaction = len(outcomes) + 1
        try:
            producer.begin_transaction()
        except KafkaException as e:
            _stop(run, "begin_transaction failed", e)
            break
        outcomes[transaction] = "unresolved"
        abortable = False
        for k, i in enumerate(batch):
            if interval:
                next_send = max(next_send, time.monotonic() - 0.1)  # no catch-up burst after a pause
                while (wait_s := next_send - time.monotonic()) > 0:
                    producer.poll(min(POLL_S, wait_s))
                next_send += interval
            if not _send(run, producer, attempts, run_id, i, transaction):
                abortable = True  # failed already (or the producer stopped): abort it, send its records again
                break
            first = max(first, i + 1)
            producer.poll(0)
            run.progress("producing")
            # The fault comes in the middle of a transaction — once half its records are sent, not after its last —
            # and they are written first: the transaction is open on its coordinator, and in the log, when the
            # leader fails, and the rest of its records go to a leader that is gone.
            middle = 2 * (k + 1) >= len(batch) and (k < len(batch) - 1 or len(batch) == 1)
            due = s.kill_after is not None and first >= s.kill_after and middle
            if fault_step is None and due and not stopping():
                producer.flush(s.delivery_timeout_s)
                step = fault_step = run.fault_step = faults.submit(fault, run, timeline)
                steps += [step, faults.submit(await_new_leader, run, timeline)]
                _wait(run, producer, step.done)
            if fault_step is not None and restart_step is None and s.restart_after is not None:
                if first >= s.restart_after or stopping():
                    restart_step = faults.submit(restart, run, timeline)
                    steps.append(restart_step)
                    _wait(run, producer, _started(timeline, restart_step))
            if stopping():
                break
        outcome = outcomes[transaction] = _end(run, producer, commit=not (abortable or stopping()))
        if outcome == "committed":
            start, aborts = batch.stop, 0
        elif outcome == "aborted" and not stopping():
            aborts += 1
            if aborts >= MAX_ABORTS_IN_A_ROW:
                run.halted = (
                    f"the producer stopped after {run.sent} records: the same {len(batch)} records were aborted "
                    f"{aborts} times in a row (is a leader missing?)"
                )
    if fault_step is not None and restart_step is None and s.restart_after is not None:
        steps.append(faults.submit(restart, run, timeline))  # the threshold was not reached: after the last
    drain(producer)
    return attempts.deliveries(), outcomes, steps
