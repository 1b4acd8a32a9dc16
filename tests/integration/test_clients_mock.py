"""The producer and consumer consoles and group offset resets against the librdkafka mock cluster.

What the mock does differently from Kafka, and how these tests live with it:
- A group's first join waits group.initial.rebalance.delay.ms, 3 s in the mock (Kafka's default too); every
  test with a consumer costs that much.
- A rebalance after a member joins or leaves lasts session.timeout.ms - 1 s on the mock (Kafka ends it as soon
  as every member rejoined): the consumers here use a 3 s session timeout (MOCK_CONSUMER_CONFIG).
- The mock refuses the offset commit librdkafka makes when partitions are revoked (REBALANCE_IN_PROGRESS, where
  Kafka accepts commits of the current generation), so a record not yet auto-committed is delivered again after
  a rebalance. Consumers here auto-commit every 0.5 s and the tests wait for the commit before a rebalance.
- DescribeGroups is unsupported: GroupAdmin learns a group is active from Kafka's answer to the commit
  (UNKNOWN_MEMBER_ID), which the mock gives like Kafka does, but also once the group is empty again: the mock
  never forgets a group that had members. Resets are checked here on groups that never had a member; the reset of
  a group whose consumers stopped is checked against Kafka (test_clients_kafka.py).
- ListOffsets by timestamp answers -1 ("none") for any timestamp, so only "timestamp after the last record → log
  end" can be checked here; the real-Kafka tests (test_clients_kafka.py) check a timestamp inside the log.
- The mock creates a topic on a Metadata request naming it; the consoles never name a topic in Metadata, and
  test_missing_topic_is_refused_and_not_created checks it.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import closing

import pytest
from confluent_kafka import Producer

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.groups.group_offsets import GroupAdmin
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.kafka.records.consumers import ConsumerPool
from kafkatop.backends.kafka.records.producer_console import ProducerSession
from kafkatop.backends.model.connection import LIBRDKAFKA_LOGGER, KafkaConnection
from kafkatop.backends.model.consoles import (
    AssignmentChange,
    ClientError,
    ConsumerView,
    ProducerSettings,
    Received,
)
from kafkatop.backends.model.resets import ResetTarget
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.zookeeper.server import free_port
from tests.conftest import wait_for

pytestmark = pytest.mark.timeout(60)

MOCK_CONSUMER_CONFIG = {
    "session.timeout.ms": "3000",  # the mock's rebalances last session.timeout.ms - 1 s
    "heartbeat.interval.ms": "500",
    "auto.commit.interval.ms": "500",  # see the module docstring: the mock refuses commits on revoke
}
ALL3 = {TopicPartition("t", p) for p in range(3)}


class Drained:
    """Everything a ConsumerPool handed out so far, as the TUI would accumulate it."""

    def __init__(self, pool: ConsumerPool) -> None:
        self.pool = pool
        self.records: list[Received] = []
        self.changes: list[AssignmentChange] = []
        self.dropped = 0

    def pump(self) -> Drained:
        records, changes, dropped = self.pool.drain()
        self.records += records
        self.changes += changes
        self.dropped += dropped
        return self

    def values(self, consumer: str | None = None) -> list[str]:
        self.pump()
        return [r.value for r in self.records if consumer is None or r.consumer == consumer]

    def view(self, name: str) -> ConsumerView:
        return next(v for v in self.pool.views() if v.name == name)

    def wait_consuming(self, *names: str) -> None:
        wait_for(
            lambda: all(self.view(n).state == "consuming" for n in names),
            timeout_s=15,
            what=f"{', '.join(names)} consuming",
        )


@pytest.fixture
def topic(mock_cluster: MockCluster) -> str:
    mock_cluster.create_topic("t", 3, 3)
    return "t"


@pytest.fixture
def pool(mock_cluster: MockCluster) -> Iterator[ConsumerPool]:
    connection = KafkaConnection.parse(mock_cluster.bootstrap_servers, MOCK_CONSUMER_CONFIG)
    with closing(ConsumerPool(connection)) as consumers:
        yield consumers
    assert not [t.name for t in threading.enumerate() if t.name.startswith("kafkatop-consumer-")]


@pytest.fixture
def drained(pool: ConsumerPool) -> Drained:
    return Drained(pool)


@pytest.fixture
def producer(mock_cluster: MockCluster) -> Iterator[ProducerSession]:
    with closing(ProducerSession(KafkaConnection.parse(mock_cluster.bootstrap_servers))) as session:
        yield session


def wait_deliveries(session: ProducerSession, count: int) -> list:  # type: ignore[type-arg]
    got: list = []  # type: ignore[type-arg]
    wait_for(lambda: len(got.__iadd__(session.deliveries())) >= count, what=f"{count} delivery reports")
    assert len(got) == count
    return got


def high_watermarks(cluster: MockCluster, topic: str) -> dict[int, int | None]:
    snap = AdminSource(KafkaConnection.parse(cluster.bootstrap_servers)).poll()
    t = snap.topic(topic)
    assert t is not None
    return {p.id: p.high_watermark for p in t.partitions}


# --- producing ------------------------------------------------------------------------------------------------------
def _planned(admin: GroupAdmin, group: str, topic: str, to: ResetTarget, value: int | None = None) -> dict[int, int]:
    """The new offset per partition that a reset would commit (--dry-run)."""
    return {m.partition: m.target for m in admin.plan_reset(group, [topic], to, value).moves}


def test_send_reports_partition_offset_and_latency(producer: ProducerSession, topic: str) -> None:
    seqs = [producer.send(topic, f"hello {i}") for i in range(6)]
    assert seqs == [1, 2, 3, 4, 5, 6]
    reports = wait_deliveries(producer, 6)
    assert sorted(d.seq for d in reports) == seqs
    assert producer.in_flight() == 0
    for d in reports:
        assert d.error is None and d.topic == topic and d.partition in (0, 1, 2) and d.key is None
        assert d.latency_ms is not None and d.latency_ms > 0
    assert {d.value for d in reports} == {f"hello {i}" for i in range(6)}
    # Offsets count up from 0 in each partition, in send order.
    for p in (0, 1, 2):
        mine = sorted((d for d in reports if d.partition == p), key=lambda d: d.seq)
        assert [d.offset for d in mine] == list(range(len(mine)))
    assert producer.deliveries() == []  # drained


def test_keyed_lines_land_by_key_and_are_read_back(
    producer: ProducerSession, pool: ConsumerPool, drained: Drained, mock_cluster: MockCluster, topic: str
) -> None:
    producer.reconfigure(ProducerSettings(key_separator=":"))
    lines = [f"user{i % 4}:order {i}" for i in range(20)]
    assert producer.send_many(topic, lines) == 20
    reports = wait_deliveries(producer, 20)
    partition_of_key: dict[str | None, set[int | None]] = {}
    for d in reports:
        partition_of_key.setdefault(d.key, set()).add(d.partition)
    assert set(partition_of_key) == {"user0", "user1", "user2", "user3"}
    assert all(len(ps) == 1 for ps in partition_of_key.values()), partition_of_key  # same key, same partition

    # The key travels as the record's key, not as part of the value.
    pool.start([topic], from_beginning=True)
    wait_for(lambda: len(drained.values()) == 20, timeout_s=15, what="20 keyed records")
    assert {(r.key, r.value) for r in drained.records} == {tuple(line.split(":", 1)) for line in lines}

    # A line without the separator sends nothing, not even the good lines around it.
    before = high_watermarks(mock_cluster, topic)
    with pytest.raises(ClientError, match=r"^No key separator found on line number 2: 'oops'"):
        producer.send_many(topic, ["a:1", "oops", "b:2"])
    with pytest.raises(ClientError, match=r"^No key separator found on line: 'oops'"):
        producer.send(topic, "oops")
    assert producer.in_flight() == 0 and producer.deliveries() == []
    assert high_watermarks(mock_cluster, topic) == before


def test_send_many_skips_blank_lines(producer: ProducerSession, topic: str) -> None:
    assert producer.send_many(topic, ["one", "", "   ", "two"]) == 2
    assert producer.send_many(topic, ["", " "]) == 0
    assert sorted(d.value for d in wait_deliveries(producer, 2)) == ["one", "two"]


def test_explicit_partition(producer: ProducerSession, mock_cluster: MockCluster, topic: str) -> None:
    producer.reconfigure(ProducerSettings(partition=2))
    for i in range(5):
        producer.send(topic, f"v{i}")
    reports = wait_deliveries(producer, 5)
    assert [(d.partition, d.offset) for d in sorted(reports, key=lambda d: d.seq)] == [(2, i) for i in range(5)]
    assert high_watermarks(mock_cluster, topic) == {0: 0, 1: 0, 2: 5}

    producer.reconfigure(ProducerSettings(partition=3))
    with pytest.raises(ClientError) as raised:
        producer.send(topic, "nowhere")
    assert str(raised.value) == "partition 3 does not exist: topic 't' has 3 partitions (0–2)"
    assert producer.in_flight() == 0


def test_missing_topic_is_refused_and_not_created(producer: ProducerSession, mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("t", 1, 1)
    with pytest.raises(ClientError) as raised:
        producer.send("nope", "hello")
    print("missing topic:", raised.value)
    assert str(raised.value).startswith("topic 'nope' does not exist: create it first")
    assert producer.in_flight() == 0 and producer.deliveries() == []
    # The mock (like Kafka with auto.create.topics.enable) creates topics named in Metadata: not by us.
    snap = AdminSource(KafkaConnection.parse(mock_cluster.bootstrap_servers)).poll()
    assert [t.name for t in snap.topics] == ["t"]
    # Created after the refusal, it is found at once, whatever the metadata cache held.
    mock_cluster.create_topic("nope", 1, 1)
    producer.send("nope", "hello")
    (report,) = wait_deliveries(producer, 1)
    assert (report.topic, report.partition, report.offset, report.error) == ("nope", 0, 0, None)


def test_send_test_messages_m1_to_m7(producer: ProducerSession, topic: str) -> None:
    assert producer.send_test_messages(topic, 7) == 7
    reports = sorted(wait_deliveries(producer, 7), key=lambda d: d.seq)
    assert [d.value for d in reports] == [f"m{i}" for i in range(1, 8)]
    assert [d.key for d in reports] == [None] * 7
    assert [d.partition for d in reports] == [0, 1, 2, 0, 1, 2, 0]  # spread, as when typed one by one

    producer.reconfigure(ProducerSettings(key_separator=":", acks="1", idempotence=False, compression="zstd"))
    assert producer.settings.acks == "1"
    assert producer.send_test_messages(topic, 7, prefix="x") == 7
    reports = sorted(wait_deliveries(producer, 7), key=lambda d: d.seq)
    assert [(d.key, d.value) for d in reports] == [(f"k{i}", f"x{i}") for i in range(1, 8)]
    assert all(d.error is None and d.offset is not None for d in reports)

    with pytest.raises(ClientError, match="between 1 and 1000000"):
        producer.send_test_messages(topic, 0)


def test_undeliverable_messages_are_reported_and_close_is_bounded(mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("t", 2, 1)
    mock_cluster.set_partition_leader("t", 1, -1)  # partition 1 is offline
    session = ProducerSession(KafkaConnection.parse(mock_cluster.bootstrap_servers, {"message.timeout.ms": "1000"}))
    try:
        session.reconfigure(ProducerSettings(partition=1))
        session.send("t", "lost")
        (report,) = wait_deliveries(session, 1)
        print("offline partition:", report.error)
        assert report.error is not None and report.error.startswith("_MSG_TIMED_OUT")
        assert (report.partition, report.offset, report.latency_ms) == (1, None, None)

        session.reconfigure(ProducerSettings(partition=1, linger_ms=0))
        for i in range(3):
            session.send("t", f"stuck {i}")
        assert session.in_flight() == 3
    finally:
        started = time.monotonic()
        session.close(timeout_s=0.2)
        # Bounded by the close's own timeout (plus a generous margin for a busy machine): the undelivered messages
        # would otherwise hold it for their message timeout, 30 s.
        assert time.monotonic() - started < 10
    # What close could not deliver is reported as failed, not silently gone.
    reports = session.deliveries()
    assert [d.value for d in reports] == ["stuck 0", "stuck 1", "stuck 2"]
    assert all(d.error is not None and d.error.startswith("_PURGE") for d in reports), reports
    assert session.in_flight() == 0
    with pytest.raises(ClientError, match="the producer is closed"):
        session.send("t", "after close")
    session.close()  # twice is fine


# --- consuming ------------------------------------------------------------------------------------------------------
def test_group_members_share_partitions_then_one_takes_all(
    producer: ProducerSession, pool: ConsumerPool, drained: Drained, mock_cluster: MockCluster, topic: str
) -> None:
    """The labs' consumer-group exercise: m1…m7 over the group's consumers, then one stops and the other takes over."""
    started = time.monotonic()
    assert pool.start([topic], group="g") == "c1"
    assert pool.start([topic], group="g") == "c2"
    drained.wait_consuming("c1", "c2")
    print(f"group formed in {time.monotonic() - started:.1f} s")
    a, b = set(drained.view("c1").assignment), set(drained.view("c2").assignment)
    assert a and b and not a & b and a | b == ALL3

    producer.send_test_messages(topic, 7)
    wait_for(lambda: len(drained.values()) == 7, timeout_s=10, what="m1…m7 received")
    assert sorted(drained.values()) == sorted(f"m{i}" for i in range(1, 8))  # each exactly once in the group
    for r in drained.records:
        assert TopicPartition(r.topic, r.partition) in (a if r.consumer == "c1" else b)
    assert Counter(r.consumer for r in drained.records) == {
        "c1": sum(1 for i in range(7) if TopicPartition("t", i % 3) in a),
        "c2": sum(1 for i in range(7) if TopicPartition("t", i % 3) in b),
    }

    admin = GroupAdmin(KafkaConnection.parse(mock_cluster.bootstrap_servers))
    try:  # auto-commit (see MOCK_CONSUMER_CONFIG) has the group's offsets at the log end
        wait_for(lambda: admin.committed_offsets("g", topic) == {0: 3, 1: 2, 2: 2}, timeout_s=5, what="commits")
    finally:
        admin.close()
    started = time.monotonic()
    pool.stop("c1")
    print(f"c1 stopped in {time.monotonic() - started:.2f} s")
    assert drained.view("c1").state == "stopped" and drained.view("c1").assignment == ()
    wait_for(lambda: set(drained.view("c2").assignment) == ALL3, timeout_s=10, what="c2 owning all partitions")
    print(f"c2 took over after {time.monotonic() - started:.1f} s")

    drained.pump()
    kinds = [(c.consumer, c.kind, set(c.partitions)) for c in drained.changes]
    # The split seen as each one's assignment (a loaded machine may add a rebalance before it: eager, all revoked).
    assert kinds[0][1] == "assigned" and ("c1", "assigned", a) in kinds and ("c2", "assigned", b) in kinds
    assert ("c1", "revoked", a) in kinds and kinds[-1] == ("c2", "assigned", ALL3)
    assert all(c.group == "g" for c in drained.changes)

    producer.send_test_messages(topic, 7, prefix="n")
    wait_for(lambda: len(drained.values()) == 14, timeout_s=10, what="n1…n7 received")
    assert sorted(drained.values()) == sorted([f"m{i}" for i in range(1, 8)] + [f"n{i}" for i in range(1, 8)])
    assert {r.consumer for r in drained.records if r.value.startswith("n")} == {"c2"}
    views = {v.name: v for v in pool.views()}
    assert (views["c1"].received, views["c2"].received) == (
        sum(1 for r in drained.records if r.consumer == "c1"),
        sum(1 for r in drained.records if r.consumer == "c2"),
    )


def test_consumers_in_groups_of_their_own_each_get_everything(
    producer: ProducerSession, pool: ConsumerPool, drained: Drained, topic: str
) -> None:
    pool.start([topic])
    pool.start([topic])
    drained.wait_consuming("c1", "c2")
    groups = {v.name: v.group for v in pool.views()}
    assert groups["c1"].startswith("kafkatop-console-c1-") and groups["c2"].startswith("kafkatop-console-c2-")
    assert {v.name: set(v.assignment) for v in pool.views()} == {"c1": ALL3, "c2": ALL3}
    producer.send_test_messages(topic, 7)
    wait_for(lambda: len(drained.values()) == 14, timeout_s=10, what="m1…m7 twice")
    expected = [f"m{i}" for i in range(1, 8)]
    assert sorted(drained.values("c1")) == expected and sorted(drained.values("c2")) == expected


def test_from_beginning_or_from_the_end(
    producer: ProducerSession, pool: ConsumerPool, drained: Drained, topic: str
) -> None:
    producer.send_many(topic, ["old1", "old2", "old3"])
    wait_deliveries(producer, 3)
    pool.start([topic], from_beginning=True, name="beginning")
    pool.start([topic], name="end")
    drained.wait_consuming("beginning", "end")

    # "end" begins at the log end it finds once assigned: send until it sees a new record.
    sent = 0

    def end_sees_new() -> bool:
        nonlocal sent
        if not drained.values("end"):
            sent += 1
            producer.send(topic, f"new{sent}")
            time.sleep(0.1)
        return bool(drained.values("end"))

    wait_for(end_sees_new, timeout_s=10, what="the from-the-end consumer to see a new record")
    wait_for(lambda: len(drained.values("beginning")) == 3 + sent, timeout_s=10, what="the beginning consumer")
    assert sorted(drained.values("beginning")) == sorted(
        ["old1", "old2", "old3"] + [f"new{i}" for i in range(1, sent + 1)]
    )
    assert drained.values("end") and not [v for v in drained.values("end") if v.startswith("old")]


def test_payloads_that_are_not_text_are_received_escaped(
    pool: ConsumerPool, drained: Drained, mock_cluster: MockCluster, topic: str
) -> None:
    raw = Producer({"bootstrap.servers": mock_cluster.bootstrap_servers, "logger": LIBRDKAFKA_LOGGER})
    raw.produce(topic, key=b"\x1b[2Jkey", value=b"\xff\x00ok\n\xc3\xa9", partition=1)
    raw.produce(topic, value=None, partition=1)  # a tombstone
    raw.produce(topic, value=b"z" * 5000, partition=1)
    assert raw.flush(10) == 0
    raw.close()
    pool.start([topic], from_beginning=True)
    wait_for(lambda: len(drained.values()) == 3, timeout_s=15, what="3 records")
    first, tombstone, big = drained.records
    assert (first.key, first.value) == ("\\x1b[2Jkey", "\\xff\\x00ok\\né")
    assert (first.partition, first.offset, first.group) == (1, 0, drained.view("c1").group)
    assert first.timestamp_ms is not None and abs(first.timestamp_ms / 1000 - time.time()) < 60
    assert (tombstone.key, tombstone.value) == (None, "")
    assert big.value == "z" * 1000 + "…(+4000 bytes)"


def test_buffer_stays_bounded_when_nobody_drains(mock_cluster: MockCluster, producer: ProducerSession) -> None:
    mock_cluster.create_topic("t", 3, 3)
    small = ConsumerPool(KafkaConnection.parse(mock_cluster.bootstrap_servers, MOCK_CONSUMER_CONFIG), max_buffered=100)
    try:
        producer.send_test_messages("t", 1000)
        wait_deliveries(producer, 1000)
        small.start(["t"], from_beginning=True)
        wait_for(lambda: small.views()[0].received == 1000, timeout_s=15, what="1000 records consumed")
        records, changes, dropped = small.drain(max_records=5000)
        assert (len(records), dropped) == (100, 900)  # never more than max_buffered held
        assert [c.kind for c in changes] == ["assigned"]
        assert small.drain() == ([], [], 0)  # the count is since the last drain
    finally:
        small.close()


def test_a_paused_consumer_holds_its_partitions_and_receives_nothing_until_resumed(
    producer: ProducerSession, pool: ConsumerPool, drained: Drained, topic: str
) -> None:
    pool.start([topic], group="held")
    drained.wait_consuming("c1")
    pool.pause("c1", True)
    assert drained.view("c1").state == "paused" and set(drained.view("c1").assignment) == ALL3
    producer.send_test_messages(topic, 7)
    wait_deliveries(producer, 7)
    time.sleep(2.0)  # 20 of its consume() calls: a fetch would have brought m1…m7 by now
    assert drained.values("c1") == [] and set(drained.view("c1").assignment) == ALL3
    pool.pause("c1", False)
    assert drained.view("c1").state == "consuming"
    wait_for(lambda: len(drained.values("c1")) == 7, timeout_s=10, what="m1…m7 once resumed")
    pool.stop("c1")
    with pytest.raises(ClientError, match=r"^c1 is stopped: start a consumer to consume again"):
        pool.pause("c1", True)
    with pytest.raises(ClientError, match=r"^no consumer named 'c9' \(consumers: c1\)"):
        pool.pause("c9", True)


def test_consumer_input_errors(pool: ConsumerPool, drained: Drained, topic: str) -> None:
    with pytest.raises(ClientError, match="no topic given"):
        pool.start([])
    with pytest.raises(ClientError, match="no topic given"):
        pool.start(["", "  "])
    with pytest.raises(ClientError, match=r"^topic 'nope' does not exist: create it first"):
        pool.start([topic, "nope"])
    assert pool.views() == ()  # nothing started
    with pytest.raises(ClientError, match=r"^no consumer named 'c9' \(consumers: none\)"):
        pool.stop("c9")

    assert pool.start([topic], name="mine") == "mine"
    with pytest.raises(ClientError, match="a consumer named 'mine' is already running"):
        pool.start([topic], name="mine")
    assert pool.start([topic]) == "c1"
    pool.stop("mine")
    pool.stop("mine")  # stopping a stopped consumer is fine
    assert pool.start([topic], name="mine") == "mine"  # a stopped consumer's name can be used again
    assert [v.name for v in pool.views()] == ["c1", "mine"]

    pool.close()
    assert {v.state for v in pool.views()} == {"stopped"}
    with pytest.raises(ClientError, match="the consumer pool is closed"):
        pool.start([topic])


# --- group offsets --------------------------------------------------------------------------------------------------
def test_reset_offsets_of_an_inactive_group(
    producer: ProducerSession, pool: ConsumerPool, drained: Drained, mock_cluster: MockCluster, topic: str
) -> None:
    producer.send_test_messages(topic, 30)  # 10 per partition
    wait_deliveries(producer, 30)
    admin = GroupAdmin(KafkaConnection.parse(mock_cluster.bootstrap_servers), timeout_s=5.0)
    try:
        assert admin.committed_offsets("billing", topic) == {0: None, 1: None, 2: None}
        assert _planned(admin, "billing", topic, "offset", 4) == {0: 4, 1: 4, 2: 4}
        assert admin.committed_offsets("billing", topic) == {0: None, 1: None, 2: None}  # a plan changes nothing

        assert admin.reset_offsets("billing", topic, "latest") == {0: 10, 1: 10, 2: 10}
        assert admin.committed_offsets("billing", topic) == {0: 10, 1: 10, 2: 10}
        assert admin.reset_offsets("billing", topic, "earliest") == {0: 0, 1: 0, 2: 0}
        assert admin.committed_offsets("billing", topic) == {0: 0, 1: 0, 2: 0}
        # Out-of-range offsets are moved into the log, as kafka-consumer-groups does.
        assert admin.reset_offsets("billing", topic, "offset", 99) == {0: 10, 1: 10, 2: 10}
        assert admin.reset_offsets("billing", topic, "offset", -5) == {0: 0, 1: 0, 2: 0}
        # No record at or after the timestamp: the log end (the mock answers "none" for every timestamp).
        future_ms = int(time.time() * 1000) + 3_600_000
        assert admin.reset_offsets("billing", topic, "timestamp", future_ms) == {0: 10, 1: 10, 2: 10}
        assert admin.reset_offsets("billing", topic, "offset", 7, partitions=[0, 2]) == {0: 7, 2: 7}
        assert admin.reset_offsets("billing", topic, "offset", 8, partitions=[1]) == {1: 8}
        assert admin.committed_offsets("billing", topic) == {0: 7, 1: 8, 2: 7}

        with pytest.raises(ClientError, match="needs a value"):
            admin.reset_offsets("billing", topic, "offset")
        with pytest.raises(ClientError, match=r"^topic 'nope' does not exist"):
            admin.reset_offsets("billing", "nope", "earliest")
        with pytest.raises(ClientError, match=r"^partition 3 does not exist: topic 't' has 3 partitions"):
            admin.reset_offsets("billing", topic, "earliest", partitions=[3])
    finally:
        admin.close()

    # A consumer of the group starts at the reset offsets (committed offsets win over auto.offset.reset).
    pool.start([topic], group="billing")
    wait_for(lambda: len(drained.values()) == 3 + 2 + 3, timeout_s=15, what="the records after the reset offsets")
    assert sorted((r.partition, r.offset) for r in drained.records) == [
        (0, 7), (0, 8), (0, 9), (1, 8), (1, 9), (2, 7), (2, 8), (2, 9),
    ]  # fmt: skip


def test_a_reset_is_planned_per_partition_then_executed_as_planned(
    producer: ProducerSession, mock_cluster: MockCluster, topic: str
) -> None:
    """The preview's data (kafka-consumer-groups --dry-run, with the committed offset beside the new one) is read over
    ListOffsets and OffsetFetch, and executing the plan commits exactly what it showed (OffsetCommit)."""
    producer.send_test_messages(topic, 30)  # 10 per partition
    wait_deliveries(producer, 30)
    mock_cluster.create_topic("other", 1, 1)
    admin = GroupAdmin(KafkaConnection.parse(mock_cluster.bootstrap_servers), timeout_s=5.0)
    try:
        admin.reset_offsets("planned", topic, "offset", 4, partitions=[0, 1])  # partition 2 never committed
        plan = admin.plan_reset("planned", [topic, "other"], "offset", 999_999)
        assert [(m.topic, m.partition, m.current, m.target, m.log_start, m.log_end, m.clamped) for m in plan.moves] == [
            ("t", 0, 4, 10, 0, 10, "log end"),
            ("t", 1, 4, 10, 0, 10, "log end"),
            ("t", 2, None, 10, 0, 10, "log end"),
            ("other", 0, None, 0, 0, 0, "log end"),
        ]
        assert plan.refused is None  # the mock cannot describe groups: the commit's answer decides
        assert admin.committed_offsets("planned", topic) == {0: 4, 1: 4, 2: None}  # a plan changes nothing

        with pytest.raises(ClientError, match=r"Cannot shift offset for partition t-2 since there is no current"):
            admin.plan_reset("planned", [topic], "shift", -1)
        shift = admin.plan_reset("planned", [topic], "shift", -3, partitions=[0, 1])
        assert [(m.current, m.target, m.requested, m.clamped) for m in shift.moves] == [(4, 1, 1, None)] * 2

        assert admin.execute_reset(plan) is plan
        assert admin.committed_offsets("planned", topic) == {0: 10, 1: 10, 2: 10}
        assert admin.committed_offsets("planned", "other") == {0: 0}
        # A plan is what was previewed: executed later, it commits those offsets even though the log grew since.
        stale = admin.plan_reset("planned", [topic], "latest")
        producer.send_test_messages(topic, 3)
        wait_deliveries(producer, 3)
        admin.execute_reset(stale)
        assert admin.committed_offsets("planned", topic) == {0: 10, 1: 10, 2: 10}
        assert _planned(admin, "planned", topic, "latest") == {0: 11, 1: 11, 2: 11}
        with pytest.raises(ClientError, match=r"^topic 'nope' does not exist"):
            admin.plan_reset("planned", ["nope"], "earliest")
    finally:
        admin.close()


def test_reset_refused_while_the_group_has_members(
    pool: ConsumerPool, drained: Drained, mock_cluster: MockCluster, topic: str
) -> None:
    pool.start([topic], group="busy")
    drained.wait_consuming("c1")
    admin = GroupAdmin(KafkaConnection.parse(mock_cluster.bootstrap_servers), timeout_s=5.0)
    try:
        before = admin.committed_offsets("busy", topic)
        with pytest.raises(ClientError) as raised:
            admin.reset_offsets("busy", topic, "earliest")
        print("reset of an active group (mock):", raised.value)
        assert str(raised.value) == (
            "group 'busy' is active (Kafka refused the commit: UNKNOWN_MEMBER_ID): stop its consumers first — "
            "Kafka only resets an inactive group"
        )
        assert admin.committed_offsets("busy", topic) == before
        # The mock keeps refusing once the group is empty (it never forgets a group that had members): the reset
        # after the consumers stopped is checked against Kafka, in test_clients_kafka.py.
        pool.stop("c1")
        with pytest.raises(ClientError, match="UNKNOWN_MEMBER_ID"):
            admin.reset_offsets("busy", topic, "offset", 0)
    finally:
        admin.close()


# --- no cluster -----------------------------------------------------------------------------------------------------
def test_unreachable_bootstrap_fails_within_the_timeouts() -> None:
    bootstrap = f"127.0.0.1:{free_port()}"  # nothing listens here
    session = ProducerSession(KafkaConnection.parse(bootstrap), metadata_timeout_s=1.0)
    consumers = ConsumerPool(KafkaConnection.parse(bootstrap), metadata_timeout_s=1.0)
    admin = GroupAdmin(KafkaConnection.parse(bootstrap), timeout_s=1.0)
    try:
        for action in (
            lambda: session.send("t", "x"),
            lambda: consumers.start(["t"]),
            lambda: admin.reset_offsets("g", "t", "earliest"),
        ):
            started = time.monotonic()
            with pytest.raises(ClientError) as raised:
                action()
            assert time.monotonic() - started < 15  # the 1 s timeout, with a margin; unbounded would be 60 s and more
            print("unreachable:", raised.value)
            assert str(raised.value).startswith(f"no metadata from Kafka at {bootstrap} within 1 s") or (
                f"no answer from Kafka at {bootstrap} within 1 s" in str(raised.value)
            )
        assert consumers.views() == ()
    finally:
        session.close(timeout_s=1.0)
        consumers.close()
        admin.close()
