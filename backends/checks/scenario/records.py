"""The records a scenario produces and reads back: its topics created as the file says; records produced with acks=all
and idempotence (what a lab's "every acked record survives" is about), each acknowledgement kept with its offset;
read back from the log start with a consumer in no group, so "every acknowledged record reads back" is checked
record by record, by offset and value."""

from __future__ import annotations

import time
import uuid
from collections import Counter
from collections.abc import Sequence
from typing import Any

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import NewTopic

from kafkatop.backends.kafka import handles
from kafkatop.backends.kafka.errors import describe_error
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.scenario import TopicSpec

TIMEOUT_S = 30.0


class AckedRecords:
    def __init__(self, connection: KafkaConnection, run: str) -> None:
        self.connection = connection
        self.run = run  # each value starts with it: this run's records, told from others in a topic kept
        self.acked: dict[str, dict[tuple[int, int], bytes]] = {}  # topic: (partition, offset) -> value
        self._admin = handles.admin_client(connection.config("kafkatop-scenario"))

    def create_topics(self, topics: Sequence[TopicSpec]) -> None:
        if not topics:
            return
        new = [NewTopic(t.name, t.partitions, t.replication_factor, config=dict(t.config)) for t in topics]
        for name, future in self._admin.create_topics(new, request_timeout=TIMEOUT_S).items():
            try:
                future.result(TIMEOUT_S)
            except KafkaException as e:
                if e.args and getattr(e.args[0], "code", lambda: None)() == KafkaError.TOPIC_ALREADY_EXISTS:
                    continue  # a lab left running by an earlier run (--detach): its topic is used as it is
                raise KafkatopError(f"cannot create topic {name!r}: {describe_error(e)}") from None

    def produce(self, topic: str, count: int, retry: bool = True) -> tuple[int, int, Counter[str]]:
        """`count` records (acks=all), each waited for: (acknowledged, refused or undelivered, why each was not, by
        Kafka's error name). Idempotent and retried until the timeout, as a durable producer is; `retry=False`: each
        sent once, so that a broker's refusal (NOT_ENOUGH_REPLICAS) comes back as itself."""
        run = f"{self.run}-{uuid.uuid4().hex[:6]}"
        acked = self.acked.setdefault(topic, {})
        outcome = {"acked": 0, "failed": 0}
        errors: Counter[str] = Counter()

        def delivered(err: Any, msg: Any) -> None:
            if err is None:
                acked[(msg.partition(), msg.offset())] = msg.value()
                outcome["acked"] += 1
            else:
                outcome["failed"] += 1
                errors[err.name()] += 1

        config = {**self.connection.config("kafkatop-scenario"), "acks": "all", "enable.idempotence": retry,
                  "message.timeout.ms": int(TIMEOUT_S * 1000), **({} if retry else {"retries": 0})}  # fmt: skip
        producer = handles.producer(config)
        try:
            for i in range(count):
                producer.produce(topic, value=f"{run}-{i}".encode(), on_delivery=delivered)
                producer.poll(0)
            producer.flush(TIMEOUT_S + 5)
        finally:
            handles.release([producer])
        return outcome["acked"], outcome["failed"], errors

    def read_back(self, topic: str) -> tuple[int, int]:
        """(acknowledged records not read back, acknowledged records): the log read from its start to its end."""
        acked = self.acked.get(topic, {})
        if not acked:
            return 0, 0
        consumer = handles.consumer({**self.connection.config("kafkatop-scenario"),
                                     "group.id": f"kafkatop-scenario-{uuid.uuid4().hex[:8]}",
                                     "enable.auto.commit": False, "auto.offset.reset": "earliest"})  # fmt: skip
        found: dict[tuple[int, int], bytes] = {}
        try:
            partitions = sorted({p for p, _ in acked})
            ends = {}
            for p in partitions:
                _, high = consumer.get_watermark_offsets(KafkaTopicPartition(topic, p), timeout=10)
                ends[p] = high
            consumer.assign([KafkaTopicPartition(topic, p, 0) for p in partitions])
            deadline = time.monotonic() + TIMEOUT_S
            done: set[int] = {p for p in partitions if ends[p] <= 0}
            while len(done) < len(partitions) and time.monotonic() < deadline:
                for msg in consumer.consume(500, 0.5):
                    partition, offset = msg.partition(), msg.offset()
                    if msg.error() is not None or partition is None or offset is None:
                        continue
                    found[(partition, offset)] = msg.value() or b""
                    if offset + 1 >= ends[partition]:
                        done.add(partition)
        except KafkaException as e:
            raise KafkatopError(f"cannot read {topic} back: {describe_error(e)}") from None
        finally:
            handles.release([consumer])
        missing = sum(1 for key, value in acked.items() if found.get(key) != value)
        return missing, len(acked)

    def close(self) -> None:
        handles.release([self._admin])
