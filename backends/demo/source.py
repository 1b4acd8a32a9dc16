"""The demo's cluster poll: the librdkafka mock read through AdminSource (a real Kafka client on real sockets), with
what only the demo knows put in: the replicas, leaders and ISRs its controller decided (see control.py), the mode
"demo", and the groups of kafkatop's own consumers (see groups.py) where the mock has no group APIs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from kafkatop.backends.demo.groups import members_of, own_group
from kafkatop.backends.demo.node_control import DemoControl
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.model.cluster import ClusterSnapshot, Problem
from kafkatop.backends.model.consoles import ConsumerView
from kafkatop.backends.model.topic_partition import TopicPartition

# The mock's answers replaced by the groups' note: not problems of this cluster, but what it is.
_GROUP_REQUESTS = frozenset({"ListGroups", "DescribeGroups"})


def _explained(problem: Problem) -> bool:
    return problem.what in _GROUP_REQUESTS and (
        "_UNSUPPORTED_FEATURE" in problem.reason or "not supported" in problem.reason
    )


class DemoSource:
    """One ClusterSnapshot of the demo per poll; `consumers` gives kafkatop's own consumers (never waits)."""

    def __init__(
        self,
        control: DemoControl,
        admin: AdminSource,
        consumers: Callable[[], Sequence[ConsumerView]],
        groups: Sequence[str] = (),
    ) -> None:
        self._control = control
        self._admin = admin
        self._consumers = consumers
        self._groups = tuple(groups)

    def poll(self) -> ClusterSnapshot:
        consumers = tuple(self._consumers())
        group_ids = tuple(dict.fromkeys((*self._groups, *(c.group for c in consumers))))
        for g in group_ids:
            self._control.place_group(g)
        subscribed = {g: {t for c in members_of(g, consumers) for t in c.topics} for g in group_ids}
        self._admin.watch(group_ids, subscribed)
        snapshot = self._control.overlay(self._admin.poll())
        polled = {g.group_id: g for g in snapshot.groups}
        high = {TopicPartition(p.topic, p.id): p.high_watermark for p in snapshot.partitions}
        coordinators = self._control.coordinators
        groups = tuple(
            own_group(g, polled.get(g), consumers, coordinators.get(g), high) for g in sorted(set(group_ids))
        )
        problems = tuple(p for p in snapshot.problems if not _explained(p))
        return replace(snapshot, groups=groups, problems=problems)

    def close(self) -> None:
        self._admin.close()
