"""Every group of a cluster, of every type, as kafka-groups.sh --list reads them: ListGroups (v3–v5) sent by kafkatop
to each live broker (each lists the groups it coordinates), so that each group's type (classic, consumer, share,
streams) and protocol type come from the broker's own answer. confluent-kafka's listing has neither share groups'
nor streams groups' names for their type, nor the protocol type."""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from kafkatop.backends.model.cluster import Broker
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.protocol.connection import BrokerConnection, Unsupported, os_reason
from kafkatop.backends.protocol.consumer_groups import (
    LIST_GROUPS,
    ListedGroup,
    decode_list_groups,
    list_groups_body,
)
from kafkatop.backends.protocol.security import unsupported
from kafkatop.backends.protocol.wire import ProtocolError, error_name, response_reader


@dataclass(frozen=True, slots=True)
class GroupListing:
    groups: tuple[ListedGroup, ...]  # sorted by group id
    failures: tuple[str, ...]  # "broker 2 (127.0.0.1:9093): why" for each broker that did not answer


def list_groups(connection: KafkaConnection, brokers: Sequence[Broker], timeout_s: float) -> GroupListing:
    """Every live broker's groups, asked in parallel; a broker that does not answer is named in `failures`."""
    why = unsupported(connection.client_settings)
    if why is not None:
        raise Unsupported(why)
    deadline = time.monotonic() + timeout_s
    asked = [b for b in brokers if b.host is not None and b.port is not None]
    with ThreadPoolExecutor(max(1, min(8, len(asked)))) as pool:
        answers = list(pool.map(lambda b: _ask(connection, b, deadline), asked))
    return gathered(asked, answers)


def gathered(asked: Sequence[Broker], answers: Sequence[list[ListedGroup] | str | Unsupported]) -> GroupListing:
    """Each broker's answer (`asked`'s, in order) as one listing; raises Unsupported when none speaks ListGroups v3+."""
    refusals = [str(a) for a in answers if isinstance(a, Unsupported)]
    if asked and len(refusals) == len(asked):  # one protocol for the whole cluster: said once
        # A new one, not one of `answers`: raised again, it would hold this frame, which holds it (a cycle that
        # kept the caller's locals — the live poll's admin client — until the garbage collector ran).
        raise Unsupported(refusals[0])
    groups: dict[str, ListedGroup] = {}
    failures = []
    for broker, answer in zip(asked, answers, strict=True):
        if isinstance(answer, str | Unsupported):
            failures.append(f"broker {broker.id} ({broker.host}:{broker.port}): {answer}")
        else:
            groups.update((g.group_id, g) for g in answer)
    return GroupListing(tuple(groups[g] for g in sorted(groups)), tuple(failures))


def listed_on(conn: BrokerConnection) -> list[ListedGroup] | str:
    """One broker's groups, on a connection to it; its error code in words."""
    version, payload = conn.call(LIST_GROUPS, list_groups_body)
    code, groups = decode_list_groups(response_reader(payload), version)
    return f"ListGroups: {error_name(code)}" if code else groups


def _ask(connection: KafkaConnection, broker: Broker, deadline: float) -> list[ListedGroup] | str | Unsupported:
    assert broker.host is not None and broker.port is not None
    try:
        with BrokerConnection(broker.host, broker.port, deadline, connection.client_settings) as conn:
            return listed_on(conn)
    except Unsupported as e:
        return e
    except OSError as e:
        return os_reason(e, max(0.0, deadline - time.monotonic()))
    except ProtocolError as e:
        return str(e)
