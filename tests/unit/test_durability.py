"""The durability check's pure parts: the verifier's arithmetic on synthetic deliveries and read-backs, what settings
promise, the verdict, the preflight's refusals and the settings' validation. No cluster."""

from __future__ import annotations

import argparse
from dataclasses import replace

import pytest

from kafkatop.backends.checks.durability.verdict import (
    check_control,
    check_topic,
    decode,
    encode,
    expectation,
    judge,
    verify,
)
from kafkatop.backends.model.cluster import NO_LEADER, Broker, ClusterSnapshot, Partition, Topic
from kafkatop.backends.model.durability import (
    DurabilityRefused,
    DurabilitySettings,
    Expectation,
    PartitionResult,
    ReadRecord,
    RecordDelivery,
    TopicFacts,
    total,
)
from kafkatop.backends.model.nodes import NodesSnapshot, NodeState, NodeView, ProcessRole
from kafkatop.tui.cli.durability import settings_from_args
from kafkatop.tui.cli.parser import build_parser


def acked(partition: int, *seqs: int) -> list[RecordDelivery]:
    return [RecordDelivery(partition, s, acked=True, offset=s) for s in seqs]


def failed(partition: int, *seqs: int) -> list[RecordDelivery]:
    return [RecordDelivery(partition, s, acked=False, error="_MSG_TIMED_OUT: Local: Message timed out") for s in seqs]


def log(partition: int, *seqs: int | None, start: int = 0) -> list[ReadRecord]:
    return [ReadRecord(partition, start + i, s) for i, s in enumerate(seqs)]


# --- the verifier ---------------------------------------------------------------------------------------------------
def test_a_clean_run_counts_nothing_lost() -> None:
    [row] = verify(acked(0, 0, 1, 2), log(0, 0, 1, 2, start=40), [0], {0: 40}, {0: 43})
    assert (row.partition, row.sent, row.acked, row.failed, row.read) == (0, 3, 3, 0, 3)
    assert (row.lost, row.duplicated, row.out_of_order, row.unacked_present, row.other) == (0, 0, 0, 0, 0)
    assert (row.start_offset, row.end_offset, row.lost_sample) == (40, 43, ())


def test_acked_records_missing_from_the_log_are_lost() -> None:
    [row] = verify(acked(0, *range(20)), log(0, *range(5)), [0])
    assert (row.acked, row.read, row.lost) == (20, 5, 15)
    assert row.lost_sample == tuple(range(5, 15))  # the first ten, to look for


def test_a_sequence_read_twice_is_one_duplicate_not_also_out_of_order() -> None:
    # A batch resent after its answer was lost: 2 and 3 are written again after 3.
    [row] = verify(acked(0, 0, 1, 2, 3, 4), log(0, 0, 1, 2, 3, 2, 3, 4), [0])
    assert (row.read, row.duplicated, row.out_of_order, row.lost) == (7, 2, 0, 0)


def test_a_lower_sequence_after_a_higher_one_is_out_of_order() -> None:
    # A retried batch landing behind a later one (no idempotence, several requests in flight).
    [row] = verify(acked(0, 0, 1, 2, 3, 4, 5), log(0, 0, 1, 4, 5, 2, 3), [0])
    assert (row.out_of_order, row.duplicated, row.lost) == (2, 0, 0)


def test_records_whose_delivery_failed_but_are_in_the_log_are_unacked_present() -> None:
    deliveries = [*acked(0, 0, 1), *failed(0, 2, 3), RecordDelivery(0, 4, acked=False)]  # 4: no report at all
    [row] = verify(deliveries, log(0, 0, 1, 2, 4), [0])
    assert (row.sent, row.acked, row.failed) == (5, 2, 3)
    assert (row.unacked_present, row.lost) == (2, 0)  # a failed record missing is not "lost": it was never promised


def test_partitions_without_records_and_records_of_other_runs() -> None:
    rows = verify(acked(0, 0, 1), [*log(0, 0, None, 1), *log(1, None, None)], range(3))
    assert [r.partition for r in rows] == [0, 1, 2]
    assert (rows[0].read, rows[0].other, rows[0].lost) == (2, 1, 0)
    assert (rows[1].sent, rows[1].read, rows[1].other) == (0, 0, 2)
    assert (rows[2].sent, rows[2].read, rows[2].lost, rows[2].other) == (0, 0, 0, 0)


