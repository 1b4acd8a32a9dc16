"""Leader elections before they are sent (insight/elections.py: the KRaft controller's rules over a snapshot), their
answers in kafka-leader-election.sh's lines, their timeline text; and new partitions' checks (model/partitions.py)."""

from __future__ import annotations

import pytest

from kafkatop.backends.insight.elections import (
    finished_text,
    log_end_wanted,
    loss_brief,
    loss_summary,
    loss_text,
    plan_election,
    plan_lines,
    plan_topic,
    result_lines,
    started_text,
    with_log_ends,
)
from kafkatop.backends.model.cluster import NO_LEADER, Broker, ClusterSnapshot, Partition, Topic
from kafkatop.backends.model.elections import (
    ELECTION_NOT_NEEDED,
    ELIGIBLE_LEADERS_NOT_AVAILABLE,
    PREFERRED_LEADER_NOT_AVAILABLE,
    ElectionResult,
    ElectionResults,
    ElectionType,
)
from kafkatop.backends.model.partitions import KEY_WARNING, check_new_total, partition_count_problem
from kafkatop.backends.model.topic_partition import TopicPartition

PREFERRED, UNCLEAN = ElectionType.PREFERRED, ElectionType.UNCLEAN


def tp(topic: str, partition: int) -> TopicPartition:
    return TopicPartition(topic, partition)


def cluster(*partitions: Partition, down: tuple[int, ...] = ()) -> ClusterSnapshot:
    brokers = tuple(Broker(b, "127.0.0.1", 9091 + b, alive=b not in down) for b in (1, 2, 3))
    topics: dict[str, list[Partition]] = {}
    for p in partitions:
        topics.setdefault(p.topic, []).append(p)
    return ClusterSnapshot(
        "test", 0.0, "c", "kraft", None, brokers, tuple(Topic(name, tuple(ps)) for name, ps in topics.items())
    )


def part(topic: str, pid: int, leader: int, replicas: tuple[int, ...], isr: tuple[int, ...], *,
         down: tuple[int, ...] = (), high: int | None = None) -> Partition:  # fmt: skip
    return Partition(topic, pid, leader, replicas, isr, tuple(r for r in replicas if r in down), 0, high)


# --- preferred ------------------------------------------------------------------------------------------------------
def test_preferred_moves_a_leader_back_when_its_preferred_replica_is_alive_and_in_sync() -> None:
    """After broker 1 was killed and started again: its partitions are led elsewhere, 1 is back in their ISR."""
    snap = cluster(
        part("orders", 0, 2, (1, 2), (2, 1)),
        part("orders", 1, 2, (2, 3), (2, 3)),
        part("orders", 2, 3, (1, 3), (3, 1)),
    )
    plan = plan_election(snap, PREFERRED, [tp("orders", 0), tp("orders", 1), tp("orders", 2)])
    assert [(c.partition, c.leader, c.new_leader) for c in plan.moving] == [
        (tp("orders", 0), 2, 1),
        (tp("orders", 2), 3, 1),
    ]
    assert plan.not_needed == (tp("orders", 1),)
    assert plan.refused == () and plan.unclean_moves == ()
    assert plan.partitions == (tp("orders", 0), tp("orders", 1), tp("orders", 2))  # what is sent: all asked
    assert plan.moving[0].reason == "back to its preferred leader 1"


def test_preferred_is_refused_while_the_preferred_replica_is_down_or_catching_up() -> None:
    snap = cluster(
        part("t", 0, 2, (1, 2), (2,), down=(1,)),  # preferred leader down
        part("t", 1, 3, (2, 3), (3,)),  # preferred leader 2 alive, not in the ISR yet
        part("t", 2, NO_LEADER, (1, 3), (), down=(1,)),  # offline; 3 alive but out of sync (ISR empty: ELR)
        part("t", 3, NO_LEADER, (1, 3, 2), (1, 2), down=(1,)),  # offline a moment: 2 alive and in sync
        down=(1,),
    )
    plan = plan_election(snap, PREFERRED, None)
    by = {c.partition.partition: c for c in plan.candidates}
    assert by[0].error == PREFERRED_LEADER_NOT_AVAILABLE and by[0].new_leader == 2 and not by[0].moves
    assert "its preferred leader 1 is down: 2 stays leader" == by[0].reason
    assert by[1].error == PREFERRED_LEADER_NOT_AVAILABLE
    assert "not in the ISR (3)" in by[1].reason
    assert by[2].error == PREFERRED_LEADER_NOT_AVAILABLE and by[2].new_leader is None
    # Kafka's PartitionChangeBuilder: the preferred one invalid, the current leader invalid, the next valid replica.
    assert by[3].moves and by[3].new_leader == 2 and by[3].error is None
    assert plan.whole_cluster


