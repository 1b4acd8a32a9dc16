"""The producer console's key, headers and format fields (issue 29), driven by Textual's pilot at 80×24 against the
demo cluster's own consoles (the librdkafka mock over real sockets): what the console sent is read back with a
confluent-kafka Consumer — the key's bytes, the headers, the value's bytes as the topic's format made them.

The formats are the real codec's (backends/schemas/codec.py, SchemaCodec): JSON with no registry, and Avro in
Confluent's wire format through tests/doubles/schema_registry.py — a TEST DOUBLE of the Schema Registry (no real one
runs on these machines), named in that test's name — the record read back by confluent-kafka's AvroDeserializer. A
topic left in auto (lines go as text) whose value subject that registry has says so beside the fields.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer
from confluent_kafka.serialization import MessageField, SerializationContext
from textual import events
from textual.widgets import Input, RichLog, Static

from kafkatop.backends.demo.cluster import DemoCluster
from kafkatop.backends.demo.consoles import DemoConsoles
from kafkatop.backends.demo.node_control import DemoControl
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.formats import FieldFormat, Format, RegistrySettings, TopicFormat
from kafkatop.backends.schemas.codec import SchemaCodec
from kafkatop.backends.schemas.registry import ConfluentRegistry
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Settings, Sources
from tests.conftest import pilot_until
from tests.doubles.schema_registry import SchemaRegistryDouble
from tests.fixtures.demo import demo_with_consoles

SMALL = (80, 24)

Demo = tuple[DemoCluster, DemoControl, DemoConsoles]

JSON_VALUES = TopicFormat(value=FieldFormat(Format.JSON))


@pytest.fixture
def demo() -> Iterator[Demo]:
    with demo_with_consoles() as made:
        yield made


def make_app(demo: Demo, codec: Any = None, schemas: Any = None) -> KafkatopApp:
    cluster, control, consoles = demo
    admin = AdminSource(KafkaConnection.parse(cluster.bootstrap_servers), timeout_s=1.0, watch_groups=cluster.groups)
    sources = Sources(admin.poll, control, None, None, consoles, codec=codec, schemas=schemas)
    return KafkatopApp(sources, Settings(poll_interval_s=0.2))


def status(app: KafkatopApp) -> str:
    return str(app.main_screen.query_one("#produce-status", Static).render())


def said_format(app: KafkatopApp) -> str:
    return str(app.main_screen.query_one("#produce-format", Static).render())


DELIVERED = re.compile(r"✓ (.+)-(\d+) @(\d+)(?: key=(\S+))?(?: headers=(\d+))?  (.*)$")


def delivered(app: KafkatopApp) -> list[tuple[int, int, str | None, int, str]]:
    """(partition, offset, key, headers, value) of each ✓ line in the producer's log."""
    lines = [line.text for line in app.main_screen.query_one("#deliveries", RichLog).lines]
    found = (DELIVERED.match(line) for line in lines)
    return [(int(m[2]), int(m[3]), m[4], int(m[5] or 0), m[6]) for m in found if m]


async def producer_ready(pilot: Any, app: KafkatopApp, topic: str = "purchases") -> Input:
    await pilot_until(pilot, lambda: app.snapshot is not None, "the first poll")
    app.main_screen.action_tab(3)
    await pilot.pause()
    app.query_one("#produce-topic", Input).value = topic
    app.query_one("#target-partition", Input).value = "0"  # one partition: read back from where the log said
    line = app.query_one("#produce-line", Input)
    line.focus()
    return line


def read_back(demo: Demo, topic: str, partition: int, offset: int) -> Any:
    """The record at `offset`, read by a Consumer of confluent-kafka's own (no group)."""
    consumer = Consumer({"bootstrap.servers": demo[0].bootstrap_servers, "group.id": "read-back",
                         "enable.auto.commit": False})  # fmt: skip
    try:
        consumer.assign([TopicPartition(topic, partition, offset)])
        for _ in range(50):
            message = consumer.poll(0.2)
            if message is not None and message.error() is None:
                return message
        raise AssertionError(f"nothing read at {topic}-{partition} @{offset}")
    finally:
        consumer.close()


