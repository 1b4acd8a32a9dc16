"""Share groups (KIP-932) read as kafka-share-groups.sh reads them, over kafkatop's own protocol code
(protocol/share_groups.py; confluent-kafka has none of these requests), every call bounded by one deadline.

- list: ListGroups v5 (type "share") to every broker, each answering for the groups it coordinates;
- describe: FindCoordinator for all the groups at once, then per coordinator one ShareGroupDescribe and one
  DescribeShareGroupOffsets for all its groups; the partitions' ends (for lag) from the caller (a poll has them)
  or read once with ListOffsets from their leaders (backends/kafka/cluster/watermarks.py).
Deleting them: share_group_admin.py.

A coordinator that moved or is still loading (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS,
COORDINATOR_NOT_AVAILABLE) is looked up again, while the deadline allows. A cluster that does not speak share groups
raises ShareGroupsUnavailable, saying which and how to turn them on (share_group_support.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from types import TracebackType
from typing import Self, TypeVar

from kafkatop.backends.kafka.cluster.watermarks import WatermarkReader
from kafkatop.backends.kafka.share_groups.share_group_support import (
    RETRIABLE,
    check_support,
    group_error,
    refused_as_unsupported,
    share_group_from,
    with_end_offsets,
)
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError, SourceUnavailable
from kafkatop.backends.model.share_groups import (
    Coordinator,
    ListedShareGroup,
    ShareGroup,
)
from kafkatop.backends.protocol import share_groups as wire
from kafkatop.backends.protocol.configs import METADATA, decode_metadata_brokers
from kafkatop.backends.protocol.configs import metadata_brokers_body as _brokers_body
from kafkatop.backends.protocol.connection import (
    BrokerConnection,
    KeptConnections,
    Unsupported,
    first_answer,
    os_reason,
    require_supported,
)
from kafkatop.backends.protocol.consumer_groups import LIST_GROUPS_BY_TYPE, decode_list_groups, list_groups_body
from kafkatop.backends.protocol.describe_topic_partitions import (
    DESCRIBE_TOPIC_PARTITIONS,
    Cursor,
    decode_page,
    request_body,
)
from kafkatop.backends.protocol.offset_delete import (
    FIND_COORDINATOR,
    FIND_COORDINATOR_BATCHED_FROM,
    decode_find_coordinator,
    find_coordinator_body,
)
from kafkatop.backends.protocol.wire import Api, ProtocolError, response_reader

R = TypeVar("R")
BOOTSTRAP = -1000  # kept connections to bootstrap servers, by index: -1000, -1001, … (no node id known)
ATTEMPTS = 5  # rounds of FindCoordinator for groups whose coordinator moved
PAUSE_S = 0.2  # between them: a coordinator loading its partition needs a moment
MAX_PAGES = 1000


def _list_groups_of(group_type: str, version: int) -> bytes:
    return list_groups_body(version, (group_type,))


class ShareGroupReader:
    """One cluster's share groups, with connections kept from call to call (a poll calls it every few seconds): one
    thread at a time, as KeptConnections."""

    def __init__(
        self,
        connection: KafkaConnection,
        timeout_s: float = 15.0,
        check: Callable[[BrokerConnection], None] = check_support,
        what: tuple[str, str] = ("share-group requests", "kafka-share-groups.sh"),
    ) -> None:
        """`check`: raises, saying why, when the first broker asked cannot answer these groups' requests (the
        streams-group reader passes its own); `what`: the requests and Kafka's tool, for a connection kafkatop's own
        protocol code cannot open."""
        require_supported(connection, *what)
        self._check = check
        self.connection = connection
        self.timeout_s = timeout_s
        self._kept = KeptConnections(connection.client_settings)
        self._watermarks: WatermarkReader | None = None
        self._checked = False

    def close(self) -> None:
        self._kept.close()
        if self._watermarks is not None:
            self._watermarks.close()
            self._watermarks = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def deadline(self) -> float:
        return time.monotonic() + self.timeout_s

    # --- requests ---------------------------------------------------------------------------------------------------
    def _ask(
        self, node: int, host: str, port: int, api: Api, body: bytes | Callable[[int], bytes],
        deadline: float,
    ) -> tuple[int, bytes]:  # fmt: skip
        """(version, response) of one request to a broker, over its kept connection; a kept connection the broker
        closed meanwhile is opened again, once."""
        for attempt in (1, 2):
            kept = node in self._kept
            try:
                conn = self._kept.get(node, host, port, deadline)
                if not self._checked:
                    self._check(conn)
                    self._checked = True
                return conn.call(api, body)
            except Unsupported:
                raise
            except (OSError, ProtocolError):
                self._kept.drop(node)
                if not kept or attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _bootstrap(self, api: Api, body: bytes | Callable[[int], bytes], deadline: float) -> (
        tuple[int, bytes]
    ):  # fmt: skip
        """One request to the first bootstrap server that answers."""
        addresses = self.connection.addresses
        reasons: list[str] = []
        answer = first_answer(
            addresses,
            lambda host, port: self._ask(BOOTSTRAP - addresses.index((host, port)), host, port, api, body, deadline),
            self.timeout_s,
            reasons,
        )
        if answer is None:
            raise SourceUnavailable("kafka", f"no bootstrap server answered ({'; '.join(reasons)})")
        return answer

    def _brokers(self, deadline: float) -> list[tuple[int, str, int]]:
        version, payload = self._bootstrap(METADATA, _brokers_body, deadline)
        return [(b.node_id, b.host, b.port) for b in decode_metadata_brokers(response_reader(payload), version)]

    def _coordinators(self, groups: list[str], deadline: float) -> dict[str, Coordinator | tuple[int, str]]:
        """Each group's coordinator (v4+: all in one FindCoordinator), or (error code, Kafka's words) for none."""
        found = []
        rest = list(groups)
        while rest:
            version, payload = self._bootstrap(FIND_COORDINATOR, partial(_find_body, rest), deadline)
            asked = _batch(rest, version)
            found += decode_find_coordinator(response_reader(payload), version, asked)
            rest = rest[len(asked) :]
        return {
            c.key: (c.error_code, group_error(c.error_code, c.error_message))
            if c.error_code
            else Coordinator(c.node_id, c.host, c.port)
            for c in found
        }

    def _each_coordinator(
        self, groups: Sequence[str], deadline: float, call: Callable[[Coordinator, list[str]], Mapping[str, R | int]]
    ) -> dict[str, R | str]:
        """`call(coordinator, its groups)` for every coordinator of `groups`: each group's result, or why there is
        none (a str). Groups whose coordinator moved, is loading (`call` answers the error code) or did not answer
        are looked up again, while ATTEMPTS and the deadline allow."""
        out: dict[str, R | str] = {}
        pending = list(dict.fromkeys(groups))
        for attempt in range(ATTEMPTS):
            last = attempt == ATTEMPTS - 1 or time.monotonic() + PAUSE_S >= deadline
            retry: list[str] = []
            by_coordinator: dict[Coordinator, list[str]] = {}
            for g, c in self._coordinators(pending, deadline).items():
                if isinstance(c, Coordinator):
                    by_coordinator.setdefault(c, []).append(g)
                elif c[0] in RETRIABLE and not last:
                    retry.append(g)
                else:
                    out[g] = c[1]
            for coordinator, asked in by_coordinator.items():
                try:
                    answered = call(coordinator, asked)
                except Unsupported:
                    raise
                except (OSError, ProtocolError) as e:
                    why = os_reason(e, self.timeout_s) if isinstance(e, OSError) else str(e)
                    where = f"coordinator {coordinator.node_id} ({coordinator.host}:{coordinator.port})"
                    if last:
                        out |= dict.fromkeys(asked, f"{where}: {why}")
                    else:
                        retry += asked
                    continue
                for g in asked:
                    result = answered.get(g)
                    if result is None and g not in answered:
                        out[g] = "the coordinator did not answer for it"
                    elif isinstance(result, int) and not isinstance(result, bool):
                        if last:
                            out[g] = group_error(result)
                        else:
                            retry.append(g)
                    else:
                        out[g] = result  # type: ignore[assignment]  # R, not an int: the branch above
            if not retry:
                break
            pending = retry
            time.sleep(PAUSE_S)
        return out

    # --- list and describe ------------------------------------------------------------------------------------------
    def list(self, deadline: float, group_type: str = wire.SHARE_TYPE) -> tuple[ListedShareGroup, ...]:
        """Every share group of the cluster (or every group of `group_type`: "streams"), with its state (each broker
        lists those it coordinates)."""
        out: dict[str, ListedShareGroup] = {}
        for node, host, port in self._brokers(deadline):
            for attempt in range(ATTEMPTS):
                try:
                    body = partial(_list_groups_of, group_type)
                    version, payload = self._ask(node, host, port, LIST_GROUPS_BY_TYPE, body, deadline)
                except Unsupported:
                    raise
                except (OSError, ProtocolError) as e:
                    why = os_reason(e, self.timeout_s) if isinstance(e, OSError) else str(e)
                    raise SourceUnavailable(
                        "kafka", f"broker {node} ({host}:{port}) did not list its groups: {why}"
                    ) from None
                code, listed = decode_list_groups(response_reader(payload), version)
                if code in RETRIABLE and attempt < ATTEMPTS - 1 and time.monotonic() < deadline:
                    time.sleep(PAUSE_S)
                    continue
                if code:
                    raise KafkatopError(f"broker {node} refused to list its groups: {group_error(code)}")
                out |= {g.group_id: ListedShareGroup(g.group_id, g.state or "") for g in listed
                        if g.group_type in ("", group_type)}  # fmt: skip
                break
        return tuple(out[g] for g in sorted(out))

    def describe(
        self,
        group_ids: Sequence[str],
        deadline: float,
        end_offsets: Mapping[tuple[str, int], int | None] | None = None,
    ) -> dict[str, ShareGroup]:
        """Each group described with its members and start offsets, one ShareGroupDescribe and one
        DescribeShareGroupOffsets per coordinator. `end_offsets`: the partitions' high watermarks where the caller
        has them (a poll's snapshot); None: read here. A group that cannot be read carries why (`error`); one the
        cluster does not know, `not_found`."""

        def ask(coordinator: Coordinator, groups: list[str]) -> dict[str, ShareGroup | int]:
            where = (coordinator.node_id, coordinator.host, coordinator.port)
            _, payload = self._ask(*where, wire.SHARE_GROUP_DESCRIBE, wire.share_group_describe_body(groups), deadline)
            described = wire.decode_share_group_describe(payload)
            offsets_body = wire.describe_share_group_offsets_body(groups)
            _, payload = self._ask(*where, wire.DESCRIBE_SHARE_GROUP_OFFSETS, offsets_body, deadline)
            offsets = {o.group_id: o for o in wire.decode_describe_share_group_offsets(payload)}
            out: dict[str, ShareGroup | int] = {}
            for d in described:
                refused_as_unsupported(d.error_code, coordinator)
                o = offsets.get(d.group_id)
                if d.error_code in RETRIABLE or (o is not None and o.error_code in RETRIABLE):
                    out[d.group_id] = d.error_code or (o.error_code if o is not None else 0)
                else:
                    out[d.group_id] = share_group_from(d, o, coordinator)
            return out

        found = self._each_coordinator(group_ids, deadline, ask)
        groups = {g: r if isinstance(r, ShareGroup) else ShareGroup(g, "", None, error=r) for g, r in found.items()}
        wanted = {(p.topic, p.partition) for g in groups.values() for p in g.partitions}
        ends = dict(end_offsets) if end_offsets is not None else self._end_offsets(wanted, deadline)
        return {g: with_end_offsets(group, ends) for g, group in groups.items()}

    def describe_all(
        self, deadline: float, end_offsets: Mapping[tuple[str, int], int | None] | None = None
    ) -> dict[str, ShareGroup]:
        """Every share group of the cluster, described (for a poll: one ListGroups per broker, then `describe`)."""
        return self.describe([g.group_id for g in self.list(deadline)], deadline, end_offsets)

    def _end_offsets(self, wanted: set[tuple[str, int]], deadline: float) -> dict[tuple[str, int], int | None]:
        """The high watermarks of `wanted` from their leaders; what cannot be read is left out (its lag unknown)."""
        return self._watermarks_of(wanted, deadline)[1]

    def _watermarks_of(self, wanted: set[tuple[str, int]], deadline: float) -> (
        tuple[dict[tuple[str, int], int | None], dict[tuple[str, int], int | None]]
    ):  # fmt: skip
        """(log start, high watermark) offsets of `wanted` from their leaders; what cannot be read is left out."""
        if not wanted:
            return {}, {}
        topics = sorted({t for t, _ in wanted})
        leaders: dict[tuple[str, int], int] = {}
        cursor: Cursor | None = None
        try:
            brokers = {node: (host, port) for node, host, port in self._brokers(deadline)}
            for _ in range(MAX_PAGES):
                _, payload = self._bootstrap(DESCRIBE_TOPIC_PARTITIONS, partial(_page_body, topics, cursor), deadline)
                page = decode_page(payload)
                leaders |= {(p.topic, p.partition): p.leader for p in page.partitions if p.leader >= 0}
                cursor = page.next_cursor
                if cursor is None:
                    break
        except (KafkatopError, OSError):
            return {}, {}
        by_leader: dict[int, dict[str, list[int]]] = {}
        for (topic, partition), leader in leaders.items():
            if (topic, partition) in wanted:
                by_leader.setdefault(leader, {}).setdefault(topic, []).append(partition)
        if self._watermarks is None:
            self._watermarks = WatermarkReader(self.connection)
        starts: dict[tuple[str, int], int | None] = {}
        ends: dict[tuple[str, int], int | None] = {}
        for future in self._watermarks.start(brokers, by_leader, deadline):
            answer = future.result()
            starts |= {tp: offset for tp, (offset, _) in answer.low.items()}
            ends |= {tp: offset for tp, (offset, _) in answer.high.items()}
        return starts, ends


def _batch(groups: list[str], version: int) -> list[str]:
    """What one FindCoordinator of `version` takes: every group from v4, one before."""
    return groups if version >= FIND_COORDINATOR_BATCHED_FROM else groups[:1]


def _find_body(groups: list[str], version: int) -> bytes:
    return find_coordinator_body(_batch(groups, version), version)


def _page_body(topics: list[str], cursor: Cursor | None, version: int) -> bytes:
    return request_body(topics, cursor)


# --- one call each: the command line's ------------------------------------------------------------------------------
def list_share_groups(connection: KafkaConnection, timeout_s: float) -> tuple[ListedShareGroup, ...]:
    with ShareGroupReader(connection, timeout_s) as reader:
        return reader.list(reader.deadline())


def describe_share_groups(
    connection: KafkaConnection,
    group_ids: Sequence[str],
    timeout_s: float,
    end_offsets: Mapping[tuple[str, int], int | None] | None = None,
) -> dict[str, ShareGroup]:
    with ShareGroupReader(connection, timeout_s) as reader:
        return reader.describe(group_ids, reader.deadline(), end_offsets)
