"""Kafka's transactions as kafka-transactions.sh shows them: the transactions each coordinator lists, one
transactional id's current transaction, the producers a partition's leader tracks (with the offset where each one's
open transaction starts), the open transactions no coordinator will finish (hanging), and the lines and JSON of each
table, in the tool's layout and row order (standard library only)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kafkatop.backends.model.columns import printf_line, widest
from kafkatop.backends.model.errors import BadInput, KafkatopError
from kafkatop.backends.model.java_order import hash_order, long_hash, topic_partition_hash
from kafkatop.backends.model.topic_partition import TopicPartition

# org.apache.kafka.clients.admin.TransactionState: a name the client does not know prints as Unknown.
TRANSACTION_STATES = frozenset({
    "Ongoing", "PrepareAbort", "PrepareCommit", "CompleteAbort", "CompleteCommit", "Empty", "PrepareEpochFence",
})  # fmt: skip
UNKNOWN_STATE = "Unknown"
DEFAULT_MAX_TRANSACTION_TIMEOUT_MIN = 15  # find-hanging's --max-transaction-timeout


class TransactionsError(KafkatopError):
    """Kafka could not be asked, or refused (its error name said): exit 1."""


class UnknownTransactionalId(BadInput):
    """No coordinator knows this transactional id (TRANSACTIONAL_ID_NOT_FOUND): exit 2."""

    def __init__(self, transactional_id: str) -> None:
        super().__init__(
            f"transactional id {transactional_id!r} is not known to its coordinator (TRANSACTIONAL_ID_NOT_FOUND): "
            "`kafkatop transactions list` shows those it knows"
        )
        self.transactional_id = transactional_id


def state_name(state: str) -> str:
    """A coordinator's state name as the tool prints it."""
    return state if state in TRANSACTION_STATES else UNKNOWN_STATE


@dataclass(frozen=True, slots=True)
class TransactionListing:
    """One transactional id a coordinator has (ListTransactions)."""

    transactional_id: str
    coordinator: int  # the broker that listed it: its coordinator
    producer_id: int
    state: str  # as the coordinator said it


@dataclass(frozen=True, slots=True)
class TransactionDescription:
    """One transactional id's current transaction, as its coordinator describes it (DescribeTransactions)."""

    coordinator_id: int
    transactional_id: str
    producer_id: int
    producer_epoch: int
    state: str
    timeout_ms: int
    start_time_ms: int | None  # None: no transaction under way (the coordinator says -1)
    partitions: tuple[TopicPartition, ...]  # written to in the transaction (those without markers yet, once ending)

    def duration_ms(self, now_ms: int) -> int | None:
        return None if self.start_time_ms is None else now_ms - self.start_time_ms


@dataclass(frozen=True, slots=True)
class ProducerState:
    """A producer a partition's replica tracks (DescribeProducers)."""

    producer_id: int
    producer_epoch: int
    last_sequence: int
    last_timestamp: int  # ms, of its last batch
    coordinator_epoch: int | None  # None: no marker written for it yet (-1 on the wire)
    txn_start_offset: int | None  # where its open transaction starts; None: none open


@dataclass(frozen=True, slots=True)
class PartitionProducers:
    topic: str
    partition: int
    producers: tuple[ProducerState, ...]


@dataclass(frozen=True, slots=True)
class OpenTransaction:
    """An open transaction of a producer on one partition."""

    topic: str
    partition: int
    producer: ProducerState

    def duration_min(self, now_ms: int) -> int:
        """Whole minutes since its last batch (Java's TimeUnit.toMinutes: truncated toward zero)."""
        elapsed = now_ms - self.producer.last_timestamp
        return elapsed // 60_000 if elapsed >= 0 else -(-elapsed // 60_000)


