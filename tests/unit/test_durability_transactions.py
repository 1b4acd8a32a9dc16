"""A transactional durability run's pure parts: committed against aborted records in the verifier, an uncommitted read
caught by the verdict, what transactions promise, the settings and flags, and the report. No cluster."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

import pytest

from kafkatop.backends.checks.durability.exactly_once import transaction_counts
from kafkatop.backends.checks.durability.report import format_report
from kafkatop.backends.checks.durability.verdict import (
    check_topic,
    decode,
    decode_record,
    encode,
    expectation,
    judge,
    verify,
)
from kafkatop.backends.model.cluster import Broker, ClusterSnapshot, Partition, Topic
from kafkatop.backends.model.durability import (
    DurabilityRefused,
    DurabilityReport,
    DurabilitySettings,
    FaultTimeline,
    ReadRecord,
    RecordDelivery,
    TopicFacts,
    TransactionCounts,
    TransactionOutcome,
    total,
)
from kafkatop.tui.cli.durability import settings_from_args
from kafkatop.tui.cli.parser import build_parser


def sent(txn: int, *seqs: int, acked: bool = True, partition: int = 0) -> list[RecordDelivery]:
    error = None if acked else "_MSG_TIMED_OUT: Local: Message timed out"
    return [RecordDelivery(partition, s, acked, s if acked else None, error, transaction=txn) for s in seqs]


def read(*records: tuple[int, int], partition: int = 0, start: int = 0) -> list[ReadRecord]:
    """(seq, transaction) at consecutive offsets."""
    return [ReadRecord(partition, start + i, seq, txn) for i, (seq, txn) in enumerate(records)]


# Transaction 1 aborted after the leader failed: seqs 0 and 1 were written, 2 and 3 timed out. Transaction 2 sent
# all four again and committed; transaction 3 committed 4 and 5.
OUTCOMES: dict[int, TransactionOutcome] = {1: "aborted", 2: "committed", 3: "committed"}
DELIVERIES = [*sent(1, 0, 1), *sent(1, 2, 3, acked=False), *sent(2, 0, 1, 2, 3), *sent(3, 4, 5)]
COMMITTED_READ = read((0, 2), (1, 2), (2, 2), (3, 2), (4, 3), (5, 3))
LOG = read((0, 1), (1, 1), (0, 2), (1, 2), (2, 2), (3, 2), (4, 3), (5, 3))  # read_uncommitted: the aborted copies too


# --- the verifier ---------------------------------------------------------------------------------------------------
def test_committed_and_aborted_records_are_counted_apart() -> None:
    [row] = verify(DELIVERIES, COMMITTED_READ, [0], outcomes=OUTCOMES, log=LOG)
    assert (row.sent, row.acked, row.failed) == (10, 8, 2)  # every attempt and its delivery report
    assert (row.committed, row.aborted, row.aborted_in_log) == (6, 4, 2)
    assert (row.read, row.lost, row.duplicated, row.out_of_order, row.uncommitted_read) == (6, 0, 0, 0, 0)
    assert row.unacked_present == 0  # the committed copy of 2 and 3 is promised, though their first copy failed


def test_a_record_of_an_aborted_transaction_in_a_read_committed_read_is_an_uncommitted_read() -> None:
    leaked = read((0, 1), (1, 1), (0, 2), (1, 2), (2, 2), (3, 2), (4, 3), (5, 3))  # the abort markers ignored
    [row] = verify(DELIVERIES, leaked, [0], outcomes=OUTCOMES)
    assert (row.uncommitted_read, row.duplicated, row.out_of_order, row.lost) == (2, 0, 0, 0)  # not also duplicates
    assert judge(expectation(SETTINGS, FACTS), total([row]), transactions=TransactionCounts(2, 1)) == (
        "violated",
        "NOT as expected: 2 uncommitted read (records of aborted transactions in the read_committed read) under "
        "settings that promise none",
    )


def test_a_committed_record_missing_or_read_twice_breaks_exactly_once() -> None:
    [row] = verify(DELIVERIES, COMMITTED_READ[:-1], [0], outcomes=OUTCOMES)
    assert (row.lost, row.lost_sample) == (1, (5,))
    [row] = verify(DELIVERIES, [*COMMITTED_READ, *read((4, 3), start=6)], [0], outcomes=OUTCOMES)
    assert (row.duplicated, row.lost) == (1, 0)
    verdict, text = judge(expectation(SETTINGS, FACTS), total([row]), transactions=TransactionCounts(2, 1))
    assert verdict == "violated" and text.startswith("NOT as expected: 1 duplicated")


def test_an_aborted_record_never_sent_again_is_not_lost() -> None:
    # Only a committed transaction promises its records: an aborted one's records missing is what an abort means.
    [row] = verify(sent(1, 0, 1), [], [0], outcomes={1: "aborted"})
    assert (row.committed, row.aborted, row.lost, row.read) == (0, 2, 0, 0)


def test_records_of_an_unresolved_transaction_are_neither_promised_nor_forbidden() -> None:
    # The run stopped mid-commit: the transaction may have committed. Read back, its records are present although
    # not promised (as an unacknowledged record without transactions); missing, they are not lost.
    outcomes: dict[int, TransactionOutcome] = {1: "committed", 2: "unresolved"}
    deliveries = [*sent(1, 0, 1), *sent(2, 2, 3)]
    [row] = verify(deliveries, read((0, 1), (1, 1), (2, 2), (3, 2)), [0], outcomes=outcomes)
    assert (row.committed, row.lost, row.unacked_present, row.uncommitted_read) == (2, 0, 2, 0)
    [row] = verify(deliveries, read((0, 1), (1, 1)), [0], outcomes=outcomes)
    assert (row.lost, row.unacked_present) == (0, 0)


def test_totals_and_transaction_counts_add_up() -> None:
    rows = verify(
        [*DELIVERIES, *sent(2, 0, partition=1), *sent(1, 0, partition=1)],
        [*COMMITTED_READ, *read((0, 2), partition=1)],
        [0, 1],
        outcomes=OUTCOMES,
        log=[*LOG, *read((0, 1), (0, 2), partition=1)],
    )
    t = total(rows)
    assert (t.committed, t.aborted, t.aborted_in_log, t.uncommitted_read) == (7, 5, 3, 0)
    assert transaction_counts(OUTCOMES, log_read_complete=True) == TransactionCounts(2, 1, 0, True)
    assert transaction_counts({1: "committed", 2: "unresolved"}, False) == TransactionCounts(1, 0, 1, False)


def test_values_carry_the_transaction() -> None:
    value = encode("ab12cd34", 2, 17, 5)
    assert value == b"kafkatop-durability ab12cd34 2 17 t5"
    assert decode_record(value, "ab12cd34", 2) == (17, 5)
    assert decode(value, "ab12cd34", 2) == 17  # the chaos run's decoder reads it too
    assert decode_record(encode("ab12cd34", 2, 17), "ab12cd34", 2) == (17, None)
    assert decode_record(b"kafkatop-durability ab12cd34 2 17 x5", "ab12cd34", 2) is None
    assert decode_record(value, "ab12cd34", 1) is None


# --- what transactions promise ------------------------------------------------------------------------------------
SETTINGS = DurabilitySettings("t", records=600, transactional=True, transaction_records=50, delivery_timeout_s=5)
FACTS = TopicFacts(
    "t", 3, 3, 2, False, leader=1, isr=(1, 2, 3), transaction_log_replication_factor=3, transaction_log_min_isr=2
)


def test_transactions_promise_exactly_once() -> None:
    e = expectation(SETTINGS, FACTS)
    assert (e.no_loss, e.no_duplicates) == (True, True)
    assert e.summary == (
        "expected: exactly once: every record of a committed transaction read once (0 lost, 0 duplicated), none of "
        "an aborted one (0 uncommitted read)"
    )
    reasons = "\n".join(e.reasons)
    assert "transactions of 50 records (a transactional.id: idempotence and acks=all implied)" in reasons
    assert "within the delivery timeout (5 s; a leader killed with kill -9 is replaced after" in reasons
    assert "__transaction_state: RF 3, min.isr 2: the coordinator's state of each transaction survives" in reasons
    assert "unacked-but-present" not in reasons  # an unacknowledged record is an aborted one's, not a maybe
    assert "kill -9" not in "\n".join(expectation(replace(SETTINGS, fault="stop"), FACTS).reasons)


@pytest.mark.parametrize(
    ("rf", "min_isr", "said"),
    [
        (None, None, "transaction.state.log.replication.factor and min.isr could not be read"),
        (1, 1, "transaction.state.log.replication.factor=1: __transaction_state has no other replica"),
        (3, 1, "transaction.state.log.min.isr=1: a commit decision written to one replica"),
    ],
)
def test_the_transaction_log_in_the_expectation(rf: int | None, min_isr: int | None, said: str) -> None:
    facts = replace(FACTS, transaction_log_replication_factor=rf, transaction_log_min_isr=min_isr)
    assert any(said in r for r in expectation(SETTINGS, facts).reasons)


def test_transactions_do_not_make_a_min_isr_of_1_safe() -> None:
    e = expectation(SETTINGS, replace(FACTS, min_insync_replicas=1))
    assert (e.no_loss, e.summary) == (False, "losses possible; expected: 0 duplicated, 0 uncommitted read")


def test_the_verdict_of_a_clean_transactional_run() -> None:
    rows = verify(DELIVERIES, COMMITTED_READ, [0], outcomes=OUTCOMES, log=LOG)
    assert judge(expectation(SETTINGS, FACTS), total(rows), transactions=transaction_counts(OUTCOMES, True)) == (
        "as expected",
        "as expected, exactly once: 0 lost, 0 duplicated, 0 out of order, 0 uncommitted read; 2 transactions "
        "committed, 1 aborted (2 of their 4 records in the log, skipped by read_committed)",
    )


def test_the_preflight_reads_the_transaction_log() -> None:
    replicas = (1, 2, 3)
    t = Topic("t", tuple(Partition("t", p, 1, replicas, replicas) for p in range(3)), min_insync_replicas=2)
    snap = ClusterSnapshot("admin", 0.0, "c", "kraft", None, tuple(Broker(i, "h", 9090 + i) for i in replicas), (t,))
    configs = {"transaction.state.log.replication.factor": "3", "transaction.state.log.min.isr": "2"}
    facts = check_topic(snap, SETTINGS, configs)
    assert (facts.transaction_log_replication_factor, facts.transaction_log_min_isr) == (3, 2)
    assert check_topic(snap, SETTINGS).transaction_log_replication_factor is None


# --- settings and flags ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(enable_idempotence=False), "a transactional producer is idempotent (acks=all): drop --no-idempotence"),
        (dict(transaction_records=0), "records per transaction must be between 1 and 100000, not 0"),
    ],
)
def test_bad_transactional_settings_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(DurabilityRefused) as e:
        DurabilitySettings(**{"topic": "t", "transactional": True, **kwargs})  # type: ignore[arg-type]
    assert message in str(e.value)


def test_transactional_flags() -> None:
    def parse(*argv: str) -> DurabilitySettings:
        args: argparse.Namespace = build_parser().parse_args(["durability", "--topic", "t", *argv])
        return settings_from_args(args, attached=False)

    s = parse()
    assert (s.transactional, s.delivery_timeout_s) == (False, 60.0)
    s = parse("--transactional")
    assert (s.transactional, s.transaction_records, s.delivery_timeout_s) == (True, 100, 5.0)
    s = parse("--transactional", "--transaction-records", "20", "--delivery-timeout", "30")
    assert (s.transaction_records, s.delivery_timeout_s) == (20, 30.0)
    with pytest.raises(DurabilityRefused, match="a transactional producer is idempotent"):
        parse("--transactional", "--no-idempotence")


# --- the report -----------------------------------------------------------------------------------------------------
def report(outcomes: dict[int, TransactionOutcome] = OUTCOMES) -> DurabilityReport:
    rows = verify(DELIVERIES, COMMITTED_READ, [0], {0: 0}, {0: 13}, outcomes=outcomes, log=LOG)
    counts = transaction_counts(outcomes, True)
    expected = expectation(SETTINGS, FACTS)
    verdict, text = judge(expected, total(rows), transactions=counts)
    return DurabilityReport(SETTINGS, "ab12cd34", "b:9092", FACTS, expected, rows, FaultTimeline("kill", 0), 0.0, 1.0,
                            True, False, verdict, text, transactions=counts)  # fmt: skip


def test_the_report_tells_committed_aborted_and_what_is_in_the_log() -> None:
    text = format_report(report())
    assert "transactions of 50 records, read_committed, delivery timeout 5 s" in text
    assert "transaction log (__transaction_state): RF 3, min.isr 2" in text
    assert (
        "transactions: 2 committed, 1 aborted; 4 records in aborted transactions, 2 of them in the log; 0 uncommitted "
        "read (must be 0)"
    ) in text
    lines = text.splitlines()
    header = lines.index("PARTITION  COMMITTED  ABORTED  ABORTED-IN-LOG  UNCOMMITTED-READ")
    assert lines[header + 1].split() == ["0", "6", "4", "2", "0"]
    assert "the 2 aborted records are in the log, read_uncommitted reads them; read_committed skips them" in text


def test_the_json_report_has_the_transactions() -> None:
    doc = json.loads(json.dumps(report().to_dict()))
    assert doc["transactions"] == {
        "committed": 2,
        "aborted": 1,
        "unresolved": 0,
        "log_read_complete": True,
        "aborted_records": 4,
        "aborted_in_log": 2,
        "uncommitted_read": 0,
    }
    assert (doc["totals"]["committed"], doc["settings"]["transactional"]) == (6, True)
    plain = replace(report(), transactions=None, settings=replace(SETTINGS, transactional=False)).to_dict()
    assert plain["transactions"] is None
