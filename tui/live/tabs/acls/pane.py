"""The ACLs tab: the cluster's ACL bindings, one row each, grouped by principal (its resource patterns, each with its
pattern type, then the operations allowed or denied and from which hosts) or, `W` again, by resource; above them the
authorizer, its super users and who kafkatop is here — or why there are no bindings to show: no authorizer (the demo
has none), not allowed, unreachable. `/` filters by principal, resource or operation. Its keys (keymap.py, section
ACLs) add a binding and remove the highlighted one (tabs/acls/keys.py)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical

from kafkatop.backends.model.acls import AclBinding, AclsSnapshot, AuthorizerInfo, camel
from kafkatop.tui.live.action import Launch
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.text import Static, shown
from kafkatop.tui.live.widgets.line_table import LineCells, LineTable
from kafkatop.tui.live.widgets.pane import LivePane

Grouping = Literal["principal", "resource"]
# The columns of each grouping: the group's own first, then what it holds.
COLUMNS: dict[Grouping, tuple[str, ...]] = {
    "principal": ("principal", "resource", "pattern", "permission", "operation", "host"),
    "resource": ("resource", "pattern", "principal", "permission", "operation", "host"),
}
DROPPED_FIRST = ("host", "pattern")  # what a narrow terminal leaves out first (a PREFIXED name ends in `*` anyway)
PERMISSION_STYLE = {"ALLOW": "green", "DENY": "bold red"}
HOW_TO_GET_ONE = "a lab gets one with `kafkatop up --security sasl_ssl --authorizer`"
NO_AUTHORIZER = f"no authorizer on this cluster: every authenticated user may do everything — {HOW_TO_GET_ONE}"
NO_DEMO = (
    "the demo has no authorizer (librdkafka's mock cluster answers no ACL request; no emulation): every client may do "
    f"everything — {HOW_TO_GET_ONE}"
)
NO_RECORDING = "this recording holds no ACLs (recorded by a kafkatop that did not read them)"
NO_SOURCE = "the ACLs are not read here"
READING = "reading the ACLs …"
UNREADABLE = "unknown"  # the adapter's class name for an authorizer whose configs it could not read
KEYS = "W: by {other} · / filter"
WRITE_KEYS = " · Y add · V remove the highlighted binding"


def binding_key(b: AclBinding) -> str:
    """A row's key: every field of the binding (two bindings differing in any field are two rows)."""
    p, e = b.pattern, b.entry
    return "\x1f".join((p.resource_type, p.name, p.pattern_type, e.principal, e.host, e.operation, e.permission))


def no_authorizer(snapshot: AclsSnapshot) -> bool:
    """The brokers run without an authorizer: Kafka answers every ACL request SECURITY_DISABLED."""
    return snapshot.authorizer.class_name is None and "SECURITY_DISABLED" in (snapshot.error or "")


def authorizer_text(authorizer: AuthorizerInfo) -> str:
    """StandardAuthorizer, super users User:admin — the status bar and the tab's header say it so."""
    if authorizer.class_name == UNREADABLE:
        return "not known (the brokers' configs are not readable as this user)"
    if not authorizer.super_users:  # a broker describes super.users as sensitive: no value
        return f"{authorizer.short} (its super users are not told: Kafka describes super.users as sensitive)"
    return f"{authorizer.short}, super users {', '.join(authorizer.super_users)}"


def header_text(snapshot: AclsSnapshot) -> Text:
    """The authorizer, its super users and who kafkatop is here; or why the bindings cannot be read (with the time
    of those still shown)."""
    if no_authorizer(snapshot):
        return Text(NO_AUTHORIZER, style="yellow")
    text = Text()
    if snapshot.authorizer.class_name is not None:
        text.append("authorizer ", style="bold")
        text.append(authorizer_text(snapshot.authorizer))
    you = snapshot.principal
    if you is not None:
        text.append(" · " if text else "")
        text.append("you: ", style="bold")
        text.append(you + (" (super user)" if you in snapshot.authorizer.super_users else ""))
    if snapshot.error is not None:
        text.append("\n" if text else "")
        at = datetime.fromtimestamp(snapshot.at, UTC).strftime("%H:%M:%S")
        kept = f"; the bindings below as read at {at}" if snapshot.bindings else ""
        text.append(f"{snapshot.error}{kept}", style="bold red")
    else:
        n = len(snapshot.bindings)
        text.append(f" · {n} binding{'s' * (n != 1)}", style="dim")
    return text


def grouped(bindings: tuple[AclBinding, ...], by: Grouping) -> list[AclBinding]:
    """The bindings in the grouping's order: by principal, then resource; or by resource, then principal."""
    if by == "principal":
        return sorted(bindings, key=lambda b: (b.entry.principal, b.pattern, b.entry.permission, b.entry.operation))
    return sorted(bindings, key=lambda b: (b.pattern, b.entry.principal, b.entry.permission, b.entry.operation))


