"""A scenario's transactions (`action = "transaction"`): one transactional producer per run, its records sent across
the topic's partitions in turn (a transaction spans them), then committed, aborted or left open for a later step to
go on with. A record that cannot be delivered (its partition's leader refuses it, NOT_ENOUGH_REPLICAS, until the
delivery timeout) makes the transaction abortable, and the run aborts it, as an application must: every record of it,
on every partition, is then skipped by read_committed consumers. Read back with either isolation level, counting only
this run's records (a topic kept from an earlier run holds others)."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, replace
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition

from kafkatop.backends.kafka import handles
from kafkatop.backends.kafka.errors import describe_error, error_text
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError

INIT_S = 60.0  # the first init_transactions on a cluster creates __transaction_state
DELIVERY_S = 15.0  # a record its leader will not take fails after this (message.timeout.ms): the transaction aborts
# Long enough that a learner pausing between two steps does not see the coordinator abort an open transaction
# (transaction.max.timeout.ms, the broker's ceiling, is 15 min by default).
TRANSACTION_TIMEOUT_MS = 900_000
END_S = 60.0  # a commit: its coordinator may be moving
# An abort waits for the producer's epoch to be bumped, which its coordinator grants only once the abort markers are
# written — not while a partition of the transaction is below min.insync.replicas. It is left pending after this, and
# resumed by the next transaction step (librdkafka: call abort_transaction again).
ABORT_S = 10.0
READ_S = 30.0


@dataclass(frozen=True, slots=True)
class TransactionEnd:
    outcome: str  # committed, aborted, open
    records: int  # in the transaction, earlier steps' included
    why: str | None  # aborted: what made it abortable
    complete: bool = True  # aborted: False while its abort markers wait to be written

    def __str__(self) -> str:
        why = f" ({self.why})" if self.why else ""
        pending = "" if self.complete else "; the abort is not complete: its markers wait for the partitions' ISRs"
        return f"{self.outcome}, {self.records} records in it{why}{pending}"


class ScenarioTransactions:
    def __init__(self, connection: KafkaConnection, run: str) -> None:
        self.connection = connection
        self.run = run  # every record of this run starts with it (AckedRecords' too)
        self.last: TransactionEnd | None = None
        self._producer: Producer | None = None
        self._open = 0  # records in the open transaction
        self._failed: str | None = None  # a delivery error in the open transaction
        self._aborting = False  # an abort left pending (ABORT_S)

    def send(self, topic: str, partitions: int, count: int, end: str) -> TransactionEnd:
        """`count` records to `topic`'s partitions in turn, in the transaction left open by an earlier step or a new
        one; then `end`: commit (aborted instead when it cannot be), abort, or open."""
        producer = self._transactional()
        if self._aborting:
            self._resume_abort(producer)
        try:
            if not self._open:
                producer.begin_transaction()
            for i in range(count):
                self._produce(producer, topic, i % partitions, f"{self.run}-{time.time_ns()}-{i}".encode())
            self._open += count
            producer.flush(DELIVERY_S + 5)
        except KafkaException as e:
            self._failed = self._failed or describe_error(e)
        if end == "open" and self._failed is None:
            self.last = TransactionEnd("open", self._open, None)
        elif end == "commit" and self._failed is None:
            self.last = self._commit(producer)
        else:
            self.last = self._abort(producer, self._failed)
        return self.last

    def read(self, topic: str, isolation: str) -> int:
        """How many of this run's records (its produce steps' and its transactions') a consumer of `isolation`
        (isolation.level) reads from the log start to its end (read_committed: to the last stable offset, past which
        an open transaction holds it back)."""
        consumer = handles.consumer({**self.connection.config("kafkatop-scenario"),
                                     "group.id": f"kafkatop-scenario-{uuid.uuid4().hex[:8]}",
                                     "enable.auto.commit": False, "auto.offset.reset": "earliest",
                                     "isolation.level": isolation, "enable.partition.eof": True})  # fmt: skip
        mine = f"{self.run}-".encode()
        found = 0
        try:
            meta = consumer.list_topics(topic, timeout=10).topics.get(topic)
            if meta is None or meta.error is not None:
                raise KafkatopError(f"cannot read {topic}: {meta.error if meta else 'not in the metadata'}")
            partitions = sorted(meta.partitions)
            consumer.assign([KafkaTopicPartition(topic, p, 0) for p in partitions])
            at_end: set[int] = set()
            deadline = time.monotonic() + READ_S
            while len(at_end) < len(partitions) and time.monotonic() < deadline:
                for msg in consumer.consume(500, 0.5):
                    err = msg.error()
                    if err is not None:
                        if err.code() == KafkaError._PARTITION_EOF and (p := msg.partition()) is not None:
                            at_end.add(p)
                        continue
                    found += (msg.value() or b"").startswith(mine)
            if len(at_end) < len(partitions):
                raise KafkatopError(f"{len(partitions) - len(at_end)} partition(s) of {topic} not read to their end "
                                    f"in {READ_S:g} s (no leader?)")  # fmt: skip
        except KafkaException as e:
            raise KafkatopError(f"cannot read {topic}: {describe_error(e)}") from None
        finally:
            handles.release([consumer])
        return found

    def close(self) -> None:
        if self._producer is not None:
            box: list[Any] = [self._producer]
            self._producer = None
            handles.release(box)

    # --- the producer -------------------------------------------------------------------------------------------------
    def _transactional(self) -> Producer:
        if self._producer is not None:
            return self._producer
        config = {**self.connection.config("kafkatop-scenario"), "transactional.id": f"kafkatop-scenario-{self.run}",
                  "message.timeout.ms": int(DELIVERY_S * 1000),
                  "transaction.timeout.ms": TRANSACTION_TIMEOUT_MS}  # fmt: skip
        producer = handles.producer(config)
        try:
            producer.init_transactions(INIT_S)
        except KafkaException as e:
            handles.release([producer])
            raise KafkatopError(f"the cluster cannot do transactions: {describe_error(e)}") from None
        self._producer = producer
        return producer

    def _produce(self, producer: Producer, topic: str, partition: int, value: bytes) -> None:
        def delivered(err: KafkaError | None, _msg: Any) -> None:
            if err is not None and self._failed is None:
                self._failed = error_text(err)

        while True:
            try:
                producer.produce(topic, value=value, partition=partition, on_delivery=delivered)
                producer.poll(0)
                return
            except BufferError:
                producer.poll(0.1)

    def _commit(self, producer: Producer) -> TransactionEnd:
        records = self._open
        try:
            producer.commit_transaction(END_S)
        except KafkaException as e:
            err: KafkaError = e.args[0]
            if err.txn_requires_abort():
                return self._abort(producer, self._failed or describe_error(e))
            raise KafkatopError(f"the commit failed: {describe_error(e)} (committed or not: its coordinator "
                                "decides)") from None  # fmt: skip
        self._open = 0
        return TransactionEnd("committed", records, None)

    def _abort(self, producer: Producer, why: str | None) -> TransactionEnd:
        records = self._open
        self._open, self._failed = 0, None
        try:
            producer.abort_transaction(ABORT_S)
        except KafkaException as e:
            if not e.args[0].retriable():
                raise KafkatopError(f"the abort failed: {describe_error(e)}") from None
            self._aborting = True
            return TransactionEnd("aborted", records, why, complete=False)
        return TransactionEnd("aborted", records, why)

    def _resume_abort(self, producer: Producer) -> None:
        try:
            producer.abort_transaction(END_S)
        except KafkaException as e:
            raise KafkatopError(f"the transaction before is still being aborted ({describe_error(e)}): its coordinator "
                                "cannot write its abort markers while a partition it wrote to is below "
                                "min.insync.replicas") from None  # fmt: skip
        self._aborting = False
        if self.last is not None:
            self.last = replace(self.last, complete=True)
