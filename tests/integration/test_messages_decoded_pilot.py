"""The Messages tab over decoded records, driven by its keys: the real MessageBrowser on librdkafka's mock cluster,
Avro values written by confluent-kafka's AvroSerializer and read by the real SchemaCodec through the SCHEMA REGISTRY
DOUBLE (tests/doubles/schema_registry.py: no real registry runs here). Rows show the decoded key and value in one
line, the detail the format and the record's schema ("avro · schema id 1 · subject orders-value v1"), or without a
registry what could not be read; `/` narrows the page by a path (and says why a path does not parse); `F` changes the
topic's formats (and says why one cannot be used); a search by path; `y` exports the matches, then the page, as
`kafkatop consume --json` prints the same records, refusing to replace the file until asked again. `h` opens a
record's schema in the Schemas tab (its subject and version, else what holds its schema id), or says why it cannot;
the live view's composition root hands the browser the codec, so a search by path reads Avro values."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from confluent_kafka import Producer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from rich.console import Console
from textual.widgets import Button, Input, Select, Static, TabbedContent

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.kafka.records.browser import MessageBrowser
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.formats import Format, RegistrySettings
from kafkatop.backends.model.messages import SearchRequest
from kafkatop.backends.schemas.codec import SchemaCodec
from kafkatop.backends.schemas.registry import ConfluentRegistry
from kafkatop.tui.cli.compose import compose_sources
from kafkatop.tui.cli.parser import build_parser
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.screens.record import RecordScreen
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.messages.pane import MessagesPane
from kafkatop.tui.live.tabs.messages.record_export import ExportScreen
from kafkatop.tui.live.tabs.messages.record_format import FormatScreen
from kafkatop.tui.live.tabs.messages.record_table import RecordTable
from kafkatop.tui.live.tabs.schemas.keys import SCHEMAS
from kafkatop.tui.live.tabs.schemas.pane import NO_REGISTRY, SchemasPane
from tests.conftest import pilot_until
from tests.doubles.schema_registry import SchemaRegistryDouble

pytestmark = pytest.mark.timeout(120)

COUNT = 40
ORDER = {
    "type": "record", "name": "Order", "namespace": "shop", "fields": [
        {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [
            {"name": "id", "type": "long"}, {"name": "name", "type": "string"}]}},
        {"name": "items", "type": {"type": "array", "items": {"type": "record", "name": "Item", "fields": [
            {"name": "sku", "type": "string"}]}}},
        {"name": "total", "type": "double"},
    ],
}  # fmt: skip


def order(i: int) -> dict[str, object]:
    return {"customer": {"id": i, "name": f"customer {i}"}, "items": [{"sku": f"A-{i % 3}"}], "total": i * 1.5}


@pytest.fixture(scope="module")
def registry_double() -> Iterator[SchemaRegistryDouble]:
    with SchemaRegistryDouble() as double:
        yield double


@pytest.fixture(scope="module")
def cluster(registry_double: SchemaRegistryDouble) -> Iterator[MockCluster]:
    """`orders`: JSON keys, Avro values in the wire format (registered as orders-value by the serializer)."""
    serialize = AvroSerializer(SchemaRegistryClient({"url": registry_double.url}), json.dumps(ORDER))
    with MockCluster(1) as mock:
        mock.create_topic("orders", 1, 1)
        producer = Producer({"bootstrap.servers": mock.bootstrap_servers})
        for i in range(COUNT):
            value = serialize(order(i), SerializationContext("orders", MessageField.VALUE))
            producer.produce("orders", value, key=json.dumps({"id": i}).encode(), partition=0,
                             headers=[("n", str(i).encode())])  # fmt: skip
        assert producer.flush(20) == 0
        del producer
        yield mock


def shown(widget: Static) -> str:
    out = io.StringIO()
    Console(file=out, width=400, color_system=None).print(widget.content)
    return out.getvalue()


def status(panel: MessagesPane) -> str:
    return str(panel.query_one("#browse-status").render())


def consume_json(cluster: MockCluster) -> list[bytes]:
    done = subprocess.run(
        [sys.executable, "-m", "kafkatop.tui.cli", "consume", "--bootstrap-server", cluster.bootstrap_servers,
         "--topic", "orders", "--json"],
        capture_output=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines(keepends=True)


async def test_decoded_rows_detail_filter_formats_search_and_export_through_the_schema_registry_double(
    cluster: MockCluster, registry_double: SchemaRegistryDouble, tmp_path: Path
) -> None:
    connection = KafkaConnection.parse(cluster.bootstrap_servers)
    admin = AdminSource(connection, timeout_s=3)
    registry = ConfluentRegistry(RegistrySettings(registry_double.url), timeout_s=5)
    codec = SchemaCodec({}, registry, base_dir=tmp_path)
    browser = MessageBrowser(connection, timeout_s=3, codec=codec)
    app = KafkatopApp(Sources(admin.poll, browser=browser, codec=codec), Settings(poll_interval_s=0.5))
    schema_id = registry_double.register("orders-value", json.dumps(ORDER))  # registered already: its id
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            app.main_screen.show_tab("tab-messages")
            panel = app.query_one(MessagesPane)
            table = panel.query_one(RecordTable)
            panel.open("orders", 0, at="beginning")
            await pilot_until(pilot, lambda: panel.page is not None, "the first page")
            table.focus()

            # A row: the decoded key and value in one line; the detail: the value's format and schema.
            assert str(table.get_row("0:3")[3]) == '{"id":3}'
            assert str(table.get_row("0:3")[4]).startswith('{"customer":{"id":3,"name":"customer 3"},"items":[{"sk')
            table.move_cursor(row=10)
            detail_of = panel.query_one("#message-detail", Static)
            await pilot_until(pilot, lambda: '"name": "customer 10"' in shown(detail_of), "the 10th record's detail")
            detail = shown(detail_of)
            assert f"value · avro · schema id {schema_id} · subject orders-value v1, " in detail
            assert '"name": "customer 10"' in detail and "key · json (auto), 10 B" in detail

            # `/` with a path narrows the page; a path that does not parse says why, in place of the rows.
            await pilot.press("slash")
            for key in ".customer.id >= 36":
                await pilot.press(key)
            await pilot_until(pilot, lambda: table.row_count == 4, "the page narrowed by the path")
            assert "4 of 40 rows" in str(app.main_screen.query_one("#filter-count").render())
            app.main_screen.query_one("#filter-input", Input).value = ".customer.id = 3"
            await pilot_until(pilot, lambda: table.problem is not None, "the path's problem")
            assert table.problem == ("path, column 14: expected an operator (==, !=, <, <=, >, >= or ~; = alone is "
                                     "none), found '='")  # fmt: skip
            assert "0 of 40 rows" in str(app.main_screen.query_one("#filter-count").render())
            await pilot.press("escape")
            assert table.row_count == COUNT and not table.filter_text

            # F: a schema file that cannot be read is said, and nothing changes; then the key read as a string.
            table.focus()
            await pilot.press("F")
            await pilot_until(pilot, lambda: isinstance(app.screen, FormatScreen), "the formats dialog")
            app.screen.query_one("#value-format", Select).value = "avro"
            app.screen.query_one("#value-schema", Input).value = "missing.avsc"
            await pilot.click("#use")
            errors = app.screen.query_one("#dialog-errors", Static)
            await pilot_until(pilot, lambda: "missing.avsc" in shown(errors), "the refusal")
            assert codec.format_of("orders").value.format is Format.AUTO
            app.screen.query_one("#value-format", Select).value = "auto"
            app.screen.query_one("#value-schema", Input).value = ""
            app.screen.query_one("#key-format", Select).value = "string"
            # Pressed, not clicked: the refusal's lines (a path under pytest's folder, whose length grows with its
            # run count) move the button after a click has aimed at where it was.
            app.screen.query_one("#use", Button).press()
            await pilot_until(pilot, lambda: not isinstance(app.screen, FormatScreen), "the formats used")
            assert codec.format_of("orders").key.format is Format.STRING
            await pilot_until(pilot, lambda: str(table.get_row("0:3")[3]) == '{"id": 3}', "the page decoded again")
            assert "key · string, " in shown(panel.query_one("#message-detail", Static))

            # Enter: the record on a screen of its own; u unfolds what is folded (nothing here: it is small).
            table.focus()
            await pilot.press("enter")
            await pilot_until(pilot, lambda: isinstance(app.screen, RecordScreen), "the record's screen")
            assert '"name": "customer ' in shown(app.screen.query_one("#record-detail", Static))
            await pilot.press("u")
            assert isinstance(app.screen, RecordScreen) and app.screen.unfolded
            await pilot.press("escape")

            # A search by path, over the decoded values; its matches exported.
            panel.query_one("#search-text", Input).value = '.customer.id >= 5 and .items[0].sku == "A-1"'
            await pilot.click("#search-run")
            await pilot_until(pilot, lambda: panel.results is not None, "the search's end")
            assert panel.results is not None
            found = panel.results.found
            assert [r.offset for r in found] == [i for i in range(5, COUNT) if i % 3 == 1]
            table.focus()
            await pilot.press("y")
            await pilot_until(pilot, lambda: isinstance(app.screen, ExportScreen), "the export dialog")
            field = app.screen.query_one("#export-path", Input)
            assert field.value == "./orders-0-7.jsonl"
            target = tmp_path / "matches.jsonl"
            field.value = str(target)
            await pilot.press("enter")
            await pilot_until(pilot, target.exists, "the file written")
            consumed = consume_json(cluster)
            assert target.read_bytes().splitlines(keepends=True) == [consumed[r.offset] for r in found]
            said = f"exported {len(found)} records to {target}"
            await pilot_until(pilot, lambda: any(said in n.message for n in app._notifications), "the notice")

            # The page, exported to the same file: refused until asked again, then replaced.
            await pilot.press("enter")  # the first match's page
            await pilot_until(pilot, lambda: panel.results is None and panel.page is not None, "the match's page")
            assert panel.page is not None
            page = panel.page.records
            await pilot.press("y")
            await pilot_until(pilot, lambda: isinstance(app.screen, ExportScreen), "the export dialog again")
            app.screen.query_one("#export-path", Input).value = str(target)
            await pilot.press("enter")
            errors = app.screen.query_one("#dialog-errors", Static)
            exists = f"{target} exists: Enter again (or Replace) replaces it"
            await pilot_until(pilot, lambda: exists in shown(errors), "the file's existence said")
            assert len(target.read_bytes().splitlines()) == len(found)
            await pilot.press("enter")
            await pilot_until(pilot, lambda: len(target.read_bytes().splitlines()) == len(page), "the file replaced")
            assert target.read_bytes().splitlines(keepends=True) == consumed[page[0].offset : page[-1].offset + 1]
            assert panel.page is not None and panel.page.records == page  # the page stays as it was
            await pilot.press("q")
    finally:
        browser.close()
        admin.close()
        registry.close()


async def test_without_a_registry_a_record_in_the_wire_format_says_so(
    cluster: MockCluster, registry_double: SchemaRegistryDouble
) -> None:
    schema_id = registry_double.register("orders-value", json.dumps(ORDER))  # what the records were written with
    connection = KafkaConnection.parse(cluster.bootstrap_servers)
    admin = AdminSource(connection, timeout_s=3)
    codec = SchemaCodec({}, None)
    browser = MessageBrowser(connection, timeout_s=3, codec=codec)
    app = KafkatopApp(Sources(admin.poll, browser=browser, codec=codec), Settings(poll_interval_s=0.5))
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            app.main_screen.show_tab("tab-messages")
            panel = app.query_one(MessagesPane)
            panel.open("orders", 0, at="3")
            await pilot_until(pilot, lambda: panel.page is not None, "the page")
            row = str(panel.query_one(RecordTable).get_row("0:3")[4])
            assert row.startswith(f"[schema id {schema_id} (no registry configured)] 0x00{schema_id:08x}")
            detail = shown(panel.query_one("#message-detail", Static))
            assert f"value · auto · schema id {schema_id}, " in detail
            assert f"\nschema id {schema_id} (no registry configured)\n" in detail
            assert f"00000000  00 00 00 00 {schema_id:02x}" in detail  # the bytes as they are, 8 a line
            # h: no registry to open it in: how to give one, in one line; the tab stays.
            panel.query_one(RecordTable).focus()
            await pilot.press("h")
            said = f"the value's schema id {schema_id}: {NO_REGISTRY}"
            await pilot_until(pilot, lambda: said in [n.message for n in app._notifications], "how to give a registry")
            assert app.query_one(TabbedContent).active == "tab-messages"
            await pilot.press("q")
    finally:
        browser.close()
        admin.close()


def produced(mock_servers: str, topic: str, values: list[bytes]) -> None:
    producer = Producer({"bootstrap.servers": mock_servers})
    for value in values:
        producer.produce(topic, value, partition=0)
    assert producer.flush(20) == 0


def notices(app: KafkatopApp) -> list[str]:
    return [n.message for n in app._notifications]


async def test_h_opens_the_records_schema_in_the_schemas_tab_through_the_schema_registry_double(
    cluster: MockCluster, registry_double: SchemaRegistryDouble, tmp_path: Path
) -> None:
    """The subject and version the record was written with (v1, while v2 is the latest), from the pane and from the
    record's screen, whatever the Schemas tab highlighted last; a record whose registry named no subject: by its
    schema id; a record with no schema id: why there is nothing to open."""
    schema_id = registry_double.register("orders-value", json.dumps(ORDER))
    newer = dict(ORDER, fields=[*ORDER["fields"], {"name": "note", "type": "string", "default": ""}])
    registry_double.register("orders-value", json.dumps(newer))  # the latest now: the records are v1's
    cluster.create_topic("plain", 1, 1)
    produced(cluster.bootstrap_servers, "plain", [b'{"id": 1}'])
    # "gone": a record whose subject version is deleted when it is read: the registry names none for its id.
    gone = {"type": "record", "name": "Gone", "fields": [{"name": "id", "type": "long"}]}
    serialize = AvroSerializer(SchemaRegistryClient({"url": registry_double.url}), json.dumps(gone))
    cluster.create_topic("gone", 1, 1)
    written = serialize({"id": 1}, SerializationContext("gone", MessageField.VALUE))
    produced(cluster.bootstrap_servers, "gone", [written])
    gone_id = registry_double.store.subjects["gone-value"].versions[1]
    connection = KafkaConnection.parse(cluster.bootstrap_servers)
    admin = AdminSource(connection, timeout_s=3)
    registry = ConfluentRegistry(RegistrySettings(registry_double.url), timeout_s=5)
    codec = SchemaCodec({}, registry, base_dir=tmp_path)
    browser = MessageBrowser(connection, timeout_s=3, codec=codec)
    app = KafkatopApp(Sources(admin.poll, browser=browser, codec=codec, schemas=registry), Settings(poll_interval_s=1))
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            tabs = app.query_one(TabbedContent)
            schemas = app.query_one(SchemasPane)
            app.main_screen.show_tab("tab-messages")
            panel = app.query_one(MessagesPane)
            table = panel.query_one(RecordTable)
            panel.open("orders", 0, at="beginning")
            await pilot_until(pilot, lambda: panel.page is not None, "the first page")
            table.focus()
            table.move_cursor(row=3)
            detail_of = panel.query_one("#message-detail", Static)
            await pilot_until(pilot, lambda: '"name": "customer 3"' in shown(detail_of), "the 3rd record's detail")
            assert f"schema id {schema_id} · subject orders-value v1, " in shown(detail_of)
            assert "· h: its schema" in shown(detail_of)

            await pilot.press("h")
            await pilot_until(pilot, lambda: schemas.highlighted == ("orders-value", 1), "orders-value v1 shown")
            assert tabs.active == SCHEMAS
            text = app.query_one("#schema-text", Static)
            await pilot_until(pilot, lambda: "orders-value · version 1 · id" in shown(text), "version 1's schema")
            assert f"version 1 · id {schema_id} · AVRO" in shown(text) and '"note"' not in shown(text)

            # Another subject highlighted in the tab, then h on the record's screen: the record's again.
            await pilot.press("g")  # the first: gone-value
            assert schemas.highlighted is not None and schemas.highlighted[0] != "orders-value"
            app.main_screen.show_tab("tab-messages")
            table.focus()
            await pilot.press("enter")
            await pilot_until(pilot, lambda: isinstance(app.screen, RecordScreen), "the record's screen")
            assert "h its schema" in str(app.screen.query_one("#record-box").border_title)
            await pilot.press("h")
            await pilot_until(pilot, lambda: schemas.highlighted == ("orders-value", 1), "v1 again, from the screen")
            assert not isinstance(app.screen, RecordScreen) and tabs.active == SCHEMAS

            # No schema id: why, in one line; the tab stays.
            app.main_screen.show_tab("tab-messages")
            panel.open("plain", 0, at="beginning")
            await pilot_until(pilot, lambda: panel.page is not None and panel.page.topic == "plain", "plain's page")
            table.focus()
            await pilot.press("h")
            said = "plain-0 @ 0: neither its key nor its value carries a schema id (Confluent's wire format): no " \
                   "schema to open"  # fmt: skip
            await pilot_until(pilot, lambda: said in notices(app), "no schema to open")
            assert tabs.active == "tab-messages"

            # Read while its version is deleted: no subject named; by its id, once the registry names one again.
            state = registry_double.store.subjects["gone-value"]
            state.deleted_versions.add(1)
            panel.open("gone", 0, at="beginning")
            await pilot_until(pilot, lambda: panel.page is not None and panel.page.topic == "gone", "gone's page")
            await pilot_until(pilot, lambda: f"schema id {gone_id}, " in shown(detail_of), "read with no subject")
            table.focus()
            await pilot.press("h")
            said = f"schema id {gone_id} (AVRO): the registry names no subject version holding it (deleted since?)"
            await pilot_until(pilot, lambda: said in notices(app), "no subject holding it")
            state.deleted_versions.clear()
            app.main_screen.show_tab("tab-messages")
            table.focus()
            await pilot.pause()  # Textual moves the focus after this step: `h` goes where it has moved
            await pilot.press("h")
            await pilot_until(pilot, lambda: schemas.highlighted == ("gone-value", 1), "gone-value v1, by its id")
            await pilot.press("q")
    finally:
        browser.close()
        admin.close()
        registry.close()


async def test_the_live_views_composed_browser_searches_by_the_codec(
    registry_double: SchemaRegistryDouble, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """compose_sources (as `kafkatop --demo --schema-registry URL`) gives the browser the codec: a search by path
    finds an Avro record in the wire format (without it, the bytes never match a path)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)
    args = build_parser().parse_args(["--demo", "--schema-registry", registry_double.url, "--state-dir",
                                      str(tmp_path / "state")])  # fmt: skip
    with ExitStack() as stack:
        sources, _, _ = compose_sources(args, stack, terminal=False)
        browser = sources.browser
        assert isinstance(browser, MessageBrowser) and browser.codec is sources.codec
        serialize = AvroSerializer(SchemaRegistryClient({"url": registry_double.url}), json.dumps(ORDER))
        values = [serialize(order(i), SerializationContext("orders", MessageField.VALUE)) for i in (1, 2, 3)]
        produced(browser.connection.bootstrap_servers, "orders", values)
        found = browser.search(SearchRequest("orders", ".customer.id == 2", partitions=(0,)), lambda _: None,
                               lambda: False)  # fmt: skip
        assert found.error is None and found.matches == 1
        assert [r.value for r in found.found] == [values[1]]