# --- key and headers ------------------------------------------------------------------------------------------------
async def test_the_key_and_headers_go_with_every_line_sent_while_filled(demo: Demo) -> None:
    app = make_app(demo)
    async with app.run_test(size=SMALL) as pilot:
        line = await producer_ready(pilot, app)
        assert said_format(app) == "value: text"  # no codec: lines go as they are typed, as before
        assert "every line" in app.query_one("#produce-key", Input).placeholder
        assert "every line" in app.query_one("#produce-headers", Input).placeholder
        app.query_one("#produce-key", Input).value = "customer-7"
        app.query_one("#produce-headers", Input).value = "source=kafkatop, trace=a=b=c,"  # a value may hold '='
        line.focus()
        await pilot.press(*"first", "enter", *"second", "enter")
        await pilot_until(pilot, lambda: len(delivered(app)) == 2, "two delivery lines")
        assert [(key, headers, value) for _, _, key, headers, value in delivered(app)] == [
            ("customer-7", 2, "first"), ("customer-7", 2, "second")
        ]  # fmt: skip

        for (partition, offset, *_), value in zip(delivered(app), (b"first", b"second"), strict=True):
            record = read_back(demo, "purchases", partition, offset)
            print("read back:", record.key(), record.headers(), record.value())
            assert record.key() == b"customer-7" and record.value() == value
            assert record.headers() == [("source", b"kafkatop"), ("trace", b"a=b=c")]

        app.query_one("#produce-key", Input).value = ""
        app.query_one("#produce-headers", Input).value = ""
        line.focus()
        await pilot.press(*"third", "enter")  # emptied: no key, no headers
        await pilot_until(pilot, lambda: len(delivered(app)) == 3, "a third delivery line")
        partition, offset, key, headers, value = delivered(app)[2]
        assert (key, headers, value) == (None, 0, "third")
        record = read_back(demo, "purchases", partition, offset)
        assert record.key() is None and record.headers() is None and record.value() == b"third"


@pytest.mark.parametrize(
    ("headers", "said"),
    [
        ("source=kafkatop,nosign", "headers: 'nosign' has no '=': write name=value, several separated by commas"),
        ("source=kafkatop, =v", "headers: '=v' has no name before its '=' (write name=value)"),
    ],
)
async def test_a_bad_header_says_what_is_wrong_and_sends_nothing(demo: Demo, headers: str, said: str) -> None:
    app = make_app(demo)
    async with app.run_test(size=SMALL) as pilot:
        line = await producer_ready(pilot, app)
        app.query_one("#produce-headers", Input).value = headers
        line.focus()
        await pilot.press(*"keep me", "enter")
        await pilot_until(pilot, lambda: status(app) == said, said)
        assert line.value == "keep me"  # the typed line kept, to send once the headers are fixed
        line.post_message(events.Paste("one\ntwo"))
        await pilot_until(pilot, lambda: status(app) == f"{said} (2 pasted lines not sent: paste them again)")
        await pilot.pause(0.3)
        assert delivered(app) == []


async def test_a_key_with_a_key_separator_is_refused(demo: Demo) -> None:
    app = make_app(demo)
    async with app.run_test(size=SMALL) as pilot:
        line = await producer_ready(pilot, app)
        app.query_one("#produce-key", Input).value = "k"
        app.query_one("#key-separator", Input).value = ":"
        line.focus()
        await pilot.press(*"a:b", "enter")
        await pilot_until(pilot, lambda: status(app).startswith("key: a key separator is set too"))
        assert line.value == "a:b"


async def test_escape_leaves_the_new_fields_and_focus_does_not_select_what_they_hold(demo: Demo) -> None:
    app = make_app(demo)
    async with app.run_test(size=SMALL) as pilot:
        await producer_ready(pilot, app)
        for selector in ("#produce-key", "#produce-headers"):
            field = app.query_one(selector, Input)
            field.value = "ab"
            field.cursor_position = 2
            field.focus()
            await pilot.pause()
            await pilot.press("c")  # (select-all on focus would make it "c")
            assert field.value == "abc"
            await pilot.press("escape")
            assert not isinstance(app.focused, Input), f"escape left {selector}"
        app.query_one("#produce-key", Input).focus()
        await pilot.press("enter")  # Enter in the key (or the headers) field: on to the message
        assert app.focused is app.query_one("#produce-line", Input)