def test_records_are_judged_in_offset_order_whatever_order_they_come_in() -> None:
    read = [ReadRecord(0, 2, 2), ReadRecord(0, 0, 0), ReadRecord(0, 1, 1)]
    [row] = verify(acked(0, 0, 1, 2), read, [0])
    assert row.out_of_order == 0


def test_totals_add_up_the_partitions() -> None:
    rows = verify([*acked(0, 0, 1, 2), *acked(1, 0, 1), *failed(1, 2)], [*log(0, 0, 0, 1), *log(1, 0, 2)], [0, 1])
    t = total(rows)
    assert t.partition is None and t.start_offset is None
    assert (t.sent, t.acked, t.failed, t.read) == (6, 5, 1, 5)
    assert (t.lost, t.duplicated, t.unacked_present) == (2, 1, 1)  # 0-2 and 1-1 lost; 0-0 twice; 1-2 failed, present


def test_values_carry_the_run_partition_and_sequence() -> None:
    value = encode("ab12cd34", 2, 17)
    assert decode(value, "ab12cd34", 2) == 17
    assert decode(value, "another1", 2) is None  # an earlier run's record
    assert decode(value, "ab12cd34", 1) is None  # not where it was sent
    assert decode(b"m1", "ab12cd34", 2) is None and decode(None, "ab12cd34", 2) is None


# --- what the settings promise --------------------------------------------------------------------------------------
FACTS = TopicFacts("t", 3, 3, 2, False, leader=1, isr=(1, 2, 3))


def test_acks_all_idempotence_rf3_min_isr2_promises_no_loss_and_no_duplicates() -> None:
    e = expectation(DurabilitySettings("t"), FACTS)
    assert (e.no_loss, e.no_duplicates, e.summary) == (True, True, "expected: 0 lost, 0 duplicated")
    assert any("min.insync.replicas=2, RF 3" in r for r in e.reasons)


def test_acks_1_makes_losses_possible() -> None:
    e = expectation(DurabilitySettings("t", acks="1", enable_idempotence=False), FACTS)
    assert not e.no_loss and not e.no_duplicates
    assert e.summary == "losses, duplicates and reordering possible"
    assert any(r.startswith("acks=1: the leader acknowledges before its followers") for r in e.reasons)
    e = expectation(DurabilitySettings("t", acks="1", enable_idempotence=False, retries=0), FACTS)
    assert e.summary == "losses possible; expected: 0 duplicated"


@pytest.mark.parametrize(
    ("facts", "no_loss", "said"),
    [
        (replace(FACTS, min_insync_replicas=1), False, "min.insync.replicas=1: once the followers fall out"),
        (replace(FACTS, min_insync_replicas=None), True, "min.insync.replicas could not be read"),
        (replace(FACTS, unclean_leader_election=True), False, "unclean.leader.election.enable=true"),
        (replace(FACTS, replication_factor=2, min_insync_replicas=2), True, "failed records expected, none lost"),
        (replace(FACTS, min_insync_replicas=4), True, "every acks=all write fails"),
    ],
)
def test_min_insync_replicas_and_unclean_election_in_the_expectation(
    facts: TopicFacts, no_loss: bool, said: str
) -> None:
    e = expectation(DurabilitySettings("t"), facts)
    assert e.no_loss is no_loss
    assert any(said in r for r in e.reasons), e.reasons


def test_without_idempotence_duplicates_are_possible() -> None:
    e = expectation(DurabilitySettings("t", enable_idempotence=False), FACTS)
    assert (e.no_loss, e.no_duplicates) == (True, False)
    assert e.summary == "expected: 0 lost; duplicates and reordering possible"


# --- the verdict ----------------------------------------------------------------------------------------------------
PROMISE = Expectation(True, True, "expected: 0 lost, 0 duplicated", ())
LOOSE = Expectation(False, False, "losses, duplicates and reordering possible", ())


def row(**counts: int) -> PartitionResult:
    base = dict(sent=10, acked=10, failed=0, read=10, lost=0, duplicated=0, out_of_order=0, unacked_present=0)
    return PartitionResult(partition=None, **{**base, **counts})


