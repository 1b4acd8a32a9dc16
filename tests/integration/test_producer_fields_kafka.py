"""The producer console's key and headers fields end to end against a real Kafka 4.1 KRaft node: lines typed in the
Produce tab (Textual's pilot, 80×24) with a key and two headers, delivered by kafkatop's Consoles, and read back by a
confluent-kafka Consumer of the test's own — the key's bytes and the headers as Kafka stored them. Skipped without
KAFKA_HOME."""

from __future__ import annotations

import re
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition
from textual.widgets import Input, RichLog

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.records.consoles import Consoles
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Settings, Sources
from tests.conftest import pilot_until
from tests.integration.test_real_kafka import KraftNode, create_topic, wait_topic_led

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(300)]  # the node's start is in the first (only) test

DELIVERED = re.compile(r"✓ orders-(\d+) @(\d+) key=(\S+) headers=(\d+)  (.*)$")


def read(bootstrap: str, partition: int, offsets: list[int]) -> list[Any]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "read-back", "enable.auto.commit": False})
    try:
        consumer.assign([TopicPartition("orders", partition, min(offsets))])
        got: list[Any] = []
        for _ in range(100):
            message = consumer.poll(0.2)
            if message is not None and message.error() is None:
                got.append(message)
            if len(got) == len(offsets):
                return got
        raise AssertionError(f"read {len(got)} of {len(offsets)} records at orders-{partition}")
    finally:
        consumer.close()


async def test_a_key_and_headers_typed_in_the_console_reach_kafka(kafka: KraftNode) -> None:
    connection = KafkaConnection.parse(kafka.bootstrap)
    admin = AdminSource(connection, timeout_s=5.0)
    create_topic(kafka, "orders", 2)
    wait_topic_led(admin, "orders", 2)
    consoles = Consoles(connection)
    app = KafkatopApp(Sources(admin.poll, consoles=consoles), Settings(poll_interval_s=0.5))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot_until(pilot, lambda: app.view.cluster is not None, "the first poll")
            await pilot.press("3")  # Produce: focus in its topic field
            await pilot.press(*"orders")
            app.query_one("#produce-key", Input).value = "customer-7"
            app.query_one("#produce-headers", Input).value = "source=kafkatop,trace=a=b"
            app.query_one("#produce-line", Input).focus()
            await pilot.press(*"first", "enter", *"second", "enter")
            log = app.query_one("#deliveries", RichLog)

            def delivered() -> list[re.Match[str]]:
                return [m for m in (DELIVERED.match(line.text) for line in log.lines) if m]

            await pilot_until(pilot, lambda: len(delivered()) == 2, "two delivery lines", timeout_s=30)
            lines = delivered()
    finally:
        consoles.close()
    print("\n".join(m[0] for m in lines))
    assert [(m[3], m[4], m[5]) for m in lines] == [("customer-7", "2", "first"), ("customer-7", "2", "second")]
    assert len({m[1] for m in lines}) == 1  # one key: one partition
    records = read(kafka.bootstrap, int(lines[0][1]), [int(m[2]) for m in lines])
    for record, value in zip(records, (b"first", b"second"), strict=True):
        print("read back:", record.partition(), record.offset(), record.key(), record.headers(), record.value())
        assert (record.key(), record.value()) == (b"customer-7", value)
        assert record.headers() == [("source", b"kafkatop"), ("trace", b"a=b")]