# --- formats --------------------------------------------------------------------------------------------------------
async def test_a_json_value_goes_as_typed_and_a_line_that_does_not_fit_is_kept(demo: Demo) -> None:
    codec = SchemaCodec({"purchases": JSON_VALUES}, None)
    app = make_app(demo, codec)
    async with app.run_test(size=SMALL) as pilot:
        line = await producer_ready(pilot, app)
        await pilot_until(pilot, lambda: said_format(app) == "value: json", "the topic's format beside the fields")
        assert line.placeholder.startswith("a JSON value; Enter sends it")
        app.query_one("#produce-key", Input).value = "k1"  # a key in auto: sent as typed
        line.focus()
        await pilot.press(*'{"id": 7, "item": "gadget"}', "enter")
        await pilot_until(pilot, lambda: len(delivered(app)) == 1, "the delivery line")
        partition, offset, key, _, value = delivered(app)[0]
        assert (key, value) == ("k1", '{"id": 7, "item": "gadget"}')
        record = read_back(demo, "purchases", partition, offset)
        assert record.key() == b"k1" and record.value() == b'{"id": 7, "item": "gadget"}'

        await pilot.press(*'{"id": ', "enter")
        await pilot_until(pilot, lambda: status(app).startswith("value: not JSON"), "the format's refusal")
        assert status(app) == "value: not JSON: Expecting value: line 1 column 8 (char 7)"
        assert line.value == '{"id": '  # kept in the field, to fix and send again

        line.value = ""
        line.post_message(events.Paste('{"id": 8}\nnot json\n{"id": 9}'))
        await pilot_until(pilot, lambda: status(app).startswith("line 2: value: not JSON"), "line 2 refused")
        assert status(app).endswith("(3 pasted lines not sent: paste them again)")
        await pilot.pause(0.3)
        assert len(delivered(app)) == 1  # not one of the three: every line is encoded before any is sent

        codec.set_format("purchases", TopicFormat(key=FieldFormat(Format.JSON), value=FieldFormat(Format.JSON)))
        await pilot_until(pilot, lambda: said_format(app) == "value: json · key: json", "a format changed elsewhere")
        line.post_message(events.Paste('{"id": 8}\n{"id": 9}'))
        await pilot_until(pilot, lambda: status(app).startswith("key: not JSON"), "the key field refused, once")
        app.query_one("#produce-key", Input).value = '["customer",7]'
        line.post_message(events.Paste('{"id": 8}\n{"id": 9}'))
        await pilot_until(pilot, lambda: len(delivered(app)) == 3, "two more delivery lines")
        partition, offset, key, _, value = delivered(app)[2]
        assert (key, value) == ('["customer",7]', '{"id": 9}')
        record = read_back(demo, "purchases", partition, offset)
        assert record.key() == b'["customer",7]' and record.value() == b'{"id": 9}'


ORDER = {
    "type": "record", "name": "Order", "namespace": "shop",
    "fields": [{"name": "id", "type": "long"}, {"name": "item", "type": "string"}],
}  # fmt: skip


