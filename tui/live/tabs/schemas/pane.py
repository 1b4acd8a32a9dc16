"""The Schemas tab: a Schema Registry's subjects — versions, the latest, its schema id and type, the compatibility
level (the subject's own, or the registry's default) — under a line naming the registry and its default level; the
highlighted subject's versions, and the highlighted version's schema: Avro and JSON Schema as pretty-printed JSON,
Protobuf as .proto text (a serialized descriptor decoded, insight/schema_text.py). `/` filters the subjects, `[` `]`
step through the versions. Without a registry, the tab says how to give one.

The registry is asked (`ask`, widgets/pane.py) when the tab is shown, by `r` in it, and after a schema is registered
— not polled behind the user's back: it changes when someone registers, and a tab out of sight costs it nothing. A
version other than the latest is asked when highlighted, then kept. When the registry does not answer, the tab says
why in one line and keeps the subjects last read, with their time."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from functools import partial
from urllib.parse import urlsplit

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll

from kafkatop.backends.insight.schema_text import schema_text
from kafkatop.backends.model.formats import RegisteredSchema, SchemasSnapshot, SchemaType, Subject
from kafkatop.backends.model.text import printable
from kafkatop.backends.ports import SchemaRegistry
from kafkatop.tui.live.action import LiveAction, bindings
from kafkatop.tui.live.text import Static
from kafkatop.tui.live.widgets.line_table import LineCells, LineTable
from kafkatop.tui.live.widgets.pane import Asking, ask

# The pane's own keys (active while it has focus), in the Schemas tab's keys (keys.py).
_SCHEMA = partial(LiveAction, section="Schemas", scope="schemas", needs="schemas")
# fmt: off
PANE_ACTIONS: tuple[LiveAction, ...] = (
    _SCHEMA("schema-older", ("left_square_bracket",), "version(1)", "Older version",
        help="Schemas: the highlighted subject's older version"),
    _SCHEMA("schema-newer", ("right_square_bracket",), "version(-1)", "Newer version",
        help="Schemas: its newer version"),
    _SCHEMA("schemas-read", ("r",), "read", "Read again",
        help="Schemas: read the registry again"),
)
# fmt: on

SUBJECT_COLUMNS = ("subject", "versions", "latest", "id", "type", "compatibility")
DROPPED_FIRST = ("versions", "id")  # what a narrow terminal leaves out first (latest says how many, mostly)
VERSION_COLUMNS = ("version", "id")
NO_REGISTRY = (
    "no Schema Registry here: give one with --schema-registry URL, or `[schema-registry] url = …` in kafkatop.toml, "
    "or `schema-registry = …` in a context"
)
KEYS = "Enter versions · [ ] older, newer · / filter · r read again"
WRITE_KEYS = " · I register"
HIGHLIGHTED_CHARS = 64 * 1024  # beyond, a schema is shown plain: highlighting it would hold the event loop


def url_text(url: str) -> str:
    """The registry's URL(s) as shown: without a user and password, should one have been written into it."""
    shown_urls = []
    for one in url.split(","):
        parts = urlsplit(one.strip())
        host = parts.netloc.rpartition("@")[2]
        shown_urls.append(parts._replace(netloc=host).geturl() if parts.netloc else one.strip())
    return ", ".join(shown_urls)