def acl_rows(bindings: tuple[AclBinding, ...], by: Grouping) -> dict[str, LineCells]:
    """One row per binding, in groups: a group's name (and, by principal, a resource's) written again on each of its
    rows for `/`, but dim, so the eye reads it once per group."""
    rows: dict[str, LineCells] = {}
    last: AclBinding | None = None
    for b in grouped(bindings, by):
        p, e = b.pattern, b.entry
        same_principal = last is not None and last.entry.principal == e.principal
        same_pattern = last is not None and last.pattern == p
        first, second = (same_principal, same_principal and same_pattern) if by == "principal" else \
            (same_pattern, same_pattern and same_principal)  # fmt: skip
        # Names others chose: escaped before Rich's Text would drop a BEL or a CR from them (text.py).
        principal = shown(e.principal, style="dim" if (first if by == "principal" else second) else "bold")
        resource = shown(p.short, style="dim" if (second if by == "principal" else first) else "bold")
        pattern = Text(p.pattern_type, style="dim" if (second if by == "principal" else first) else "")
        permission = Text(e.permission, style=PERMISSION_STYLE.get(e.permission, ""))
        cells = (principal, resource, pattern) if by == "principal" else (resource, pattern, principal)
        rows[binding_key(b)] = (*cells, permission, camel(e.operation), e.host)
        last = b
    return rows


class AclsPane(LivePane, Vertical):
    """The bindings and what is known of the authorizer; see the module's docstring."""

    def __init__(self, launch: Launch, has_source: bool, read_only_reason: str | None = None) -> None:
        super().__init__()
        self.launch = launch
        self.has_source = has_source  # an AclAdmin was given (live), or a replay recorded the ACLs
        self.read_only_reason = (
            read_only_reason  # why the keys that write are refused here (a read-only context), if they are
        )
        self.by: Grouping = "principal"
        self.snapshot: AclsSnapshot | None = None
        self._by_key: dict[str, AclBinding] = {}
        self._rows: Mapping[str, LineCells] | None = None
        self._said: Text | None = None

    def compose(self) -> ComposeResult:
        yield Static(self.missing, id="acls-header")
        yield LineTable(COLUMNS[self.by], dropped_first=DROPPED_FIRST, id="acl-table")
        yield Static(self.keys, id="acls-keys")

    def on_mount(self) -> None:
        for part in ("#acl-table", "#acls-keys"):
            self.query_one(part).display = self.has_source  # without a source: only what to do about it

    @property
    def missing(self) -> Text:
        """What the tab says before the first poll: reading, or why there are no ACLs to read."""
        if self.has_source:
            return Text(READING, style="dim")
        said = {"demo": NO_DEMO, "replay": NO_RECORDING}.get(self.launch, NO_SOURCE)
        return Text(said, style="yellow")

    @property
    def keys(self) -> Text:
        """The tab's keys; those that write only where they may (not in a replay, nor a read-only context)."""
        keys = KEYS.format(other="resource" if self.by == "principal" else "principal")
        if self.launch != "replay":
            keys += (
                WRITE_KEYS
                if self.read_only_reason is None
                else f" · {self.read_only_reason}: no Y (add), no V (remove)"
            )
        return Text(keys, style="dim")

    @property
    def selected_binding(self) -> AclBinding | None:
        key = self.query_one("#acl-table", LineTable).selected_key
        return self._by_key.get(key) if key is not None else None

    def toggle_grouping(self) -> None:
        """`W` in the tab: grouped by resource instead of by principal, or back."""
        self.by = "resource" if self.by == "principal" else "principal"
        table = self.query_one("#acl-table", LineTable)
        table.columns = COLUMNS[self.by]
        self.query_one("#acls-keys", Static).update(self.keys)
        self._rows = None
        self.snapshot = None  # drawn again below, in the new grouping
        self.redraw()

    def draw(self, view: LiveView) -> None:
        snapshot = view.acls
        header = self.query_one("#acls-header", Static)
        if snapshot is None:
            said = Text(view.acls_problem, style="bold red") if view.acls_problem else self.missing
        else:
            said = header_text(snapshot)
            if view.acls_problem:
                said.append(f"\n{view.acls_problem}", style="bold red")
        if said != self._said:
            header.update(said)
            self._said = said
        if snapshot is None or snapshot is self.snapshot:
            return
        self.snapshot = snapshot
        self._by_key = {binding_key(b): b for b in snapshot.bindings}
        for part in ("#acl-table", "#acls-keys"):
            self.query_one(part).display = not no_authorizer(snapshot)  # nothing to show, nothing to act on
        rows = acl_rows(snapshot.bindings, self.by)
        if rows != self._rows:
            self._rows = rows
            self.query_one("#acl-table", LineTable).set_rows(rows)  # the highlighted one stays; `/` keeps its filter