async def test_avro_lines_go_in_the_wire_format_through_the_schema_registry_double(demo: Demo, tmp_path: Path) -> None:
    (tmp_path / "orders.avsc").write_text(json.dumps(ORDER))
    with SchemaRegistryDouble() as double:
        registry = ConfluentRegistry(RegistrySettings(double.url), timeout_s=5)
        avro = TopicFormat(value=FieldFormat(Format.AVRO, schema_file="orders.avsc"))
        codec = SchemaCodec({"orders": avro}, registry, base_dir=tmp_path)
        app = make_app(demo, codec)
        try:
            async with app.run_test(size=SMALL) as pilot:
                line = await producer_ready(pilot, app, topic="orders")
                await pilot_until(pilot, lambda: said_format(app) == "value: avro (orders.avsc)", "the format")
                app.query_one("#produce-headers", Input).value = "source=console"
                line.focus()
                await pilot.press(*'{"id": "seven", "item": "gadget"}', "enter")
                said = 'value: the text does not fit {}: field shop.Order.id: "seven" is not "long"'
                await pilot_until(pilot, lambda: status(app) == said.format(tmp_path / "orders.avsc"), "the field")
                assert line.value == '{"id": "seven", "item": "gadget"}'  # kept: fix the field, Enter again
                line.value = '{"id": 7, "item": "gadget"}'
                await pilot.press("enter")
                await pilot_until(pilot, lambda: len(delivered(app)) == 1, "the delivery line")
                partition, offset, key, headers, value = delivered(app)[0]
                assert (key, headers, value) == (None, 1, '{"id": 7, "item": "gadget"}')  # as typed, not its bytes
        finally:
            registry.close()
        record = read_back(demo, "orders", partition, offset)
        schema_id = double.store.register("orders-value", {"schema": json.dumps(ORDER), "schemaType": "AVRO"})
        assert record.value()[:5] == b"\x00" + schema_id.to_bytes(4, "big")  # registered by the console's send
        reader = AvroDeserializer(SchemaRegistryClient({"url": double.url}))
        assert reader(record.value(), SerializationContext("orders", MessageField.VALUE)) == {"id": 7, "item": "gadget"}
        assert record.headers() == [("source", b"console")]


async def test_an_auto_topic_says_the_registry_has_its_value_subject_through_the_schema_registry_double(
    demo: Demo, tmp_path: Path
) -> None:
    """Lines to an auto topic go as text: the format label says the registry has its value subject (asked once per
    topic the cluster has, not per poll nor per letter typed) and how to use it; once F sets avro, lines go in the
    wire format under that subject."""
    with SchemaRegistryDouble() as double:
        schema_id = double.register("orders-value", json.dumps(ORDER))
        registry = ConfluentRegistry(RegistrySettings(double.url), timeout_s=5)
        codec = SchemaCodec({}, registry, base_dir=tmp_path)
        app = make_app(demo, codec, registry)
        latest = "/subjects/{}-value/versions/latest"
        try:
            async with app.run_test(size=SMALL) as pilot:
                line = await producer_ready(pilot, app, topic="orders")
                said = "value: text · registry has avro (orders-value): F in Messages sets it"
                await pilot_until(pilot, lambda: said_format(app) == said, "the registry's subject said")
                assert app.query_one("#produce-format", Static).tooltip == said  # whole, where 80 columns cut it
                await pilot.pause(0.6)  # polls drawn meanwhile: not asked again
                assert double.count("GET", latest.format("orders")) == 1
                topic = app.query_one("#produce-topic", Input)
                topic.value = "purchases"  # no subject of its own: nothing more said
                await pilot_until(pilot, lambda: double.count("GET", latest.format("purchases")) == 1, "asked")
                await pilot.pause(0.3)
                assert said_format(app) == "value: text"
                topic.value = "ord"  # not a topic of the cluster's (a prefix typed): not asked
                await pilot.pause(0.3)
                assert double.count("GET", latest.format("ord")) == 0

                codec.set_format("orders", TopicFormat(value=FieldFormat(Format.AVRO)))  # as F in Messages does
                topic.value = "orders"
                await pilot_until(pilot, lambda: said_format(app) == "value: avro", "avro said, the hint gone")
                line.focus()
                await pilot.press(*'{"id": 7, "item": "gadget"}', "enter")
                await pilot_until(pilot, lambda: len(delivered(app)) == 1, "the delivery line")
                partition, offset, *_ = delivered(app)[0]
        finally:
            registry.close()
        record = read_back(demo, "orders", partition, offset)
        assert record.value()[:5] == b"\x00" + schema_id.to_bytes(4, "big")  # the subject's latest, as said
