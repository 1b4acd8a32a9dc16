"""Committed offsets and descriptions of many consumer groups in a few requests: one OffsetFetch (v8, KIP-709) and
one DescribeGroups per group coordinator per poll, spoken by kafkatop itself (protocol/groups.py) over a connection
kept to each coordinator.

Requests per poll grow with coordinators, not with groups: 1,000 groups on 3 brokers cost 3 OffsetFetch and 3
DescribeGroups requests, where one call per group (confluent-kafka's API) costs 2,000. The coordinators are found
once (FindCoordinator v4+: every group in one request) and again only for the groups whose coordinator answered
that it no longer is one. Brokers older than Kafka 3.0 (and the librdkafka mock) answer OffsetFetch v6–v7 only: one
request per group then, on the same kept connection, still without a librdkafka handle per group, naming the topics
the group committed on (every topic every NAME_ALL_EVERY_S).

Nothing here goes through librdkafka, so none of its coordinator defects (group_reader.py) applies: a dead
coordinator costs its groups this poll's deadline and nothing else.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.protocol.connection import (
    BrokerConnection,
    KeptConnections,
    Unsupported,
    first_answer,
    os_reason,
)
from kafkatop.backends.protocol.consumer_groups import (
    CONSUMER_GROUP_DESCRIBE,
    ConsumerGroupDescription,
    consumer_group_describe_body,
    decode_consumer_group_describe,
)
from kafkatop.backends.protocol.groups import (
    DESCRIBE_GROUPS,
    OFFSET_FETCH,
    OFFSET_FETCH_BATCHED_FROM,
    CommittedOffset,
    DescribedGroup,
    decode_describe_groups,
    decode_offset_fetch,
    describe_groups_body,
    offset_fetch_body,
)
from kafkatop.backends.protocol.offset_delete import (
    FIND_COORDINATOR,
    FIND_COORDINATOR_BATCHED_FROM,
    decode_find_coordinator,
    find_coordinator_body,
)
from kafkatop.backends.protocol.security import unsupported
from kafkatop.backends.protocol.wire import Api, ProtocolError, error_name, response_reader

# Answers that say the group's coordinator is elsewhere, or not ready: found again, and asked again within the poll.
COORDINATOR_MOVED = frozenset({14, 15, 16})  # COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR

# Before OffsetFetch v8, a group is asked for every partition shown this often, for those it committed on otherwise.
NAME_ALL_EVERY_S = 30.0

# Coordinators asked at once, each on its own connection.
COORDINATOR_THREADS = 8


@dataclass(frozen=True, slots=True)
class GroupReads:
    """One poll's answers: per group, its committed offsets, its description (when asked), or why not."""

    offsets: Mapping[str, tuple[CommittedOffset, ...]]
    descriptions: Mapping[str, DescribedGroup]
    consumer_descriptions: Mapping[str, ConsumerGroupDescription]  # KIP-848 groups, by ConsumerGroupDescribe
    coordinators: Mapping[str, int]  # the group's coordinator, by node id
    failures: Mapping[str, str]  # group: why its offsets (and description) are missing this poll
    describable: bool  # False: the cluster answers no DescribeGroups (the librdkafka mock)
    offsets_readable: bool  # False: no OffsetFetch v6+ (Kafka before 2.4): read them the per-group way instead
    requests: Mapping[str, int]  # requests sent this poll, by API name (for the benchmark and the tests)


@dataclass
class _Round:
    """What one coordinator answered in one round."""

    offsets: dict[str, tuple[CommittedOffset, ...]] = field(default_factory=dict)
    descriptions: dict[str, DescribedGroup] = field(default_factory=dict)
    consumer_descriptions: dict[str, ConsumerGroupDescription] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)
    moved: list[str] = field(default_factory=list)  # to find again and ask again
    describable: bool = True
    offsets_readable: bool = True
    lost: str | None = None  # the connection failed: why


