"""A scenario's transactions (backends/checks/scenario/transactions.py) on librdkafka's mock cluster: a transaction
committed, one left open and gone on with by the next step, one aborted; the records read count only this run's.
The mock keeps no last stable offset and no abort markers (read_committed reads everything there), so what each
isolation level reads, and the abort a leader kill forces, are checked on a real Kafka 4.1:
tests/integration/test_scenario_kafka.py (`transaction`)."""

from __future__ import annotations

from kafkatop.backends.checks.scenario.transactions import ScenarioTransactions, TransactionEnd
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.connection import KafkaConnection


def test_commit_open_go_on_and_abort(mock_cluster: MockCluster) -> None:
    mock_cluster.create_topic("orders", 2, 3)
    connection = KafkaConnection.parse(mock_cluster.bootstrap_servers)
    ours, theirs = ScenarioTransactions(connection, "ours"), ScenarioTransactions(connection, "theirs")
    try:
        assert ours.send("orders", 2, 20, "commit") == TransactionEnd("committed", 20, None)
        assert ours.send("orders", 2, 30, "open") == TransactionEnd("open", 30, None)
        assert ours.send("orders", 2, 10, "abort") == TransactionEnd("aborted", 40, None)  # the open one, gone on with
        assert str(ours.last) == "aborted, 40 records in it"
        assert ours.send("orders", 2, 5, "commit").records == 5  # a new one
        assert ours.read("orders", "read_uncommitted") == 65
        assert theirs.read("orders", "read_uncommitted") == 0  # another run's records are not this run's
    finally:
        ours.close()
        theirs.close()


def test_an_abort_left_pending_says_so() -> None:
    pending = TransactionEnd("aborted", 40, "_MSG_TIMED_OUT: Local: Message timed out", complete=False)
    assert str(pending) == ("aborted, 40 records in it (_MSG_TIMED_OUT: Local: Message timed out); the abort is not "
                            "complete: its markers wait for the partitions' ISRs")  # fmt: skip
