"""The consoles and group offset resets against a real Kafka 4.1 KRaft node: what the librdkafka mock cannot show.

The mock cannot describe groups, keeps refusing admin commits for a group that ever had members, answers "none" to
every ListOffsets by timestamp and refuses the commit librdkafka makes on revoke. Here, against Kafka: the refusal
of a reset while the group has members (found by DescribeGroups), the reset once its consumers stopped, a reset to
a timestamp inside the log, and the labs' rebalance without any record read twice. Skipped without KAFKA_HOME.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from contextlib import closing

import pytest

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.groups.group_offsets import GroupAdmin
from kafkatop.backends.kafka.records.consumers import ConsumerPool
from kafkatop.backends.kafka.records.producer_console import ProducerSession
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.consoles import AssignmentChange, ClientError, Delivery, Received
from kafkatop.backends.model.topic_partition import TopicPartition
from tests.conftest import wait_for
from tests.integration.test_real_kafka import KraftNode, create_topic, wait_topic_led

pytestmark = [
    pytest.mark.kafka,  # skipped where KAFKA_HOME is unset (tests/conftest.py)
    # The first test also waits for the node to start: a JVM on a small, possibly busy machine.
    pytest.mark.timeout(300),
]


def new_topic(node: KraftNode, name: str, partitions: int = 3) -> str:
    create_topic(node, name, partitions)
    wait_topic_led(AdminSource(KafkaConnection.parse(node.bootstrap), timeout_s=5.0), name, partitions)
    return name


@pytest.fixture
def producer(kafka: KraftNode) -> Iterator[ProducerSession]:
    with closing(ProducerSession(KafkaConnection.parse(kafka.bootstrap))) as session:
        yield session


@pytest.fixture
def pool(kafka: KraftNode) -> Iterator[ConsumerPool]:
    with closing(ConsumerPool(KafkaConnection.parse(kafka.bootstrap))) as consumers:
        yield consumers


@pytest.fixture
def admin(kafka: KraftNode) -> Iterator[GroupAdmin]:
    with closing(GroupAdmin(KafkaConnection.parse(kafka.bootstrap), timeout_s=10.0)) as groups:
        yield groups


def delivered(session: ProducerSession, count: int) -> list[Delivery]:
    got: list[Delivery] = []

    def all_in() -> bool:
        got.extend(session.deliveries())
        return len(got) >= count

    wait_for(all_in, timeout_s=20, what=f"{count} delivery reports")
    assert [d.error for d in got] == [None] * count
    return got


def drained(pool: ConsumerPool, into: list[Received], changes: list[AssignmentChange] | None = None) -> list[Received]:
    records, changed, dropped = pool.drain()
    assert dropped == 0
    into.extend(records)
    if changes is not None:
        changes.extend(changed)
    return into


def test_reset_refused_while_active_then_done_once_stopped(
    kafka: KraftNode, producer: ProducerSession, pool: ConsumerPool, admin: GroupAdmin
) -> None:
    topic = new_topic(kafka, "payments")
    producer.send_test_messages(topic, 30)  # 10 per partition
    delivered(producer, 30)
    records: list[Received] = []
    pool.start([topic], group="lab", from_beginning=True)
    wait_for(lambda: len(drained(pool, records)) == 30, timeout_s=30, what="30 records read by group lab")

    with pytest.raises(ClientError) as raised:
        admin.reset_offsets("lab", topic, "earliest")
    print("reset of an active group:", raised.value)
    assert str(raised.value) == (
        "group 'lab' is active (1 member, Stable): stop its consumers first — Kafka only resets an inactive group"
    )
    # The preview says so before anything is asked of the user, and executing it is refused the same way.
    plan = admin.plan_reset("lab", [topic], "offset", 6)
    assert plan.refused == str(raised.value)
    assert [(m.partition, m.target, m.log_end) for m in plan.moves] == [(0, 6, 10), (1, 6, 10), (2, 6, 10)]
    with pytest.raises(ClientError, match="group 'lab' is active"):
        admin.execute_reset(plan)

    pool.stop("c1")  # commits (at the log end) and leaves: the group is Empty
    assert admin.committed_offsets("lab", topic) == {0: 10, 1: 10, 2: 10}
    assert admin.reset_offsets("lab", topic, "offset", 7) == {0: 7, 1: 7, 2: 7}
    assert admin.committed_offsets("lab", topic) == {0: 7, 1: 7, 2: 7}
    assert admin.reset_offsets("lab", topic, "earliest", partitions=[1]) == {1: 0}

    # A new consumer of the group starts where the reset put it, not at the log end (auto.offset.reset=latest).
    records.clear()
    pool.start([topic], group="lab")
    wait_for(lambda: len(drained(pool, records)) == 3 + 10 + 3, timeout_s=30, what="the records after the reset")
    assert Counter(r.partition for r in records) == {0: 3, 1: 10, 2: 3}
    assert sorted(r.offset for r in records if r.partition == 0) == [7, 8, 9]


def test_reset_to_a_timestamp(kafka: KraftNode, producer: ProducerSession, admin: GroupAdmin) -> None:
    topic = new_topic(kafka, "events")
    producer.send_test_messages(topic, 9, prefix="before")  # 3 per partition
    delivered(producer, 9)
    split_ms = int(time.time() * 1000) + 2
    wait_for(lambda: time.time() * 1000 > split_ms, what="the clock past the split")  # a few ms
    producer.send_test_messages(topic, 6, prefix="after")  # 2 per partition
    delivered(producer, 6)

    assert admin.reset_offsets("replay", topic, "timestamp", split_ms) == {0: 3, 1: 3, 2: 3}
    assert admin.reset_offsets("replay", topic, "timestamp", 0) == {0: 0, 1: 0, 2: 0}
    # Nothing at or after the timestamp: the log end, as kafka-consumer-groups does.
    assert admin.reset_offsets("replay", topic, "timestamp", split_ms + 3_600_000) == {0: 5, 1: 5, 2: 5}
    assert admin.committed_offsets("replay", topic) == {0: 5, 1: 5, 2: 5}


def test_lab_rebalance_m1_to_m7_over_three_consumers_then_two(
    kafka: KraftNode, producer: ProducerSession, pool: ConsumerPool, admin: GroupAdmin
) -> None:
    """The labs' exercise with Kafka's own group coordinator: no record is read twice across the rebalance."""
    topic = new_topic(kafka, "purchases")
    all3 = {TopicPartition(topic, p) for p in range(3)}
    started = time.monotonic()
    names = [pool.start([topic], group="shop") for _ in range(3)]
    assert names == ["c1", "c2", "c3"]

    def one_partition_each() -> bool:
        views = pool.views()
        return all(v.state == "consuming" and len(v.assignment) == 1 for v in views)

    wait_for(one_partition_each, timeout_s=30, what="3 consumers with one partition each")
    print(f"3 consumers balanced in {time.monotonic() - started:.1f} s")
    assert {tp for v in pool.views() for tp in v.assignment} == all3

    records: list[Received] = []
    changes: list[AssignmentChange] = []
    producer.send_test_messages(topic, 7)
    delivered(producer, 7)
    wait_for(lambda: len(drained(pool, records, changes)) == 7, timeout_s=20, what="m1…m7")
    assert sorted(r.value for r in records) == sorted(f"m{i}" for i in range(1, 8))
    owner = {tp: v.name for v in pool.views() for tp in v.assignment}
    assert all(owner[TopicPartition(r.topic, r.partition)] == r.consumer for r in records)

    # No waiting for the auto-commit: Kafka takes the commit made when c3's partition is revoked.
    started = time.monotonic()
    pool.stop("c3")
    wait_for(
        lambda: (
            {tp for v in pool.views() if v.name != "c3" for tp in v.assignment} == all3
            and all(v.state == "consuming" for v in pool.views() if v.name != "c3")
        ),
        timeout_s=30,
        what="c1 and c2 sharing all partitions",
    )
    print(f"rebalanced over 2 consumers in {time.monotonic() - started:.1f} s")
    producer.send_test_messages(topic, 7, prefix="n")
    delivered(producer, 7)
    wait_for(lambda: len(drained(pool, records, changes)) >= 14, timeout_s=20, what="n1…n7")
    assert sorted(r.value for r in records) == sorted([f"m{i}" for i in range(1, 8)] + [f"n{i}" for i in range(1, 8)])
    assert {r.consumer for r in records if r.value.startswith("n")} <= {"c1", "c2"}

    # Eager rebalances, as the labs show them: everything revoked, then reassigned over the members left.
    drained(pool, records, changes)
    assert all(c.group == "shop" for c in changes)
    # c3's last revoke is the one at its stop: under load an extra rebalance can revoke it earlier too.
    c3_revoked = max(i for i, c in enumerate(changes) if (c.consumer, c.kind) == ("c3", "revoked"))
    last = {c.consumer: set(c.partitions) for c in changes[c3_revoked:] if c.kind == "assigned"}
    assert set(last) == {"c1", "c2"} and last["c1"] | last["c2"] == all3 and not last["c1"] & last["c2"]
    assert {(c.consumer, c.kind) for c in changes[c3_revoked:]} >= {("c1", "revoked"), ("c2", "revoked")}
