"""Kafka's transactions, read and ended as kafka-transactions.sh does it through Kafka's Admin, over kafkatop's own
connections (protocol/transactions.py): ListTransactions to every broker (each lists the transactional ids it
coordinates), FindCoordinator (key type TRANSACTION) then DescribeTransactions to each transactional id's
coordinator, DescribeProducers to each partition's leader (or one named broker), and the abort of an open
transaction: an ABORT marker (WriteTxnMarkers) written by the partition's leader, as Admin.abortTransaction does.

Plain blocking functions, all bounded by one deadline per call. A cluster that does not serve these requests (before
Kafka 3.0, the librdkafka mock) raises Unsupported, saying which; Kafka's refusals raise TransactionsError with its
error name; a partition or transactional id that does not exist is bad input."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import partial

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.model.cluster import Broker, ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.model.transactions import (
    AbortSpec,
    PartitionProducers,
    TransactionDescription,
    TransactionListing,
    TransactionsError,
    UnknownTransactionalId,
    abort_spec_for,
)
from kafkatop.backends.protocol.connection import (
    BrokerConnection,
    Unsupported,
    first_answer,
    os_reason,
    require_supported,
)
from kafkatop.backends.protocol.offset_delete import (
    FIND_COORDINATOR,
    FIND_COORDINATOR_BATCHED_FROM,
    TRANSACTION_KEY,
    Coordinator,
    decode_find_coordinator,
    find_coordinator_body,
)
from kafkatop.backends.protocol.transactions import (
    DESCRIBE_PRODUCERS,
    DESCRIBE_TRANSACTIONS,
    DURATION_FILTER_FROM,
    LIST_TRANSACTIONS,
    PATTERN_FROM,
    TRANSACTIONAL_ID_NOT_FOUND,
    WRITE_TXN_MARKERS,
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
from kafkatop.backends.protocol.wire import Api, ProtocolError, response_reader

TOOL = "kafka-transactions.sh"
RETRIABLE = frozenset({14, 15, 16})  # COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR
RETRY_S = 0.2
Address = tuple[str, int]


def read_metadata(connection: KafkaConnection, timeout_s: float) -> ClusterSnapshot:
    """Brokers, topics (internal ones too), leaders and replicas, from one Metadata request."""
    source = AdminSource(connection, timeout_s=timeout_s, include_internal=True)
    try:
        return source.poll(topics_only=True)
    finally:
        source.close()


@contextmanager
def _talk(
    address: Address, deadline: float, connection: KafkaConnection, name: str, timeout_s: float
) -> Iterator[BrokerConnection]:
    """A connection to one broker: the broker out of reach or answering nonsense is a TransactionsError naming it;
    Unsupported goes up as it is."""
    host, port = address
    try:
        with BrokerConnection(host, port, deadline, connection.client_settings) as conn:
            yield conn
    except Unsupported:
        raise
    except OSError as e:
        raise TransactionsError(f"{name} to {host}:{port}: {os_reason(e, timeout_s)}") from None
    except ProtocolError as e:
        raise TransactionsError(f"{name} to {host}:{port}: {e}") from None


def _exchange(
    address: Address, deadline: float, connection: KafkaConnection, api: Api, body: bytes | Callable[[int], bytes],
    timeout_s: float,
) -> tuple[int, bytes]:  # fmt: skip
    """One request to one broker, in the highest version both speak: (that version, the response's bytes)."""
    with _talk(address, deadline, connection, api.name, timeout_s) as conn:
        return conn.call(api, body)


def _address(broker: Broker | None, what: str) -> Address:
    if broker is None or not broker.alive or broker.host is None or broker.port is None:
        raise TransactionsError(f"{what}: the broker is not in the cluster's metadata (down?)")
    return broker.host, broker.port


def _pause(deadline: float, what: str) -> None:
    """Before asking again: a coordinator loading, moving or being created (__transaction_state on first use)."""
    if time.monotonic() + RETRY_S >= deadline:
        raise TransactionsError(f"{what}: timed out")
    time.sleep(RETRY_S)


# --- ListTransactions ---------------------------------------------------------------------------------------------
def list_transactions(
    connection: KafkaConnection, brokers: Iterable[Broker], timeout_s: float, *, duration_ms: int = -1,
    pattern: str | None = None, producer_ids: Sequence[int] = (),
) -> list[TransactionListing]:  # fmt: skip
    """Every live broker's transactional ids (each broker lists those it coordinates), filtered as given: running
    longer than `duration_ms` (≥ 0), matching the regular expression `pattern`, of these producer ids."""
    require_supported(connection, "ListTransactions", TOOL)
    deadline = time.monotonic() + timeout_s
    out: list[TransactionListing] = []
    for broker in brokers:
        if not broker.alive:
            continue
        what = f"Failed to list transactions: broker {broker.id}"
        body = partial(_list_body, what, duration_ms, pattern or None, producer_ids)
        while True:
            _, payload = _exchange(_address(broker, what), deadline, connection, LIST_TRANSACTIONS, body, timeout_s)
            answer = decode_list_transactions(payload)
            if answer.error_code not in RETRIABLE:
                break
            _pause(deadline, f"{what}: {txn_error(answer.error_code)}")
        if answer.error_code:
            raise TransactionsError(f"{what}: {txn_error(answer.error_code)}")
        out.extend(TransactionListing(t, broker.id, pid, state) for t, pid, state in answer.transactions)
    return out


def _list_body(what: str, duration_ms: int, pattern: str | None, producer_ids: Sequence[int], version: int) -> bytes:
    """A filter the broker's version cannot carry is refused, not dropped: dropped, it would list too much."""
    if pattern is not None and version < PATTERN_FROM:
        raise TransactionsError(f"{what} speaks ListTransactions v{version}: a transactional id pattern needs v2 "
                                "(Kafka 4.1+)")  # fmt: skip
    if duration_ms >= 0 and version < DURATION_FILTER_FROM:
        raise TransactionsError(f"{what} speaks ListTransactions v{version}: a duration filter needs v1 (Kafka 3.8+)")
    return list_transactions_body(version, (), producer_ids, duration_ms, pattern)


# --- FindCoordinator and DescribeTransactions ---------------------------------------------------------------------
def find_coordinators(
    connection: KafkaConnection, transactional_ids: Sequence[str], deadline: float, timeout_s: float
) -> dict[str, Coordinator]:
    """Each transactional id's coordinator, asked of the first bootstrap server that answers; asked again while the
    coordinators load or move, or __transaction_state is being created (its first use)."""
    missing = list(dict.fromkeys(transactional_ids))
    found: dict[str, Coordinator] = {}
    while missing:
        reasons: list[str] = []  # the bootstrap servers that did not answer, and the ids whose coordinators load
        refused: list[str] = []
        ask = partial(_coordinators_of, connection, missing, deadline, found, reasons, refused)
        if first_answer(connection.addresses, ask, timeout_s, reasons, prefix="FindCoordinator to ") is None:
            # No bootstrap server answered at all: asking again until the deadline would only wait.
            raise TransactionsError(f"no bootstrap server answered FindCoordinator: {'; '.join(reasons)}")
        if refused:
            raise TransactionsError(refused[0])
        missing = [t for t in missing if t not in found]
        if missing:
            _pause(deadline, f"no coordinator for transactional id `{missing[0]}` ({'; '.join(reasons)})")
    return found


def _coordinators_of(
    connection: KafkaConnection, missing: list[str], deadline: float, found: dict[str, Coordinator],
    waiting: list[str], refused: list[str], host: str, port: int,
) -> bool:  # fmt: skip
    """One FindCoordinator round at one broker, into `found`; said into `waiting`, the ids whose coordinators load
    or move, and into `refused`, those that have none."""
    with BrokerConnection(host, port, deadline, connection.client_settings) as conn:
        version = conn.version_for(FIND_COORDINATOR)
        batches = [missing] if version >= FIND_COORDINATOR_BATCHED_FROM else [[k] for k in missing]
        for keys in batches:
            payload = conn.send(FIND_COORDINATOR, version, find_coordinator_body(keys, version, TRANSACTION_KEY))
            for c in decode_find_coordinator(response_reader(payload), version, keys):
                said = txn_error(c.error_code, c.error_message)
                if c.error_code == 0:
                    found[c.key] = c
                elif c.error_code in RETRIABLE:
                    waiting.append(f"`{c.key}`: {said}")
                else:
                    refused.append(f"no coordinator for transactional id `{c.key}`: {said}")
    return True


def describe_transactions(
    connection: KafkaConnection, transactional_ids: Sequence[str], timeout_s: float
) -> dict[str, TransactionDescription | None]:
    """Each transactional id's current transaction, from its coordinator; None for an id no coordinator knows."""
    require_supported(connection, "DescribeTransactions", TOOL)
    deadline = time.monotonic() + timeout_s
    pending = list(dict.fromkeys(transactional_ids))
    out: dict[str, TransactionDescription | None] = {}
    while pending:
        coordinators = find_coordinators(connection, pending, deadline, timeout_s)
        by_node: dict[int, list[str]] = {}
        for t in pending:
            by_node.setdefault(coordinators[t].node_id, []).append(t)
        retry: list[str] = []
        for node, ids in by_node.items():
            c = coordinators[ids[0]]
            body = describe_transactions_body(ids)
            _, payload = _exchange((c.host, c.port), deadline, connection, DESCRIBE_TRANSACTIONS, body, timeout_s)
            for d in decode_describe_transactions(payload):
                what = f"Failed to describe transaction state of transactional-id `{d.transactional_id}`"
                if d.transactional_id not in ids:
                    raise TransactionsError(f"{what}: the coordinator answered for an id not asked")
                if d.error_code == TRANSACTIONAL_ID_NOT_FOUND:
                    out[d.transactional_id] = None
                elif d.error_code in RETRIABLE:
                    retry.append(d.transactional_id)
                elif d.error_code:
                    raise TransactionsError(f"{what}: {txn_error(d.error_code)}")
                else:
                    out[d.transactional_id] = TransactionDescription(
                        node, d.transactional_id, d.producer_id, d.producer_epoch, d.state, d.timeout_ms,
                        d.start_time_ms if d.start_time_ms >= 0 else None, d.partitions,
                    )  # fmt: skip
        pending = [t for t in pending if t not in out]
        if pending:
            _pause(deadline, f"Failed to describe transaction state of transactional-id `{pending[0]}`")
    return out


def describe_transaction(
    connection: KafkaConnection, transactional_id: str, timeout_s: float
) -> TransactionDescription:
    """One transactional id's current transaction; UnknownTransactionalId when its coordinator does not know it."""
    found = describe_transactions(connection, [transactional_id], timeout_s).get(transactional_id)
    if found is None:
        raise UnknownTransactionalId(transactional_id)
    return found


# --- DescribeProducers and the abort ------------------------------------------------------------------------------
def check_partitions(snapshot: ClusterSnapshot, partitions: Iterable[TopicPartition]) -> None:
    """Bad input, before anything is sent, for a topic or partition the cluster does not have."""
    for tp in partitions:
        topic = snapshot.topic(tp.topic)
        if topic is None:
            raise BadInput(f"unknown topic {tp.topic!r}: `kafkatop describe` lists the topics")
        if not any(p.id == tp.partition for p in topic.partitions):
            raise BadInput(f"unknown partition {tp}: topic {tp.topic!r} has partitions 0–{len(topic.partitions) - 1}")


def check_broker(snapshot: ClusterSnapshot, broker_id: int | None) -> None:
    """Bad input, before anything is sent, for a --broker-id the cluster does not have."""
    if broker_id is not None and snapshot.broker(broker_id) is None:
        known = ", ".join(str(b.id) for b in snapshot.brokers) or "none"
        raise BadInput(f"unknown broker {broker_id}: the cluster's brokers are {known}")


def describe_producers(
    connection: KafkaConnection, snapshot: ClusterSnapshot, partitions: Sequence[TopicPartition], timeout_s: float,
    broker_id: int | None = None,
) -> dict[TopicPartition, PartitionProducers]:  # fmt: skip
    """The producers each partition's leader tracks (or those broker `broker_id`'s replica tracks)."""
    require_supported(connection, "DescribeProducers", TOOL)
    check_partitions(snapshot, partitions)
    check_broker(snapshot, broker_id)
    deadline = time.monotonic() + timeout_s
    on = "leader" if broker_id is None else f"broker {broker_id}"
    by_broker: dict[int, dict[str, list[int]]] = {}
    for tp in partitions:
        target = broker_id if broker_id is not None else _leader(snapshot, tp)
        by_broker.setdefault(target, {}).setdefault(tp.topic, []).append(tp.partition)
    out: dict[TopicPartition, PartitionProducers] = {}
    for target, asked in by_broker.items():
        address = _address(snapshot.broker(target), f"Failed to describe producers on broker {target}")
        _, payload = _exchange(
            address, deadline, connection, DESCRIBE_PRODUCERS, describe_producers_body(asked), timeout_s
        )
        for answer in decode_describe_producers(payload):
            tp = TopicPartition(answer.producers.topic, answer.producers.partition)
            if answer.error_code:
                said = txn_error(answer.error_code, answer.error_message)
                raise TransactionsError(f"Failed to describe producers for partition {tp} on {on}: {said}")
            out[tp] = answer.producers
    if set(out) != set(partitions):
        raise TransactionsError("DescribeProducers answered for other partitions than those asked")
    return out


def require_describe_producers(
    connection: KafkaConnection, snapshot: ClusterSnapshot, broker_id: int | None, timeout_s: float
) -> None:
    """Unsupported, saying so, when the broker asked (or the first live one) does not serve DescribeProducers: for a
    search with no partition to ask, which would otherwise say nothing of a cluster that could not have answered."""
    require_supported(connection, "DescribeProducers", TOOL)
    alive = snapshot.brokers_alive
    broker = snapshot.broker(broker_id) if broker_id is not None else (alive[0] if alive else None)
    address = _address(broker, "DescribeProducers")
    with _talk(address, time.monotonic() + timeout_s, connection, "DescribeProducers", timeout_s) as conn:
        conn.version_for(DESCRIBE_PRODUCERS)


def _leader(snapshot: ClusterSnapshot, tp: TopicPartition) -> int:
    topic = snapshot.topic(tp.topic)
    partition = next((p for p in topic.partitions if p.id == tp.partition), None) if topic else None
    if partition is None or partition.offline:
        raise TransactionsError(f"partition {tp} has no leader: nothing can be asked of it until one is elected")
    return partition.leader


def abort_spec_at(
    connection: KafkaConnection, snapshot: ClusterSnapshot, tp: TopicPartition, start_offset: int, timeout_s: float
) -> AbortSpec:
    """The open transaction that starts at `start_offset`, from the partition leader's producers (as the tool's
    --start-offset); bad input when none starts there."""
    producers = describe_producers(connection, snapshot, [tp], timeout_s)[tp]
    spec = abort_spec_for(producers, start_offset)
    if spec is None:
        raise BadInput(
            f"Could not find any open transactions starting at offset {start_offset} on partition {tp}: "
            f"`kafkatop transactions describe-producers --topic {tp.topic} --partition {tp.partition}` shows where "
            "they start"
        )
    return spec


def abort_transaction(
    connection: KafkaConnection, snapshot: ClusterSnapshot, spec: AbortSpec, timeout_s: float
) -> None:
    """Write an ABORT marker for `spec`'s producer on its partition (WriteTxnMarkers to the partition's leader)."""
    require_supported(connection, "WriteTxnMarkers", TOOL)
    tp = TopicPartition(spec.topic, spec.partition)
    check_partitions(snapshot, [tp])
    deadline = time.monotonic() + timeout_s
    address = _address(snapshot.broker(_leader(snapshot, tp)), f"Failed to abort transaction {spec}")
    partitions: Mapping[str, Sequence[int]] = {spec.topic: [spec.partition]}
    body = write_txn_markers_body(spec.producer_id, spec.producer_epoch, spec.coordinator_epoch, partitions)
    _, payload = _exchange(address, deadline, connection, WRITE_TXN_MARKERS, body, timeout_s)
    results = decode_write_txn_markers(payload)
    if [(pid, p) for pid, p, _ in results] != [(spec.producer_id, tp)]:
        raise TransactionsError(f"Failed to abort transaction {spec}: the leader answered for another partition")
    code = results[0][2]
    if code:
        raise TransactionsError(f"Failed to abort transaction {spec}: {txn_error(code)}")
