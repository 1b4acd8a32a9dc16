"""`Y` in ACLs: a binding to add — principal, allow or deny, operations, resource type and name, pattern type, host —
or kafka-acls.sh's conveniences: `producer` (Write, Describe, Create on the topic) and `consumer` (Read, Describe on
the topic, Read on the group). Each field is checked as kafka-acls.sh checks it (the model's operation_named and
principal_named, the operations each resource type supports); a field it would refuse says why here and nothing is
sent. Enter adds: dismissed with the bindings, or None (Escape)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.suggester import SuggestFromList
from textual.widgets import Button

from kafkatop.backends.model.acls import (
    CLUSTER_NAME,
    CONSUMER_TOPIC,
    PRODUCER_TOPIC,
    SUPPORTED_OPERATIONS,
    WILDCARD,
    AccessControlEntry,
    AclBinding,
    ResourcePattern,
    camel,
    operation_named,
    principal_named,
)
from kafkatop.backends.model.errors import BadInput
from kafkatop.tui.live.screens.dialog import Dialog, buttons, frame
from kafkatop.tui.live.text import Input, Label, Static

# The resource types a binding names, as kafka-acls.sh's options spell them (--topic, --transactional-id …).
RESOURCE_TYPES = {"topic": "TOPIC", "group": "GROUP", "cluster": "CLUSTER", "transactional-id": "TRANSACTIONAL_ID",
                  "user": "USER", "delegation-token": "DELEGATION_TOKEN"}  # fmt: skip
# kafka-acls.sh's --producer and --consumer: the operations on the topic (and, for a consumer, on its group).
CONVENIENCES = {"producer": PRODUCER_TOPIC, "consumer": CONSUMER_TOPIC}


def operations_hint(resource: str) -> str:
    """The operations the resource type typed takes (SUPPORTED_OPERATIONS), or every one while it names none."""
    kind = _resource(resource)
    if kind is None:
        every = dict.fromkeys(op for ops in SUPPORTED_OPERATIONS.values() for op in ops)
        return f"operations, by resource type: {' '.join(camel(op) for op in every)}; All"
    takes = f"operations a {camel(kind)} takes: {' '.join(camel(op) for op in SUPPORTED_OPERATIONS[kind])}; All"
    return takes + ("; or as producer, or consumer with its group (kafka-acls.sh's)" if kind == "TOPIC" else "")


def _key(text: str) -> str:
    return re.sub(r"[-_\s]", "", text).lower()


def _resource(text: str) -> str | None:
    """The resource type typed (topic, transactional-id, TransactionalId …) as Kafka names it, if it is one."""
    return {_key(option): kind for option, kind in RESOURCE_TYPES.items()}.get(_key(text))


@dataclass(frozen=True, slots=True)
class AclForm:
    """The dialog's fields as typed."""

    principal: str
    permission: str = "allow"
    operations: str = ""
    resource: str = "topic"
    name: str = ""
    pattern: str = "literal"
    host: str = WILDCARD
    convenience: str = ""  # "", producer or consumer
    group: str = ""  # a consumer's group


def _one(problems: list[str], field: str, check: Callable[[str], str], text: str) -> str | None:
    """`check(text)`, or None with why (the model's BadInput) said under `field`."""
    try:
        return check(text)
    except BadInput as e:
        problems.append(f"{field}: {e}")
        return None


def bindings_of(form: AclForm) -> tuple[tuple[AclBinding, ...], list[str]]:
    """The bindings the form asks for, or (when a field is wrong) none and a line per wrong field saying why."""
    problems: list[str] = []
    principal = _one(problems, "principal", principal_named, form.principal.strip())
    permission = {"allow": "ALLOW", "deny": "DENY"}.get(form.permission.strip().lower())
    if permission is None:
        problems.append(f"allow/deny: {form.permission.strip() or 'empty'}? allow or deny")
    resource = _resource(form.resource)
    if resource is None:
        problems.append(f"resource: {form.resource.strip() or 'empty'}? one of {', '.join(RESOURCE_TYPES)}")
    name = CLUSTER_NAME if resource == "CLUSTER" else form.name.strip()
    if resource is not None and not name:
        problems.append(f"name: the {camel(resource)}'s name (or {WILDCARD}: every one)")
    pattern = form.pattern.strip().upper() or "LITERAL"
    if pattern in ("MATCH", "ANY"):
        problems.append(f"pattern: {pattern.lower()} selects bindings (acls --list, --remove); a binding is literal "
                        "or prefixed")  # fmt: skip
    elif pattern not in ("LITERAL", "PREFIXED"):
        problems.append(f"pattern: {form.pattern.strip()}? literal or prefixed")
    elif pattern == "PREFIXED" and name == WILDCARD:
        problems.append(f"pattern: a prefixed {WILDCARD} is not a name Kafka takes; a literal {WILDCARD} matches every "
                        "one")  # fmt: skip
    host = form.host.strip() or WILDCARD
    if any(c.isspace() for c in host):
        problems.append(f"host: {host!r}? one address, or {WILDCARD} for every host")
    convenience, group = _key(form.convenience), form.group.strip()
    words = [w for w in re.split(r"[,\s]+", form.operations) if w]
    ops: tuple[str, ...] = ()
    if convenience and convenience not in CONVENIENCES:
        problems.append(f"or as: {form.convenience.strip()}? producer or consumer (or nothing)")
    elif convenience:
        ops = CONVENIENCES[convenience]
        if words:
            problems.append(f"operations: leave them out with {convenience}: it names its own")
        if resource not in (None, "TOPIC"):
            problems.append(f"resource: {convenience} acts on a topic")
        if convenience == "consumer" and not group:
            problems.append("group: a consumer's group (or * for every group)")
    elif not words:
        problems.append("operations: at least one (Read, Write, Describe, … or All)")
    else:
        named = [_one(problems, "operations", operation_named, w) for w in words]
        ops = tuple(dict.fromkeys(op for op in named if op is not None))
        takes = SUPPORTED_OPERATIONS.get(resource or "", ())
        wrong = [camel(op) for op in ops if resource is not None and op != "ALL" and op not in takes]
        if wrong and resource is not None:
            can = ", ".join(camel(op) for op in SUPPORTED_OPERATIONS[resource])
            problems.append(f"operations: a {camel(resource)} takes {can} or All, not {', '.join(wrong)}")
    if group and convenience != "consumer":
        problems.append("group: only with consumer (it is the consumer's group)")
    if problems or principal is None or permission is None or resource is None:
        return (), problems
    made = [AclBinding(ResourcePattern(resource, name, pattern), AccessControlEntry(principal, host, op, permission))
            for op in ops]  # fmt: skip
    if convenience == "consumer":
        entry = AccessControlEntry(principal, host, "READ", permission)
        made.append(AclBinding(ResourcePattern("GROUP", group, pattern), entry))
    return tuple(made), []


