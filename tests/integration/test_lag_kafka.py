"""`kafkatop lag` against a real Apache Kafka 4.1 (KAFKA_HOME), as an operator's cron job would run it: a group
consumes while a producer goes on; its consumer is stopped; the group is STOP within the window, its lag in time is the
age of its oldest unread record (±20 %), `--fail-on stop` exits 14; the consumer resumes and catches up: OK, exit 0;
records deleted under the committed offset (DeleteRecords): ERR, exit 15. Kafka's own kafka-consumer-groups.sh is
asked for the same lag in records. A console consumer paused (the Consume tab's Pause/Resume) while the producer goes
on: STALL, exit 13; resumed: OK.

One combined node on ports 30540-30541. Run: KAFKA_HOME=/opt/kafka_2.13-4.1.0 .venv/bin/python -m pytest -q -m kafka \
  tests/integration/test_lag_kafka.py
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition

from kafkatop.backends.kafka.records.consumers import ConsumerPool
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.tui.cli.main import main
from tests.conftest import wait_for
from tests.integration.test_real_kafka import (
    CLIENT_LOGGER,
    KraftNode,
    admin_client,
    create_topic,
    start_node,
    stop_node,
)

pytestmark = pytest.mark.kafka

TOPIC, GROUP = "orders", "billing"
RATE = 20  # records/s the producer goes on at


@pytest.fixture(scope="module")
def kafka(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[KraftNode]:
    node = start_node(kafka_home, tmp_path_factory.mktemp("lag"), ports=(30540, 30541))
    try:
        create_topic(node, TOPIC, 2)
        yield node
    finally:
        stop_node(node.proc)


class Producing:
    """A producer at RATE records/s on its own thread, until stopped."""

    def __init__(self, node: KraftNode) -> None:
        self.producer = Producer({"bootstrap.servers": node.bootstrap, "linger.ms": 5, "logger": CLIENT_LOGGER})
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        i = 0
        while not self.done.wait(1 / RATE):
            self.producer.produce(TOPIC, value=f"r{i}".encode(), partition=i % 2)
            self.producer.poll(0)
            i += 1

    def stop(self) -> None:
        self.done.set()
        self.thread.join(10)
        self.producer.flush(10)


def consume_to_the_end(node: KraftNode, seconds: float) -> float:
    """A member of GROUP reads and commits for `seconds`, then leaves; returns when it last read (time.time())."""
    consumer = Consumer({"bootstrap.servers": node.bootstrap, "group.id": GROUP, "auto.offset.reset": "earliest",
                         "enable.auto.commit": False, "logger": CLIENT_LOGGER})  # fmt: skip
    consumer.subscribe([TOPIC])
    last = time.time()
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            m = consumer.poll(0.2)
            if m is not None and m.error() is None:
                consumer.commit(message=m, asynchronous=False)
                last = time.time()
    finally:
        consumer.close()
    return last


def lag(
    node: KraftNode, capsys: pytest.CaptureFixture[str], *argv: str, group: str = GROUP
) -> tuple[int, dict[str, object]]:
    code = main(["lag", "--bootstrap-server", node.bootstrap, "--group", group, "--json", "--interval", "0.5", *argv])
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1, out
    return code, json.loads(out[0])


def test_a_stopped_consumer_is_stop_then_ok_once_caught_up_and_err_under_the_log_start(
    kafka: KraftNode, capsys: pytest.CaptureFixture[str]
) -> None:
    producing = Producing(kafka)
    try:
        consume_to_the_end(kafka, 6.0)
        stopped_at = time.time()
        code, group = lag(kafka, capsys, "--window", "6", "--fail-on", "stop")
        assert (code, group["status"]) == (14, "STOP"), group
        assert isinstance(group["lag"], int) and group["lag"] >= 6 * RATE * 0.5
        # The oldest unread record was written about when the consumer stopped: its age is the wall time since.
        age = time.time() - stopped_at
        assert isinstance(group["lag_seconds"], float) and 0.8 * age <= group["lag_seconds"] <= 1.2 * age + 1, group
        code, later = lag(kafka, capsys, "--window", "3", "--fail-on", "stop")
        assert later["status"] == "STOP" and isinstance(later["lag_seconds"], float)
        assert later["lag_seconds"] > group["lag_seconds"] + 2  # it grows with wall time
        # --fail-on err: STOP is below it, exit 0.
        assert lag(kafka, capsys, "--window", "1", "--fail-on", "err")[0] == 0

        resumed = threading.Thread(target=consume_to_the_end, args=(kafka, 14.0))
        resumed.start()
        time.sleep(4)  # caught up by then (it reads hundreds a second)
        code, caught_up = lag(kafka, capsys, "--window", "6", "--fail-on", "stop")
        resumed.join()
        assert (code, caught_up["status"]) == (0, "OK"), caught_up
        assert caught_up["consume_rate"] is not None and caught_up["consume_rate"] > 0
    finally:
        producing.stop()

    # Kafka's own tool sees the same lag in records, now that nothing moves.
    code, quiet = lag(kafka, capsys, "--window", "1")
    committed = {(p["topic"], p["partition"]): p["committed"] for p in quiet["partitions"]}  # type: ignore[union-attr]
    described = tool_lags(kafka)
    assert {tp: lag for tp, (_, lag) in described.items()} == {
        (p["topic"], p["partition"]): p["lag"]
        for p in quiet["partitions"]  # type: ignore[union-attr]
    }
    assert {tp: c for tp, (c, _) in described.items()} == committed

    # Records deleted under the committed offset of partition 0: ERR.
    produce_more(kafka, 30)
    high = Consumer({"bootstrap.servers": kafka.bootstrap, "group.id": "probe", "logger": CLIENT_LOGGER})
    _, end = high.get_watermark_offsets(KafkaTopicPartition(TOPIC, 0), timeout=10)
    high.close()
    admin = admin_client(kafka)
    for f in admin.delete_records([KafkaTopicPartition(TOPIC, 0, end)], request_timeout=20).values():
        f.result(20)
    code, err = lag(kafka, capsys, "--window", "1")
    assert (code, err["status"]) == (15, "ERR"), err
    assert str(err["why"]).startswith(f"{TOPIC}-0: committed offset ") and f"below the log start {end:,}" in str(
        err["why"]
    )


def test_a_paused_console_consumer_is_stall_and_ok_once_resumed(
    kafka: KraftNode, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Consume tab's Pause/Resume (ConsumerPool.pause) on a real broker: the member stays in its group, holding
    its partitions, while the producer goes on — STALL, exit 13 with --fail-on stall; resumed: OK."""
    producing = Producing(kafka)
    pool = ConsumerPool(KafkaConnection.parse(kafka.bootstrap))
    try:
        pool.start([TOPIC], "audit", from_beginning=True)
        wait_for(lambda: pool.views()[0].state == "consuming", timeout_s=30, what="c1 consuming")
        time.sleep(6)  # its first auto-commit (every 5 s)
        pool.pause("c1", True)
        time.sleep(6)  # its last commit: what it read before the pause
        code, group = lag(kafka, capsys, "--window", "15", "--fail-on", "stall", group="audit")
        assert (code, group["status"]) == (13, "STALL"), group
        assert str(group["why"]).startswith(f"{TOPIC}-") and "a member holds offset" in str(group["why"])
        described = tool_describe(kafka, "audit")  # Kafka's own tool: a member owns each partition, lag > 0
        assert described and all(r[6] != "-" and int(r[5]) > 0 for r in described), described
        pool.pause("c1", False)
        time.sleep(6)  # caught up, and committed (5 s)
        code, resumed = lag(kafka, capsys, "--window", "4", "--fail-on", "stall", group="audit")
        assert (code, resumed["status"]) == (0, "OK"), resumed
    finally:
        pool.close()
        producing.stop()


