"""What the Schemas tab's keys do (keymap.py, section Schemas): `H` shows the tab (in it: reads the registry again);
`I` registers a schema from a dialog, whose own worker sends it, so that the registry's refusal is said there with
the text kept (screens/schema_register.py); the tab then reads the registry again, the new version highlighted. In a
read-only context the screen refuses `I` before it gets here (keymap's `writes`).

`h` in Messages (widgets/record_schema.py) posts the record's SchemaWanted: the tab is shown on its subject and
version, or on what holds its schema id; without a registry, a notice says how to give one.

A live view without a registry keeps the tab out of the tab bar until `H` asks for it: it then says how to give one.
A replay has no tab: the registry is asked while the tab is shown, never recorded.

SchemaKeys is the main screen's side: the tabs after Connect (the ACLs', then this one) and the keys' methods, mixed
into MainScreen (its module is at its size)."""

from __future__ import annotations

from typing import cast

from textual import on
from textual.app import ComposeResult
from textual.widgets import TabbedContent, TabPane

from kafkatop.tui.live.acl_actions import AclKeys
from kafkatop.tui.live.actions import Host
from kafkatop.tui.live.keymap import SCHEMAS
from kafkatop.tui.live.widgets.record_schema import SchemaWanted
from kafkatop.tui.live.widgets.schemas import NO_REGISTRY, SchemasPanel


class SchemaKeys(AclKeys):
    """The main screen's Schemas: what it composes and the keys' actions (keymap's `schemas_tab`, `schemas`)."""

    def last_tabs(self, present: frozenset[str]) -> ComposeResult:
        """The tabs after Connect: ACLs (`W`), Schemas (`H`)."""
        yield from self.acls_tab(present)
        yield from self.schemas_tab()

    def schemas_tab(self) -> ComposeResult:
        if self.mode != "replay":
            app = cast(Host, self.app)
            with TabPane("Schemas", id=SCHEMAS):
                yield SchemasPanel(app.sources.schemas, app.settings.refusal)

    def on_mount(self) -> None:
        # MainScreen's own on_mount runs first (Textual calls each class's handler in turn).
        if self.mode != "replay" and cast(Host, self.app).sources.schemas is None:
            self.query_one(TabbedContent).hide_tab(SCHEMAS)  # `H` shows it, saying how to give a registry

    @property
    def schemas_panel(self) -> SchemasPanel | None:
        return next(iter(self.query(SchemasPanel)), None)

    def action_schemas_tab(self) -> None:
        panel = self.schemas_panel
        if panel is None:
            self.notify("a replay has no Schemas tab: the registry is read while the tab is shown, never recorded",
                        timeout=5)  # fmt: skip
            return
        tabs = self.query_one(TabbedContent)
        if tabs.active == SCHEMAS:
            panel.read()
            return
        tabs.show_tab(SCHEMAS)  # a view without a registry: in the tab bar from now on
        self.show_tab(SCHEMAS)

    @on(SchemaWanted)
    def _record_schema(self, wanted: SchemaWanted) -> None:
        """`h` in Messages: the tab on the record's subject and version, else on what holds its schema id."""
        app, panel = cast(Host, self.app), self.schemas_panel
        if panel is None:
            return  # a replay: its browser reads no record
        if app.sources.schemas is None:
            app.notify(f"the {wanted.which}'s schema id {wanted.schema_id}: {NO_REGISTRY}", severity="warning",
                       timeout=8)  # fmt: skip
            return
        self.query_one(TabbedContent).show_tab(SCHEMAS)  # in the tab bar from now on, if it was not
        self.show_tab(SCHEMAS)
        if wanted.subject is not None:
            panel.open(wanted.subject, wanted.version)
        else:
            panel.open_id(wanted.schema_id)

    def action_schemas(self, what: str) -> None:
        """`I`: the register dialog; on success a notice, and the tab read again with the subject highlighted."""
        app, panel = cast(Host, self.app), self.schemas_panel
        registry = app.sources.schemas
        if app.settings.refusal is not None:
            app.notify(f"{app.settings.refusal}: registering a schema writes to the registry", severity="warning",
                       timeout=5)  # fmt: skip
            return
        if registry is None or panel is None:
            app.notify(NO_REGISTRY, severity="warning", timeout=8)
            return
        from kafkatop.tui.live.screens.schema_register import Registered, RegisterSchemaScreen

        in_tab = self.query_one(TabbedContent).active == SCHEMAS
        subject = panel.selected_subject if in_tab else None

        def registered(done: Registered | None) -> None:
            if done is None:
                return
            app.notify(f"schema registered under {done.subject}: id {done.schema_id}", timeout=5)
            panel.read(select=done.subject)

        screen = RegisterSchemaScreen(registry, panel.subject_names, subject.name if subject else "",
                                      panel.selected_type if in_tab else None)  # fmt: skip
        app.push_screen(screen, registered)