class BatchedGroupReader:
    """Groups' committed offsets and descriptions, a few requests per poll: see the module's docstring."""

    def __init__(self, connection: KafkaConnection) -> None:
        self.connection = connection
        self.settings = connection.client_settings
        self._coordinators: dict[str, tuple[int, str, int]] = {}  # group: (node id, host, port)
        self._connections = KeptConnections(self.settings)
        self._counting = threading.Lock()
        self._pool = ThreadPoolExecutor(COORDINATOR_THREADS, thread_name_prefix="kafkatop-coordinators")
        self._runner = ThreadPoolExecutor(1, thread_name_prefix="kafkatop-group-reads")
        self._requests: Counter[str] = Counter()
        # Before v8 (Kafka < 3.0, the mock): the topics each group committed on, and when it was last asked for all.
        self._committed_on: dict[str, set[str]] = {}
        self._named_all_at: dict[str, float] = {}
        # Set before each start: the topics each group's members are assigned (last described) or subscribed to
        # (kafkatop's own consumers), named besides those it committed on — its first commits show at once.
        self.member_topics: Mapping[str, frozenset[str]] = {}

    @staticmethod
    def speaks(connection: KafkaConnection) -> bool:
        """Whether kafkatop's own connections speak this cluster's security (not GSSAPI, not OAUTHBEARER)."""
        return unsupported(connection.client_settings) is None

    def start(
        self,
        group_ids: Sequence[str],
        describe: Sequence[str],
        partitions: Mapping[str, Sequence[int]],
        brokers: Sequence[tuple[str, int]],
        deadline: float,
        describe_consumer: Sequence[str] = (),
    ) -> Future[GroupReads]:
        """Reads on a thread of their own, done by `deadline` (time.monotonic()). `describe`: the classic groups to
        describe (DescribeGroups); `describe_consumer`: the KIP-848 ones (ConsumerGroupDescribe). `partitions`: those
        named to a coordinator that answers one group per request (v6–v7); v8 asks for every partition a group
        committed on. `brokers`: where to find coordinators (the live brokers of this poll's metadata)."""
        described = dict.fromkeys(describe, "classic") | dict.fromkeys(describe_consumer, "consumer")
        return self._runner.submit(self._read, list(group_ids), described, partitions, list(brokers), deadline)

    def close(self) -> None:
        self._runner.shutdown(wait=True)
        self._pool.shutdown(wait=True)
        self._connections.close()

    # --- one poll -----------------------------------------------------------------------------------------------
    def _read(
        self,
        group_ids: list[str],
        describe: dict[str, str],
        partitions: Mapping[str, Sequence[int]],
        brokers: list[tuple[str, int]],
        deadline: float,
    ) -> GroupReads:
        self._requests = Counter()
        offsets: dict[str, tuple[CommittedOffset, ...]] = {}
        descriptions: dict[str, DescribedGroup] = {}
        consumer_descriptions: dict[str, ConsumerGroupDescription] = {}
        failures: dict[str, str] = {}
        describable = readable = True
        pending = group_ids
        for _ in range(2):  # a second round for groups whose coordinator moved during the first
            failures.update(self._find(pending, brokers, deadline))
            by_node: dict[int, list[str]] = {}
            for g in pending:
                if g in self._coordinators:
                    by_node.setdefault(self._coordinators[g][0], []).append(g)
            rounds = [
                self._pool.submit(
                    self._ask, node, groups, {g: describe[g] for g in groups if g in describe}, partitions, deadline
                )  # fmt: skip
                for node, groups in by_node.items()
            ]
            moved: list[str] = []
            for fut in rounds:
                r = fut.result()
                offsets.update(r.offsets)
                descriptions.update(r.descriptions)
                consumer_descriptions.update(r.consumer_descriptions)
                failures.update(r.failures)
                describable = describable and r.describable
                readable = readable and r.offsets_readable
                moved.extend(r.moved)
            for g in moved:
                self._coordinators.pop(g, None)
            pending = moved
            if not pending or deadline - time.monotonic() <= 0:
                break
        for g in offsets:
            failures.pop(g, None)
        coordinators = {g: c[0] for g, c in self._coordinators.items() if g in offsets}
        return GroupReads(
            offsets, descriptions, consumer_descriptions, coordinators, failures, describable, readable,
            dict(self._requests),
        )  # fmt: skip

    def _named(self, group: str, partitions: Mapping[str, Sequence[int]]) -> Mapping[str, Sequence[int]]:
        """What a one-group OffsetFetch (v6–v7) names: every partition shown once every NAME_ALL_EVERY_S, and in
        between those of the topics the group committed on (at 1,000 groups and 10,000 partitions, naming every
        partition for every group would be 10 million per poll)."""
        now = time.monotonic()
        if (
            group not in self._committed_on
            or now - self._named_all_at.get(group, -NAME_ALL_EVERY_S) >= NAME_ALL_EVERY_S
        ):
            self._named_all_at[group] = now
            return partitions
        topics = self._committed_on[group] | self.member_topics.get(group, frozenset())
        return {t: partitions[t] for t in sorted(topics) if t in partitions}

    def _request(self, conn: BrokerConnection, api: Api, version: int, body: bytes) -> bytes:
        with self._counting:  # coordinators are asked on several threads
            self._requests[api.name] += 1
        return conn.send(api, version, body)

    def _find(self, groups: list[str], brokers: list[tuple[str, int]], deadline: float) -> dict[str, str]:
        """Finds the coordinators not known yet; returns the groups that have none, with why."""
        unknown = [g for g in groups if g not in self._coordinators]
        if not unknown:
            return {}

        def ask(host: str, port: int) -> dict[str, str]:
            # A connection of its own: the coordinators' connections are used by their threads meanwhile.
            with BrokerConnection(host, port, deadline, self.settings) as conn:
                version = conn.version_for(FIND_COORDINATOR)
                batches = [unknown] if version >= FIND_COORDINATOR_BATCHED_FROM else [[g] for g in unknown]
                failures: dict[str, str] = {}
                for batch in batches:
                    payload = self._request(conn, FIND_COORDINATOR, version, find_coordinator_body(batch, version))
                    for c in decode_find_coordinator(response_reader(payload), version, batch):
                        if c.error_code:
                            failures[c.key] = f"no coordinator: {error_name(c.error_code)}"
                        else:
                            self._coordinators[c.key] = (c.node_id, c.host, c.port)
                return failures

        reasons: list[str] = []
        try:
            # 0 s: a socket's timeout is the poll's deadline, not a time of its own
            found = first_answer(brokers or self.connection.addresses, ask, 0, reasons, deadline)
        except Unsupported as e:
            return dict.fromkeys(unknown, str(e))
        if found is None:
            return dict.fromkeys(unknown, "FindCoordinator failed: " + "; ".join(reasons))
        return found

    def _ask(
        self,
        node: int,
        groups: list[str],
        describe: Mapping[str, str],
        partitions: Mapping[str, Sequence[int]],
        deadline: float,
    ) -> _Round:
        """One coordinator's groups: their offsets (one request, or one per group before v8) and descriptions. A
        kept connection that fails is replaced once: the broker may have restarted since the last poll."""
        _, host, port = self._coordinators[groups[0]]
        kept = node in self._connections
        out = self._ask_once(node, host, port, groups, describe, partitions, deadline)
        if out.lost is not None and kept and deadline - time.monotonic() > 0:
            out = self._ask_once(node, host, port, groups, describe, partitions, deadline)
        if out.lost is not None:
            reason = f"coordinator broker {node} ({host}:{port}): {out.lost}"
            for g in groups:
                if g not in out.offsets:
                    out.failures[g] = reason
                    self._coordinators.pop(g, None)  # found again next poll: another broker may have taken over
        return out

    def _describe_consumer(self, conn: BrokerConnection, groups: list[str], out: _Round) -> None:
        """The coordinator's KIP-848 groups, in one ConsumerGroupDescribe."""
        try:
            version = conn.version_for(CONSUMER_GROUP_DESCRIBE)
        except Unsupported as e:  # a broker listing KIP-848 groups answers it; one that does not, said per group
            out.failures.update(dict.fromkeys(groups, str(e)))
            return
        body = consumer_group_describe_body(groups)
        payload = self._request(conn, CONSUMER_GROUP_DESCRIBE, version, body)
        for d in decode_consumer_group_describe(response_reader(payload), version):
            if d.error_code in COORDINATOR_MOVED and d.group_id not in out.moved:
                out.moved.append(d.group_id)
            out.consumer_descriptions[d.group_id] = d

    def _ask_once(
        self,
        node: int,
        host: str,
        port: int,
        groups: list[str],
        describe: Mapping[str, str],
        partitions: Mapping[str, Sequence[int]],
        deadline: float,
    ) -> _Round:
        out = _Round()
        try:
            conn = self._connections.get(node, host, port, deadline)
            try:
                version = conn.version_for(OFFSET_FETCH)
            except Unsupported:
                out.offsets_readable = False
                raise
            if version >= OFFSET_FETCH_BATCHED_FROM:
                batches: list[dict[str, Mapping[str, Sequence[int]] | None]] = [dict.fromkeys(groups)]
            else:
                batches = [{g: self._named(g, partitions)} for g in groups]
            for batch in batches:
                body = offset_fetch_body(version, batch)
                payload = self._request(conn, OFFSET_FETCH, version, body)
                asked = next(iter(batch)) if len(batch) == 1 else None
                for answer in decode_offset_fetch(response_reader(payload), version, asked):
                    if answer.error_code in COORDINATOR_MOVED:
                        out.moved.append(answer.group_id)
                        out.failures[answer.group_id] = f"OffsetFetch: {error_name(answer.error_code)}"
                    elif answer.error_code:
                        out.failures[answer.group_id] = f"OffsetFetch: {error_name(answer.error_code)}"
                    else:
                        out.offsets[answer.group_id] = answer.offsets
                        if version < OFFSET_FETCH_BATCHED_FROM:
                            self._committed_on[answer.group_id] = {o.topic for o in answer.offsets if o.offset >= 0}
            wanted = [g for g, kind in describe.items() if kind == "classic" and g not in out.moved]
            if wanted:
                try:
                    dversion = conn.version_for(DESCRIBE_GROUPS)
                except Unsupported:
                    out.describable = False
                else:
                    body = describe_groups_body(wanted)
                    payload = self._request(conn, DESCRIBE_GROUPS, dversion, body)
                    for d in decode_describe_groups(response_reader(payload)):
                        if d.error_code in COORDINATOR_MOVED and d.group_id not in out.moved:
                            out.moved.append(d.group_id)
                        out.descriptions[d.group_id] = d
            kip848 = [g for g, kind in describe.items() if kind == "consumer" and g not in out.moved]
            if kip848:
                self._describe_consumer(conn, kip848, out)
        except Unsupported as e:
            out.failures.update(dict.fromkeys(groups, str(e)))
        except (OSError, ProtocolError) as e:
            self._connections.drop(node)
            out.lost = os_reason(e, max(0.0, deadline - time.monotonic())) if isinstance(e, OSError) else str(e)
        return out
