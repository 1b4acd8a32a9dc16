"""What a leader election would do, before it is sent, and what it did, in kafka-leader-election.sh's words.

The rules are the KRaft controller's (ReplicationControlManager.electLeader, PartitionChangeBuilder):
- preferred: a partition led by its preferred leader (the first replica) needs nothing (ELECTION_NOT_NEEDED); else
  the preferred leader is elected when it is alive and in the ISR; else the current leader stays, if it still may
  lead, and Kafka answers PREFERRED_LEADER_NOT_AVAILABLE; a partition without a leader gets the first other replica
  that is alive and in the ISR, if any;
- unclean: a partition with a leader needs nothing; else the first replica (in assignment order) that is alive and
  in the ISR is elected, cleanly; else the first replica that is alive at all, out of sync: an unclean election,
  which loses what that replica never copied (the records above its log end offset, up to the high watermark the
  old ISR reached); with no replica alive, Kafka answers ELIGIBLE_LEADERS_NOT_AVAILABLE.
Kafka 4's eligible leader replicas (ELR), which may also lead cleanly, are not in the metadata read here: a
partition that has one alive is elected by the controller itself, without being asked.
Pure: a ClusterSnapshot in, a plan out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from kafkatop.backends.model.cluster import NO_LEADER, ClusterSnapshot, Partition
from kafkatop.backends.model.elections import (
    ELIGIBLE_LEADERS_NOT_AVAILABLE,
    PREFERRED_LEADER_NOT_AVAILABLE,
    ElectionCandidate,
    ElectionPlan,
    ElectionResults,
    ElectionType,
)
from kafkatop.backends.model.topic_partition import TopicPartition


def _ids(ids: Iterable[int]) -> str:
    shown = ",".join(map(str, ids))
    return shown or "empty"


def _alive(snapshot: ClusterSnapshot, p: Partition) -> set[int]:
    """The replicas of `p` on brokers that are alive (registered, not fenced) in this view."""
    live = {b.id for b in snapshot.brokers if b.alive}
    return {r for r in p.replicas if r in live and r not in p.offline_replicas}


def _preferred(p: Partition, alive: set[int]) -> ElectionCandidate | None:
    tp = TopicPartition(p.topic, p.id)
    preferred = p.preferred_leader
    if preferred is None or p.leader == preferred:
        return None

    def valid(r: int) -> bool:
        return r in alive and r in p.isr

    def candidate(new: int | None, error: str | None, reason: str) -> ElectionCandidate:
        return ElectionCandidate(tp, p.leader, p.replicas, p.isr, new, error, reason)

    if valid(preferred):
        return candidate(preferred, None, f"back to its preferred leader {preferred}")
    why = (
        f"its preferred leader {preferred} is down"
        if preferred not in alive
        else f"its preferred leader {preferred} is not in the ISR ({_ids(p.isr)}) yet"
    )
    if p.leader != NO_LEADER and valid(p.leader):
        return candidate(p.leader, PREFERRED_LEADER_NOT_AVAILABLE, f"{why}: {p.leader} stays leader")
    other = next((r for r in p.replicas[1:] if valid(r)), None)
    if other is not None:
        return candidate(other, None, f"{why}: {other}, alive and in the ISR, leads instead")
    return candidate(None, PREFERRED_LEADER_NOT_AVAILABLE, f"{why}, and no other replica is alive and in the ISR")


def _unclean(p: Partition, alive: set[int], high: int | None, log_end: int | None) -> ElectionCandidate | None:
    tp = TopicPartition(p.topic, p.id)
    if p.leader != NO_LEADER:
        return None
    clean = next((r for r in p.replicas if r in alive and r in p.isr), None)
    if clean is not None:
        reason = f"{clean} is alive and in the ISR: a clean election, nothing lost"
        return ElectionCandidate(tp, p.leader, p.replicas, p.isr, clean, None, reason)
    out_of_sync = next((r for r in p.replicas if r in alive), None)
    if out_of_sync is None:
        down = _ids(p.replicas)
        return ElectionCandidate(
            tp, p.leader, p.replicas, p.isr, None, ELIGIBLE_LEADERS_NOT_AVAILABLE,
            f"no replica is alive (replicas {down} are all down): start one of them",
        )  # fmt: skip
    reason = f"{out_of_sync} is alive but not in the ISR ({_ids(p.isr)}): it would lead with what it has"
    return ElectionCandidate(
        tp, p.leader, p.replicas, p.isr, out_of_sync, None, reason, unclean=True,
        high_watermark=high, log_end=log_end,
    )  # fmt: skip


def plan_election(
    snapshot: ClusterSnapshot,
    election_type: ElectionType,
    partitions: Sequence[TopicPartition] | None = None,
    *,
    log_ends: Mapping[TopicPartition, int] | None = None,
    high_watermarks: Mapping[TopicPartition, int] | None = None,
) -> ElectionPlan:
    """What an election of `partitions` (None: every partition in the snapshot) would do, by the controller's rules.

    `log_ends`: the out-of-sync new leaders' log end offsets, where read (unclean only); `high_watermarks`: the last
    high watermark known of partitions the snapshot has none for (a partition without a leader has none now)."""
    by_tp = {TopicPartition(p.topic, p.id): p for p in snapshot.partitions}
    wanted = list(by_tp) if partitions is None else list(dict.fromkeys(partitions))
    candidates: list[ElectionCandidate] = []
    not_needed: list[TopicPartition] = []
    unknown: list[TopicPartition] = []
    for tp in wanted:
        p = by_tp.get(tp)
        if p is None:
            unknown.append(tp)
            continue
        alive = _alive(snapshot, p)
        if election_type is ElectionType.PREFERRED:
            candidate = _preferred(p, alive)
        else:
            high = p.high_watermark if p.high_watermark is not None else (high_watermarks or {}).get(tp)
            high = high if high is not None and high >= 0 else None  # a negative offset is none known
            candidate = _unclean(p, alive, high, (log_ends or {}).get(tp))
        if candidate is None:
            not_needed.append(tp)
        else:
            candidates.append(candidate)
    return ElectionPlan(
        election_type,
        tuple(sorted(candidates, key=lambda c: c.partition)),
        tuple(sorted(not_needed)),
        tuple(sorted(unknown)),
        whole_cluster=partitions is None,
    )


def log_end_wanted(plan: ElectionPlan) -> dict[TopicPartition, int]:
    """The replicas whose log end offset says what an unclean election would lose: partition -> its new leader."""
    return {c.partition: c.new_leader for c in plan.unclean_moves if c.new_leader is not None}


def with_log_ends(plan: ElectionPlan, log_ends: Mapping[TopicPartition, int]) -> ElectionPlan:
    candidates = tuple(
        replace(c, log_end=log_ends[c.partition]) if c.unclean and c.partition in log_ends else c
        for c in plan.candidates
    )
    return replace(plan, candidates=candidates)


# --- in words -------------------------------------------------------------------------------------------------------
def partition_list(partitions: Iterable[TopicPartition]) -> str:
    """As Kafka's tool joins them: "t-0, t-1"."""
    return ", ".join(str(tp) for tp in partitions)


