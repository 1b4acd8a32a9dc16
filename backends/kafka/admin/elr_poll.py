"""The poll's feature levels and eligible leader replicas (KIP-966), spoken by kafkatop itself over a connection kept
to one live broker, on a thread of its own beside the poll's other requests.

The feature levels (ApiVersions v4, what `kafka-features.sh describe` reads) change rarely: read at the first poll and
again every `refresh_s`, as the topic configs are. Where they say eligible.leader.replicas.version ≥ 1, each poll
reads the ELR and last known ELR with DescribeTopicPartitions, paged by 2000 partitions as kafka-topics.sh asks, of the
topics that can have one: Kafka's controller empties both whenever it changes a partition whose ISR is at or above
min.insync.replicas (PartitionChangeBuilder, and on a change of that setting), so a topic whose every partition is led
with such an ISR is known to have none without asking. A healthy cluster costs no request; one where every partition
fell below min ISR, a page per 2000 partitions. A cluster without features (the librdkafka mock, Kafka before 2.7) or
without ELR costs one ApiVersions request per refresh.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from kafkatop.backends.kafka.cluster.elr import elr_pages
from kafkatop.backends.kafka.cluster.features import features_of
from kafkatop.backends.kafka.errors import Deadline, describe_error
from kafkatop.backends.model.cluster import Problem
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.features import FeatureLevels
from kafkatop.backends.protocol.connection import KeptConnections, Unsupported, os_reason
from kafkatop.backends.protocol.describe_topic_partitions import (
    DESCRIBE_TOPIC_PARTITIONS,
    Elr,
)
from kafkatop.backends.protocol.security import unsupported
from kafkatop.backends.protocol.wire import ProtocolError

SOURCE = "admin"
NOT_READ: Elr = (None, None)
NONE: Elr = ((), ())


@dataclass(frozen=True, slots=True)
class ElrFound:
    """One poll's ELR: read for the topics asked, none (by Kafka's rule above) for `clear` topics."""

    read: Mapping[tuple[str, int], Elr] = field(default_factory=dict)
    clear: frozenset[str] = frozenset()

    def of(self, topic: str, partition: int) -> Elr:
        return NONE if topic in self.clear else self.read.get((topic, partition), NOT_READ)


@dataclass(frozen=True, slots=True)
class ElrRead:
    features: FeatureLevels | None  # read this poll (None: not due, or not said)
    found: ElrFound | None  # None: no ELR to read, or the read failed
    problem: str | None = None
    unsupported: bool = False  # the cluster says no features


def may_have_elr(partitions: Mapping[int, Any], min_isr: int | None) -> bool:
    """Whether a topic (librdkafka's PartitionMetadata by id) has a partition whose ELR may not be empty: one without a
    leader or with an ISR below min.insync.replicas (or that setting not known)."""
    return min_isr is None or any(pm.leader < 0 or len(pm.isrs) < min_isr for pm in partitions.values())


class ElrPoll:
    """See the module's docstring. `start` returns at once; `collect` waits within the poll's deadline."""

    def __init__(self, connection: KafkaConnection, refresh_s: float) -> None:
        self.refresh_s = refresh_s
        self.features: FeatureLevels | None = None  # the last read
        self._speaks = unsupported(connection.client_settings) is None
        self._connections = KeptConnections(connection.client_settings)
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="kafkatop-elr")
        self._read_at = float("-inf")
        self._asked: int | None = None  # the broker asked last: asked first while it is alive

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        self._connections.close()

    def start(
        self,
        brokers: Mapping[int, tuple[str, int]],
        topics: Mapping[str, Any],
        min_isr: Mapping[str, int | None],
        deadline: float,
    ) -> Future[ElrRead] | None:
        """`brokers`: the live ones, where they listen; `topics`: librdkafka's TopicMetadata of those the poll shows,
        by name; `min_isr`: their min.insync.replicas as last read."""
        due = time.monotonic() - self._read_at >= self.refresh_s
        if not self._speaks or not brokers or not (due or (self.features is not None and self.features.elr_enabled)):
            return None
        asked = [name for name, t in sorted(topics.items()) if may_have_elr(t.partitions, min_isr.get(name))]
        clear = frozenset(topics).difference(asked)
        order = [(b, brokers[b]) for b in sorted(brokers, key=lambda b: (b != self._asked, b))]
        return self._pool.submit(self._read, order, asked, clear, deadline, due)

    def collect(self, started: Future[ElrRead] | None, deadline: Deadline, problems: list[Problem]) -> ElrFound:
        """The ELR of this poll, none known where not read; a failure becomes a Problem."""
        if started is None:
            return ElrFound()
        try:
            read = deadline.result(started)
        except Exception as e:  # noqa: BLE001 - a read that missed the deadline: this poll has no ELR
            problems.append(Problem(SOURCE, "DescribeTopicPartitions", describe_error(e)))
            return ElrFound()
        if read.features is not None or read.unsupported:
            self.features = read.features
            self._read_at = time.monotonic()
        if read.problem is not None:
            problems.append(Problem(SOURCE, "ApiVersions/DescribeTopicPartitions", read.problem))
        return read.found or ElrFound()

    def _read(
        self,
        brokers: list[tuple[int, tuple[str, int]]],
        asked: list[str],
        clear: frozenset[str],
        deadline: float,
        due: bool,
    ) -> ElrRead:
        reasons: list[str] = []
        features: FeatureLevels | None = None
        for node, (host, port) in brokers:
            if time.monotonic() >= deadline:
                break
            try:
                conn = self._connections.get(node, host, port, deadline)
                self._asked = node
                if due and features is None:
                    features = features_of(conn)
                levels = features if due else self.features
                if levels is None or not levels.elr_enabled:
                    return ElrRead(features, None)
                if not asked:
                    return ElrRead(features, ElrFound({}, clear))
                version = conn.version_for(DESCRIBE_TOPIC_PARTITIONS)
                return ElrRead(features, ElrFound(elr_pages(conn, version, asked), clear))
            except Unsupported:
                # Every broker of a cluster speaks the same protocol: asking another changes nothing.
                return ElrRead(features, None, unsupported=features is None)
            except (OSError, ProtocolError) as e:
                self._connections.drop(node)  # going or gone: the next broker
                why = os_reason(e, max(0.0, deadline - time.monotonic())) if isinstance(e, OSError) else str(e)
                reasons.append(f"broker {node} ({host}:{port}): {why}")
        return ElrRead(features, None, "; ".join(reasons) or "timed out")
