"""`y` in Messages: the page shown, or the search's matches, to a file of JSON lines exactly as `kafkatop consume
--json` prints them (backends/insight/record_json.py: key and value bytes-exact, base64 where not UTF-8, headers,
timestamp, partition, offset), so `kafkatop produce --json` reads them back. The dialog asks the path (default
./<topic>-<partition>-<first offset>.jsonl) and refuses to replace a file until asked again; dismissed with (path,
replace), or None. The writing is `write_jsonl`, run by the browser in a worker."""

from __future__ import annotations

import os
from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Button

from kafkatop.backends.insight.record_json import as_json
from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.messages import BrowsedRecord
from kafkatop.tui.live.screens.dialog import Dialog, buttons, frame
from kafkatop.tui.live.text import Input, Label, Static
from kafkatop.tui.live.widgets.path_suggester import PathSuggester


def default_path(records: Sequence[BrowsedRecord]) -> str:
    first = records[0]
    return f"./{first.topic}-{first.partition}-{first.offset}.jsonl"


def write_jsonl(path: str, records: Sequence[BrowsedRecord], replace: bool) -> int:
    """The records, one `consume --json` line each; a file already there is replaced only when `replace`."""
    try:
        with open(path, "wb" if replace else "xb") as out:
            for r in records:
                out.write(as_json(r))
    except FileExistsError:
        raise BadInput(f"{path} exists: export again and confirm to replace it") from None
    except OSError as e:
        raise BadInput(f"cannot write {path}: {e.strerror or e}") from None
    return len(records)


class ExportScreen(Dialog[tuple[str, bool] | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    AUTO_FOCUS = "#export-path"

    def __init__(self, what: str, default: str) -> None:
        """`what`: the records exported, in words ("the page: 50 records of orders-0, offsets 190–239")."""
        super().__init__(None)
        self.what = what
        self.default = default
        self._replacing: str | None = None  # the path the user was told exists: Export again replaces it

    def compose(self) -> ComposeResult:
        with frame(f"Export {self.what}", "record-export"):
            yield Label(Text("to a file of JSON lines, as `kafkatop consume --json` prints them (`kafkatop produce "
                             "--json` reads them back)", style="dim"), id="dialog-detail")  # fmt: skip
            yield Input(self.default, placeholder="the file to write", id="export-path", suggester=PathSuggester())
            yield Static("", id="dialog-errors")
            yield buttons(Button("Export", variant="primary", id="export"))

    def on_input_changed(self) -> None:
        self.say("")
        self._replacing = None
        self.query_one("#export", Button).label = "Export"

    @on(Input.Submitted)
    @on(Button.Pressed, "#export")
    def _submit(self) -> None:
        typed = self.query_one("#export-path", Input).value.strip()
        if not typed:
            self.say("give the file to write, e.g. ./orders.jsonl")
            return
        path = os.path.expanduser(typed)
        if os.path.isdir(path):
            self.say(f"{typed} is a directory: give a file in it, e.g. {os.path.join(typed, 'records.jsonl')}")
            return
        exists = os.path.exists(path)
        if exists and self._replacing != path:
            self._replacing = path
            self.say(f"{typed} exists: Enter again (or Replace) replaces it, Escape keeps it")
            self.query_one("#export", Button).label = "Replace"
            return
        self.dismiss((path, exists))
