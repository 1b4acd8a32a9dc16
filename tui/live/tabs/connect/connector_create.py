"""`A` in Connect: a connector from a file — Connect's JSON or the `.properties` connect-standalone takes
(model/connect_files.py). Enter reads it and asks a worker to validate it (`PUT /connector-plugins/{class}/config/
validate`: nothing is created); the worker's errors are shown per field. Once it validates, Enter or `y` creates it:
dismissed with the file's connector, or None."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Button

from kafkatop.backends.model.connect import Validation
from kafkatop.backends.model.connect_files import ConnectorFile, read_connector_file
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.ports import ConnectCluster
from kafkatop.tui.live.screens.dialog import Dialog, buttons, frame
from kafkatop.tui.live.text import Input, Label, Static
from kafkatop.tui.live.widgets.path_suggester import PathSuggester

ABOUT = (
    'Connect\'s JSON ({"name": …, "config": {…}}) or connect-standalone\'s .properties; a relative path is from where '
    "kafkatop was started"
)
MAX_SHOWN = 40  # fields with errors listed; a plugin that is not installed fails on far fewer


@dataclass
class ConnectorChecked(Message):
    """A file read and validated by a worker, or why not."""

    file: ConnectorFile | None
    validation: Validation | None
    error: str | None = None


def problems_text(file: ConnectorFile, validation: Validation) -> Text:
    """The worker's refusal, field by field, in its own words."""
    text = Text(f"The worker refuses {file.name} ({validation.error_count} error(s)); nothing was created:\n",
                style="bold red")  # fmt: skip
    for p in validation.problems[:MAX_SHOWN]:
        for error in p.errors:
            text.append(f"  {p.name}", style="bold")
            text.append(f": {error}\n")
    if len(validation.problems) > MAX_SHOWN:
        text.append(f"  … and {len(validation.problems) - MAX_SHOWN} more field(s)\n")
    return text


class CreateConnectorScreen(Dialog[ConnectorFile | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("y", "create", "Create", show=False)]
    AUTO_FOCUS = "#connector-file"

    def __init__(self, connect: ConnectCluster) -> None:
        super().__init__(None)
        self.connect = connect
        self.valid: ConnectorFile | None = None  # validated by a worker, awaiting Enter or y
        self.asked: str | None = None  # the path being read and validated

    def compose(self) -> ComposeResult:
        with frame("Create a Kafka Connect connector from a file", "connector-create"):
            with Horizontal(classes="row"):
                yield Label("file")
                # Focused again (shift+Tab), its path keeps its cursor at the end: a key typed adds, never replaces.
                yield Input(placeholder="connector.json or connector.properties", id="connector-file",
                            select_on_focus=False, suggester=PathSuggester())  # fmt: skip
            yield Label(Text(ABOUT, style="dim"), id="dialog-detail")
            with VerticalScroll(id="connector-check"):
                yield Static("", id="connector-state")
            yield buttons(Button("Check (Enter)", variant="primary", id="check"))

    def _state(self, text: Text | str) -> None:
        self.query_one("#connector-state", Static).update(text)

    @on(Input.Changed, "#connector-file")
    def _changed(self) -> None:
        if self.valid is not None:
            self.valid = None  # another file: validated again before it is created
            self.query_one("#check", Button).label = "Check (Enter)"
            self._state("")

    @on(Input.Submitted)
    @on(Button.Pressed, "#check")
    def action_create(self) -> None:
        """First Enter: read the file and have a worker validate it; once it validates, Enter or y creates it."""
        if self.valid is not None:
            self.dismiss(self.valid)
            return
        path = self.query_one("#connector-file", Input).value.strip()
        if not path:
            self._state(Text("give the connector's file: a path to its .json or .properties", style="bold red"))
            return
        if self.asked is not None:
            return
        self.asked = path
        self._state(Text(f"reading {path} and asking a worker to validate it (nothing is created) …", style="dim"))
        self._check(path)

    @work(thread=True, exclusive=True, group="connector-validate", exit_on_error=False)
    def _check(self, path: str) -> None:
        try:
            file = read_connector_file(path)
            self.post_message(ConnectorChecked(file, self.connect.validate({**dict(file.config), "name": file.name})))
        except KafkatopError as e:
            self.post_message(ConnectorChecked(None, None, str(e)))
        except Exception as e:  # noqa: BLE001 - shown in the dialog, never a crash
            self.post_message(ConnectorChecked(None, None, f"{type(e).__name__}: {e}"))

    def on_connector_checked(self, message: ConnectorChecked) -> None:
        self.asked = None
        file, validation = message.file, message.validation
        if file is None or validation is None:
            self._state(Text(message.error or "", style="bold red"))
            return
        if validation.error_count:
            self._state(problems_text(file, validation))
            return
        self.valid = file
        self._state(Text(f"{file.name}: the worker accepts it ({file.class_name}, {len(file.config)} settings). "
                         "Enter or y creates it; Escape cancels.", style="bold"))  # fmt: skip
        button = self.query_one("#check", Button)
        button.label = "Create (y)"
        button.variant = "warning"
        button.focus()  # y is a key again (in the field it would be typed)
