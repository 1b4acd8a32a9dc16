"""`F` in Messages: the topic's key and value formats — string, JSON, Avro, Protobuf, JSON Schema, hex, base64 or
auto (the wire format when the bytes are in it, else JSON, text or hex) — and, for a format with a schema, a schema
file (.avsc, .proto or a descriptor set, a JSON Schema) or a registry subject, and a Protobuf message type. `use`
(the browser's) hands them to the codec in a worker: a schema it cannot read comes back to `refused`, said here, and
nothing changes; once read, the codec remembers the formats and the screen is dismissed with them. Nothing is
written to the cluster."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button

from kafkatop.backends.model.formats import (
    FORMAT_NAMES,
    FieldFormat,
    FormatError,
    RecordField,
    TopicFormat,
    format_named,
)
from kafkatop.tui.live.screens.dialog import Dialog, buttons, frame
from kafkatop.tui.live.text import Input, Label, Select, Static
from kafkatop.tui.live.widgets.path_suggester import PathSuggester

FIELDS: tuple[RecordField, ...] = ("key", "value")


class FormatScreen(Dialog[TopicFormat | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    AUTO_FOCUS = "#value-format"

    def __init__(self, topic: str, current: TopicFormat, use: Callable[[FormatScreen, TopicFormat], None]) -> None:
        super().__init__(None)
        self.topic = topic
        self.current = current
        self.use = use  # the formats to the codec, in a worker: then dismiss(formats), or refused(why)

    def compose(self) -> ComposeResult:
        with frame(f"Formats of topic {self.topic}", "record-format"):
            for which in FIELDS:  # two lines each: the schema file's path takes the rest of the first
                now = self.current.of(which)
                with Horizontal(classes="row"):
                    yield Label(which)
                    yield Select([(name, name) for name in FORMAT_NAMES], value=now.format.value, allow_blank=False,
                                 compact=True, id=f"{which}-format")  # fmt: skip
                    yield Input(now.schema_file or "", placeholder="schema file", id=f"{which}-schema", compact=True,
                                suggester=PathSuggester(),
                                tooltip=".avsc, .proto or a descriptor set (.desc), a JSON Schema (.json)")  # fmt: skip
                with Horizontal(classes="row then"):
                    yield Label("")
                    yield Input(now.subject or "", placeholder="or registry subject", id=f"{which}-subject",
                                compact=True, tooltip="a registry subject: its latest version")  # fmt: skip
                    yield Input(now.message_type or "", placeholder="message type", id=f"{which}-type",
                                compact=True, tooltip="Protobuf: the message's full name, when the file has several",
                                )  # fmt: skip
            yield Label(Text("auto reads the wire format (magic byte, schema id) through the registry, else JSON, "
                             "text or hex. A schema file or subject goes with avro, protobuf or json-schema: for "
                             "records without the wire format. Remembered for the topic.", style="dim"),
                        id="dialog-detail")  # fmt: skip
            yield Static("", id="dialog-errors")
            yield buttons(Button("Use", variant="primary", id="use"))

    def formats(self) -> TopicFormat | None:
        """The formats as chosen, or None after saying what is wrong."""
        chosen: dict[str, FieldFormat] = {}
        for which in FIELDS:
            schema_file, subject, message_type = (self.query_one(f"#{which}-{f}", Input).value.strip() or None
                                                  for f in ("schema", "subject", "type"))  # fmt: skip
            try:
                fmt = format_named(str(self.query_one(f"#{which}-format", Select).value))
                if schema_file and subject:
                    raise FormatError("a schema file or a subject, not both")
                chosen[which] = FieldFormat(fmt, schema_file, subject, message_type)
            except FormatError as e:
                self.say(f"{which}: {e}")
                return None
        return TopicFormat(chosen["key"], chosen["value"])

    @on(Input.Submitted)
    @on(Button.Pressed, "#use")
    def _use(self) -> None:
        fmt = self.formats()
        if fmt is None:
            return
        self.say("")
        self.query_one("#use", Button).disabled = True
        self.use(self, fmt)

    def refused(self, reason: str) -> None:
        """The codec could not use the formats: why, and the dialog as it was."""
        self.query_one("#use", Button).disabled = False
        self.say(reason)
