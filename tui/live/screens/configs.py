"""The Configs screen (`C`): a topic's or a broker's configs with their sources, and edits to them — the same checks,
the same IncrementalAlterConfigs as `kafkatop configs --alter/--delete`.

Enter edits the highlighted entry in a field that is checked where it is typed (the name known, not read-only, a
value of the right type), then by Kafka (validate_only), then made; a refusal (ours or Kafka's, its error name and
message) is shown under the field, which keeps what was typed. `x` deletes a value set here (it falls back to what
is behind it). Escape leaves a field; Escape again closes the screen. Reads and changes run in thread workers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen

from kafkatop.backends.insight.grants import Refused
from kafkatop.backends.model.configs import (
    ConfigEntry,
    ConfigResource,
    ResourceConfigs,
    check_change,
    is_read_only,
)
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.secrets import names_a_secret
from kafkatop.backends.ports import ConfigAdmin
from kafkatop.tui.live.granting import GrantsMet, refused_text
from kafkatop.tui.live.screens.config_table import ConfigTable, detail
from kafkatop.tui.live.screens.confirm import ConfirmScreen
from kafkatop.tui.live.screens.dialog import Dialog
from kafkatop.tui.live.text import DataTable, Input, Label, Static

KEYS = "Enter edit · x delete · / filter · o set here/all · r reload · Esc close"


@dataclass
class ConfigsRead(Message):
    configs: ResourceConfigs
    said: str | None = None  # what the change that led here did, when one did


@dataclass
class ConfigsFailed(Message):
    reason: str
    refused: bool = False  # a change refused (kafkatop's checks or Kafka's): nothing changed, the field stays


@dataclass
class Altered(Message):
    to_set: dict[str, str]
    to_delete: tuple[str, ...]
    said: str


def _failure(e: BaseException, screen: ModalScreen[None]) -> str:
    """The failure as the screen says it; the authorizer's refusal with the line that grants it here, kept for M."""
    if isinstance(e, Refused):
        screen.post_message(GrantsMet(e.grants))
        return refused_text(e, screen.app)
    return str(e) if isinstance(e, KafkatopError) else f"{type(e).__name__}: {e}"


