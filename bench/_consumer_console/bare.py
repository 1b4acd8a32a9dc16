"""The physical limit: a bare confluent-kafka consumer, with nothing of kafkatop, on the same cluster, topic and
producer as the console's run, in a child process of its own. What both runs report: how many records were received,
how far behind the consumer was when the last record was produced (lag), how long it took from there to have every
delivered record (the drain), and how many it never received once drained (lost: must be 0)."""

from __future__ import annotations

import argparse
import os
import threading
import time
from dataclasses import dataclass
from typing import Any

import confluent_kafka

from bench._consumer_console import GROUP, SEPARATE, START_TIMEOUT_S, TOPIC
from bench._consumer_console.cluster import RemoteProducer, start_host, stop_host

DRAIN_IDLE_S = 10.0  # after the last produce: no record for this long, and what is missing is taken as lost
DRAIN_LIMIT_S = 120.0  # after the last produce, at most
COUNT_EVERY_S = 0.01  # how often the received count is sampled (for the lag at the last produce)


@dataclass
class Drained:
    """How one consumer kept up with the producer, and whether it got everything."""

    consumer: str  # "bare" or "console"
    produced: int = 0
    delivered: int = 0
    received: int = 0  # after draining
    behind: int = 0  # delivered records not yet received when the last one was produced: lag, not loss
    drain_s: float | None = None  # the last produce until every delivered record was received (None: never)
    first_to_last_s: float = 0.0  # the first produce until the last record was received
    produce_s: float = 0.0

    @property
    def lost(self) -> int:
        return max(0, self.delivered - self.received)

    @property
    def throughput(self) -> float:
        """Records received per second, from the first produce to the last record received."""
        return self.received / self.first_to_last_s if self.first_to_last_s > 0 else 0.0


class Counts:
    """(time, received) sampled every COUNT_EVERY_S from `received()`, to read the count at any moment after."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, int]] = []

    def add(self, received: int) -> None:
        now = time.perf_counter()
        if not self.samples or now - self.samples[-1][0] >= COUNT_EVERY_S:
            self.samples.append((now, received))

    def at(self, t: float) -> int:
        """The count last sampled at or before `t`."""
        before = [n for when, n in self.samples if when <= t]
        return before[-1] if before else 0

    def reached(self, n: int) -> float | None:
        """When the count first reached `n`."""
        return next((when for when, count in self.samples if count >= n), None)


def drain_figures(drained: Drained, counts: Counts, producer: RemoteProducer | Any, last_received_at: float) -> None:
    """Fills `drained` from the producer's figures and the counts sampled."""
    drained.produced, drained.produce_s = producer.sent, producer.produced_at - producer.started_at
    drained.delivered = producer.sent - producer.left - producer.errors
    drained.behind = max(0, min(producer.sent, drained.delivered) - counts.at(producer.produced_at))
    done = counts.reached(drained.delivered)
    drained.drain_s = None if done is None else max(0.0, done - producer.produced_at)
    drained.first_to_last_s = last_received_at - producer.started_at


def _served(host: Any) -> str:
    """The bootstrap servers the cluster process prints first."""
    assert host.stdout is not None
    bootstrap = str(host.stdout.readline()).strip()
    if not bootstrap:
        raise SystemExit("the cluster process did not start")
    return bootstrap


def _consumer(bootstrap: str, name: str, *, commit: bool) -> confluent_kafka.Consumer:
    """A plain Consumer in a group of its own, from the beginning of the topic."""
    config = {"bootstrap.servers": bootstrap, "group.id": f"{GROUP}-{name}-{os.getpid()}",
              "auto.offset.reset": "earliest", "enable.auto.commit": commit, "log_level": 0}  # fmt: skip
    return confluent_kafka.Consumer(config)


def bare_run(args: argparse.Namespace) -> Drained:
    """A plain Consumer from the beginning of the (empty) topic in a group of its own, counting what it gets while
    the cluster process produces, then until it has every delivered record or nothing came for DRAIN_IDLE_S."""
    if args.cluster != SEPARATE:
        raise SystemExit("the bare consumer runs with --cluster separate (the producer in a process of its own)")
    drained = Drained("bare")
    host = start_host(args.rate, args.seconds, args.value_bytes, args.bootstrap_server)
    consumer: confluent_kafka.Consumer | None = None
    try:
        bootstrap = _served(host)
        assigned = threading.Event()
        consumer = _consumer(bootstrap, "bare", commit=True)
        consumer.subscribe([TOPIC], on_assign=lambda c, parts: assigned.set())
        deadline = time.perf_counter() + START_TIMEOUT_S
        while not assigned.is_set():
            consumer.poll(0.1)
            if time.perf_counter() > deadline:
                raise SystemExit("the bare consumer got no partitions")
        producer = RemoteProducer(host)
        counts, received, last_at = Counts(), 0, 0.0
        producer.start()
        idle_since: float | None = None
        while True:
            messages = consumer.consume(num_messages=10_000, timeout=0.05)
            got = sum(1 for m in messages if m.error() is None)
            now = time.perf_counter()
            if got:
                received += got
                last_at, idle_since = now, None
            counts.add(received)
            if producer.is_alive():
                continue
            delivered = producer.sent - producer.left - producer.errors
            if received >= delivered:
                break
            idle_since = idle_since or now
            if now - idle_since > DRAIN_IDLE_S or now - producer.produced_at > DRAIN_LIMIT_S:
                break
        counts.samples.append((time.perf_counter(), received))
        drained.received = received
        drain_figures(drained, counts, producer, last_at)
    finally:
        if consumer is not None:
            consumer.close()
        stop_host(host)
    return drained


CALIBRATION_RECORDS_S = 10.0  # how long the producer fills the topic for the calibration, asked as fast as it can


def bare_max_rate(args: argparse.Namespace, ask_rate: float = 1_000_000.0) -> tuple[float, int]:
    """The bare consumer's own maximum on this machine (issue 45): the topic filled first (the producer asked for
    `ask_rate`, as fast as it goes, for CALIBRATION_RECORDS_S), then read from the beginning by a plain Consumer with
    nothing else running: records per second from its first record to its last, and how many it read."""
    host = start_host(ask_rate, CALIBRATION_RECORDS_S, args.value_bytes, args.bootstrap_server)
    consumer: confluent_kafka.Consumer | None = None
    try:
        bootstrap = _served(host)
        producer = RemoteProducer(host)
        producer.start()
        producer.join(CALIBRATION_RECORDS_S + DRAIN_LIMIT_S)
        delivered = producer.sent - producer.left - producer.errors
        if delivered <= 0:
            raise SystemExit("the calibration's producer delivered nothing: no maximum to measure")
        consumer = _consumer(bootstrap, "max", commit=False)
        consumer.subscribe([TOPIC])
        received, first_at, last_at = 0, 0.0, 0.0
        idle_since = time.perf_counter()
        while received < delivered and time.perf_counter() - idle_since < DRAIN_IDLE_S:
            messages = consumer.consume(num_messages=10_000, timeout=0.05)
            got = sum(1 for m in messages if m.error() is None)
            if got:
                now = time.perf_counter()
                first_at = first_at or now
                received, last_at, idle_since = received + got, now, now
        if last_at <= first_at:
            raise SystemExit(f"the calibration's consumer read {received} of {delivered} records: no rate to measure")
        return received / (last_at - first_at), received
    finally:
        if consumer is not None:
            consumer.close()
        stop_host(host)
