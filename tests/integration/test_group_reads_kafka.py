"""The batched group reads (group_batch.py: OffsetFetch v8 and DescribeGroups, one each per coordinator) against a
real Apache Kafka 4.1 node: every group's committed offsets, members and assignment the same as the per-group way
(a Consumer and an AdminClient call per group), for 40 groups that only committed, a classic group with a member, and
a KIP-848 group with one; and the requests that took. Set KAFKA_HOME to run."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.groups import ConsumerGroup, GroupState
from tests.conftest import wait_for
from tests.integration.test_real_kafka import KraftNode, create_topic, polled

pytestmark = pytest.mark.kafka

TOPIC = "scaled"
IDLE = [f"idle-{i:02}" for i in range(40)]


def commit(consumer: Consumer, offsets: list[KafkaTopicPartition]) -> None:
    """A synchronous commit, again while __consumer_offsets is still being created (NOT_COORDINATOR, LOAD_IN_PROGRESS)
    on a node that has just started."""

    def committed() -> bool:
        try:
            consumer.commit(offsets=offsets, asynchronous=False)
        except KafkaException as e:
            if e.args[0].code() not in (KafkaError.NOT_COORDINATOR, KafkaError.COORDINATOR_LOAD_IN_PROGRESS):
                raise
            return False
        return True

    wait_for(committed, timeout_s=30, interval_s=0.2, what="the group coordinator to take a commit")


@pytest.fixture(scope="module")
def many_groups(kafka: KraftNode) -> Iterator[KraftNode]:
    create_topic(kafka, TOPIC, 8)
    for i, g in enumerate(IDLE):
        committer = Consumer({"bootstrap.servers": kafka.bootstrap, "group.id": g, "enable.auto.commit": False})
        commit(committer, [KafkaTopicPartition(TOPIC, p, i * 100 + p) for p in range(8) if (i + p) % 4])
        committer.close()
    members = [
        Consumer(
            {
                "bootstrap.servers": kafka.bootstrap,
                "group.id": group,
                "group.protocol": protocol,
                "client.id": f"{group}-client",
                "auto.offset.reset": "earliest",
            }
        )  # fmt: skip
        for group, protocol in (("live-classic", "classic"), ("live-848", "consumer"))
    ]
    for m in members:
        m.subscribe([TOPIC])
    with polled(members, "group-members"):
        yield kafka


def seen(group: ConsumerGroup) -> tuple[object, ...]:
    """What both ways must agree on (the note says how old an idle group's description is: the batched way's own)."""
    members = tuple(sorted((m.client_id, m.host, m.assignment) for m in group.members))
    return group.group_id, group.state, group.group_type, group.coordinator, members, group.offsets


def test_batched_reads_are_the_per_group_reads(many_groups: KraftNode) -> None:
    connection = KafkaConnection.parse(many_groups.bootstrap)
    per_group = AdminSource(connection, timeout_s=5.0, group_reads="per-group")
    batched = AdminSource(connection, timeout_s=5.0)
    try:

        def settled() -> tuple[tuple[ConsumerGroup, ...], tuple[ConsumerGroup, ...]] | None:
            a, b = per_group.poll().groups, batched.poll().groups
            live = {g.group_id: g for g in a if g.group_id.startswith("live-")}
            if len(a) != 42 or any(g.state is not GroupState.STABLE or not g.members for g in live.values()):
                return None
            return (a, b) if [seen(g) for g in a] == [seen(g) for g in b] else None

        a, b = wait_for(settled, timeout_s=60, what="both ways to read the same 42 groups")
        assert batched.group_reads == "batched"
        by_id = {g.group_id: g for g in b}
        assert by_id["live-848"].group_type == "consumer" and by_id["live-classic"].group_type == "classic"
        assert [(o.partition, o.committed) for o in by_id["idle-05"].offsets] == [
            (0, 500), (1, 501), (2, 502), (4, 504), (5, 505), (6, 506)
        ]  # fmt: skip
        # One coordinator: one OffsetFetch for the 42 groups, one DescribeGroups for the classic ones not idle (the
        # idle ones were described by an earlier poll: again every config_refresh_s), one ConsumerGroupDescribe for
        # the KIP-848 one, and no FindCoordinator.
        last = batched.poll()
        assert batched.group_requests == {"OffsetFetch": 1, "DescribeGroups": 1, "ConsumerGroupDescribe": 1}
        kip848 = next(g for g in last.groups if g.group_id == "live-848")
        (member,) = kip848.members
        # Settled: the assignment caught up with the group's epoch, and the member owns its target.
        assert kip848.group_epoch == kip848.assignment_epoch and (kip848.group_epoch or 0) >= 1
        assert member.member_epoch == kip848.group_epoch and member.target_assignment == member.assignment
        assert len(member.assignment) == 8 and not member.reconciling
        classic = next(g for g in last.groups if g.group_id == "live-classic")
        assert classic.group_epoch is None and classic.members[0].target_assignment is None
        idle = next(g for g in last.groups if g.group_id == "idle-00")
        assert idle.state is GroupState.EMPTY and idle.note is not None and "described every 30 s" in idle.note
    finally:
        per_group.close()
        batched.close()


def test_watermarks_are_librdkafka_s(many_groups: KraftNode) -> None:
    """kafkatop's own ListOffsets (two per leader) against confluent-kafka's, leader epochs included."""
    from confluent_kafka.admin import AdminClient, OffsetSpec

    producer = Producer({"bootstrap.servers": many_groups.bootstrap})
    for i in range(40):
        producer.produce(TOPIC, f"r{i}".encode(), partition=i % 8)
    assert producer.flush(20) == 0
    source = AdminSource(KafkaConnection.parse(many_groups.bootstrap), timeout_s=5.0)
    try:
        snap = source.poll()
    finally:
        source.close()
    admin = AdminClient({"bootstrap.servers": many_groups.bootstrap})
    tps = [KafkaTopicPartition(TOPIC, p) for p in range(8)]
    low = admin.list_offsets({tp: OffsetSpec.earliest() for tp in tps}, request_timeout=10)
    high = admin.list_offsets({tp: OffsetSpec.latest() for tp in tps}, request_timeout=10)
    theirs = {
        tp.partition: (low[tp].result().offset, high[tp].result().offset, high[tp].result().leader_epoch) for tp in tps
    }
    topic = snap.topic(TOPIC)
    assert topic is not None
    ours = {p.id: (p.low_watermark, p.high_watermark, p.leader_epoch) for p in topic.partitions}
    assert ours == theirs and all(h >= 5 and e == 0 for _, h, e in ours.values())


KIP848 = [f"k848-{i:03}" for i in range(200)]


def pairs(tps: Iterable[Any]) -> tuple[tuple[str, int], ...]:
    return tuple((tp.topic, tp.partition) for tp in tps)


def _join_and_leave(bootstrap: str, group: str, partition: int) -> None:
    """A KIP-848 group: a consumer-protocol member joins (a commit without joining would make a classic group),
    is assigned, commits and leaves; the group stays, Empty, of type consumer."""
    member = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": group, "group.protocol": "consumer", "enable.auto.commit": False}
    )
    try:
        member.subscribe([TOPIC])
        wait_for(lambda: member.poll(0.1) is not None or member.assignment(), timeout_s=60, what=f"{group} assigned")
        commit(member, [KafkaTopicPartition(TOPIC, partition, 7)])
    finally:
        member.close()


def test_200_kip848_groups_are_described_in_one_request_per_coordinator(many_groups: KraftNode) -> None:
    """200 KIP-848 groups: one ConsumerGroupDescribe for all of them (one coordinator), and each group the same,
    field by field, as librdkafka's describe_consumer_groups reads it."""
    from concurrent.futures import ThreadPoolExecutor

    from confluent_kafka.admin import AdminClient

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(lambda i: _join_and_leave(many_groups.bootstrap, KIP848[i], i % 8), range(len(KIP848))))
    source = AdminSource(KafkaConnection.parse(many_groups.bootstrap), timeout_s=10.0)
    try:

        def all_kip848() -> tuple[ConsumerGroup, ...] | None:
            groups = source.poll().groups
            ours = [g for g in groups if g.group_id.startswith("k848-")]
            return groups if len(ours) == 200 and all(g.group_type == "consumer" for g in ours) else None

        wait_for(all_kip848, timeout_s=60, what="200 KIP-848 groups listed as such")
        snapshot = source.poll()
        assert source.group_requests["ConsumerGroupDescribe"] == 1  # one coordinator: one request, 201 groups
    finally:
        source.close()
    admin = AdminClient({"bootstrap.servers": many_groups.bootstrap})
    theirs = {
        g: f.result() for g, f in admin.describe_consumer_groups(KIP848 + ["live-848"], request_timeout=20).items()
    }
    ours = {g.group_id: g for g in snapshot.groups}
    for gid, d in theirs.items():
        g = ours[gid]
        assert (g.group_type, g.assignor, g.coordinator) == ("consumer", d.partition_assignor, d.coordinator.id), gid
        assert g.state.value.upper() == d.state.name.upper(), gid
        members = sorted(
            (m.member_id, m.client_id, m.host.lstrip("/"), pairs(m.assignment.topic_partitions),
             pairs(m.target_assignment.topic_partitions if m.target_assignment else ()))
            for m in d.members
        )  # fmt: skip
        mine = sorted(
            (m.member_id, m.client_id, m.host, pairs(m.assignment), pairs(m.target_assignment or ()))
            for m in g.members
        )  # fmt: skip
        assert mine == members, gid  # the host as kafkatop shows it: Java's "/127.0.0.1" without its slash
    empty = ours["k848-007"]
    assert empty.members == () and [(o.topic, o.partition, o.committed) for o in empty.offsets] == [(TOPIC, 7, 7)]