def bindings_text(bindings: tuple[AclBinding, ...]) -> str:
    """User:alice ALLOW Read, Write on Topic:orders (LITERAL) from *; …: what a dialog, a notice and the timeline
    say of them (the same entry on one pattern folded into one line)."""
    lines: dict[tuple[ResourcePattern, str, str, str], list[str]] = {}
    for b in bindings:
        e = b.entry
        lines.setdefault((b.pattern, e.principal, e.permission, e.host), []).append(camel(e.operation))
    return "; ".join(f"{principal} {permission} {', '.join(ops)} on {p.short} ({p.pattern_type}) from {host}"
                     for (p, principal, permission, host), ops in lines.items())  # fmt: skip


FIELDS = ("principal", "permission", "operations", "resource", "name", "pattern", "host", "convenience", "group")


class AddAclScreen(Dialog[tuple[AclBinding, ...] | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    AUTO_FOCUS = "#acl-principal"

    def __init__(self, principals: tuple[str, ...] = (), names: tuple[str, ...] = ()) -> None:
        """`principals`, `names`: completions (the principals of the bindings shown, the topics and groups)."""
        super().__init__(None)
        self.principals = principals
        self.names = names

    def _field(self, label: str, field: str, value: str = "", hint: str = "", choices: tuple[str, ...] = ()) -> Input:
        suggester = SuggestFromList(choices, case_sensitive=False) if choices else None
        return Input(value, placeholder=hint, id=f"acl-{field}", compact=True, suggester=suggester, tooltip=label)

    def compose(self) -> ComposeResult:
        f = self._field
        with frame("Add an ACL binding", "acl-add"):
            with Horizontal(classes="row"):
                yield Label("principal")
                yield f("principal", "principal", "", "User:alice", self.principals)
                yield Label("host", classes="second")
                yield f("host", "host", WILDCARD, "* or an IP")
            with Horizontal(classes="row"):
                yield Label("allow/deny")
                yield f("allow or deny", "permission", "allow", "allow", ("allow", "deny"))
                yield Label("operations", classes="second")
                yield f("operations", "operations", "", "Read Write …")
            with Horizontal(classes="row"):
                yield Label("resource")
                yield f("resource type", "resource", "topic", "topic, group …", tuple(RESOURCE_TYPES))
                yield Label("name", classes="second")
                yield f("resource name", "name", "", "orders (* every one)", self.names)
            with Horizontal(classes="row"):
                yield Label("pattern")
                yield f("pattern type", "pattern", "literal", "literal", ("literal", "prefixed"))
                yield Label("or as", classes="second")
                yield f("producer or consumer", "convenience", "", "producer", tuple(CONVENIENCES))
                yield Label("group", classes="second")
                yield f("a consumer's group", "group", "", "its group", self.names)
            yield Label(Text(operations_hint("topic"), style="dim"), id="dialog-detail")
            yield Static("", id="acl-preview")
            yield Static("", id="dialog-errors")
            # compact, so every field's error fits 80x24
            yield buttons(Button("Add (Enter)", variant="primary", id="add", compact=True), compact=True)

    def on_mount(self) -> None:
        self.query_one("#acl-preview", Static).display = False  # a line only once the fields make bindings

    @property
    def form(self) -> AclForm:
        return AclForm(*(self.query_one(f"#acl-{field}", Input).value for field in FIELDS))

    def on_input_changed(self) -> None:
        """What Enter would add, while the fields make bindings; the problems are said once Enter is pressed. The
        hint names the operations of the resource type typed."""
        form = self.form
        bindings, _ = bindings_of(form)
        preview = self.query_one("#acl-preview", Static)
        preview.update(Text(f"adds {bindings_text(bindings)}") if bindings else "")
        preview.display = bool(bindings)
        self.query_one("#dialog-detail", Label).update(Text(operations_hint(form.resource), style="dim"))

    @on(Input.Submitted)
    @on(Button.Pressed, "#add")
    def _submit(self) -> None:
        bindings, problems = bindings_of(self.form)
        self.say("\n".join(problems))
        if bindings:
            self.dismiss(bindings)
