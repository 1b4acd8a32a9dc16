"""The producing phase of a durability check: sequenced records to every partition in turn, a bounded window of them in
flight, the fault started at its share of the records (and the restart at its own), each delivery report kept."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Producer

from kafkatop.backends.checks.durability.context import DurabilityContext
from kafkatop.backends.checks.durability.fault import (
    ACTION_WAIT_S,
    POLL_S,
    WINDOW_MAX,
    WINDOW_MIN,
    FaultLog,
    await_new_leader,
    fault,
    restart,
)
from kafkatop.backends.checks.durability.verdict import encode
from kafkatop.backends.kafka import handles
from kafkatop.backends.kafka.errors import describe_error, error_text
from kafkatop.backends.model.durability import RecordDelivery


def drain(producer: Producer) -> None:
    """Reports what is still waiting as failed (purged) rather than unknown; close() would wait for it unbounded."""
    if len(producer) > 0:
        producer.flush(1.0)
        producer.purge()
        producer.flush(1.0)


# --- producing -----------------------------------------------------------------------------------------------
def new_producer(run: DurabilityContext) -> Producer:
    config = run.config("kafkatop-durability")
    config.update(run.settings.producer_config())
    try:
        return handles.producer(config)
    except (KafkaException, ValueError, TypeError) as e:
        raise run.client_error("producer", e, config) from None


def produce(
    run: DurabilityContext,
    producer: Producer,
    run_id: str,
    partitions: int,
    timeline: FaultLog,
    faults: ThreadPoolExecutor,
) -> tuple[list[RecordDelivery], list[Future[None]]]:
    s = run.settings
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
                run.acked += 1
            else:
                errors[i] = error_text(err)
                run.failed += 1

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
        stopping = run.cancelled.is_set() or run.halted is not None
        if s.kill_after is not None and fault_step is None and run.sent >= s.kill_after and not stopping:
            fault_step = run.fault_step = faults.submit(fault, run, timeline)
            fault_sent_at = now
            steps += [fault_step, faults.submit(await_new_leader, run, timeline)]
        if (
            fault_step is not None
            and restart_step is None
            and s.restart_after is not None
            and (run.sent >= s.restart_after or stopping)
        ):
            restart_step = faults.submit(restart, run, timeline)
            steps.append(restart_step)
        # Sending waits for the kill or stop to return, so the fault lands mid-run however fast the cluster is;
        # and for the start to be issued (not to end: a lab broker takes seconds to serve), so it comes on time.
        paused = fault_step is not None and not fault_step.done() and now - fault_sent_at < ACTION_WAIT_S
        paused = paused or (restart_step is not None and not restart_step.done() and timeline.get("restart_at") is None)
        if interval and next_send < now - 0.1:
            next_send = now  # no catch-up burst after a pause
        # Sending stops at a step's threshold until the step is under way, so it comes after exactly that many.
        if fault_step is None:
            step_at = s.kill_after
        else:
            step_at = s.restart_after if restart_step is None else None
        while (
            run.sent < n
            and (step_at is None or run.sent < step_at)
            and not stopping
            and not paused
            and run.sent - run.done < window
            and (not interval or next_send <= now)
        ):
            i = run.sent
            p = i % partitions
            try:
                producer.produce(s.topic, value=encode(run_id, p, i // partitions), partition=p,
                                 on_delivery=reporter(i))  # fmt: skip
            except BufferError:
                break  # librdkafka's queue is full: let deliveries drain it
            except KafkaException as e:
                # A fatal producer error (an idempotence failure, say) is a finding: the records sent are verified.
                run.halted = f"the producer stopped after {run.sent} records ({describe_error(e)})"
                break
            run.sent += 1
            last_send = now
            next_send += interval
        wait_s = POLL_S
        if interval and run.sent < n:
            wait_s = min(POLL_S, max(0.0, next_send - time.monotonic()))
        producer.poll(wait_s)
        run.progress("producing")
        finished_sending = run.sent >= n or stopping or run.halted is not None
        if finished_sending and run.done >= run.sent:
            break
        # Every record is reported within its delivery timeout of being sent; this is only a backstop.
        if finished_sending and time.monotonic() > last_send + s.delivery_timeout_s + 10.0:
            break
    if fault_step is not None and restart_step is None and s.restart_after is not None:
        steps.append(faults.submit(restart, run, timeline))  # the threshold was not reached: after the last
    drain(producer)
    deliveries = [
        RecordDelivery(
            partition=i % partitions,
            seq=i // partitions,
            acked=bool(acked[i]),
            offset=offsets[i],
            error=errors[i],
        )
        for i in range(run.sent)
    ]
    return deliveries, steps