@dataclass(frozen=True, slots=True)
class AbortSpec:
    """An ABORT marker to write: for this producer's open transaction on this partition."""

    topic: str
    partition: int
    producer_id: int
    producer_epoch: int
    coordinator_epoch: int

    def __str__(self) -> str:
        """As Kafka's AbortTransactionSpec prints itself in the tool's messages."""
        return (
            f"AbortTransactionSpec(topicPartition={self.topic}-{self.partition}, producerId={self.producer_id}, "
            f"producerEpoch={self.producer_epoch}, coordinatorEpoch={self.coordinator_epoch})"
        )


def abort_spec_for(producers: PartitionProducers, start_offset: int) -> AbortSpec | None:
    """The abort of the open transaction that starts at `start_offset` (the tool's --start-offset), None when no
    producer's transaction starts there. A coordinator epoch never written (-1) is sent as 0, as the tool does."""
    for p in producers.producers:
        if p.txn_start_offset == start_offset:
            epoch = p.coordinator_epoch if p.coordinator_epoch is not None and p.coordinator_epoch >= 0 else 0
            return AbortSpec(producers.topic, producers.partition, p.producer_id, p.producer_epoch, epoch)
    return None


def candidates(producers: Iterable[PartitionProducers], now_ms: int, max_timeout_min: int) -> list[OpenTransaction]:
    """Open transactions whose producer wrote nothing for longer than the longest a transaction may last: what
    find-hanging then asks the coordinators about."""
    limit_ms = max_timeout_min * 60_000
    return [
        OpenTransaction(pp.topic, pp.partition, p)
        for pp in producers
        for p in pp.producers
        if p.txn_start_offset is not None and now_ms - p.last_timestamp > limit_ms
    ]


def hanging(
    open_transactions: Sequence[OpenTransaction],
    transactional_ids: dict[int, str],
    descriptions: dict[str, TransactionDescription | None],
) -> list[OpenTransaction]:
    """Those no coordinator will end: the producer id no coordinator lists, its transactional id not found, or the
    partition not among those its coordinator's transaction holds. In the tool's order: grouped by producer id in a
    Java HashMap's order."""
    by_producer: dict[int, list[OpenTransaction]] = {}
    for t in open_transactions:
        by_producer.setdefault(t.producer.producer_id, []).append(t)
    out: list[OpenTransaction] = []
    for producer_id in hash_order(by_producer, long_hash):
        txn_id = transactional_ids.get(producer_id)
        description = descriptions.get(txn_id) if txn_id is not None else None
        for t in by_producer[producer_id]:
            if description is None or TopicPartition(t.topic, t.partition) not in description.partitions:
                out.append(t)
    return out


# --- kafka-transactions.sh's tables -----------------------------------------------------------------------------------
LIST_HEADERS = ("TransactionalId", "Coordinator", "ProducerId", "TransactionState")
DESCRIBE_HEADERS = (
    "CoordinatorId", "TransactionalId", "ProducerId", "ProducerEpoch", "TransactionState", "TransactionTimeoutMs",
    "CurrentTransactionStartTimeMs", "TransactionDurationMs", "TopicPartitions",
)  # fmt: skip
PRODUCERS_HEADERS = (
    "ProducerId", "ProducerEpoch", "LatestCoordinatorEpoch", "LastSequence", "LastTimestamp",
    "CurrentTransactionStartOffset",
)  # fmt: skip
HANGING_HEADERS = (
    "Topic", "Partition", "ProducerId", "ProducerEpoch", "CoordinatorEpoch", "StartOffset", "LastTimestamp",
    "Duration(min)",
)  # fmt: skip
JSON_KEYS = {
    "TransactionalId": "transactional_id", "Coordinator": "coordinator", "ProducerId": "producer_id",
    "TransactionState": "transaction_state", "CoordinatorId": "coordinator_id", "ProducerEpoch": "producer_epoch",
    "TransactionTimeoutMs": "transaction_timeout_ms", "CurrentTransactionStartTimeMs":
    "current_transaction_start_time_ms", "TransactionDurationMs": "transaction_duration_ms",
    "TopicPartitions": "topic_partitions", "Topic": "topic", "Partition": "partition",
    "CoordinatorEpoch": "coordinator_epoch", "StartOffset": "start_offset", "LastTimestamp": "last_timestamp",
    "Duration(min)": "duration_min", "LatestCoordinatorEpoch": "latest_coordinator_epoch",
    "LastSequence": "last_sequence", "CurrentTransactionStartOffset": "current_transaction_start_offset",
}  # fmt: skip
Row = tuple[object, ...]  # a table's values: None prints as the tool's "None"


