"""The message browser and `kafkatop consume` against a real Apache Kafka: the command compared with
kafka-console-consumer.sh on the same partition line for line (values; keys and values; a timestamp start); a page
sought by time through Kafka's own time index (ListOffsets by timestamp); LogAppendTime records; read_committed
hiding an aborted transaction's records that read_uncommitted shows; and no consumer group left behind by any of it.
Set KAFKA_HOME to run."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient

from kafkatop.backends.kafka.records.browser import MessageBrowser
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.messages import BEGINNING, SearchRequest, Seek, TimestampType
from tests.integration.test_real_kafka import KraftNode, create_topic

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(240)]

TOPIC = "browse"
COUNT = 300
# A day ago: Kafka 4 refuses records timestamped more than an hour ahead (log.message.timestamp.after.max.ms).
BASE_MS = (int(time.time()) - 86_400) * 1000


@pytest.fixture(scope="module")
def filled(kafka: KraftNode) -> KraftNode:
    create_topic(kafka, TOPIC, 2)
    create_topic(kafka, "appended", 1, {"message.timestamp.type": "LogAppendTime"})
    create_topic(kafka, "tx", 1)
    producer = Producer({"bootstrap.servers": kafka.bootstrap, "linger.ms": 5})
    for i in range(COUNT):
        key = None if i % 10 == 0 else f"k{i}".encode()
        value = None if i % 25 == 24 else f'{{"i": {i}, "tab": "a\\tb"}}'.encode()
        producer.produce(TOPIC, value, key=key, partition=i % 2, timestamp=BASE_MS + 1_000 * i,
                         headers=[("n", str(i).encode())])  # fmt: skip
    producer.produce("appended", b"x", timestamp=BASE_MS)  # the broker's time replaces the producer's
    assert producer.flush(30) == 0
    assert kafka_count(kafka) == COUNT
    tx = Producer({"bootstrap.servers": kafka.bootstrap, "transactional.id": "kafkatop-test-tx"})
    tx.init_transactions(30)
    for word, commit in (("kept-1", True), ("aborted-1", False), ("aborted-2", False), ("kept-2", True)):
        tx.begin_transaction()
        tx.produce("tx", word.encode(), partition=0)
        tx.flush(30)  # sent before the abort: an abort drops what is still queued
        tx.commit_transaction(30) if commit else tx.abort_transaction(30)
    return kafka


def kafka_count(node: KraftNode) -> int:
    browser = MessageBrowser(KafkaConnection.parse(node.bootstrap))
    try:
        return sum(w.count for w in browser.watermarks(TOPIC))
    finally:
        browser.close()


def console_consumer(node: KraftNode, *argv: str) -> list[str]:
    done = subprocess.run(
        [str(node.home / "bin" / "kafka-console-consumer.sh"), "--bootstrap-server", node.bootstrap, "--topic", TOPIC,
         "--timeout-ms", "15000", *argv],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    return done.stdout.splitlines()


def kafkatop_consume(node: KraftNode, *argv: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "kafkatop.tui.cli", "consume", "--bootstrap-server", node.bootstrap, "--topic", TOPIC,
         *argv],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_consume_prints_what_kafka_console_consumer_prints(filled: KraftNode) -> None:
    theirs = console_consumer(filled, "--partition", "1", "--offset", "0", "--max-messages", str(COUNT // 2))
    ours = kafkatop_consume(filled, "--partition", "1", "--offset", "0")
    assert len(ours) == COUNT // 2
    assert ours == theirs
    theirs = console_consumer(filled, "--partition", "0", "--offset", "40", "--max-messages", "30",
                              "--property", "print.key=true", "--property", "print.partition=true",
                              "--property", "print.offset=true")  # fmt: skip
    ours = kafkatop_consume(filled, "--partition", "0", "--offset", "40", "--max-messages", "30",
                            "--format", "Partition:%p\\tOffset:%o\\t%k\\t%v")  # fmt: skip
    # In a --format, no key or value prints as kcat prints it (nothing); the console consumer prints null.
    assert [re.sub(r"\t(?=\t|$)", "\tnull", line) for line in ours] == theirs
    assert "null" in "".join(kafkatop_consume(filled, "--partition", "0", "--offset", "40", "--max-messages", "30"))


@pytest.mark.skipif(shutil.which("kcat") is None, reason="needs kcat on PATH (apt install kcat)")
def test_consume_prints_what_kcat_prints(filled: KraftNode) -> None:
    def kcat(*argv: str) -> list[str]:
        done = subprocess.run(["kcat", "-C", "-e", "-b", filled.bootstrap, "-t", TOPIC, *argv], capture_output=True,
                              text=True, timeout=60, check=False)  # fmt: skip
        return done.stdout.splitlines()

    fmt = "%t %p %o %k %T %h %K %S %s\\n"
    assert kafkatop_consume(filled, "--partition", "1", "--offset", "-40", "--format", fmt) == kcat(
        "-p", "1", "-o", "-40", "-f", fmt
    )
    theirs = [json.loads(line) for line in kcat("-p", "0", "-o", "100", "-c", "25", "-J")]
    ours = [json.loads(line) for line in kafkatop_consume(filled, "--partition", "0", "--offset", "100",
                                                           "--max-messages", "25", "--json")]  # fmt: skip
    for record in theirs:
        del record["broker"]  # the leader's id: not a record's own field; kafkatop gives its leader epoch instead
    assert [{k: v for k, v in r.items() if k != "leader_epoch"} for r in ours] == theirs


def test_a_timestamp_start_is_kafkas_own_lookup(filled: KraftNode) -> None:
    at = BASE_MS + 1_000 * 151 + 500  # between records 151 and 152: the first at or after it is 152 (partition 0)
    ours = kafkatop_consume(filled, "--partition", "0", "--timestamp", str(at), "--format", "%o %T")
    assert ours[0] == f"76 {BASE_MS + 1_000 * 152}"  # record 152 is offset 76 of partition 0
    browser = MessageBrowser(KafkaConnection.parse(filled.bootstrap))
    try:
        page = browser.page(TOPIC, 0, Seek.timestamp(at), size=3)
        assert ([r.offset for r in page.records], page.note) == ([76, 77, 78], None)
        [appended] = browser.page("appended", 0, BEGINNING).records
        assert appended.timestamp_type is TimestampType.LOG_APPEND_TIME
        assert appended.timestamp_ms is not None and appended.timestamp_ms > BASE_MS
        found = browser.search(SearchRequest(TOPIC, r'"i": 2\d\d,', regex=True), lambda _: None, lambda: False)
        assert (found.scanned, found.matches) == (COUNT, 100 - 4)  # 200-299 less the 4 without a value
    finally:
        browser.close()


def test_read_committed_hides_aborted_records_that_read_uncommitted_shows(filled: KraftNode) -> None:
    browser = MessageBrowser(KafkaConnection.parse(filled.bootstrap))
    try:
        uncommitted = [r.value for r in browser.page("tx", 0, BEGINNING, "read_uncommitted").records]
        committed = [r.value for r in browser.page("tx", 0, BEGINNING, "read_committed").records]
    finally:
        browser.close()
    assert uncommitted == [b"kept-1", b"aborted-1", b"aborted-2", b"kept-2"]
    assert committed == [b"kept-1", b"kept-2"]
    ours = subprocess.run(
        [sys.executable, "-m", "kafkatop.tui.cli", "consume", "--bootstrap-server", filled.bootstrap, "--topic", "tx",
         "--isolation-level", "read_committed"], capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert ours.stdout.splitlines() == ["kept-1", "kept-2"]


def test_browsing_leaves_no_consumer_group(filled: KraftNode) -> None:
    admin = AdminClient({"bootstrap.servers": filled.bootstrap})
    kafkatop_consume(filled, "--max-messages", "5")
    time.sleep(0.5)
    groups = admin.list_consumer_groups(request_timeout=15).result(timeout=20)
    assert not [g.group_id for g in groups.valid if g.group_id.startswith("kafkatop-browser")]
