"""The Schemas tab and its keys, the app headless, against the Schema Registry TEST DOUBLE (tests/doubles/
schema_registry.py: an HTTP server speaking Confluent's REST API — no real registry can run on these machines) read
by the real adapter, ConfluentRegistry (confluent-kafka's SchemaRegistryClient): the subjects with their levels, a
subject's versions and each version's schema (Avro as JSON, Protobuf registered as a serialized descriptor shown as
.proto), `[` `]`, `/`, `r`; registering from the dialog (JSON checked before sending; the registry's refusal said
in the dialog with the text kept; then registered, the tab read again); a registry that stops answering (its error
in one line, the subjects kept with their time); no registry (the tab says how to give one); a read-only context; a
replay (no tab)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Select, Static, TabbedContent, TextArea

from kafkatop.backends.model.formats import RegistrySettings
from kafkatop.backends.model.recording import Recorded, Recording, RecordingHeader
from kafkatop.backends.schemas.registry import ConfluentRegistry
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.commands import offered
from kafkatop.tui.live.keymap import ACTIONS, by_id
from kafkatop.tui.live.replay import Replay
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.schemas.keys import SCHEMAS
from kafkatop.tui.live.tabs.schemas.pane import NO_REGISTRY, SchemasPane
from kafkatop.tui.live.tabs.schemas.register import RegisterSchemaScreen
from kafkatop.tui.live.widgets.line_table import LineTable
from tests.conftest import pilot_until
from tests.doubles.schema_registry import SchemaRegistryDouble
from tests.fixtures.schema_views import CUSTOMER_JSON, ORDER_V1, ORDER_V2, ORDER_V3, PAYMENT_DESCRIPTOR, PAYMENT_V1
from tests.fixtures.snapshots import TAKEN_AT, kraft_lab

REGISTER = by_id("schema-register").palette
SETTINGS = Settings(poll_interval_s=86_400, ensemble_interval_s=86_400, launch="attach")


@pytest.fixture
def double() -> Iterator[SchemaRegistryDouble]:
    """The registry TEST DOUBLE holding the fixtures' subjects, registered in the order of their ids."""
    with SchemaRegistryDouble() as registry:
        registry.register("orders-value", ORDER_V1)
        registry.register("orders-key", '"string"')
        registry.register("orders-value", ORDER_V2)
        registry.register("customers-value", CUSTOMER_JSON, "JSON")
        registry.register("payments-value", PAYMENT_V1, "PROTOBUF")
        registry.register("payments-value", PAYMENT_DESCRIPTOR, "PROTOBUF")
        registry.register("orders-value", ORDER_V3)
        registry.store.set_level("customers-value", {"compatibility": "FULL"})
        yield registry


def app_with(registry: ConfluentRegistry | None, read_only: bool = False) -> KafkatopApp:
    cluster = kraft_lab()[0]
    settings = replace(SETTINGS, read_only=read_only, context="prod" if read_only else None)
    return KafkatopApp(Sources(lambda: cluster, schemas=registry), settings, clock=lambda: TAKEN_AT)