class ConfigsScreen(Dialog[None]):
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("slash", "filter", "Filter"),
        Binding("x,delete", "delete_override", "Delete"),
        Binding("o", "only_set_here", "Only set here"),
        Binding("r", "reload", "Reload"),
    ]
    AUTO_FOCUS = "#configs-table"

    def __init__(
        self,
        admin: ConfigAdmin,
        resource: ConfigResource,
        changed: Callable[[str], object] | None = None,
        read_only_reason: str | None = None,
    ) -> None:
        """`changed(said)`: told of each change made (from a worker thread), e.g. to put it on the timeline."""
        super().__init__(None)
        self.admin = admin
        self.resource = resource
        self.changed = changed
        self.read_only_reason = read_only_reason  # a read-only context: configs are read, never set or deleted
        self.configs: ResourceConfigs | None = None
        self.editing: str | None = None  # the name in the edit field
        self.drafts: dict[str, str] = {}  # what was typed per name, kept when the field is left or refused

    def compose(self) -> ComposeResult:
        with Vertical(id="configs-dialog"):
            yield Label(Text.assemble(("Configs of ", "bold"), (str(self.resource), "bold")), id="configs-title")
            yield Input(placeholder="filter: part of a config name (Enter keeps it, Escape clears it)",
                        id="configs-filter", compact=True)  # fmt: skip
            yield ConfigTable(id="configs-table")
            yield Static("", id="configs-detail")
            with Horizontal(id="configs-edit"):
                yield Label("", id="configs-edit-name")
                yield Input(id="configs-value", compact=True)
            yield Static(f"reading the configs of {self.resource} …", id="configs-status")
            keys = (
                KEYS
                if self.read_only_reason is None
                else f"{self.read_only_reason} · / filter · o set here/all · r reload · Esc close"
            )
            yield Label(keys, id="configs-keys")

    def on_mount(self) -> None:
        self.query_one("#configs-filter").display = False
        self.query_one("#configs-edit").display = False
        self._read()

    # --- reading ------------------------------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="configs-read", exit_on_error=False)
    def _read(self, expect: tuple[Mapping[str, str], Sequence[str]] | None = None, said: str | None = None) -> None:
        try:
            configs = self.admin.describe(self.resource, expect)
        except Exception as e:  # noqa: BLE001 - shown in the screen, never a crash
            self.post_message(ConfigsFailed(_failure(e, self)))
        else:
            self.post_message(ConfigsRead(configs, said))

    def on_configs_read(self, message: ConfigsRead) -> None:
        self.configs = message.configs
        table = self.query_one(ConfigTable)
        table.show(message.configs)
        overrides = len(message.configs.overrides)
        status = message.said or (
            f"{len(message.configs.entries)} configs, {overrides} set on {self.resource} (bold); dimmed: Kafka's "
            "defaults"
        )
        self._status(status)
        self._detail()

    def on_configs_failed(self, message: ConfigsFailed) -> None:
        if message.refused and self.editing is not None:
            self._status(message.reason, error=True)
            self.query_one("#configs-value", Input).focus()  # the field keeps what was typed
            return
        self._status(message.reason if message.refused else f"Configs cannot be read: {message.reason}", error=True)

    def _status(self, text: str, error: bool = False) -> None:
        status = self.query_one("#configs-status", Static)
        status.update(Text(text))
        status.set_class(error, "-refused")

    @on(DataTable.RowHighlighted, "#configs-table")
    def _detail(self) -> None:
        entry = self.query_one(ConfigTable).selected
        self.query_one("#configs-detail", Static).update(
            detail(self.configs, entry) if self.configs is not None and entry is not None else ""
        )

    # --- editing --------------------------------------------------------------------------------------------------
    @on(DataTable.RowSelected, "#configs-table")
    def _edit(self) -> None:
        entry = self.query_one(ConfigTable).selected
        if entry is None or self.configs is None:
            return
        if is_read_only(self.configs, entry.name):
            self._status(check_change(self.configs, {entry.name: ""}, ())[0], error=True)
            return
        if self.read_only_reason is not None:
            self._status(f"{self.read_only_reason}: setting a config writes to the cluster", error=True)
            return
        self.editing = entry.name
        self.query_one("#configs-edit").display = True
        self.query_one("#configs-edit-name", Label).update(f"{entry.name} =")
        field = self.query_one("#configs-value", Input)
        field.password = entry.is_sensitive
        field.placeholder = "new value (not shown)" if entry.is_sensitive else f"new value ({entry.type.value})"
        field.value = self.drafts.get(entry.name, "" if entry.is_sensitive else (entry.value or ""))
        self.set_focus(field)  # at once: the value typed next is the field's, not keys of the table
        self._status("Enter sets it (checked, then validated by Kafka, then made) · Escape leaves the field")

    @on(Input.Changed, "#configs-value")
    def _typed(self, event: Input.Changed) -> None:
        if self.editing is None or self.configs is None:
            return
        self.drafts[self.editing] = event.value
        problems = check_change(self.configs, {self.editing: event.value}, ())
        if problems:
            self._status(problems[0], error=True)
        else:
            self._status("Enter sets it (checked, then validated by Kafka, then made) · Escape leaves the field")

    @on(Input.Submitted, "#configs-value")
    def _submit(self, event: Input.Submitted) -> None:
        if self.editing is None or self.configs is None:
            return
        name, value = self.editing, event.value
        if problems := check_change(self.configs, {name: value}, ()):
            self._status("; ".join(problems), error=True)
            return
        entry = self.configs.entry(name)
        secret = (entry is not None and entry.is_sensitive) or names_a_secret(name)  # a new one Kafka has not marked
        shown = "(not shown)" if secret else value
        self._status(f"setting {name}={shown} on {self.resource} …")
        self._alter({name: value}, (), f"{name}={shown} set on {self.resource}")

    @work(thread=True, exclusive=True, group="configs-alter", exit_on_error=False)
    def _alter(self, to_set: dict[str, str], to_delete: tuple[str, ...], said: str) -> None:
        try:
            self.admin.alter(self.resource, to_set, to_delete)
        except Exception as e:  # noqa: BLE001 - a refusal is shown in the screen
            self.post_message(ConfigsFailed(_failure(e, self), refused=True))
            return
        if self.changed is not None:
            self.changed(said)
        self.post_message(Altered(to_set, to_delete, said))

    def on_altered(self, message: Altered) -> None:
        for name in (*message.to_set, *message.to_delete):
            self.drafts.pop(name, None)
        if self.editing in message.to_set:
            self._leave_field()
        self._status(f"{message.said}; reading it back …")
        self._read((message.to_set, message.to_delete), message.said)

    def _leave_field(self) -> None:
        self.editing = None
        self.query_one("#configs-edit").display = False
        self.query_one(ConfigTable).focus()

    # --- deleting ---------------------------------------------------------------------------------------------------
    def action_delete_override(self) -> None:
        entry = self.query_one(ConfigTable).selected
        if entry is None or self.configs is None or self.focused is not self.query_one(ConfigTable):
            return
        if problems := check_change(self.configs, {}, (entry.name,)):
            self._status(problems[0], error=True)
            return
        if self.read_only_reason is not None:
            self._status(f"{self.read_only_reason}: deleting a config writes to the cluster", error=True)
            return
        self.app.push_screen(
            ConfirmScreen(f"Delete {entry.name} set on {self.resource}?", yes="Delete", detail=_falls_back(entry)),
            lambda yes: self._delete(entry.name) if yes else None,
        )

    def _delete(self, name: str) -> None:
        self._status(f"deleting {name} from {self.resource} …")
        self._alter({}, (name,), f"{name} deleted from {self.resource}")

    # --- keys ---------------------------------------------------------------------------------------------------
    def action_back(self) -> None:
        """Escape: out of a field (the filter is cleared, an edit kept as a draft), else close the screen."""
        focused = self.focused
        if focused is self.query_one("#configs-filter", Input):
            self._set_filter("")
            self.query_one(ConfigTable).focus()
        elif focused is self.query_one("#configs-value", Input):
            self._leave_field()
            self._status("left the field; what was typed is kept: Enter on the row brings it back")
        else:
            self.action_cancel()

    def action_filter(self) -> None:
        field = self.query_one("#configs-filter", Input)
        field.display = True
        self.set_focus(field)  # at once: the filter typed next is the field's

    @on(Input.Changed, "#configs-filter")
    def _filter_typed(self, event: Input.Changed) -> None:
        self._set_filter(event.value, keep_field=True)

    @on(Input.Submitted, "#configs-filter")
    def _filter_kept(self) -> None:
        self.query_one(ConfigTable).focus()

    def _set_filter(self, text: str, keep_field: bool = False) -> None:
        field = self.query_one("#configs-filter", Input)
        if not keep_field:
            field.value = text
            field.display = bool(text)
        table = self.query_one(ConfigTable)
        table.filter_text = text
        table.show()
        self._detail()

    def action_only_set_here(self) -> None:
        table = self.query_one(ConfigTable)
        table.only_set_here = not table.only_set_here
        table.show()
        self._detail()

    def action_reload(self) -> None:
        self._status(f"reading the configs of {self.resource} …")
        self._read()


def _falls_back(entry: ConfigEntry) -> str:
    """What the config is once the value set here is gone: the next synonym, as Kafka listed them."""
    behind = [s for s in entry.synonyms if s.source != entry.source]
    if not behind or entry.is_sensitive:
        return "It falls back to what the broker or Kafka's default says."
    nxt = behind[0]
    value = "null" if nxt.value is None else nxt.value
    return f"It falls back to {value} ({nxt.source.value}: {nxt.name})."
