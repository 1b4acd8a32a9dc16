"""The Schemas tab at 80x24 and 160x45, from fixed subjects (RecordedRegistry, a named TEST DOUBLE of the
SchemaRegistry port, tests/fixtures/schema_views.py): a JSON Schema, an older Avro version, a Protobuf schema
registered as a serialized descriptor shown as .proto, `/`, the register dialog saying the registry's refusal, a
registry that stopped answering (the subjects kept, with their time), a read-only context, and no registry at all
(how to give one). Fixed data and size, no clock, no network, no processes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import pytest
from textual.widgets import Input, TextArea

from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Settings, Sources
from tests.fixtures.schema_views import ORDER_V1, RecordedRegistry
from tests.fixtures.snapshots import TAKEN_AT, kraft_lab

SIZES = {"80x24": (80, 24), "160x45": (160, 45)}
FROZEN = Settings(poll_interval_s=86_400, ensemble_interval_s=86_400, launch="attach")
REFUSED = (
    "schema registry http://127.0.0.1:8081: Schema being registered is incompatible with an earlier schema for "
    "subject \"orders-value\", details: [{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field "
    "'region' at path '/fields/1' in the new schema has no default value and is missing in the old schema'}, "
    "{oldSchemaVersion: 3}, {compatibility: 'BACKWARD'}] (409)"
)
DOWN = "schema registry http://127.0.0.1:8081: connection refused (is it running? is the port right?)"


def schemas_app(registry: RecordedRegistry | None, read_only: bool = False) -> KafkatopApp:
    cluster = kraft_lab()[0]
    settings = replace(FROZEN, read_only=read_only, context="prod" if read_only else None)
    return KafkatopApp(Sources(lambda: cluster, schemas=registry), settings, clock=lambda: TAKEN_AT)


async def settled(pilot: Any) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def pressing(*keys: str, then: Callable[[Any], Awaitable[None]] | None = None) -> Callable[[Any], Awaitable[None]]:
    """The keys, each answered and drawn; then `then`; no blinking cursor (it would make the moment matter)."""

    async def run(pilot: Any) -> None:
        await settled(pilot)
        for key in keys:
            await pilot.press(key)
            await settled(pilot)
        if then is not None:
            await then(pilot)
            await settled(pilot)
        for field in pilot.app.screen.query("Input, TextArea"):
            assert isinstance(field, Input | TextArea)
            field.cursor_blink = False
        await pilot.pause()

    return run


async def refused(pilot: Any) -> None:
    """A schema pasted and sent: the registry refuses it."""
    registry = pilot.app.sources.schemas
    registry.refuse = REFUSED
    paste = pilot.app.screen.query_one("#schema-paste", TextArea)
    paste.text = ORDER_V1.replace('"amount","type":"double"', '"region","type":"string"')
    await pilot.click("#register")


async def stopped(pilot: Any) -> None:
    """The registry stops answering; `r` reads it again."""
    pilot.app.sources.schemas.down = DOWN
    await pilot.press("r")


# Each: a registry (or None), read-only, the keys pressed, then what is done.
SCREENS: dict[str, tuple[bool, bool, tuple[str, ...], Callable[[Any], Awaitable[None]] | None]] = {
    "json-schema": (True, False, ("H",), None),
    "avro-older-version": (True, False, ("H", "j", "j", "left_square_bracket"), None),
    "protobuf-descriptor": (True, False, ("H", "G"), None),
    "filtered": (True, False, ("H", "slash", *"orders", "enter"), None),
    "register-refused": (True, False, ("H", "j", "j", "I"), refused),
    "registry-down": (True, False, ("H", "j", "j"), stopped),
    "read-only": (True, True, ("H",), None),
    "no-registry": (False, False, ("H",), None),
}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("screen", list(SCREENS))
def test_the_schemas_tab(snap_compare: Any, screen: str, size: str) -> None:
    has_registry, read_only, keys, then = SCREENS[screen]
    app = schemas_app(RecordedRegistry() if has_registry else None, read_only)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=pressing(*keys, then=then))