async def settled(pilot: Any) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def shown(app: KafkatopApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


def rows(app: KafkatopApp, table: str = "#subjects") -> list[tuple[str, ...]]:
    lines = app.query_one(table, LineTable)
    return [lines.row(k) for k in lines._keys]


def schema_shown(app: KafkatopApp) -> str:
    detail = app.query_one("#schema-text", Static)
    return "\n".join(line.text.rstrip() for line in detail.render_lines(detail.region.reset_offset))


def notices(app: KafkatopApp) -> list[str]:
    return [n.message for n in app._notifications]


async def test_the_subjects_their_versions_and_schemas_as_the_registry_double_serves_them(
    double: SchemaRegistryDouble,
) -> None:
    registry = ConfluentRegistry(RegistrySettings(double.url), timeout_s=5)
    app = app_with(registry)
    async with app.run_test(size=(160, 45)) as pilot:
        await settled(pilot)
        assert double.count("GET", "/subjects") == 0  # not read behind the user's back
        assert "Schemas" in app.main_screen.tab_titles()
        await pilot.press("H")
        await pilot_until(pilot, lambda: rows(app), "the subjects read")
        assert app.query_one(TabbedContent).active == SCHEMAS
        header = shown(app, "#schemas-header")
        assert header.startswith(f"registry {double.url} · default compatibility BACKWARD · 4 subjects · read at ")
        assert rows(app) == [
            ("customers-value", "1", "1", "4", "JSON", "FULL"),
            ("orders-key", "1", "1", "2", "AVRO", "default (BACKWARD)"),
            ("orders-value", "3", "3", "7", "AVRO", "default (BACKWARD)"),
            ("payments-value", "2", "2", "6", "PROTOBUF", "default (BACKWARD)"),
        ]
        assert json.loads(schema_shown(app).split("\n", 1)[1]) == json.loads(CUSTOMER_JSON)  # pretty JSON, the same
        await pilot.press("j", "j")  # orders-value: its versions, newest first, its latest shown
        assert rows(app, "#schema-versions") == [("3", "7"), ("2", "-"), ("1", "-")]
        assert schema_shown(app).startswith("orders-value · version 3 (latest) · id 7 · AVRO\n{\n")
        await pilot.press("left_square_bracket")  # `[`: the older version, asked of the registry
        await pilot_until(pilot, lambda: "version 2 · id 3" in schema_shown(app), "version 2 read")
        assert json.loads(schema_shown(app).split("\n", 1)[1]) == json.loads(ORDER_V2)
        assert rows(app, "#schema-versions")[1] == ("2", "3")
        await pilot.press("left_square_bracket", "right_square_bracket", "right_square_bracket")
        await settled(pilot)
        assert schema_shown(app).startswith("orders-value · version 3 (latest)")
        await pilot.press("j")  # payments-value: registered as a serialized descriptor, shown as .proto
        proto = schema_shown(app)
        assert proto.startswith("payments-value · version 2 (latest) · id 6 · PROTOBUF\na serialized FileDescriptor")
        for line in ('syntax = "proto3";', "package shop;", "message Payment {", "  map<string, string> labels = 4;",
                     "  oneof method {", "    string card = 5;", "  State state = 7;", "    SETTLED = 1;"):  # fmt: skip
            assert line in proto.splitlines(), line
        await pilot.press("left_square_bracket")  # version 1: .proto text, as registered
        await pilot_until(pilot, lambda: "version 1 · id 5" in schema_shown(app), "version 1 read")
        assert "message Payment {" in schema_shown(app) and "serialized" not in schema_shown(app)
        await pilot.press("slash", *"orders", "enter")
        assert [r[0] for r in rows(app)] == ["orders-key", "orders-value"]
        await pilot.press("escape")
        double.register("orders-value", ORDER_V3.replace('"note"', '"comment"'))  # registered elsewhere meanwhile
        polls = double.count("GET", "/subjects")
        await pilot.press("r")  # read again
        await pilot_until(pilot, lambda: ("orders-value", "4") == rows(app)[2][:2], "the new version read")
        assert double.count("GET", "/subjects") == polls + 1
        await pilot.press("1", "H")  # shown again: read again
        await pilot_until(pilot, lambda: double.count("GET", "/subjects") == polls + 2, "read when shown")
    registry.close()


async def test_register_checks_json_says_the_registrys_refusal_in_the_dialog_then_registers(
    double: SchemaRegistryDouble, tmp_path: Path
) -> None:
    registry = ConfluentRegistry(RegistrySettings(double.url), timeout_s=5)
    app = app_with(registry)
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        await pilot.press("H")
        await pilot_until(pilot, lambda: rows(app), "the subjects read")
        assert REGISTER in {c.title for c in offered(app.main_screen)}
        await pilot.press("j", "j", "I")  # on orders-value: the dialog starts from it
        dialog = app.screen
        assert isinstance(dialog, RegisterSchemaScreen)
        assert dialog.query_one("#schema-subject", Input).value == "orders-value"
        assert dialog.query_one("#schema-type", Select).value == "AVRO"
        posted = double.count("POST", "/subjects/orders-value/versions")
        paste = dialog.query_one("#schema-paste", TextArea)
        paste.text = '{"type": "record", "name": "Order", "fields": [}'
        await pilot.click("#register")
        await settled(pilot)
        said = shown(app, "#dialog-errors")
        assert said.startswith("schema: not JSON (Expecting value: line 1 column 48 (char 47)): an Avro schema is")
        assert double.count("POST", "/subjects/orders-value/versions") == posted  # nothing sent
        # A field without a default: the new schema cannot read what was written (BACKWARD): 409, said in one line.
        incompatible = json.dumps({"type": "record", "name": "Order", "namespace": "shop", "fields": [
            {"name": "id", "type": "string"}, {"name": "region", "type": "string"}]})  # fmt: skip
        paste.text = incompatible
        dialog.query_one("#schema-subject", Input).focus()
        await pilot.press("enter")  # Enter in a field sends, as the button does
        await pilot_until(pilot, lambda: "not registered" in shown(app, "#dialog-errors"), "the refusal")
        said = shown(app, "#dialog-errors")
        assert said.startswith("not registered: schema registry ") and "incompatible with an earlier schema" in said
        assert "\n" not in said and "(409)" in said
        assert app.screen is dialog and paste.text == incompatible  # the text kept, to be fixed
        assert double.count("POST", "/subjects/orders-value/versions") == posted + 1
        # From a file instead: both given is refused, then the box emptied
        compatible = json.loads(ORDER_V3)
        compatible["fields"].append({"name": "region", "type": ["null", "string"], "default": None})
        (tmp_path / "order.avsc").write_text(json.dumps(compatible))
        dialog.query_one("#schema-file", Input).value = str(tmp_path / "order.avsc")
        await pilot.press("enter")
        assert shown(app, "#dialog-errors").startswith("schema: a file or the pasted text, not both")
        paste.text = ""
        dialog.query_one("#schema-file", Input).focus()
        await pilot.press("enter")
        await pilot_until(pilot, lambda: not isinstance(app.screen, RegisterSchemaScreen), "the dialog closed")
        assert notices(app)[-1] == "schema registered under orders-value: id 8"
        await pilot_until(pilot, lambda: rows(app)[2][:4] == ("orders-value", "4", "4", "8"), "the new version")
        assert app.query_one("#subjects", LineTable).selected_key == "orders-value"
        assert "region" in schema_shown(app)
        await pilot.press("I", "escape")  # Escape: nothing sent
        assert double.count("POST", "/subjects/orders-value/versions") == posted + 2
    registry.close()


async def test_a_registry_that_stops_answering_keeps_the_subjects_read_with_their_time() -> None:
    double = SchemaRegistryDouble()
    double.register("orders-value", ORDER_V1)
    registry = ConfluentRegistry(RegistrySettings(double.url), timeout_s=2)
    app = app_with(registry)
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        await pilot.press("H")
        await pilot_until(pilot, lambda: rows(app), "the subjects read")
        double.close()
        await pilot.press("r")
        await pilot_until(pilot, lambda: "\n" in shown(app, "#schemas-header"), "the failure said", timeout_s=20)
        first, second = shown(app, "#schemas-header").split("\n")
        assert first.startswith(f"registry {double.url} · default compatibility BACKWARD · 1 subject · read at ")
        assert second.startswith(f"schema registry {double.url}: ")
        assert second.endswith(f"; the subjects below as read at {first.rpartition(' ')[2]}")
        assert rows(app) == [("orders-value", "1", "1", "1", "AVRO", "default (BACKWARD)")]
    registry.close()


async def test_without_a_registry_the_tab_says_how_to_give_one_and_registering_is_refused() -> None:
    app = app_with(None)
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        assert "Schemas" not in app.main_screen.tab_titles()  # out of the tab bar until asked for
        await pilot.press("H")
        assert app.query_one(TabbedContent).active == SCHEMAS and "Schemas" in app.main_screen.tab_titles()
        assert shown(app, "#schemas-header") == NO_REGISTRY
        assert not app.query_one("#subjects").display and not app.query_one("#schemas-keys").display
        assert REGISTER not in {c.title for c in offered(app.main_screen)}
        await pilot.press("I")
        assert notices(app)[-1] == NO_REGISTRY and not isinstance(app.screen, RegisterSchemaScreen)
        await pilot.press("slash")
        assert "this tab has none" in notices(app)[-1]


async def test_read_only_refuses_registering_and_a_replay_has_no_tab(double: SchemaRegistryDouble) -> None:
    registry = ConfluentRegistry(RegistrySettings(double.url), timeout_s=5)
    app = app_with(registry, read_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        await pilot.press("H")
        await pilot_until(pilot, lambda: rows(app), "the subjects read")
        assert shown(app, "#schemas-keys").endswith("r read again · context 'prod' is read-only: no I (register)")
        await pilot.press("I")
        assert "context 'prod' is read-only" in notices(app)[-1] and "writes to the cluster" in notices(app)[-1]
        assert not isinstance(app.screen, RegisterSchemaScreen)
        assert REGISTER not in {c.title for c in offered(app.main_screen)}
    assert double.count("POST", "/subjects/orders-value/versions") == 0
    registry.close()

    header = RecordingHeader(TAKEN_AT, "lab 'schemas'", ("control",))
    recording = Recording(header, (Recorded(TAKEN_AT, "cluster", kraft_lab()[0]),))
    app = KafkatopApp(Sources(lambda: kraft_lab()[0]), Settings(), replay=Replay(recording))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "Schemas" not in app.main_screen.tab_titles() and not app.query(SchemasPane)
        await pilot.press("H")
        assert "a replay only plays back what was recorded" in notices(app)[-1]


def test_the_tabs_own_keys_are_the_registrys() -> None:
    bound = {k for b in SchemasPane.BINDINGS for k in b.key.split(",")}  # type: ignore[union-attr]
    assert bound == {k for a in ACTIONS if a.scope == "schemas" for k in a.keys} == {
        "left_square_bracket", "right_square_bracket", "r"}  # fmt: skip