def at_text(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%H:%M:%S")


def header_text(url: str, snapshot: SchemasSnapshot | None, problem: str | None) -> Text:
    """The registry, its default compatibility level and its subjects, or that it is being read; and, when the last
    read failed, why (with the time of the subjects still shown)."""
    text = Text("registry ", style="bold")
    text.append(url_text(url))
    if snapshot is None and problem is None:
        text.append(" · reading …", style="dim")
        return text
    if snapshot is not None and snapshot.error is None:
        text.append(" · default compatibility ", style="bold")
        text.append(snapshot.compatibility or "not told")
        n = len(snapshot.subjects)
        text.append(f" · {n} subject{'s' * (n != 1)} · read at {at_text(snapshot.at)}", style="dim")
    if problem is not None:
        kept = snapshot is not None and bool(snapshot.subjects)
        said = f"{one_line(problem)}; the subjects below as read at {at_text(snapshot.at)}" if kept and snapshot else \
            one_line(problem)  # fmt: skip
        text.append("\n")
        text.append(said, style="bold red")
    return text


def one_line(text: str) -> str:
    return " ".join(printable(text).split())


def compatibility_text(subject: Subject, default: str | None) -> Text:
    """The subject's own level, or the registry's default (dim, saying so)."""
    if subject.compatibility is not None:
        return Text(subject.compatibility)
    return Text(f"default ({default})" if default else "default", style="dim")


def latest_version(subject: Subject) -> int | None:
    if subject.latest is not None:
        return subject.latest.version
    return max(subject.versions) if subject.versions else None


def subject_row(subject: Subject, default: str | None) -> LineCells:
    latest, version = subject.latest, latest_version(subject)
    return (
        printable(subject.name),
        str(len(subject.versions)),
        str(version) if version is not None else "-",
        str(latest.schema_id) if latest is not None else "-",
        latest.schema_type if latest is not None else "-",
        compatibility_text(subject, default),
    )


def version_rows(subject: Subject, known: Mapping[tuple[str, int], RegisteredSchema]) -> dict[str, LineCells]:
    """The subject's versions, newest first, each with its schema id once known."""
    rows: dict[str, LineCells] = {}
    for v in sorted(subject.versions or ([subject.latest.version] if subject.latest else []), reverse=True):
        schema = subject.latest if subject.latest is not None and subject.latest.version == v else \
            known.get((subject.name, v))  # fmt: skip
        rows[str(v)] = (str(v), str(schema.schema_id) if schema is not None else "-")
    return rows


def schema_view(schema: RegisteredSchema, latest: bool) -> RenderableType:
    """A version's schema for the detail: what it is, then its text, highlighted as JSON or .proto."""
    view = schema_text(schema.schema_type, schema.schema)
    head = Text.assemble(
        (printable(schema.subject), "bold"),
        f" · version {schema.version}{' (latest)' * latest} · id {schema.schema_id} · {schema.schema_type}",
    )
    parts: list[RenderableType] = [head]
    for r in schema.references:
        parts.append(Text(f"references {printable(r.name)}: {printable(r.subject)} version {r.version}", style="dim"))
    if view.note:
        parts.append(Text(view.note, style="dim"))
    if view.language == "text" or len(view.text) > HIGHLIGHTED_CHARS:
        parts.append(Text(view.text))
    else:
        parts.append(Syntax(view.text, view.language, theme="ansi_dark", word_wrap=True, background_color="default"))
    return Group(*parts)


class SchemasPane(Asking, Vertical):
    """The registry's subjects, the highlighted one's versions and a version's schema; see the module's docstring."""

    BINDINGS = bindings(PANE_ACTIONS, "schemas")

    def __init__(self, registry: SchemaRegistry | None, read_only_reason: str | None = None) -> None:
        super().__init__()
        self.registry = registry
        self.read_only_reason = read_only_reason  # why registering is refused here (a read-only context), if it is
        self.snapshot: SchemasSnapshot | None = None  # the subjects shown: the last read that had them
        self.problem: str | None = None  # why the last read failed; None once one succeeds
        self.known: dict[tuple[str, int], RegisteredSchema] = {}  # versions read, by subject and version
        self._wanted: tuple[str, int | None] | None = None  # open()'s subject and version, once read
        self._rows: Mapping[str, LineCells] | None = None
        self._version_rows: Mapping[str, LineCells] | None = None
        self._versions_of: str | None = None  # the subject whose versions are listed
        self._asking: tuple[str, int] | None = None  # the version asked of the registry, until it answers
        self._shown: tuple[str, int] | RenderableType | None = None  # the detail's version, or what it says

    def compose(self) -> ComposeResult:
        yield Static(Text(NO_REGISTRY, style="yellow"), id="schemas-header")
        yield LineTable(SUBJECT_COLUMNS, dropped_first=DROPPED_FIRST, id="subjects")
        with Horizontal(id="schema-detail"):
            yield LineTable(VERSION_COLUMNS, filterable=False, id="schema-versions")
            with VerticalScroll(id="schema-text-box"):
                yield Static("", id="schema-text")
        yield Static(self.keys, id="schemas-keys")

    def on_mount(self) -> None:
        for part in ("#subjects", "#schema-detail", "#schemas-keys"):
            self.query_one(part).display = self.registry is not None  # without one: only how to give one
        self._header()

    @property
    def keys(self) -> Text:
        """The tab's keys; register only where it may (not in a read-only context)."""
        return Text(
            KEYS + (WRITE_KEYS if self.read_only_reason is None else f" · {self.read_only_reason}: no I (register)"),
            style="dim",
        )

    # --- reading the registry ----------------------------------------------------------------------------------
    def on_show(self) -> None:
        self.read()

    def read(self, select: str | None = None) -> None:
        """Ask the registry for its subjects (the answer replaces an older question's); `select`: the subject to
        highlight once read."""
        registry = self.registry
        if registry is None:
            return
        if select is not None:
            self._wanted = (select, None)
        ask(self, "schemas-read", lambda _tell: registry.poll(), self._read, self._failed)
        if self.snapshot is None and self.problem is None:
            self._header()

    def action_read(self) -> None:
        self.read()

    def open(self, subject: str, version: int | None = None) -> None:
        """Show `subject` (and its `version`, else its latest): a record's schema, from the message browser."""
        self._wanted = (subject, version)
        self._select()

    def open_id(self, schema_id: int) -> None:
        """Show the subject and version holding `schema_id`, as the registry says (a record decoded without them);
        when it names none, say so in one line."""
        registry = self.registry
        if registry is None:
            return

        def answered(schema: RegisteredSchema) -> None:
            if schema.subject:
                self.open(schema.subject, schema.version or None)
            else:
                self.notify(f"schema id {schema_id} ({schema.schema_type}): the registry names no subject version "
                            "holding it (deleted since?)", severity="warning", timeout=8)  # fmt: skip

        def failed(text: str) -> None:
            self.notify(f"schema id {schema_id}: {one_line(text)}", severity="error", timeout=8)

        ask(self, "schema-id", lambda _tell: registry.schema_by_id(schema_id), answered, failed)

    def _read(self, snapshot: SchemasSnapshot) -> None:
        if snapshot.error is None or snapshot.subjects or self.snapshot is None:
            self.snapshot = snapshot
        self.problem = snapshot.error
        self._draw()
        wanted = self._wanted
        if wanted is not None and snapshot.error is None and self.subject_named(wanted[0]) is None:
            self._wanted = None  # read afresh, and not there: said, not waited for
            self.notify(f"subject {wanted[0]}: not among the registry's subjects (deleted since?)", severity="warning",
                        timeout=8)  # fmt: skip

    def _failed(self, text: str) -> None:
        self.problem = text
        self._draw()

    # --- drawing -------------------------------------------------------------------------------------------------
    def _header(self) -> None:
        if self.registry is not None:
            self.query_one("#schemas-header", Static).update(header_text(self.registry.url, self.snapshot,
                                                                         self.problem))  # fmt: skip

    def _draw(self) -> None:
        self._header()
        snapshot = self.snapshot
        if snapshot is None:
            return
        rows = {s.name: subject_row(s, snapshot.compatibility) for s in snapshot.subjects}
        if rows != self._rows:
            self._rows = rows
            self.query_one("#subjects", LineTable).set_rows(rows)  # the highlighted one stays; `/` keeps its filter
        self._select()
        self._show_versions()

    def _select(self) -> None:
        """The subject (and version) open() asked for, once the subjects read hold it."""
        wanted = self._wanted
        if wanted is None or self.subject_named(wanted[0]) is None:
            return
        self.query_one("#subjects", LineTable).move_to(wanted[0])  # unless `/` filters it out
        self._show_versions()
        versions = self.query_one("#schema-versions", LineTable)
        if wanted[1] is not None:
            versions.move_to(str(wanted[1]))
        else:
            versions.cursor_row = 0  # its latest: a version just registered
        self._show_schema()
        self._wanted = None

    def subject_named(self, name: str) -> Subject | None:
        snapshot = self.snapshot
        return next((s for s in snapshot.subjects if s.name == name), None) if snapshot is not None else None

    @property
    def selected_subject(self) -> Subject | None:
        name = self.query_one("#subjects", LineTable).selected_key
        return self.subject_named(name) if name is not None else None

    @property
    def subject_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.snapshot.subjects) if self.snapshot is not None else ()

    @property
    def selected_type(self) -> SchemaType | None:
        subject = self.selected_subject
        return subject.latest.schema_type if subject is not None and subject.latest is not None else None

    @on(LineTable.Highlighted, "#subjects")
    def _show_versions(self) -> None:
        subject = self.selected_subject
        rows = version_rows(subject, self.known) if subject is not None else {}
        versions = self.query_one("#schema-versions", LineTable)
        if rows != self._version_rows:
            self._version_rows = rows
            versions.set_rows(rows)
        name = subject.name if subject is not None else None
        if name != self._versions_of:
            self._versions_of = name
            versions.cursor_row = 0  # another subject: its latest version first
        self._show_schema()

    @property
    def highlighted(self) -> tuple[str, int] | None:
        """The subject and version whose schema is shown (or asked for)."""
        subject, key = self.selected_subject, self.query_one("#schema-versions", LineTable).selected_key
        return (subject.name, int(key)) if subject is not None and key is not None else None

    @on(LineTable.Highlighted, "#schema-versions")
    def _show_schema(self) -> None:
        subject, key = self.selected_subject, self.query_one("#schema-versions", LineTable).selected_key
        if subject is None or key is None:
            self._detail(Text("no subjects in this registry" if self.snapshot is not None and not
                              self.snapshot.subjects else "", style="dim"))  # fmt: skip
            return
        version = int(key)
        latest = subject.latest
        schema = latest if latest is not None and latest.version == version else self.known.get((subject.name, version))
        if schema is None:
            self._detail(Text(f"reading version {version} of {printable(subject.name)} …", style="dim"))
            if self._asking != (subject.name, version):
                self._ask_version(subject.name, version)
            return
        if self._shown != (subject.name, version):
            self._detail(schema_view(schema, version == latest_version(subject)), (subject.name, version))

    def _detail(self, view: RenderableType, which: tuple[str, int] | None = None) -> None:
        shown_now = which if which is not None else view
        if shown_now == self._shown:
            return
        self._shown = shown_now
        self.query_one("#schema-text", Static).update(view)
        self.query_one("#schema-text-box", VerticalScroll).scroll_home(animate=False)

    def _ask_version(self, subject: str, version: int) -> None:
        registry = self.registry
        if registry is None:
            return

        def answered(schema: RegisteredSchema) -> None:
            self._asking = None
            self.known[(subject, version)] = schema
            self._show_versions()  # its id, now known; its schema, if still highlighted

        def failed(text: str) -> None:
            self._asking = None
            if self.highlighted == (subject, version):
                self._detail(Text(f"version {version} of {printable(subject)}: {one_line(text)}", style="bold red"))

        self._asking = (subject, version)
        ask(self, "schema-version", lambda _tell: registry.schema(subject, version), answered, failed)

    # --- the tab's own keys --------------------------------------------------------------------------------------
    def action_version(self, step: int) -> None:
        """`[` an older version, `]` a newer one (the list is newest first)."""
        versions = self.query_one("#schema-versions", LineTable)
        versions.action_cursor(step)

    @on(LineTable.Chosen, "#subjects")
    def _subject_chosen(self) -> None:
        self.query_one("#schema-versions", LineTable).focus()

    @on(LineTable.Chosen, "#schema-versions")
    def _version_chosen(self) -> None:
        self.query_one("#schema-text-box", VerticalScroll).focus()  # the arrows scroll the schema