def test_unknown_partitions_are_named_not_planned() -> None:
    plan = plan_election(cluster(part("t", 0, 1, (1, 2), (1, 2))), PREFERRED, [tp("t", 0), tp("t", 7), tp("x", 0)])
    assert plan.unknown == (tp("t", 7), tp("x", 0))
    assert plan.not_needed == (tp("t", 0),)
    assert "Would fail (PREFERRED) for partition: t-7: UNKNOWN_TOPIC_OR_PARTITION: not in the cluster" in plan_lines(
        plan
    )


# --- unclean --------------------------------------------------------------------------------------------------------
def test_unclean_elects_the_first_live_replica_of_a_leaderless_partition_and_says_what_is_lost() -> None:
    snap = cluster(
        part("risky", 0, NO_LEADER, (2, 3), (), down=(2,)),  # 3 is out of sync
        part("risky", 1, 2, (2, 3), (2,)),  # has a leader: nothing to do
        part("risky", 2, NO_LEADER, (2, 1, 3), (2, 3), down=(2,)),  # 3 alive and in the ISR: a clean election
        part("risky", 3, NO_LEADER, (2,), (2,), down=(2,)),  # nobody alive
        down=(2,),
    )
    plan = plan_election(snap, UNCLEAN, None, high_watermarks={tp("risky", 0): 140})
    by = {c.partition.partition: c for c in plan.candidates}
    assert plan.not_needed == (tp("risky", 1),)
    assert by[0].unclean and by[0].new_leader == 3 and by[0].high_watermark == 140 and by[0].records_lost is None
    assert not by[2].unclean and by[2].new_leader == 3 and by[2].records_lost == 0  # Kafka elects 3 cleanly
    assert by[3].error == ELIGIBLE_LEADERS_NOT_AVAILABLE and by[3].new_leader is None
    assert [c.partition for c in plan.unclean_moves] == [tp("risky", 0)]
    assert log_end_wanted(plan) == {tp("risky", 0): 3}  # whose log end to read: the new leader's

    read = with_log_ends(plan, {tp("risky", 0): 100})
    lost = read.unclean_moves[0]
    assert lost.log_end == 100 and lost.records_lost == 40
    assert loss_text(lost) == (
        "risky-0: broker 3's log ends at offset 100, the high watermark was 140: the 40 record(s) at offsets "
        "100–139, acknowledged by the replicas that were in sync, are lost for good, and new records will reuse "
        "their offsets"
    )
    assert loss_brief(lost) == "loses 40 acknowledged record(s): offsets 100–139"
    assert loss_summary(read) == "1 partition(s) get an out-of-sync leader: 40 acknowledged record(s) lost for good"


@pytest.mark.parametrize(
    ("log_end", "high", "brief", "words"),
    [
        (100, None, "loses every acknowledged record above offset 100 (high watermark unknown)",
         "broker 3's log ends at offset 100: every record above it that the last in-sync replicas (2) acknowledged"),
        (None, 140, "loses what broker 3 lacks below offset 140 (its log end is unknown)",
         "up to the high watermark 140"),
        (None, None, "loses what broker 3 never copied (its log end is unknown)",
         "its log end offset could not be read"),
        (140, 140, "loses nothing acknowledged up to the last high watermark known (140)", "nothing acknowledged"),
    ],
)  # fmt: skip
def test_what_is_lost_is_said_with_what_is_known(log_end: int | None, high: int | None, brief: str, words: str) -> None:
    snap = cluster(part("r", 0, NO_LEADER, (2, 3), (2,), down=(2,), high=high), down=(2,))
    plan = plan_election(snap, UNCLEAN, [tp("r", 0)], log_ends={tp("r", 0): log_end} if log_end is not None else {})
    c = plan.unclean_moves[0]
    assert loss_brief(c) == brief
    assert words in loss_text(c)


