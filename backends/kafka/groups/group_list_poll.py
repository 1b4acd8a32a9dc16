"""Which groups a poll asks about: ListGroups, each poll, to every live broker. Spoken by kafkatop itself where its
connections speak the cluster's security (kept from poll to poll, one per broker), so that the poll lists what
kafka-consumer-groups.sh --list and `kafkatop groups --list` list: every classic group whatever its protocol type —
a Kafka Connect worker's group (protocol type "connect") too, which confluent-kafka's listing leaves out (librdkafka
keeps only the protocol types "consumer" and "") — and KIP-848 consumer groups. Share groups are the share poll's
(share_poll.py), streams groups the streams poll's (streams_poll.py). Where kafkatop cannot speak ListGroups v3+
(Kafka before 2.4, the librdkafka mock) or the security (GSSAPI, OAUTHBEARER), confluent-kafka's listing, as
before."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from confluent_kafka import KafkaException

from kafkatop.backends.kafka.errors import describe_error
from kafkatop.backends.kafka.groups.group_listing import GroupListing, gathered, listed_on
from kafkatop.backends.model.cluster import Broker
from kafkatop.backends.protocol.connection import KeptConnections, Unsupported, os_reason
from kafkatop.backends.protocol.consumer_groups import ListedGroup
from kafkatop.backends.protocol.wire import ProtocolError

POLLED_TYPES = (None, "classic", "consumer")  # ListGroups' group types polled here (None: a broker before v5)
LIST_THREADS = 8  # brokers asked at once


@dataclass(frozen=True, slots=True)
class Listed:
    """One poll's ListGroups, whichever way it was asked: each group's state as listed (a ConsumerGroupState or the
    broker's word), the KIP-848 groups, and one line per distinct failure."""

    states: Mapping[str, Any]
    kip848: frozenset[str]
    failures: tuple[str, ...]


def listed_of(answer: object) -> Listed:
    """A listing as the poll reads it: kafkatop's own (GroupListing), or confluent-kafka's ListConsumerGroupsResult."""
    if isinstance(answer, GroupListing):
        polled = [g for g in answer.groups if g.group_type in POLLED_TYPES]
        kip848 = frozenset(g.group_id for g in polled if g.group_type == "consumer")
        return Listed({g.group_id: g.state for g in polled}, kip848, tuple(sorted(set(answer.failures))))
    valid = getattr(answer, "valid", None) or ()
    errors = getattr(answer, "errors", None) or ()
    kip848 = frozenset(g.group_id for g in valid if getattr(g.type, "name", None) == "CONSUMER")
    # ListGroups goes to every broker: one line per distinct failure, not one per broker.
    failures = tuple(sorted({describe_error(KafkaException(e)) for e in errors}))
    return Listed({g.group_id: g.state for g in valid}, kip848, failures)


class GroupLister:
    """ListGroups per poll (see the module's docstring). `own`: whether kafkatop speaks it itself here."""

    def __init__(self, settings: Mapping[str, str], own: bool) -> None:
        self._connections: KeptConnections | None = KeptConnections(settings) if own else None
        self._runner = ThreadPoolExecutor(1, thread_name_prefix="kafkatop-list-groups")
        self._brokers = ThreadPoolExecutor(LIST_THREADS, thread_name_prefix="kafkatop-list-groups-brokers")

    @property
    def own(self) -> bool:
        return self._connections is not None

    def start(self, fallback: Callable[[], Future[Any]], brokers: Sequence[Broker], deadline: float) -> Future[Any]:
        """This poll's listing, done by `deadline` (time.monotonic()); `fallback` starts confluent-kafka's."""
        if self._connections is None:
            return fallback()
        return self._runner.submit(self._list, fallback, list(brokers), deadline)

    def _list(self, fallback: Callable[[], Future[Any]], brokers: list[Broker], deadline: float) -> object:
        connections = self._connections
        if connections is None:  # closed meanwhile
            return fallback().result(timeout=max(0.1, deadline - time.monotonic()))
        asked = [b for b in brokers if b.host is not None and b.port is not None]
        answers = list(self._brokers.map(lambda b: self._ask(connections, b, deadline), asked))
        try:
            return gathered(asked, answers)
        except Unsupported:
            # No ListGroups v3+ here (Kafka before 2.4, the librdkafka mock): confluent-kafka's, from now on.
            self._connections = None
            connections.close()
            return fallback().result(timeout=max(0.1, deadline - time.monotonic()))

    @staticmethod
    def _ask(connections: KeptConnections, broker: Broker, deadline: float) -> list[ListedGroup] | str | Unsupported:
        assert broker.host is not None and broker.port is not None
        try:
            return listed_on(connections.get(broker.id, broker.host, broker.port, deadline))
        except Unsupported as e:
            return e
        except OSError as e:
            connections.drop(broker.id)
            return os_reason(e, max(0.0, deadline - time.monotonic()))
        except ProtocolError as e:
            connections.drop(broker.id)
            return str(e)

    def close(self) -> None:
        self._runner.shutdown(wait=True)
        self._brokers.shutdown(wait=True)
        if self._connections is not None:
            self._connections.close()
