"""`kafkatop transactions` against a cluster that serves none of its requests (the librdkafka mock: no
ListTransactions, DescribeTransactions, DescribeProducers or WriteTxnMarkers): one line saying what is not shown and
why, exit 1, never a traceback; bad input is still refused as bad input (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkatop.backends.kafka.mock import MockCluster
from tests.integration.test_bad_input import kafkatop

CASES = [
    (["list"], "no transactions listed: {} does not offer ListTransactions (a Kafka too old for it?)"),
    (["describe", "--transactional-id", "pay-1"],
     "no transaction described: {} does not offer DescribeTransactions (a Kafka too old for it?)"),
    (["describe-producers", "--topic", "orders", "--partition", "0"],
     "no producers described: {} does not offer DescribeProducers (a Kafka too old for it?)"),
    (["find-hanging", "--topic", "orders"],
     "no hanging transactions searched for: {} does not offer DescribeProducers (a Kafka too old for it?)"),
    (["find-hanging", "--broker-id", "1", "--topic", "empty"],
     "no hanging transactions searched for: {} does not offer DescribeProducers (a Kafka too old for it?)"),
    (["abort", "--topic", "orders", "--partition", "0", "--producer-id", "7", "--producer-epoch", "0",
      "--coordinator-epoch", "0", "--yes"],
     "nothing aborted: {} does not offer WriteTxnMarkers (a Kafka too old for it?)"),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "says"), CASES, ids=[" ".join(a[:1] + a[-1:]) for a, _ in CASES])
def test_a_cluster_without_the_transaction_apis_gets_one_line(tmp_path: Path, argv: list[str], says: str) -> None:
    with MockCluster(1) as mock:
        mock.create_topic("orders", 2, 1)
        mock.create_topic("empty", 1, 1)
        done = kafkatop("transactions", *argv, "--bootstrap-server", mock.bootstrap_servers, "--timeout", "10",
                        cwd=tmp_path)  # fmt: skip
    lines = done.stderr.splitlines()
    assert done.returncode == 1, done.stdout + done.stderr
    assert len(lines) == 1 and lines[0].startswith("kafkatop: "), done.stderr
    address = lines[0].split(": ")[2].split(" ")[0]  # the broker asked: 127.0.0.1:PORT
    assert lines[0] == "kafkatop: " + says.format(address)
    assert done.stdout == ""


def test_a_search_with_no_partition_to_ask_still_says_the_cluster_cannot_answer(tmp_path: Path) -> None:
    with MockCluster(1) as mock:  # no topic: no DescribeProducers to send, and still none could be
        done = kafkatop("transactions", "find-hanging", "--broker-id", "1", "--bootstrap-server",
                        mock.bootstrap_servers, "--timeout", "10", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 1 and done.stdout == ""
    assert "no hanging transactions searched for: " in done.stderr and "does not offer DescribeProducers" in done.stderr


def test_bad_input_is_refused_before_the_cluster_is_asked(tmp_path: Path) -> None:
    with MockCluster(1) as mock:
        mock.create_topic("orders", 2, 1)
        flags = ["--bootstrap-server", mock.bootstrap_servers, "--timeout", "10"]
        unknown = kafkatop("transactions", "abort", "--topic", "orders", "--partition", "5", "--start-offset", "0",
                           "--yes", *flags, cwd=tmp_path)  # fmt: skip
        no_scope = kafkatop("transactions", "find-hanging", *flags, cwd=tmp_path)
    assert unknown.returncode == 2 and "unknown partition orders-5: topic 'orders' has partitions 0–1" in unknown.stderr
    assert no_scope.returncode == 2
    assert "requires either --topic or --broker-id" in no_scope.stderr
    assert "Traceback" not in unknown.stderr + no_scope.stderr