def loss_text(c: ElectionCandidate) -> str:
    """What an unclean election of `c` can lose, in words."""
    if not c.unclean or c.new_leader is None:
        return ""
    new, tp = c.new_leader, c.partition
    last = f"the last in-sync replicas ({_ids(c.isr)})" if c.isr else "the replicas that were in sync"
    if c.log_end is not None and c.high_watermark is not None:
        lost = c.records_lost or 0
        if lost:
            return (
                f"{tp}: broker {new}'s log ends at offset {c.log_end}, the high watermark was {c.high_watermark}: the "
                f"{lost} record(s) at offsets {c.log_end}–{c.high_watermark - 1}, acknowledged by {last}, are lost "
                f"for good, and new records will reuse their offsets"
            )
        return (
            f"{tp}: broker {new}'s log ends at offset {c.log_end}, at the last high watermark known "
            f"({c.high_watermark}): nothing acknowledged before that is lost, but whatever {last} took after it is"
        )
    if c.log_end is not None:
        return (
            f"{tp}: broker {new}'s log ends at offset {c.log_end}: every record above it that {last} acknowledged is "
            "lost for good (the high watermark cannot be read while the partition has no leader)"
        )
    high = f" up to the high watermark {c.high_watermark}" if c.high_watermark is not None else ""
    return (
        f"{tp}: broker {new} is out of sync: every record above its log end offset{high}, acknowledged by {last}, "
        "is lost for good (its log end offset could not be read)"
    )


def loss_brief(c: ElectionCandidate) -> str:
    """What an unclean election of `c` loses, in a few words: "loses 40 records (offsets 100–139)"."""
    if not c.unclean or c.new_leader is None:
        return ""
    if c.log_end is not None and c.high_watermark is not None:
        lost = c.records_lost or 0
        if not lost:
            return f"loses nothing acknowledged up to the last high watermark known ({c.high_watermark})"
        return f"loses {lost} acknowledged record(s): offsets {c.log_end}–{c.high_watermark - 1}"
    if c.log_end is not None:
        return f"loses every acknowledged record above offset {c.log_end} (high watermark unknown)"
    if c.high_watermark is not None:
        return f"loses what broker {c.new_leader} lacks below offset {c.high_watermark} (its log end is unknown)"
    return f"loses what broker {c.new_leader} never copied (its log end is unknown)"


