"""Schemas: a Schema Registry's subjects, versions and schemas. A replay has none (the registry is read while the tab
is shown, never recorded); a live view without a registry keeps it out of the tab bar until `H` asks for it."""

from __future__ import annotations

from pathlib import Path

from kafkatop.tui.live.tabs.schemas.keys import ACTIONS, SCHEMAS, SchemaKeys
from kafkatop.tui.live.tabs.schemas.pane import SchemasPane
from kafkatop.tui.live.tabs.tab import Tab, showing

CSS = Path(__file__).with_name("schemas.tcss")  # its rules: layout and colour beside the tab
TAB = Tab(
    SCHEMAS,
    "Schemas",
    showing(lambda c: SchemasPane(c.sources.schemas, c.settings.read_only_reason)),
    ACTIONS,
    SchemaKeys,
    composed=lambda c: c.launch != "replay",
    hidden=lambda c: c.sources.schemas is None,
    css=CSS,
    purpose="a Schema Registry's subjects, versions and schemas",
    shown_by="schemas-tab",
)
