"""Screenshots of the Produce, Consume and Groups tabs and of the offset reset's preview, at 80×24 (a default terminal)
and 120×36: fixed data (a recorded lab, what its consoles delivered, a recorded reset plan), no clock, no network."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any

import pytest
from textual import events
from textual.widgets import Input, Select

from kafkatop.backends.model.consoles import (
    AssignmentChange,
    ConsoleActivity,
    ConsumerView,
    Delivery,
    ProducerSettings,
    Received,
)
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.formats import (
    FieldFormat,
    Format,
    RegisteredSchema,
    SchemasSnapshot,
    SchemaType,
    TopicFormat,
)
from kafkatop.backends.model.resets import OffsetMove, ResetPlan, ResetTarget, plan_move
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.schemas.codec import SchemaCodec
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.groups.reset_offsets import ResetPreviewScreen
from tests.fixtures.snapshots import TAKEN_AT, RecordedControl, group_snapshot, zk_lab

FROZEN = Settings(poll_interval_s=86_400, ensemble_interval_s=86_400)
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 36), id="120x36")]

LONG = "an order line long enough to need a second row on a terminal of 80 columns: 3 × widget, 2 × gadget"


def activity() -> ConsoleActivity:
    """What the consoles did: seven messages sent (one refused by Kafka), two consumers of group billing."""
    deliveries = tuple(
        Delivery(i, "purchases", (i - 1) % 3, 120 + i, None, f"m{i}", None, 2.5) for i in range(1, 7)
    ) + (Delivery(7, "purchases", None, None, None, "m7", "NOT_ENOUGH_REPLICAS: in-sync replicas 1 < 2", None),)
    received = (
        Received("c1", "billing", "purchases", 0, 120, None, "k1", "m1"),
        Received("c1", "billing", "purchases", 1, 127, None, None, LONG),
        Received("c2", "billing", "purchases", 2, 134, None, "k3", "m3"),
    )
    c1 = (TopicPartition("purchases", 0), TopicPartition("purchases", 1))
    c2 = (TopicPartition("purchases", 2),)
    changes = (
        AssignmentChange("c1", "billing", "assigned", c1, TAKEN_AT),
        AssignmentChange("c2", "billing", "assigned", c2, TAKEN_AT),
    )
    consumers = (
        ConsumerView("c1", "billing", ("purchases",), "consuming", c1, 2, None),
        ConsumerView("c2", "billing", ("purchases",), "consuming", c2, 1, None),
    )
    return ConsoleActivity(deliveries, received, changes, 0, consumers)


def plan() -> ResetPlan:
    """`--to-offset 999999` on the snapshot's group: beyond every partition's log end, so each is clamped."""
    moves = [plan_move("purchases", p, "offset", 999_999, c, 0, e) for p, c, e in ((0, 120, 120), (1, 120, 127),
                                                                                  (2, 130, 134))]  # fmt: skip
    moves.append(OffsetMove("TestLAB2", 0, None, 7, 0, 7, 999_999))
    return ResetPlan("billing", "offset", 999_999, tuple(moves))


class RecordedConsoles:
    """TEST DOUBLE for Consoles: what a lab's consoles delivered, once, and a recorded reset plan; sends succeed
    without a cluster and the reset executes nothing."""

    def __init__(self) -> None:
        self._activity: ConsoleActivity | None = activity()

    def configure_producer(self, settings: ProducerSettings) -> None:
        pass

    def send(self, topic: str, line: str) -> int:
        return 1

    def send_many(self, topic: str, lines: Sequence[str]) -> int:
        return len(lines)

    def send_record(
        self, topic: str, key: bytes | None, value: bytes | None, headers: Sequence[tuple[str, bytes]] = ()
    ) -> int:
        return 1

    def send_test_messages(self, topic: str, count: int) -> int:
        return count

    def start_consumer(self, topics: Sequence[str], group: str | None, from_beginning: bool) -> str:
        raise KafkatopError("recorded data: no consumer to start")

    def stop_consumer(self, name: str) -> None:
        raise KafkatopError("recorded data: no consumer to stop")

    def pause_consumer(self, name: str, paused: bool) -> None:
        raise KafkatopError("recorded data: no consumer to pause")

    def plan_reset(self, group: str, topics: Sequence[str], to: ResetTarget, value: int | None) -> ResetPlan:
        return plan()

    def execute_reset(self, plan: ResetPlan) -> ResetPlan:
        raise KafkatopError("recorded data: nothing to reset")

    @property
    def pending(self) -> bool:
        return self._activity is not None

    def drain(self) -> ConsoleActivity | None:
        drained, self._activity = self._activity, None
        return drained

    def close(self) -> None:
        pass


class KeyedConsoles(RecordedConsoles):
    """TEST DOUBLE for Consoles, as RecordedConsoles: what the console delivered of two records sent in Avro with a key
    and two headers (their values as typed)."""

    def __init__(self) -> None:
        keyed = tuple(
            Delivery(i, "purchases", 0, 130 + i, "customer-7", f'{{"id": {i}, "item": "gadget"}}', None, 2.5, headers=2)
            for i in (1, 2)
        )
        self._activity = replace(activity(), deliveries=activity().deliveries[:2] + keyed)


AVRO = TopicFormat(FieldFormat(Format.AVRO, schema_file="customer.avsc"), FieldFormat(Format.AVRO, "orders.avsc"))


class RecordedRegistry:
    """TEST DOUBLE for SchemaRegistry: a registry holding purchases-value (Avro) and nothing else; the producer's hint
    is shown from it (the real adapter against the registry double: test_producer_fields_pilot.py)."""

    url = "http://registry.example:8081"

    def schema(self, subject: str, version: int | None = None) -> RegisteredSchema:
        if subject != "purchases-value":
            raise KafkatopError(f"schema registry: subject {subject} not found")
        return RegisteredSchema(subject, 1, 1, "AVRO", '"string"')

    def poll(self) -> SchemasSnapshot:
        return SchemasSnapshot(self.url)

    def schema_by_id(self, schema_id: int) -> RegisteredSchema:
        raise KafkatopError("recorded data: no schema by id")

    def register(self, subject: str, schema_type: SchemaType, schema: str) -> int:
        raise KafkatopError("recorded data: nothing to register")

    def close(self) -> None:
        pass


def console_app(
    consoles: RecordedConsoles | None = None, codec: SchemaCodec | None = None, schemas: RecordedRegistry | None = None
) -> KafkatopApp:
    snapshot = group_snapshot()
    _, nodes, zk = zk_lab()
    sources = Sources(lambda: snapshot, RecordedControl(nodes), lambda: zk, consoles=consoles or RecordedConsoles(),
                      codec=codec, schemas=schemas)  # fmt: skip
    return KafkatopApp(sources, FROZEN, clock=lambda: TAKEN_AT)


async def settled(pilot: Any) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def still(pilot: Any) -> None:
    """No blinking cursor: the screenshot would depend on the moment."""
    for field in pilot.app.query(Input):
        field.cursor_blink = False


def on_tab(key: str, then: Callable[[Any], Awaitable[None]] | None = None) -> Callable[[Any], Awaitable[None]]:
    async def show(pilot: Any) -> None:
        await settled(pilot)
        while pilot.app.sources.consoles.pending:  # the one drain
            await pilot.pause(0.02)
        await pilot.pause()
        await pilot.press(key)
        still(pilot)
        if then is not None:
            await then(pilot)
        await settled(pilot)
        await pilot.pause()

    return show


async def pasted(pilot: Any) -> None:
    """A topic picked and four lines pasted: the summary under the fields."""
    app = pilot.app
    app.query_one("#produce-topic", Input).value = "purchases"
    line = app.query_one("#produce-line", Input)
    line.focus()
    line.post_message(events.Paste("one\ntwo\nthree\nfour"))
    while "pasted" not in str(app.query_one("#produce-status").render()):
        await pilot.pause(0.02)


async def keyed(pilot: Any) -> None:
    """The topic's formats (Avro key and value, from kafkatop.toml) beside a key and headers filled in."""
    app = pilot.app
    app.query_one("#produce-topic", Input).value = "purchases"
    app.query_one("#produce-key", Input).value = "customer-7"
    app.query_one("#produce-headers", Input).value = "source=console,trace=7f3a"
    app.query_one("#produce-line", Input).focus()


