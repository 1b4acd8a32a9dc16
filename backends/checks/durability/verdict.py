"""What a durability run promises and what it found: the preflight's checks of the topic and the node to fail, the
expectation the settings make, the verifier and the verdict. Pure: plain data in, frozen dataclasses out, tested
without a cluster.

Each record of a run carries the run's id and its partition's own sequence number (`encode`), so the verifier can
tell, per partition, which acknowledged records are missing (lost), which are there twice (duplicated), which came
before a lower one (out of order), and which are there although their delivery failed (unacked but present).

A transactional run's records also carry their transaction's number: a record sent again after its transaction was
aborted keeps its sequence number, and only the copy of the committed transaction must be read (read_committed);
a copy of an aborted one read there is an uncommitted read, and the aborted copies still in the log (read_uncommitted)
are counted apart.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

from kafkatop.backends.checks.durability.exactly_once import transaction_reasons
from kafkatop.backends.model.cluster import ClusterSnapshot, Topic
from kafkatop.backends.model.durability import (
    DurabilityRefused,
    DurabilitySettings,
    Expectation,
    PartitionResult,
    ReadRecord,
    RecordDelivery,
    TopicFacts,
    TransactionCounts,
    TransactionOutcome,
    Verdict,
)
from kafkatop.backends.model.nodes import NodesSnapshot, NodeView, ProcessRole

VALUE_PREFIX = "kafkatop-durability"


LOST_SAMPLE = 10  # lost sequence numbers kept per partition, to look for in the log


_BROKER_ROLES = (ProcessRole.BROKER, ProcessRole.COMBINED)


def replicated_topic(snapshot: ClusterSnapshot, name: str, purpose: str, refuse: Callable[[str], Exception]) -> Topic:
    """The topic, or `refuse(reason)` when it is missing or has RF 1 (no other replica to fail over to)."""
    topic = snapshot.topic(name)
    if topic is None:
        raise refuse(
            f"topic '{name}' does not exist: create it first (kafkatop create-topic {name} --partitions 3 "
            "--replication-factor 3), then try again"
        )
    if not topic.partitions:
        raise refuse(f"topic '{name}' has no partitions yet: try again in a moment")
    if topic.replication_factor < 2:
        raise refuse(
            f"{purpose} needs a replicated topic: with RF 1 there is no other replica to take over "
            f"('{name}' has RF 1); create it with --replication-factor 3"
        )
    return topic


def check_topic(
    snapshot: ClusterSnapshot, settings: DurabilitySettings, configs: Mapping[str, str] | None = None
) -> TopicFacts:
    """The facts the check needs, or DurabilityRefused when the topic cannot be tested (missing, RF 1, …)."""
    name = settings.topic
    topic = replicated_topic(snapshot, name, "a durability check", DurabilityRefused)
    count = len(topic.partitions)
    part = next((p for p in topic.partitions if p.id == settings.partition), None)
    if part is None:
        raise DurabilityRefused(
            f"partition {settings.partition} does not exist: topic '{name}' has {count} partition"
            f"{'s' if count != 1 else ''} (0–{count - 1})"
        )
    if part.offline:
        raise DurabilityRefused(f"{name}-{part.id} has no leader now: start its replicas, then run the check again")
    if settings.kill_at is not None and len(part.isr) < 2:
        raise DurabilityRefused(
            f"{name}-{part.id} has no other in-sync replica to take over now (ISR {list(part.isr)}): wait until its "
            "ISR is full (kafkatop describe), or choose another partition"
        )
    configs = configs or {}
    min_isr = topic.min_insync_replicas
    if (value := configs.get("min.insync.replicas")) is not None and value.isdigit():
        min_isr = int(value)
    unclean = configs.get("unclean.leader.election.enable")
    txn_rf, txn_min_isr = (configs.get(f"transaction.state.log.{k}", "") for k in ("replication.factor", "min.isr"))
    return TopicFacts(
        topic=name,
        partitions=count,
        replication_factor=topic.replication_factor,
        min_insync_replicas=min_isr,
        unclean_leader_election=None if unclean is None else unclean.strip().lower() == "true",
        leader=part.leader,
        isr=part.isr,
        transaction_log_replication_factor=int(txn_rf) if txn_rf.isdigit() else None,
        transaction_log_min_isr=int(txn_min_isr) if txn_min_isr.isdigit() else None,
    )


def node_for_broker(nodes: NodesSnapshot, broker_id: int) -> NodeView | None:
    return next((n for n in nodes.nodes if n.node_id == broker_id and n.role in _BROKER_ROLES), None)


def check_control(nodes: NodesSnapshot, broker_id: int, settings: DurabilitySettings) -> NodeView:
    """The node serving `broker_id`, or DurabilityRefused when the planned fault (and restart) cannot be done on it."""
    tp = f"{settings.topic}-{settings.partition}"
    node = node_for_broker(nodes, broker_id)
    if node is None:
        seen = ", ".join(n.name for n in nodes.nodes) or "none"
        raise DurabilityRefused(
            f"the leader of {tp} is broker {broker_id}, which kafkatop cannot {settings.fault}: it is not among the "
            f"nodes it controls (seen: {seen}); run the check without a fault, or on a lab cluster (kafkatop up)"
        )
    if settings.fault not in node.actions:
        raise DurabilityRefused(f"cannot {settings.fault} {node.name} (leader of {tp}) now: it is {node.state.value}")
    if settings.restart_at is not None and nodes.kind == "attach":
        raise DurabilityRefused(
            f"{node.name} was not started by kafkatop, which cannot start it again after the fault: give no "
            "restart-at (the broker is left down; start it as it was started), or run the check on a lab cluster"
        )
    return node


def expectation(settings: DurabilitySettings, facts: TopicFacts) -> Expectation:
    reasons: list[str] = []
    rf, min_isr = facts.replication_factor, facts.min_insync_replicas
    no_loss = True
    if settings.acks == "0":
        no_loss = False
        reasons.append(
            "acks=0: the producer never hears from the broker, so a record reported delivered may never have been "
            "written; losses possible"
        )
    elif settings.acks == "1":
        no_loss = False
        reasons.append(
            "acks=1: the leader acknowledges before its followers copy a record, and a leader that fails then takes "
            "acknowledged records with it; losses possible"
        )
    elif min_isr is None:
        reasons.append(
            f"acks=all, RF {rf}: a record is acknowledged once every in-sync replica has it, so one broker failing "
            "loses none (min.insync.replicas could not be read: if it is 1, a second failure while the ISR is "
            "shrunk could)"
        )
    elif min_isr < 2:
        no_loss = False
        reasons.append(
            f"acks=all with min.insync.replicas={min_isr}: once the followers fall out of the ISR the leader alone "
            "acknowledges, and a leader failing then takes those records with it; losses possible"
        )
    elif min_isr > rf:
        reasons.append(
            f"min.insync.replicas={min_isr} is more than RF {rf}: every acks=all write fails (NOT_ENOUGH_REPLICAS)"
        )
    else:
        reasons.append(
            f"acks=all with min.insync.replicas={min_isr}, RF {rf}: every acknowledged record is on at least "
            f"{min_isr} replicas"
        )
        if min_isr == rf and settings.kill_at is not None:
            reasons.append(
                "min.insync.replicas equals RF: with one broker down, writes to its partitions fail "
                "(NOT_ENOUGH_REPLICAS) until it is back: failed records expected, none lost"
            )
    if facts.unclean_leader_election:
        no_loss = False
        reasons.append(
            "unclean.leader.election.enable=true: a replica out of sync may become leader, dropping acknowledged "
            "records; losses possible"
        )
    if settings.transactional:
        no_duplicates = True
        reasons += transaction_reasons(settings, facts)
    elif settings.enable_idempotence:
        no_duplicates = True
        reasons.append("idempotence: the broker drops a retried batch it already has, and keeps each partition's order")
    elif settings.retries == 0:
        no_duplicates = True
        reasons.append("retries=0: nothing is sent twice, but every transient error fails its records")
    else:
        no_duplicates = False
        reasons.append(
            "no idempotence, with retries: a batch resent after its answer was lost is written twice, and one "
            "retried behind later ones lands after them; duplicates and reordering possible"
        )
    if settings.transactional:  # a record whose delivery failed belongs to an aborted transaction: no maybe
        summary = (
            "expected: exactly once: every record of a committed transaction read once (0 lost, 0 duplicated), "
            "none of an aborted one (0 uncommitted read)"
            if no_loss
            else "losses possible; expected: 0 duplicated, 0 uncommitted read"
        )
        return Expectation(no_loss, no_duplicates, summary, tuple(reasons))
    reasons.append(
        "a record whose delivery failed may still be in the log (at least once): counted as unacked-but-present"
    )
    if no_loss and no_duplicates:
        summary = "expected: 0 lost, 0 duplicated"
    elif no_duplicates:
        summary = "losses possible; expected: 0 duplicated"
    elif no_loss:
        summary = "expected: 0 lost; duplicates and reordering possible"
    else:
        summary = "losses, duplicates and reordering possible"
    return Expectation(no_loss, no_duplicates, summary, tuple(reasons))


def _partition_result(
    partition: int,
    delivered: list[RecordDelivery],
    read: list[ReadRecord],
    start: int | None,
    end: int | None,
    outcomes: Mapping[int, TransactionOutcome] | None = None,
    log: Sequence[ReadRecord] = (),
) -> PartitionResult:
    def ended(transaction: int | None, outcome: TransactionOutcome) -> bool:
        return outcomes is not None and transaction is not None and outcomes.get(transaction) == outcome

    if outcomes is None:
        promised = {d.seq for d in delivered if d.acked}
    else:  # a transactional run promises the records of committed transactions, whatever the delivery reports said
        promised = {d.seq for d in delivered if ended(d.transaction, "committed")}
    seen: Counter[int] = Counter()
    out_of_order = other = uncommitted_read = 0
    highest = -1
    for r in sorted(read, key=lambda r: r.offset):
        if r.seq is None:
            other += 1
            continue
        if ended(r.transaction, "aborted"):
            uncommitted_read += 1  # not also a duplicate of the committed copy
            continue
        seen[r.seq] += 1
        if seen[r.seq] > 1:
            continue  # a copy is counted as duplicated, not also as out of order
        if r.seq < highest:
            out_of_order += 1
        highest = max(highest, r.seq)
    lost = sorted(promised - seen.keys())
    acked = sum(1 for d in delivered if d.acked) if outcomes is not None else len(promised)
    return PartitionResult(
        partition=partition,
        sent=len(delivered),
        acked=acked,
        failed=len(delivered) - acked,
        read=sum(seen.values()),
        lost=len(lost),
        duplicated=sum(seen.values()) - len(seen),
        out_of_order=out_of_order,
        unacked_present=len(seen.keys() - promised),
        other=other,
        start_offset=start,
        end_offset=end,
        lost_sample=tuple(lost[:LOST_SAMPLE]),
        committed=len(promised) if outcomes is not None else 0,
        aborted=sum(1 for d in delivered if ended(d.transaction, "aborted")),
        uncommitted_read=uncommitted_read,
        aborted_in_log=sum(1 for r in log if r.seq is not None and ended(r.transaction, "aborted")),
    )


def verify(
    deliveries: Iterable[RecordDelivery],
    read: Iterable[ReadRecord],
    partitions: Iterable[int],
    start_offsets: Mapping[int, int] | None = None,
    end_offsets: Mapping[int, int] | None = None,
    *,
    outcomes: Mapping[int, TransactionOutcome] | None = None,
    log: Iterable[ReadRecord] = (),
) -> tuple[PartitionResult, ...]:
    """Per partition, what became of the records sent, from the delivery reports and the records read back.

    A transactional run gives each transaction's outcome, `read` as read_committed read it, and `log` as
    read_uncommitted did (to count the aborted records still in the log)."""
    by_partition: dict[int, list[RecordDelivery]] = {p: [] for p in partitions}
    read_by: dict[int, list[ReadRecord]] = {p: [] for p in by_partition}
    log_by: dict[int, list[ReadRecord]] = {}
    for d in deliveries:
        by_partition.setdefault(d.partition, []).append(d)
    for r in read:
        read_by.setdefault(r.partition, []).append(r)
    for r in log:
        log_by.setdefault(r.partition, []).append(r)
    starts, ends = start_offsets or {}, end_offsets or {}
    return tuple(
        _partition_result(
            p, by_partition.get(p, []), read_by.get(p, []), starts.get(p), ends.get(p), outcomes, log_by.get(p, [])
        )
        for p in sorted(set(by_partition) | set(read_by))
    )


def acked_ends(deliveries: Iterable[RecordDelivery], starts: Mapping[int, int]) -> dict[int, int]:
    """Per partition, one past the highest offset a delivery report acknowledged (the start when none was): where
    to read up to when the end offsets cannot be read."""
    ends = dict(starts)
    for d in deliveries:
        if d.acked and d.offset is not None and d.partition in ends:
            ends[d.partition] = max(ends[d.partition], d.offset + 1)
    return ends


def judge(
    expected: Expectation,
    totals: PartitionResult,
    *,
    read_complete: bool = True,
    fault_error: str | None = None,
    cancelled: bool = False,
    halted: str | None = None,
    transactions: TransactionCounts | None = None,
) -> tuple[Verdict, str]:
    """The verdict, and one line that says it. `halted`: why the producer stopped before the last record.
    `transactions`: a transactional run's, whose promise includes no record of an aborted transaction read."""
    if cancelled:
        return "incomplete", f"cancelled after {totals.sent} records were sent: nothing to conclude"
    if halted is not None:
        return "incomplete", f"{halted}: the records sent are counted, the run is not complete"
    if fault_error is not None:
        return "incomplete", f"the fault did not happen ({fault_error}): nothing was tested beyond a plain run"
    if not read_complete:
        return "incomplete", "the read-back did not reach the end of every partition: the lost count is not reliable"
    broken = []
    if expected.no_loss and totals.lost:
        broken.append(f"{totals.lost} lost")
    if expected.no_duplicates and totals.duplicated:
        broken.append(f"{totals.duplicated} duplicated")
    if expected.no_duplicates and totals.out_of_order:
        broken.append(f"{totals.out_of_order} out of order")
    if totals.uncommitted_read:
        n = totals.uncommitted_read
        broken.append(f"{n} uncommitted read (records of aborted transactions in the read_committed read)")
    if broken:
        return "violated", f"NOT as expected: {', '.join(broken)} under settings that promise none"
    text = f"as expected: {totals.lost} lost, {totals.duplicated} duplicated, {totals.out_of_order} out of order"
    if transactions is not None:
        once = ", exactly once" if expected.no_loss else ""
        text = f"as expected{once}: {text.removeprefix('as expected: ')}, 0 uncommitted read"
        text += f"; {transactions.committed} transactions committed, {transactions.aborted} aborted"
        if transactions.aborted:
            in_log = f"{totals.aborted_in_log} of their {totals.aborted} records"
            text += f" ({in_log} in the log, skipped by read_committed)"
    allowed = ([] if expected.no_loss else ["losses"]) + ([] if expected.no_duplicates else ["duplicates"])
    if allowed:
        text += f" ({' and '.join(allowed)} possible with these settings)"
    if totals.sent and not totals.acked:
        text += "; no record was acknowledged"
    return "as expected", text


# --- records ------------------------------------------------------------------------------------------------------
def encode(run_id: str, partition: int, seq: int, transaction: int | None = None) -> bytes:
    value = f"{VALUE_PREFIX} {run_id} {partition} {seq}"
    return (value if transaction is None else f"{value} t{transaction}").encode()


def decode_record(value: bytes | None, run_id: str, partition: int) -> tuple[int, int | None] | None:
    """(sequence number, transaction or None) of a record of this run written to `partition`; None for anything
    else."""
    if not value or not value.startswith(VALUE_PREFIX.encode()):
        return None
    parts = value.split()
    if len(parts) not in (4, 5) or parts[1].decode(errors="replace") != run_id or parts[2] != str(partition).encode():
        return None
    if not parts[3].isdigit():
        return None
    if len(parts) == 4:
        return int(parts[3]), None
    txn = parts[4].removeprefix(b"t")
    return (int(parts[3]), int(txn)) if parts[4].startswith(b"t") and txn.isdigit() else None


def decode(value: bytes | None, run_id: str, partition: int) -> int | None:
    """The sequence number of a record of this run written to `partition`; None for anything else."""
    record = decode_record(value, run_id, partition)
    return None if record is None else record[0]
