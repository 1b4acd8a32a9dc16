"""Reading a durability check's records back: a fresh consumer, the partitions' end offsets, and each partition read
from where the run began to where it ended, each record's sequence number decoded."""

from __future__ import annotations

import time
from collections.abc import Mapping

from confluent_kafka import Consumer, KafkaError, KafkaException
from confluent_kafka import TopicPartition as KafkaTopicPartition

from kafkatop.backends.checks.durability.context import DurabilityContext
from kafkatop.backends.checks.durability.fault import POLL_S
from kafkatop.backends.checks.durability.verdict import decode_record
from kafkatop.backends.kafka import handles
from kafkatop.backends.kafka.errors import describe_error, error_text, of_unjoined_group
from kafkatop.backends.model.durability import DurabilityError, ReadRecord


# --- reading back --------------------------------------------------------------------------------------------
def new_consumer(run: DurabilityContext, run_id: str, *, committed: bool = False) -> Consumer:
    """A consumer that reads up to the high watermark; `committed`: with read_committed (a transactional run's
    read-back, up to the last stable offset, skipping aborted records)."""
    config = run.config("kafkatop-durability")
    config.update(
        {
            "group.id": f"kafkatop-durability-{run_id}",  # required by the client; nothing is committed
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
            # End of partition is an event, not a timeout: the read-back ends the moment each partition is read.
            "enable.partition.eof": True,
            "auto.offset.reset": "earliest",
            # Up to the high watermark, as the watermarks are read: an open transaction must not stall the read
            # (a transactional run's read_committed read comes after every transaction of the run has ended).
            "isolation.level": "read_committed" if committed else "read_uncommitted",
        }
    )
    try:
        return handles.consumer(config)
    except (KafkaException, ValueError, TypeError) as e:
        raise run.client_error("consumer", e, config) from None


def high_watermarks(
    run: DurabilityContext, consumer: Consumer, partitions: int, what: str, within_s: float | None = None
) -> dict[int, int]:
    within_s = run.timeout_s if within_s is None else within_s
    deadline = time.monotonic() + within_s
    out: dict[int, int] = {}
    for p in range(partitions):
        while True:
            try:
                _, high = consumer.get_watermark_offsets(
                    KafkaTopicPartition(run.settings.topic, p),
                    timeout=max(0.1, min(2.0, deadline - time.monotonic())),
                    cached=False,
                )
                out[p] = int(high)
                break
            except KafkaException as e:
                if time.monotonic() >= deadline:
                    raise DurabilityError(
                        f"cannot read the {what} offsets of {run.settings.topic}-{p} within {within_s:g} s "
                        f"({describe_error(e)}): check that its leader is up"
                    ) from None
    return out


def read_back(
    run: DurabilityContext,
    consumer: Consumer,
    run_id: str,
    starts: Mapping[int, int],
    ends: Mapping[int, int],
    *,
    counted: bool = True,
) -> tuple[list[ReadRecord], list[str], bool]:
    """This run's range of each partition, up to `ends`; the records, problems met, and whether all was read.
    `counted`: the records read count in the progress (not those of a second read, of the same records)."""
    topic = run.settings.topic
    pending = {p for p in starts if ends[p] > starts[p]}
    records: list[ReadRecord] = []
    problems: list[str] = []
    position = dict(starts)
    if pending:
        consumer.assign([KafkaTopicPartition(topic, p, starts[p]) for p in sorted(pending)])
    deadline = time.monotonic() + run.settings.read_timeout_s
    while pending and time.monotonic() < deadline:
        # consume() waits out its timeout unless the batch fills: a short one, so the last batch is not held back.
        for msg in consumer.consume(num_messages=1000, timeout=min(POLL_S, max(0.0, deadline - time.monotonic()))):
            p, offset, err = msg.partition(), msg.offset(), msg.error()
            if err is not None:
                if err.code() == KafkaError._PARTITION_EOF:
                    if p is not None and offset is not None and offset >= ends.get(p, 0):
                        pending.discard(p)
                elif not of_unjoined_group(err) and (not problems or problems[-1] != error_text(err)):
                    problems.append(error_text(err))
                continue
            if p is None or offset is None:
                continue
            if p not in pending or offset >= ends[p]:
                pending.discard(p)  # written after this run's end: not read
                continue
            decoded = decode_record(msg.value(), run_id, p)
            records.append(ReadRecord(p, offset, *(decoded or (None, None))))
            position[p] = offset + 1
            run.read += int(counted)
            if position[p] >= ends[p]:
                pending.discard(p)
        run.progress("reading back")
    for p in sorted(pending):
        problems.append(
            f"{topic}-{p}: read up to offset {position[p]} of {ends[p]} within {run.settings.read_timeout_s:g} s"
        )
    return records, problems, not pending