async def previewed(pilot: Any) -> None:
    app = pilot.app
    app.query_one("#reset-to", Select).value = "offset"
    await pilot.pause()
    field = app.query_one("#reset-value", Input)
    field.value = "999999"
    field.focus()
    await pilot.press("enter")
    while not isinstance(app.screen, ResetPreviewScreen):
        await pilot.pause(0.02)


@pytest.mark.parametrize("size", SIZES)
def test_produce_tab(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(console_app(), terminal_size=size, run_before=on_tab("3", pasted))


@pytest.mark.parametrize("size", [pytest.param((80, 24), id="80x24"), pytest.param((160, 45), id="160x45")])
def test_produce_tab_with_a_key_headers_and_formats(snap_compare: Any, size: tuple[int, int]) -> None:
    app = console_app(KeyedConsoles(), SchemaCodec({"purchases": AVRO}, None))  # formats only: no schema is read
    assert snap_compare(app, terminal_size=size, run_before=on_tab("3", keyed))


@pytest.mark.parametrize("size", [pytest.param((80, 24), id="80x24"), pytest.param((160, 45), id="160x45")])
def test_produce_tab_on_an_auto_topic_whose_subject_the_registry_has(snap_compare: Any, size: tuple[int, int]) -> None:
    """Lines go as text (auto): the label says the registry has purchases-value, and the key that sets Avro."""
    app = console_app(KeyedConsoles(), SchemaCodec({}, None), RecordedRegistry())
    assert snap_compare(app, terminal_size=size, run_before=on_tab("3", keyed))


@pytest.mark.parametrize("size", SIZES)
def test_consume_tab(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(console_app(), terminal_size=size, run_before=on_tab("4"))


@pytest.mark.parametrize("size", SIZES)
def test_groups_tab(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(console_app(), terminal_size=size, run_before=on_tab("5"))


@pytest.mark.parametrize("size", SIZES)
def test_reset_preview(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(console_app(), terminal_size=size, run_before=on_tab("5", previewed))
