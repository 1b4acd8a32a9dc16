"""`I` in Schemas: register a schema under a subject — its type (AVRO, PROTOBUF or JSON) and its text, from a file (a
path, relative to where kafkatop was started) or pasted into the box. Checked before anything is sent: a subject, one
schema (a file or the box, not both), and for Avro and JSON Schema, JSON that parses. Enter in a field (or the button)
sends it from a worker of the dialog's; the registry's refusal — an incompatible schema (409), an invalid one (422) —
is said in one line and the dialog stays, its text kept, to be fixed and sent again. Dismissed with what was
registered, or None (Escape). References to other subjects are not given from here."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import get_args

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.suggester import SuggestFromList
from textual.widgets import Button, TextArea

from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.formats import SchemaType
from kafkatop.backends.model.json_text import loads
from kafkatop.backends.model.text import printable
from kafkatop.backends.ports import SchemaRegistry
from kafkatop.tui.live.screens.dialog import Dialog, buttons, frame
from kafkatop.tui.live.text import Input, Label, Select, Static
from kafkatop.tui.live.widgets.path_suggester import PathSuggester

TYPES: tuple[SchemaType, ...] = get_args(SchemaType)
BY_SUFFIX: dict[str, SchemaType] = {".avsc": "AVRO", ".avro": "AVRO", ".proto": "PROTOBUF", ".json": "JSON"}
MAX_FILE_BYTES = 1_000_000  # a schema file is kilobytes; this is a wrong file
ABOUT = "a file (.avsc, .proto, .json) or the schema pasted below; no references to other subjects"


@dataclass(frozen=True, slots=True)
class Registered:
    """What the registry registered: the subject and the schema's id (a new one, or the id it already had)."""

    subject: str
    schema_id: int


@dataclass
class SchemaSent(Message):
    """The dialog's worker is done: the schema registered, or why not (one line)."""

    registered: Registered | None
    error: str | None = None


def schema_problem(schema_type: SchemaType, text: str) -> str | None:
    """Why the text cannot be sent as a schema of this type, or None: Avro and JSON Schema are JSON; the registry
    judges the rest."""
    if not text.strip():
        return "schema: empty: give a file, or paste the schema in the box"
    if schema_type in ("AVRO", "JSON"):
        try:
            loads(text)
        except ValueError as e:
            kind = "an Avro schema" if schema_type == "AVRO" else "a JSON Schema"
            return f"schema: not JSON ({e}): {kind} is JSON"
    return None


def read_schema_file(path: str) -> str:
    """The file's text; a KafkatopError saying what is wrong with it."""
    file = Path(path).expanduser()
    try:
        size = file.stat().st_size
        if size > MAX_FILE_BYTES:
            raise KafkatopError(f"file: {path} has {size:,} bytes: a schema file has far fewer (wrong file?)")
        return file.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise KafkatopError(f"file: {path} is not UTF-8 text: a schema is text") from None
    except OSError as e:
        raise KafkatopError(f"file: {path}: {e.strerror or e}") from None


class RegisterSchemaScreen(Dialog[Registered | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        registry: SchemaRegistry,
        subjects: tuple[str, ...] = (),
        subject: str = "",
        schema_type: SchemaType | None = None,
    ) -> None:
        """`subjects`: completions (the registry's subjects); `subject`, `schema_type`: the highlighted subject's."""
        super().__init__(None)
        self.registry = registry
        self.subjects = subjects
        self.subject = subject
        self.schema_type: SchemaType = schema_type or "AVRO"
        self.sending = False

    def compose(self) -> ComposeResult:
        with frame("Register a schema", "schema-register"):
            with Horizontal(classes="row"):
                yield Label("subject")
                yield Input(self.subject, placeholder="orders-value", id="schema-subject", compact=True,
                            suggester=SuggestFromList(self.subjects) if self.subjects else None)  # fmt: skip
                yield Label("type", classes="second")
                yield Select([(t, t) for t in TYPES], value=self.schema_type, allow_blank=False, compact=True,
                             id="schema-type")  # fmt: skip
            with Horizontal(classes="row"):
                yield Label("file")
                yield Input(placeholder="orders.avsc", id="schema-file", compact=True, suggester=PathSuggester())
            yield Label(Text(ABOUT, style="dim"), id="dialog-detail")
            yield TextArea(id="schema-paste", placeholder="or paste the schema here", soft_wrap=True)
            yield Static("", id="dialog-errors")
            yield buttons(Button("Register", variant="primary", id="register", compact=True), compact=True)

    def on_mount(self) -> None:
        self.query_one("#schema-file" if self.subject else "#schema-subject", Input).focus()

    @property
    def chosen_type(self) -> SchemaType:
        value = self.query_one("#schema-type", Select).value
        return next((t for t in TYPES if t == value), self.schema_type)

    def _say(self, text: str, style: str = "bold red") -> None:
        self.say(Text(" ".join(printable(text).split()), style=style))

    @on(Input.Changed, "#schema-file")
    def _file_typed(self, event: Input.Changed) -> None:
        """A file's suffix names its type (.avsc Avro, .proto Protobuf, .json JSON Schema)."""
        kind = BY_SUFFIX.get(Path(event.value.strip()).suffix.lower())
        if kind is not None:
            self.query_one("#schema-type", Select).value = kind

    @on(Input.Submitted)
    @on(Button.Pressed, "#register")
    def _submit(self) -> None:
        """What can be checked here is (the file's text by the worker, before it sends); then the worker sends."""
        if self.sending:
            return
        subject = self.query_one("#schema-subject", Input).value.strip()
        path = self.query_one("#schema-file", Input).value.strip()
        pasted = self.query_one("#schema-paste", TextArea).text
        schema_type = self.chosen_type
        if not subject:
            self._say("subject: the subject to register under (e.g. orders-value: the topic's value)")
            return
        if path and pasted.strip():
            self._say("schema: a file or the pasted text, not both: empty one of them")
            return
        if not path and (problem := schema_problem(schema_type, pasted)) is not None:
            self._say(problem)
            return
        self.sending = True
        self._say(f"registering under {subject} …", style="dim")
        self._send(subject, schema_type, path, pasted)

    @work(thread=True, exclusive=True, group="schema-register", exit_on_error=False)
    def _send(self, subject: str, schema_type: SchemaType, path: str, pasted: str) -> None:
        try:
            text = read_schema_file(path) if path else pasted
            problem = schema_problem(schema_type, text)
            if problem is not None:
                self.post_message(SchemaSent(None, f"{path}: {problem}" if path else problem))
                return
            schema_id = self.registry.register(subject, schema_type, text)
        except KafkatopError as e:
            self.post_message(SchemaSent(None, str(e)))
        except Exception as e:  # noqa: BLE001 - said in the dialog, never a crash
            self.post_message(SchemaSent(None, f"{type(e).__name__}: {e}"))
        else:
            self.post_message(SchemaSent(Registered(subject, schema_id)))

    def on_schema_sent(self, message: SchemaSent) -> None:
        self.sending = False
        if message.registered is not None:
            self.dismiss(message.registered)
        else:
            self._say(f"not registered: {message.error}")
