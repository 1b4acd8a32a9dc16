"""Transactions on the wire (protocol/transactions.py, FindCoordinator with key type TRANSACTION) and in
kafka-transactions.sh's tables (model/transactions.py, model/java_order.py).

The recorded answers (tests/fixtures/protocol/*_kafka_4_1.bin, each a response after its size) came from a real Kafka
4.1 KRaft node holding one open transaction (transactional id pay-1, producer 0, on orders-0 and orders-1) and one
hanging transaction (producer 424242 on orders-2, produced by hand with transaction.partition.verification.enable
off, as tests/integration/test_transactions_kafka.py does): ListTransactions v2, DescribeTransactions v0 of pay-1 and
an unknown id, DescribeProducers v0 of orders-0..2 and a partition that does not exist, FindCoordinator v6 of two
transactional ids, and WriteTxnMarkers v1 of the abort of the hanging one. The expected table lines are what
kafka-transactions.sh 4.1 printed for that state."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kafkatop.backends.model.java_order import capacity, hash_order, long_hash, string_hash, topic_partition_hash
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.model.transactions import (
    DESCRIBE_HEADERS,
    HANGING_HEADERS,
    LIST_HEADERS,
    PRODUCERS_HEADERS,
    OpenTransaction,
    PartitionProducers,
    ProducerState,
    TransactionDescription,
    TransactionListing,
    abort_spec_for,
    candidates,
    describe_rows,
    hanging,
    hanging_rows,
    list_rows,
    producers_rows,
    table_json,
    table_lines,
)
from kafkatop.backends.protocol.offset_delete import TRANSACTION_KEY, decode_find_coordinator, find_coordinator_body
from kafkatop.backends.protocol.transactions import (
    DescribedTransaction,
    ListedTransactions,
    decode_describe_producers,
    decode_describe_transactions,
    decode_list_transactions,
    decode_write_txn_markers,
    describe_producers_body,
    describe_transactions_body,
    list_transactions_body,
    txn_error,
    write_txn_markers_body,
)
from kafkatop.backends.protocol.wire import (
    NO_TAGGED_FIELDS,
    ProtocolError,
    encode_compact_array,
    encode_compact_string,
    encode_uvarint,
    int16,
    int32,
    int64,
    response_reader,
)

RECORDED = Path(__file__).parents[1] / "fixtures" / "protocol"
LIST = (RECORDED / "list_transactions_v2_kafka_4_1.bin").read_bytes()
DESCRIBE = (RECORDED / "describe_transactions_v0_kafka_4_1.bin").read_bytes()
PRODUCERS = (RECORDED / "describe_producers_v0_kafka_4_1.bin").read_bytes()
COORDINATORS = (RECORDED / "find_coordinator_v6_transaction_kafka_4_1.bin").read_bytes()
MARKERS = (RECORDED / "write_txn_markers_v1_kafka_4_1.bin").read_bytes()
PAY_START_MS = 1795731037006
GHOST_LAST_MS = 1795730058536


def find_coordinators(payload: bytes) -> object:
    return decode_find_coordinator(response_reader(payload), 6, ["pay-1", "nope"])


DECODERS: dict[str, tuple[Callable[[bytes], object], bytes]] = {
    "list": (decode_list_transactions, LIST),
    "describe": (decode_describe_transactions, DESCRIBE),
    "producers": (decode_describe_producers, PRODUCERS),
    "coordinators": (find_coordinators, COORDINATORS),
    "markers": (decode_write_txn_markers, MARKERS),
}


# --- requests -------------------------------------------------------------------------------------------------------
def test_list_transactions_requests_carry_each_versions_filters() -> None:
    # StateFilters [], ProducerIdFilters [7], then v1's DurationFilter, v2's TransactionalIdPattern, no tags.
    v0 = "01" + "02" + "0000000000000007" + "00"
    assert list_transactions_body(0, (), [7]).hex() == v0
    assert list_transactions_body(1, (), [7], 60_000).hex() == v0[:-2] + (60_000).to_bytes(8, "big").hex() + "00"
    assert list_transactions_body(2, ("Ongoing",), (), -1, "pay.*").hex() == (
        "02" + "084f6e676f696e67" + "01" + "ffffffffffffffff" + "06" + b"pay.*".hex() + "00"
    )
    assert list_transactions_body(2).hex().endswith("ffffffffffffffff" + "00" + "00")  # no pattern: null


def test_describe_producers_and_transactions_requests() -> None:
    assert describe_transactions_body(["a", "bc"]).hex() == "03" + "0261" + "036263" + "00"
    assert describe_producers_body({"t": [0, 2]}).hex() == "02" + "0274" + "03" + "00000000" + "00000002" + "00" + "00"


def test_an_abort_marker_is_one_marker_with_transaction_result_false() -> None:
    body = write_txn_markers_body(424242, 3, 7, {"orders": [2]})
    assert body.hex() == (
        "02" + (424242).to_bytes(8, "big").hex() + "0003" + "00"  # ProducerId, ProducerEpoch, TransactionResult ABORT
        + "02" + "076f7264657273" + "02" + "00000002" + "00"  # [orders [2]]
        + "00000007" + "00" + "00"  # CoordinatorEpoch, the marker's tags, the request's tags
    )  # fmt: skip
    assert write_txn_markers_body(1, 0, 0, {"t": [0]}, commit=True)[11:12] == b"\x01"


def test_find_coordinator_asks_with_the_transaction_key_type() -> None:
    assert find_coordinator_body(["pay-1"], 4, TRANSACTION_KEY).hex() == "01" + "02" + "067061792d31" + "00"
    assert find_coordinator_body(["pay-1"], 3, TRANSACTION_KEY).hex() == "067061792d31" + "01" + "00"


# --- responses recorded from Kafka 4.1 ------------------------------------------------------------------------------
def test_recorded_list_transactions() -> None:
    assert decode_list_transactions(LIST) == ListedTransactions(0, (), (("pay-1", 0, "Ongoing"),))


def test_recorded_describe_transactions_with_an_unknown_id() -> None:
    found, unknown = decode_describe_transactions(DESCRIBE)
    assert found == DescribedTransaction(
        0, "pay-1", "Ongoing", 600000, PAY_START_MS, 0, 0, (TopicPartition("orders", 0), TopicPartition("orders", 1))
    )
    assert (unknown.transactional_id, unknown.error_code) == ("nope", 105)
    assert txn_error(unknown.error_code) == "TRANSACTIONAL_ID_NOT_FOUND: The transactionalId could not be found."


def test_recorded_describe_producers() -> None:
    answers = decode_describe_producers(PRODUCERS)
    assert [(a.producers.topic, a.producers.partition, a.error_code) for a in answers] == [
        ("orders", 0, 0), ("orders", 1, 0), ("orders", 2, 0), ("orders", 9, 3),
    ]  # fmt: skip
    assert answers[0].producers.producers == (ProducerState(0, 0, 0, 1795731036923, None, 0),)
    assert answers[2].producers.producers == (ProducerState(424242, 0, 0, GHOST_LAST_MS, None, 0),)
    assert answers[3].producers.producers == () and answers[3].error_message is None


def test_recorded_find_coordinator_and_write_txn_markers() -> None:
    coordinators = decode_find_coordinator(response_reader(COORDINATORS), 6, ["pay-1", "nope"])
    assert [(c.key, c.node_id, c.host, c.error_code) for c in coordinators] == [
        ("pay-1", 1, "127.0.0.1", 0), ("nope", 1, "127.0.0.1", 0),
    ]  # fmt: skip
    assert decode_write_txn_markers(MARKERS) == [(424242, TopicPartition("orders", 2), 0)]


# --- round trips: responses written here from values, with unknown tagged fields to skip ----------------------------
def tags(*fields: tuple[int, bytes]) -> bytes:
    """A tagged-field section holding these (tag, bytes): a decoder must skip what it does not know."""
    return encode_uvarint(len(fields)) + b"".join(encode_uvarint(t) + encode_uvarint(len(v)) + v for t, v in fields)


HEADER = int32(1) + NO_TAGGED_FIELDS  # correlation id, response header v1


def test_list_transactions_round_trip() -> None:
    listed = ListedTransactions(14, ("Bogus",), (("a", 1, "Ongoing"), ("b", 2**40, "PrepareAbort")))
    payload = HEADER + int32(0) + int16(14) + encode_compact_array([encode_compact_string("Bogus")])
    payload += encode_compact_array(
        [
            encode_compact_string(t) + int64(p) + encode_compact_string(s) + tags((9, b"x"))
            for t, p, s in listed.transactions
        ]
    )
    assert decode_list_transactions(payload + tags((0, b"\x01\x02"))) == listed


def test_describe_transactions_round_trip() -> None:
    d = DescribedTransaction(0, "t", "PrepareCommit", 1000, -1, 5, 2, (TopicPartition("x", 3), TopicPartition("y", 0)))
    topics = [encode_compact_string("x") + encode_compact_array([int32(3)]) + tags((1, b"?")),
              encode_compact_string("y") + encode_compact_array([int32(0)]) + NO_TAGGED_FIELDS]  # fmt: skip
    item = int16(0) + encode_compact_string("t") + encode_compact_string("PrepareCommit") + int32(1000) + int64(-1)
    item += int64(5) + int16(2) + encode_compact_array(topics) + NO_TAGGED_FIELDS
    assert decode_describe_transactions(HEADER + int32(0) + encode_compact_array([item]) + NO_TAGGED_FIELDS) == [d]


def test_describe_producers_round_trip() -> None:
    states = [ProducerState(9, 1, 4, 1000, 3, 17), ProducerState(10, 0, -1, -1, None, None)]
    producers = [
        int64(s.producer_id) + int32(s.producer_epoch) + int32(s.last_sequence) + int64(s.last_timestamp)
        + int32(-1 if s.coordinator_epoch is None else s.coordinator_epoch)
        + int64(-1 if s.txn_start_offset is None else s.txn_start_offset) + NO_TAGGED_FIELDS
        for s in states
    ]  # fmt: skip
    partition = int32(4) + int16(0) + encode_compact_string(None) + encode_compact_array(producers) + NO_TAGGED_FIELDS
    topic = encode_compact_string("t") + encode_compact_array([partition]) + NO_TAGGED_FIELDS
    (answer,) = decode_describe_producers(HEADER + int32(0) + encode_compact_array([topic]) + NO_TAGGED_FIELDS)
    assert answer.producers == PartitionProducers("t", 4, tuple(states))


def test_write_txn_markers_round_trip() -> None:
    partitions = [int32(p) + int16(code) + NO_TAGGED_FIELDS for p, code in ((0, 0), (1, 48))]
    topic = encode_compact_string("t") + encode_compact_array(partitions) + NO_TAGGED_FIELDS
    payload = HEADER + encode_compact_array([int64(77) + encode_compact_array([topic]) + NO_TAGGED_FIELDS])
    assert decode_write_txn_markers(payload + NO_TAGGED_FIELDS) == [
        (77, TopicPartition("t", 0), 0), (77, TopicPartition("t", 1), 48),
    ]  # fmt: skip


# --- bytes that lie -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(DECODERS))
def test_every_truncation_of_a_recorded_answer_is_a_protocol_error(name: str) -> None:
    decode, payload = DECODERS[name]
    for cut in range(len(payload)):
        with pytest.raises(ProtocolError):
            decode(payload[:cut])
    with pytest.raises(ProtocolError):
        decode(payload + b"\x00")


def test_a_count_larger_than_the_bytes_left_is_refused_before_any_loop() -> None:
    lying = HEADER + int32(0) + encode_uvarint(1_000_000)  # a million described transactions, in no bytes
    with pytest.raises(ProtocolError, match="items announced"):
        decode_describe_transactions(lying)


# --- kafka-transactions.sh's tables ---------------------------------------------------------------------------------
def test_the_tables_are_kafka_transactions_sh_lines() -> None:
    """Each column padded to its widest value, each value followed by a tab: as the tool printed this state."""
    listing = [TransactionListing(t, 1, p, s) for t, p, s in decode_list_transactions(LIST).transactions]
    assert table_lines(LIST_HEADERS, list_rows(listing)) == [
        "TransactionalId\tCoordinator\tProducerId\tTransactionState\t",
        "pay-1          \t1          \t0         \tOngoing         \t",
    ]
    d = decode_describe_transactions(DESCRIBE)[0]
    description = TransactionDescription(1, d.transactional_id, d.producer_id, d.producer_epoch, d.state,
                                         d.timeout_ms, d.start_time_ms, d.partitions)  # fmt: skip
    assert table_lines(DESCRIBE_HEADERS, describe_rows(description, PAY_START_MS + 16070)) == [
        "CoordinatorId\tTransactionalId\tProducerId\tProducerEpoch\tTransactionState\tTransactionTimeoutMs\t"
        "CurrentTransactionStartTimeMs\tTransactionDurationMs\tTopicPartitions  \t",
        "1            \tpay-1          \t0         \t0            \tOngoing         \t600000              \t"
        "1795731037006                \t16070                \torders-0,orders-1\t",
    ]
    answers = decode_describe_producers(PRODUCERS)
    assert table_lines(PRODUCERS_HEADERS, producers_rows(answers[0].producers)) == [
        "ProducerId\tProducerEpoch\tLatestCoordinatorEpoch\tLastSequence\tLastTimestamp\t"
        "CurrentTransactionStartOffset\t",
        "0         \t0            \t-1                    \t0           \t1795731036923\t"
        "0                            \t",
    ]
    ghost = [OpenTransaction("orders", 2, answers[2].producers.producers[0])]
    assert table_lines(HANGING_HEADERS, hanging_rows(ghost, GHOST_LAST_MS + 20 * 60_000 + 59_999)) == [
        "Topic \tPartition\tProducerId\tProducerEpoch\tCoordinatorEpoch\tStartOffset\tLastTimestamp\tDuration(min)\t",
        "orders\t2        \t424242    \t0            \t-1              \t0          \t1795730058536\t20           \t",
    ]
    assert table_lines(HANGING_HEADERS, []) == [  # nothing hanging: the header alone, as the tool
        "Topic\tPartition\tProducerId\tProducerEpoch\tCoordinatorEpoch\tStartOffset\tLastTimestamp\tDuration(min)\t"
    ]


def test_no_transaction_under_way_prints_none_and_json_keeps_the_columns() -> None:
    idle = TransactionDescription(2, "t", 5, 1, "Empty", 60000, None, ())
    assert table_lines(DESCRIBE_HEADERS, describe_rows(idle, 10))[1].split("\t")[4:9] == [
        "Empty           ", "60000               ", "None                         ", "None                 ",
        "               ",
    ]  # fmt: skip
    assert table_json(DESCRIBE_HEADERS, describe_rows(idle, 10)) == [{
        "coordinator_id": 2, "transactional_id": "t", "producer_id": 5, "producer_epoch": 1,
        "transaction_state": "Empty", "transaction_timeout_ms": 60000, "current_transaction_start_time_ms": None,
        "transaction_duration_ms": None, "topic_partitions": [],
    }]  # fmt: skip
    assert list_rows([TransactionListing("t", 1, 5, "Dead")]) == [("t", 1, 5, "Unknown")]  # as the Java client


# --- Java's hash order: what kafka-transactions.sh's HashMaps and HashSets iterate ----------------------------------
def test_hash_codes_and_order_are_javas() -> None:
    """Values printed by Java 17 (String, TopicPartition and Long hashCode; a HashSet<TopicPartition> of 40)."""
    assert string_hash("orders") == -1008770331
    assert string_hash("päy-é😀") == -1331240252  # UTF-16 code units, a surrogate pair
    assert topic_partition_hash("orders", 1) == -1008769339
    assert (long_hash(-5), long_hash(123456789012)) == (4, -1097262584)
    order = hash_order([(f"t{i % 7}", i) for i in range(40)], lambda tp: topic_partition_hash(*tp))
    assert ", ".join(f"{t}-{p}" for t, p in order) == (
        "t1-29, t3-31, t5-33, t0-21, t2-23, t4-25, t6-27, t1-15, t3-17, t5-19, t0-7, t2-9, t4-11, t6-13, t1-36, "
        "t3-38, t1-1, t3-3, t5-5, t0-28, t2-30, t4-32, t6-34, t1-22, t3-24, t5-26, t0-14, t2-16, t4-18, t6-20, t1-8, "
        "t3-10, t5-12, t0-35, t2-37, t4-39, t0-0, t2-2, t4-4, t6-6"
    )
    assert [capacity(n) for n in (0, 12, 13, 25)] == [16, 16, 32, 64]
    assert [capacity(n, initial=n) for n in (1, 2, 3, 500)] == [2, 4, 4, 1024]  # new HashMap<>(n), then filled


def test_coordinators_list_in_hash_order() -> None:
    listings = [TransactionListing("a", 17, 1, "Ongoing"), TransactionListing("b", 2, 2, "Ongoing"),
                TransactionListing("c", 1, 3, "Empty")]  # fmt: skip
    assert [row[0] for row in list_rows(listings)] == ["a", "c", "b"]  # 17 and 1 share bucket 1, 17 came first


# --- find-hanging and abort's choices -------------------------------------------------------------------------------
def state(pid: int, last: int, start: int | None, coordinator_epoch: int | None = None) -> ProducerState:
    return ProducerState(pid, 0, 0, last, coordinator_epoch, start)


def test_candidates_are_open_and_idle_longer_than_the_timeout() -> None:
    now = 100 * 60_000
    pp = PartitionProducers("t", 0, (state(1, now - 16 * 60_000, 5), state(2, now - 14 * 60_000, 9),
                                     state(3, now - 60 * 60_000, None)))  # fmt: skip
    assert [c.producer.producer_id for c in candidates([pp], now, 15)] == [1]
    assert [c.producer.producer_id for c in candidates([pp], now, 0)] == [1, 2]


def test_hanging_is_what_no_coordinator_will_end() -> None:
    a0, a1 = OpenTransaction("t", 0, state(1, 0, 3)), OpenTransaction("t", 1, state(1, 0, 4))
    b0, c0 = OpenTransaction("t", 0, state(2, 0, 5)), OpenTransaction("t", 0, state(3, 0, 6))
    tracked = TransactionDescription(1, "tx-a", 1, 0, "Ongoing", 60000, 0, (TopicPartition("t", 0),))
    found = hanging([a0, a1, b0, c0], {1: "tx-a", 2: "tx-b"}, {"tx-a": tracked, "tx-b": None})
    # tx-a's coordinator holds t-0, not t-1; tx-b is not found; producer 3 is listed by no coordinator.
    assert found == [a1, b0, c0]


def test_abort_by_start_offset_finds_the_producer_and_sends_epoch_0_for_none() -> None:
    pp = PartitionProducers("t", 2, (state(7, 0, None), state(8, 0, 12), state(9, 0, 40, coordinator_epoch=4)))
    spec = abort_spec_for(pp, 12)
    assert spec is not None and (spec.producer_id, spec.coordinator_epoch) == (8, 0)
    spec = abort_spec_for(pp, 40)
    assert spec is not None and (spec.producer_id, spec.coordinator_epoch) == (9, 4)
    assert str(spec) == ("AbortTransactionSpec(topicPartition=t-2, producerId=9, producerEpoch=0, coordinatorEpoch=4)")
    assert abort_spec_for(pp, 13) is None


def test_duration_in_minutes_truncates_toward_zero_as_java() -> None:
    t = OpenTransaction("t", 0, state(1, 1_000_000, 0))
    assert t.duration_min(1_000_000 + 119_999) == 1
    assert t.duration_min(1_000_000 - 119_999) == -1