def produce_more(node: KraftNode, n: int) -> None:
    producer = Producer({"bootstrap.servers": node.bootstrap, "logger": CLIENT_LOGGER})
    for _ in range(n):
        producer.produce(TOPIC, value=b"x", partition=0)
    assert producer.flush(20) == 0


def tool_lags(node: KraftNode) -> dict[tuple[str, int], tuple[int, int]]:
    """kafka-consumer-groups.sh --describe's CURRENT-OFFSET and LAG per partition."""
    return {(r[1], int(r[2])): (int(r[3]), int(r[5])) for r in tool_describe(node, GROUP)}


def tool_describe(node: KraftNode, group: str) -> list[list[str]]:
    """kafka-consumer-groups.sh --describe's rows: GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG
    CONSUMER-ID HOST CLIENT-ID."""
    done = subprocess.run(
        [str(node.home / "bin" / "kafka-consumer-groups.sh"), "--bootstrap-server", node.bootstrap, "--describe",
         "--group", group], capture_output=True, text=True, timeout=120, check=True, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    return [line.split() for line in done.stdout.splitlines() if line.startswith(group + " ")]


def test_bad_input_is_said_and_nothing_polled(kafka: KraftNode, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["lag", "--bootstrap-server", kafka.bootstrap, "--window", "0"])
    assert exited.value.code == 2
    assert "--window: expected a number of seconds above 0; not '0'" in capsys.readouterr().err
