"""Names others choose are text (tests/fixtures/hostile.py): on the librdkafka mock, topics, consumer groups (offsets
committed under their ids) and records are named and filled with markup and escape sequences; the transactions,
a connector, an ACL principal and a schema subject come from TEST DOUBLES of their ports (the mock has no
ListTransactions, no Connect, no authorizer, and no Schema Registry can run here; the registry double speaks its
REST API to the real adapter). Every tab and every dialog that shows them is driven, headless: the app does not crash
(a `[/]` in a confirmation's title once quit it), each name is shown as written, escaped where it holds control
characters, and nothing the names hold reaches the terminal raw. The same names on a real Kafka 4.1:
test_hostile_names_kafka.py."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition
from textual.widgets import Input, TabbedContent

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.groups.group_admin import GroupTools
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.kafka.records.browser import MessageBrowser
from kafkatop.backends.kafka.records.consoles import Consoles
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.formats import RegistrySettings
from kafkatop.backends.model.transactions import OpenTransactions, TransactionDescription
from kafkatop.backends.schemas.registry import ConfluentRegistry
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.screens.confirm import ConfirmScreen
from kafkatop.tui.live.screens.record import RecordScreen
from kafkatop.tui.live.screens.transactions import TransactionsScreen
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.groups.pane import GroupsPane
from kafkatop.tui.live.tabs.messages.pane import MessagesPane
from kafkatop.tui.live.tabs.partitions.pane import PartitionTable
from kafkatop.tui.live.widgets.line_table import LineTable
from tests.conftest import pilot_until
from tests.doubles.schema_registry import SchemaRegistryDouble
from tests.fixtures.acl_views import RecordedAcls, acls_snapshot, binding
from tests.fixtures.connect_views import RecordedConnect, connect_snapshot
from tests.fixtures.hostile import NAMES, SHORT, raw_controls, screen_text, seen, terminal_output
from tests.integration.test_app_demo import log_text

TOPIC = "orders"
KINDS = list(SHORT)  # one of each kind where one thing of each is planted


class OpenTransactionsDouble:
    """TEST DOUBLE of the TransactionReader port (the mock has no ListTransactions): an Ongoing transaction under
    each hostile transactional id."""

    def open_transactions(self, brokers: Any) -> OpenTransactions:
        now = 1_760_000_000_000
        described = tuple(
            TransactionDescription(1, name, 1000 + i, 0, "Ongoing", 60_000, now - 5_000, ())
            for i, name in enumerate(NAMES.values())
        )
        return OpenTransactions(now, described, len(described))


@pytest.fixture
def planted(mock_cluster: MockCluster) -> Iterator[MockCluster]:
    """The mock with a topic of each hostile name, `orders` with a hostile record, and a group of each name."""
    for name in NAMES.values():
        mock_cluster.create_topic(name, 1, 3)
    mock_cluster.create_topic(TOPIC, 1, 3)
    producer = Producer({"bootstrap.servers": mock_cluster.bootstrap_servers})
    for name in SHORT.values():
        producer.produce(TOPIC, value=name.encode(), key=name.encode(), headers=[(name, name.encode())])
    producer.flush(10)
    for name in NAMES.values():
        consumer = Consumer({"bootstrap.servers": mock_cluster.bootstrap_servers, "group.id": name})
        consumer.commit(offsets=[KafkaTopicPartition(TOPIC, 0, 1)], asynchronous=False)
        consumer.close()
    yield mock_cluster


def hostile_app(mock: MockCluster, registry_url: str, stack: list[Any]) -> KafkatopApp:
    connection = KafkaConnection.parse(mock.bootstrap_servers)
    admin = AdminSource(connection, timeout_s=2.0, watch_groups=tuple(NAMES.values()))
    consoles, browser = Consoles(connection), MessageBrowser(connection)
    registry = ConfluentRegistry(RegistrySettings(registry_url))
    stack += [admin.close, consoles.close, browser.close]
    snapshot = connect_snapshot()
    connectors = tuple(replace(c, name=name) for c, name in zip(snapshot.connectors, SHORT.values(), strict=False))
    workers = tuple(replace(w, kafka_cluster_id=None) for w in snapshot.workers)  # the mock's cluster: unknown
    acls = acls_snapshot(tuple(binding(f"User:{name}", "READ", "TOPIC", TOPIC) for name in SHORT.values()))
    sources = Sources(
        admin.poll, consoles=consoles, browser=browser, group_tools=GroupTools(connection),
        transactions=OpenTransactionsDouble(), acls=RecordedAcls(acls), schemas=registry,
        connect=RecordedConnect(replace(snapshot, connectors=connectors, workers=workers)),
    )  # fmt: skip
    return KafkatopApp(sources, Settings(poll_interval_s=0.5, connect_interval_s=0.5, acls_interval_s=0.5))


async def check_screen(pilot: Any, *shown: str) -> None:
    """Once the frame is drawn: nothing raw on the terminal, and each of `shown` (escaped as seen) on screen."""
    await pilot.pause()
    app = pilot.app
    assert raw_controls(terminal_output(app)) == []
    text = screen_text(app)
    for name in shown:
        assert seen(name)[:24] in text, (name, text)


async def on_every_row(pilot: Any, rows: int, key: str, opens: type, leave: str) -> None:
    """`key` on each of the first `rows` rows of the focused table: the screen it opens checked, then left."""
    for row in range(rows):
        await pilot.press("j" if row else "g")
        await pilot.press(key)
        await pilot_until(pilot, lambda: isinstance(pilot.app.screen, opens), f"{key} opens {opens.__name__}")
        await check_screen(pilot)
        await pilot.press(leave)


async def messages_and_consoles(pilot: Any) -> None:
    """Messages: each record of `orders` and its detail; Produce: a hostile line sent; Consume: the records read."""
    app: KafkatopApp = pilot.app
    await pilot.press("1")
    table = app.query_one(PartitionTable)
    table.cursor_row = table._index(f"{TOPIC}-0")  # noqa: SLF001 - the row of a key
    await pilot.press("b")
    panel = app.query_one(MessagesPane)
    await pilot_until(pilot, lambda: panel.page is not None and len(panel.page.records) == len(SHORT), "the page")
    # The table sizes its columns to what it holds a frame after the rows are in: checked once it has.
    await pilot_until(pilot, lambda: seen(NAMES["style"])[:24] in screen_text(app), "the records' columns sized")
    await check_screen(pilot, *(NAMES[k] for k in ("closing-tag", "style", "click")))  # the others as bytes
    await on_every_row(pilot, len(SHORT), "enter", RecordScreen, "escape")  # each record's detail
    await pilot.press("3")
    app.query_one("#produce-topic", Input).value = TOPIC
    app.query_one("#produce-line", Input).focus()
    await pilot.press(*NAMES["closing-tag"], "enter")
    await pilot_until(pilot, lambda: "✓ orders-" in log_text(app, "#deliveries"), "the delivery report")
    await check_screen(pilot)
    app.main_screen.action_tab(4)
    await pilot.pause()
    app.query_one("#consume-topics", Input).value = TOPIC
    app.query_one("#consume-group", Input).value = NAMES["style"]
    await pilot.click("#start-consumer")
    await pilot_until(pilot, lambda: seen(NAMES["title"]) in log_text(app, "#received"), "the records consumed")
    await check_screen(pilot)


@pytest.fixture
def registry() -> Iterator[SchemaRegistryDouble]:
    with SchemaRegistryDouble() as double:
        for name in SHORT.values():
            double.register(name, '"string"')
        yield double


async def test_every_tab_and_dialog_shows_hostile_names_as_text(planted: MockCluster,
                                                                 registry: SchemaRegistryDouble) -> None:  # fmt: skip
    closing: list[Any] = []
    app = hostile_app(planted, registry.url, closing)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            groups = app.query_one(GroupsPane)
            await pilot_until(pilot, lambda: app.snapshot is not None and len(app.snapshot.groups) == len(NAMES),
                              "the hostile groups polled")  # fmt: skip
            await check_screen(pilot, NAMES["closing-tag"])  # a topic of that name
            assert " leader " in screen_text(app)  # a 10 KB topic name is cut: the columns after it are on screen
            await pilot.press("5")
            table = groups.query_one("#groups", LineTable)
            await pilot_until(pilot, lambda: table.row_count == len(NAMES), "the groups listed")
            for _ in range(len(NAMES)):
                name = table.selected_key
                assert name is not None
                for key in ("x", "X"):
                    await pilot.press(key)
                    await pilot_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), f"{key} asks first")
                    await check_screen(pilot, name)
                    await pilot.press("n")
                await pilot.press("j")
            await pilot.press("i")
            await pilot_until(pilot, lambda: isinstance(app.screen, TransactionsScreen), "i")
            await pilot_until(pilot, lambda: seen(NAMES["closing-tag"]) in screen_text(app), "the transactions")
            await check_screen(pilot, *SHORT.values())
            await pilot.press("escape")
            await pilot.press("N")
            await pilot_until(pilot, lambda: app.query_one(TabbedContent).active == "tab-connect", "N")
            for _ in KINDS:
                await pilot.press("D")
                await pilot_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "D asks first")
                await check_screen(pilot)
                await pilot.press("n")
                await pilot.press("B")
                await check_screen(pilot)
                await pilot.press("escape")
                await pilot.press("enter")
                await check_screen(pilot)
                await pilot.press("escape")
                await pilot.press("j")
            await pilot.press("W")
            await pilot_until(pilot, lambda: seen(NAMES["closing-tag"]) in screen_text(app), "the ACLs tab")
            await check_screen(pilot)
            await on_every_row(pilot, len(SHORT), "V", ConfirmScreen, "n")  # each principal's binding
            await pilot.press("H")
            await pilot_until(pilot, lambda: seen(NAMES["style"]) in screen_text(app), "the Schemas tab")
            await check_screen(pilot)
            for subject in range(len(SHORT)):
                await pilot.press("j" if subject else "g")
                await check_screen(pilot)
            await messages_and_consoles(pilot)
            for key in ("9", "ctrl+p", "escape", "question_mark", "escape"):  # the timeline, the palette, help
                await pilot.press(key)
                await check_screen(pilot)
            assert app.is_running
    finally:
        for close in closing:
            close()