def test_losses_under_settings_that_promise_none_violate() -> None:
    assert judge(PROMISE, row(lost=3, read=7)) == (
        "violated",
        "NOT as expected: 3 lost under settings that promise none",
    )
    verdict, text = judge(PROMISE, row(duplicated=1, out_of_order=2))
    assert verdict == "violated" and "1 duplicated, 2 out of order" in text


def test_losses_that_the_settings_allow_are_reported_as_expected() -> None:
    verdict, text = judge(LOOSE, row(lost=3, read=7))
    assert verdict == "as expected"
    assert (
        text == "as expected: 3 lost, 0 duplicated, 0 out of order (losses and duplicates possible with these settings)"
    )


def test_a_run_that_could_not_conclude_is_incomplete() -> None:
    clean = row()
    assert judge(PROMISE, clean) == ("as expected", "as expected: 0 lost, 0 duplicated, 0 out of order")
    assert judge(PROMISE, clean, read_complete=False)[0] == "incomplete"
    assert judge(PROMISE, clean, cancelled=True)[0] == "incomplete"
    assert judge(PROMISE, clean, halted="the producer stopped after 5 records (_FATAL: …)") == (
        "incomplete",
        "the producer stopped after 5 records (_FATAL: …): the records sent are counted, the run is not complete",
    )
    verdict, text = judge(PROMISE, clean, fault_error="cannot kill broker-1 now: it is killed")
    assert verdict == "incomplete" and "the fault did not happen (cannot kill broker-1 now" in text
    assert judge(PROMISE, row(acked=0, failed=10, read=0))[1].endswith("no record was acknowledged")


