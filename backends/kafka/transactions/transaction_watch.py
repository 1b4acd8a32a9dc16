"""The live view's transactions: every coordinator's transactional ids (ListTransactions, one per broker), and those
not ended yet described by their coordinators (DescribeTransactions): their state, producer, partitions and age —
what holds read_committed consumers back."""

from __future__ import annotations

import time
from collections.abc import Sequence

from kafkatop.backends.kafka.transactions.transactions import describe_transactions, list_transactions
from kafkatop.backends.model.cluster import Broker
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.transactions import OPEN_STATES, OpenTransactions


class TransactionWatch:
    """OpenTransactions on demand, each call within `timeout_s`; TransactionsError or Unsupported (a KafkatopError)
    when the cluster cannot say."""

    def __init__(self, connection: KafkaConnection, timeout_s: float = 10.0) -> None:
        self.connection = connection
        self.timeout_s = timeout_s

    def open_transactions(self, brokers: Sequence[Broker]) -> OpenTransactions:
        listed = list_transactions(self.connection, brokers, self.timeout_s)
        ids = [t.transactional_id for t in listed if t.state in OPEN_STATES]
        described = describe_transactions(self.connection, ids, self.timeout_s) if ids else {}
        now_ms = int(time.time() * 1000)
        found = [d for d in described.values() if d is not None and d.state in OPEN_STATES]
        found.sort(key=lambda d: (-(d.duration_ms(now_ms) or 0), d.transactional_id))
        return OpenTransactions(now_ms, tuple(found), len(listed))
