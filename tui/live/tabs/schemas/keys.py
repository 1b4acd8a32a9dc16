"""What the Schemas tab's keys do (section Schemas): `H` shows the tab (in it: reads the registry again);
`I` registers a schema from a dialog, whose own worker sends it, so that the registry's refusal is said there with
the text kept (tabs/schemas/register.py); the tab then reads the registry again, the new version highlighted. In a
read-only context the screen refuses `I` before it gets here (keymap's `writes`).

`h` in Messages (tabs/messages/record_schema.py) posts the record's SchemaWanted: the tab is shown on its subject and
version, or on what holds its schema id; without a registry, a notice says how to give one.

A live view without a registry keeps the tab out of the tab bar until `H` asks for it: it then says how to give one.
A replay has no tab: the registry is asked while the tab is shown, never recorded."""

from __future__ import annotations

from kafkatop.tui.live.action import LiveAction
from kafkatop.tui.live.tabs.messages.record_schema import SchemaWanted
from kafkatop.tui.live.tabs.schemas.pane import NO_REGISTRY, PANE_ACTIONS, SchemasPane
from kafkatop.tui.live.tabs.tab import TabScreen

SCHEMAS = "tab-schemas"
_HERE = frozenset({SCHEMAS})

# fmt: off
ACTIONS: tuple[LiveAction, ...] = (
    # Schemas: H (scHemas) and I (regIster): of the letters no other key holds; I asks first, in a dialog.
    LiveAction("schemas-tab", ("H",), "schemas_tab", "Schemas",
        help="the Schemas tab: a Schema Registry's subjects (versions, the latest, its schema id and type, the "
             "compatibility level), the highlighted subject's versions and the schema itself (Avro and JSON Schema "
             "as JSON, Protobuf as .proto); read when the tab is shown; without a registry, how to give one",
        section="Schemas", palette="Schemas: a Schema Registry's subjects"),
    LiveAction("schema-register", ("I",), "schemas('register')", "Register schema",
        help="Schemas: register a schema under a subject (AVRO, PROTOBUF or JSON; from a file or pasted): Avro and "
             "JSON Schema must parse as JSON before anything is sent; the registry's refusal (incompatible, invalid) "
             "is said in the dialog, the text kept",
        section="Schemas", palette="Register a schema under a subject", tabs=_HERE, needs="schemas", writes=True,
        asks_first=True),
    *PANE_ACTIONS,
)
# fmt: on


class SchemaKeys:
    def __init__(self, screen: TabScreen) -> None:
        self.screen = screen

    @property
    def schemas_panel(self) -> SchemasPane | None:
        return next(iter(self.screen.query(SchemasPane)), None)

    def action_schemas_tab(self) -> None:
        panel = self.schemas_panel
        if panel is None:
            self.screen.notify("a replay has no Schemas tab: the registry is read while the tab is shown, never "
                               "recorded", timeout=5)  # fmt: skip
            return
        tabs = self.screen.tabs
        if tabs.active == SCHEMAS:
            panel.read()
            return
        tabs.show_tab(SCHEMAS)  # a view without a registry: in the tab bar from now on
        self.screen.show_tab(SCHEMAS)

    def record_schema(self, wanted: SchemaWanted) -> None:
        """`h` in Messages: the tab on the record's subject and version, else on what holds its schema id."""
        app, panel = self.screen.host, self.schemas_panel
        if panel is None:
            return  # a replay: its browser reads no record
        if app.sources.schemas is None:
            app.notify(f"the {wanted.which}'s schema id {wanted.schema_id}: {NO_REGISTRY}", severity="warning",
                       timeout=8)  # fmt: skip
            return
        self.screen.tabs.show_tab(SCHEMAS)  # in the tab bar from now on, if it was not
        self.screen.show_tab(SCHEMAS)
        if wanted.subject is not None:
            panel.open(wanted.subject, wanted.version)
        else:
            panel.open_id(wanted.schema_id)

    def action_schemas(self, what: str) -> None:
        """`I`: the register dialog; on success a notice, and the tab read again with the subject highlighted."""
        app, panel = self.screen.host, self.schemas_panel
        registry = app.sources.schemas
        if app.settings.read_only_reason is not None:
            app.notify(f"{app.settings.read_only_reason}: registering a schema writes to the registry",
                       severity="warning", timeout=5)  # fmt: skip
            return
        if registry is None or panel is None:
            app.notify(NO_REGISTRY, severity="warning", timeout=8)
            return
        from kafkatop.tui.live.tabs.schemas.register import Registered, RegisterSchemaScreen

        in_tab = self.screen.tabs.active == SCHEMAS
        subject = panel.selected_subject if in_tab else None

        def registered(done: Registered | None) -> None:
            if done is None:
                return
            app.notify(f"schema registered under {done.subject}: id {done.schema_id}", timeout=5)
            panel.read(select=done.subject)

        screen = RegisterSchemaScreen(registry, panel.subject_names, subject.name if subject else "",
                                      panel.selected_type if in_tab else None)  # fmt: skip
        app.push_screen(screen, registered)