def table_lines(headers: Sequence[str], rows: Iterable[Row]) -> list[str]:
    """The tool's prettyPrintTable: each column padded to its widest value, each value followed by a tab."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [widest([h, *(r[i] for r in cells)]) for i, h in enumerate(headers)]
    return [printf_line(widths, r, sep="\t") + "\t" for r in [list(headers), *cells]]


def _cell(value: object) -> str:
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value)
    return "None" if value is None else str(value)


def table_json(headers: Sequence[str], rows: Iterable[Row]) -> list[dict[str, object]]:
    """The same rows as JSON objects, one key per column; a list column (TopicPartitions) as a list of names."""
    return [
        {JSON_KEYS[h]: [str(x) for x in v] if isinstance(v, tuple) else v for h, v in zip(headers, r, strict=True)}
        for r in rows
    ]


def list_rows(listings: Iterable[TransactionListing]) -> list[Row]:
    """By coordinator in a Java HashMap's order (the tool's allByBrokerId), each one's in the order it listed them."""
    by_coordinator: dict[int, list[TransactionListing]] = {}
    for t in listings:
        by_coordinator.setdefault(t.coordinator, []).append(t)
    return [
        (t.transactional_id, t.coordinator, t.producer_id, state_name(t.state))
        for coordinator in hash_order(by_coordinator, lambda c: c)
        for t in by_coordinator[coordinator]
    ]


def describe_rows(d: TransactionDescription, now_ms: int) -> list[Row]:
    """One row; its partitions in a Java HashSet's order, as the tool joins them."""
    partitions = hash_order(d.partitions, lambda tp: topic_partition_hash(tp.topic, tp.partition))
    return [
        (d.coordinator_id, d.transactional_id, d.producer_id, d.producer_epoch, state_name(d.state), d.timeout_ms,
         d.start_time_ms, d.duration_ms(now_ms), tuple(partitions)),
    ]  # fmt: skip


def producers_rows(producers: PartitionProducers) -> list[Row]:
    """describe-producers: in the order the replica listed them; no coordinator epoch prints -1."""
    return [
        (p.producer_id, p.producer_epoch, -1 if p.coordinator_epoch is None else p.coordinator_epoch, p.last_sequence,
         p.last_timestamp, p.txn_start_offset)
        for p in producers.producers
    ]  # fmt: skip


def hanging_rows(transactions: Iterable[OpenTransaction], now_ms: int) -> list[Row]:
    return [
        (t.topic, t.partition, t.producer.producer_id, t.producer.producer_epoch,
         -1 if t.producer.coordinator_epoch is None else t.producer.coordinator_epoch,
         -1 if t.producer.txn_start_offset is None else t.producer.txn_start_offset,
         t.producer.last_timestamp, t.duration_min(now_ms))
        for t in transactions
    ]  # fmt: skip


# Transactions still to end: their partitions are held back from read_committed readers (the last stable offset).
OPEN_STATES = frozenset({"Ongoing", "PrepareCommit", "PrepareAbort", "PrepareEpochFence"})


@dataclass(frozen=True, slots=True)
class OpenTransactions:
    """The live view's Transactions screen: the transactions not ended yet, longest running first, and how many
    transactional ids the coordinators know in all."""

    taken_at_ms: int
    transactions: tuple[TransactionDescription, ...]
    known: int  # transactional ids listed, ended or not