def test_a_plan_for_the_whole_cluster_leaves_out_what_needs_no_election_as_kafka_does() -> None:
    snap = cluster(part("t", 0, 2, (1, 2), (1, 2)), part("t", 1, 2, (2, 1), (1, 2)))
    plan = plan_election(snap, PREFERRED, None)
    assert plan_lines(plan) == [
        "Would elect (PREFERRED) for partitions t-0",
        "  t-0: leader 2 → 1 (back to its preferred leader 1)",
    ]
    asked = plan_election(snap, PREFERRED, [tp("t", 0), tp("t", 1)])
    assert plan_lines(asked)[-1] == "Valid replica already elected for partitions t-1"


# --- answers, in kafka-leader-election.sh's lines --------------------------------------------------------------------
def test_results_in_kafka_leader_election_lines() -> None:
    results = ElectionResults(
        PREFERRED,
        (
            ElectionResult(tp("orders", 3)),
            ElectionResult(tp("orders", 0)),
            ElectionResult(tp("orders", 1), ELECTION_NOT_NEEDED, "Leader election not needed for topic partition."),
            ElectionResult(tp("orders", 4), PREFERRED_LEADER_NOT_AVAILABLE, "The preferred leader was not available."),
        ),
    )
    assert result_lines(results) == [
        "Successfully completed leader election (PREFERRED) for partitions orders-0, orders-3",
        "Valid replica already elected for partitions orders-1",
        "Error completing leader election (PREFERRED) for partition: orders-4: PREFERRED_LEADER_NOT_AVAILABLE: The "
        "preferred leader was not available.",
    ]
    assert [r.partition for r in results.failed] == [tp("orders", 4)]
    assert finished_text(results) == (
        "preferred leader election: elected orders-0, orders-3; 1 already led as wanted; failed orders-4 "
        "(PREFERRED_LEADER_NOT_AVAILABLE)"
    )
    assert result_lines(ElectionResults(UNCLEAN, ())) == []


def test_timeline_text_names_the_moves_and_counts_beyond_six() -> None:
    parts = [part("orders", i, 2, (1, 2), (1, 2)) for i in range(8)]
    plan = plan_election(cluster(*parts), PREFERRED, None)
    text = started_text(plan)
    assert text.startswith("preferred leader election: orders-0 2 → 1, orders-1 2 → 1,")
    assert text.endswith("orders-5 2 → 1 and 2 more")
    assert plan_topic(plan) == "orders"
    two = plan_election(cluster(part("a", 0, 2, (1, 2), (1, 2)), part("b", 0, 2, (1, 2), (1, 2))), PREFERRED, None)
    assert plan_topic(two) is None


# --- new partitions ------------------------------------------------------------------------------------------------
def test_a_partition_count_that_is_no_increase_is_refused_in_kafkas_words() -> None:
    assert partition_count_problem("orders", 6, 6) == "Topic already has 6 partition(s)."
    assert partition_count_problem("orders", 6, 3) == (
        "The topic orders currently has 6 partition(s); 3 would not be an increase."
    )
    assert partition_count_problem("orders", 6, 8) is None
    assert partition_count_problem("orders", None, 0) == "the partition count must be at least 1, not 0"
    assert "at most 100000" in (partition_count_problem("orders", 6, 100_001) or "")


def test_the_dialogs_field_is_checked_as_typed() -> None:
    assert check_new_total("t", 3, " 5 ") == (5, None)
    assert check_new_total("t", 3, "") == (None, "give the new total number of partitions")
    assert check_new_total("t", 3, "five")[1] == "'five' is not a whole number: give the new total number of partitions"
    assert check_new_total("t", 3, "3") == (None, "Topic already has 3 partition(s).")
    assert "ordering per key breaks" in KEY_WARNING