def loss_summary(plan: ElectionPlan) -> str:
    """One line: what the unclean moves of `plan` can lose, altogether."""
    moves = plan.unclean_moves
    if not moves:
        return "nothing: every new leader is in sync"
    counts = [c.records_lost for c in moves]
    known = sum(n for n in counts if n is not None)
    partitions = f"{len(moves)} partition(s) get an out-of-sync leader"
    if all(n is not None for n in counts):
        return f"{partitions}: {known} acknowledged record(s) lost for good"
    at_least = f" (at least {known})" if known else ""
    return f"{partitions}: every acknowledged record above the new leader's log end is lost for good{at_least}"


def move_text(c: ElectionCandidate) -> str:
    """`orders-0: leader 2 → 1 (back to its preferred leader 1)`."""
    new = "none" if c.new_leader is None else str(c.new_leader)
    if c.moves:
        return f"{c.partition}: leader {c.leader_text} → {new} ({c.reason})"
    return f"{c.partition}: {c.error}: {c.reason}"


def plan_lines(plan: ElectionPlan) -> list[str]:
    """--dry-run: what would be sent and what Kafka would answer, in kafka-leader-election.sh's layout."""
    kind = plan.election_type.value
    lines = []
    if plan.moving:
        lines.append(f"Would elect ({kind}) for partitions {partition_list(c.partition for c in plan.moving)}")
        lines += [f"  {move_text(c)}" for c in plan.moving]
    if plan.not_needed and not plan.whole_cluster:  # Kafka leaves them out when it is asked for every partition
        lines.append(f"Valid replica already elected for partitions {partition_list(plan.not_needed)}")
    for c in plan.refused:
        lines.append(f"Would fail ({kind}) for partition: {move_text(c)}")
    for tp in plan.unknown:
        lines.append(f"Would fail ({kind}) for partition: {tp}: UNKNOWN_TOPIC_OR_PARTITION: not in the cluster")
    return lines


def result_lines(results: ElectionResults) -> list[str]:
    """kafka-leader-election.sh's lines, partitions in order (Kafka's tool lists them in hash order), an error by
    Kafka's error name (rather than the Java exception's class) and message."""
    kind = results.election_type.value
    lines = []
    if results.elected:
        elected = partition_list(results.elected)
        lines.append(f"Successfully completed leader election ({kind}) for partitions {elected}")
    if results.not_needed:
        lines.append(f"Valid replica already elected for partitions {partition_list(results.not_needed)}")
    for r in results.failed:
        detail = f"{r.error}: {r.message}" if r.message else str(r.error)
        lines.append(f"Error completing leader election ({kind}) for partition: {r.partition}: {detail}")
    return lines


# --- the timeline ---------------------------------------------------------------------------------------------------
SHOWN = 6  # partitions named in one timeline line; the rest are counted


def _some(items: Sequence[str]) -> str:
    shown = ", ".join(items[:SHOWN])
    return shown + (f" and {len(items) - SHOWN} more" if len(items) > SHOWN else "")


def plan_topic(plan: ElectionPlan) -> str | None:
    """The one topic a plan is about, if it is about one."""
    topics = {c.partition.topic for c in plan.moving}
    return next(iter(topics)) if len(topics) == 1 else None


def started_text(plan: ElectionPlan) -> str:
    """The timeline's STARTED line: "preferred leader election: orders-0 2 → 1, orders-3 3 → 1"."""
    moves = [f"{c.partition} {c.leader_text} → {c.new_leader}" for c in plan.moving]
    return f"{plan.election_type.word} leader election: {_some(moves) or 'nothing to move'}"


def finished_text(results: ElectionResults) -> str:
    """The timeline's final line: what was elected, what failed and why."""
    parts = []
    if results.elected:
        parts.append(f"elected {_some([str(tp) for tp in results.elected])}")
    if results.not_needed:
        parts.append(f"{len(results.not_needed)} already led as wanted")
    if results.failed:
        parts.append(f"failed {_some([f'{r.partition} ({r.error})' for r in results.failed])}")
    done = "; ".join(parts) or "no partition answered"
    return f"{results.election_type.word} leader election: {done}"