# --- settings -------------------------------------------------------------------------------------------------------
def test_default_settings_and_their_thresholds() -> None:
    s = DurabilitySettings("t", records=3000)
    assert (s.kill_after, s.restart_after) == (900, 2100)
    config = s.producer_config()
    assert (config["acks"], config["enable.idempotence"], config["message.timeout.ms"]) == ("all", True, 60_000)
    assert "retries" not in config  # the client's own: retry until the delivery timeout
    assert DurabilitySettings("t", kill_at=None, restart_at=None).kill_after is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(records=0), "records must be between 1 and 10000000, not 0"),
        (dict(topic=" "), "give the topic to check"),
        (dict(acks="2"), "acks must be one of all, 1, 0"),
        (dict(acks="1"), "idempotence needs acks=all"),
        (dict(retries=0), "idempotence needs retries"),
        (dict(kill_at=1.5), "kill-at must be a fraction of the records from 0 up to 1 (0.3: after 30 %), not 1.5"),
        (dict(kill_at=-0.1), "kill-at must be a fraction"),
        (dict(restart_at=1.2), "restart-at must be a fraction"),
        (dict(kill_at=0.8, restart_at=0.5), "restart-at (0.5) must come after kill-at (0.8)"),
        (dict(kill_at=None), "restart-at needs a fault"),
        (dict(partition=-1), "the partition must be 0 or more"),
        (dict(rate=0), "the rate must be a positive number"),
        (dict(delivery_timeout_s=0), "the delivery timeout must be between 0 and 3600 s"),
        (dict(fault="pause"), "the fault must be kill or stop"),
    ],
)
def test_bad_settings_are_refused_with_what_to_do(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(DurabilityRefused) as e:
        DurabilitySettings(**{"topic": "t", **kwargs})  # type: ignore[arg-type]
    assert message in str(e.value)


def test_cli_flags_become_settings() -> None:
    def parse(*argv: str, attached: bool = False) -> DurabilitySettings:
        args: argparse.Namespace = build_parser().parse_args(["durability", "--topic", "t", *argv])
        return settings_from_args(args, attached=attached)

    s = parse()
    assert (s.records, s.acks, s.enable_idempotence, s.fault, s.kill_at, s.restart_at) == (
        10_000, "all", True, "kill", 0.3, 0.7,
    )  # fmt: skip
    assert parse(attached=True).restart_at is None  # kafkatop cannot start a broker it did not start
    assert parse("--restart-at", "0.9", attached=True).restart_at == 0.9
    assert parse("--restart-at", "none").restart_at is None
    assert parse("--acks", "1").enable_idempotence is False  # idempotence follows acks unless given
    s = parse("--fault", "none", "--kill-at", "0.5")
    assert (s.kill_at, s.restart_at) == (None, None)
    s = parse("--fault", "stop", "--records", "500", "--partition", "2", "--rate", "100", "--retries", "3")
    assert (s.fault, s.records, s.partition, s.rate, s.retries) == ("stop", 500, 2, 100.0, 3)


# --- preflight ------------------------------------------------------------------------------------------------------
def snapshot(*topics: Topic) -> ClusterSnapshot:
    brokers = tuple(Broker(i, "127.0.0.1", 9091 + i) for i in (1, 2, 3))
    return ClusterSnapshot("admin", 0.0, "c", "kraft", None, brokers, topics)


def topic(name: str = "t", rf: int = 3, *, leader: int = 1, isr: tuple[int, ...] | None = None) -> Topic:
    replicas = tuple(range(1, rf + 1))
    parts = tuple(
        Partition(name, p, leader if p == 0 else 1, replicas, isr if (isr is not None and p == 0) else replicas)
        for p in range(3)
    )
    return Topic(name, parts, min_insync_replicas=2)


def test_the_preflight_reads_the_topic() -> None:
    facts = check_topic(snapshot(topic()), DurabilitySettings("t"), {"unclean.leader.election.enable": "false"})
    assert facts == TopicFacts("t", 3, 3, 2, False, leader=1, isr=(1, 2, 3))
    facts = check_topic(snapshot(topic()), DurabilitySettings("t"), {"min.insync.replicas": "3"})
    assert (facts.min_insync_replicas, facts.unclean_leader_election) == (3, None)


@pytest.mark.parametrize(
    ("snap", "settings", "message"),
    [
        (snapshot(), DurabilitySettings("t"), "topic 't' does not exist: create it first (kafkatop create-topic t"),
        (
            snapshot(topic(rf=1)),
            DurabilitySettings("t"),
            "a durability check needs a replicated topic: with RF 1 there is no other replica to take over ('t' has "
            "RF 1); create it with --replication-factor 3",
        ),
        (
            snapshot(topic()),
            DurabilitySettings("t", partition=3),
            "partition 3 does not exist: topic 't' has 3 partitions (0–2)",
        ),
        (snapshot(topic(leader=NO_LEADER)), DurabilitySettings("t"), "t-0 has no leader now"),
        (snapshot(topic(isr=(1,))), DurabilitySettings("t"), "t-0 has no other in-sync replica to take over now"),
    ],
)
def test_the_preflight_refuses_what_it_cannot_test(
    snap: ClusterSnapshot, settings: DurabilitySettings, message: str
) -> None:
    with pytest.raises(DurabilityRefused) as e:
        check_topic(snap, settings)
    assert message in str(e.value)


def test_a_shrunk_isr_is_fine_without_a_fault() -> None:
    assert check_topic(snapshot(topic(isr=(1,))), DurabilitySettings("t", kill_at=None, restart_at=None)).isr == (1,)


def nodes(kind: str = "lab", state: NodeState = NodeState.UP) -> NodesSnapshot:
    actions = frozenset({"kill", "stop", "restart"}) if state is NodeState.UP else frozenset({"start", "restart"})
    views = tuple(
        NodeView(f"broker-{i}", ProcessRole.BROKER, i, state, None, (), None, None, None, None, actions=actions)
        for i in (1, 2, 3)
    )
    zk = NodeView("zookeeper", ProcessRole.ZOOKEEPER, 1, NodeState.UP, None, (), None, None, None, None)
    return NodesSnapshot(0.0, kind, "t", (zk, *views), False)  # type: ignore[arg-type]


def test_the_fault_needs_a_node_kafkatop_controls() -> None:
    settings = DurabilitySettings("t")
    assert check_control(nodes(), 2, settings).name == "broker-2"  # the broker, not the ZooKeeper of the same id
    with pytest.raises(DurabilityRefused, match="the leader of t-0 is broker 7, which kafkatop cannot kill: it is not"):
        check_control(nodes(), 7, settings)
    with pytest.raises(DurabilityRefused, match="cannot kill broker-1 \\(leader of t-0\\) now: it is killed"):
        check_control(nodes(state=NodeState.KILLED), 1, settings)
    with pytest.raises(DurabilityRefused, match="cannot start it again after the fault: give no restart-at"):
        check_control(nodes("attach"), 1, settings)
    assert check_control(nodes("attach"), 1, replace(settings, restart_at=None)).name == "broker-1"
