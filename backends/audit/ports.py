"""The live view's writes, audited where they leave: each writing port (backends/ports.py) wrapped so that every call
of a method that writes appends one entry to the trail once it has ended — its target (the first argument), the other
arguments (a payload as its size, a secret hidden), and how it ended (the port's error when it raised). The methods
that write, per port, are declared once here (WRITES); every other attribute passes through untouched.

The composition root (tui/cli/audit_live.py) wraps the Sources' ports with these; the app never knows."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kafkatop.backends.model.audit import AuditEntry, Result, argument
from kafkatop.backends.model.errors import KafkatopError


@dataclass(frozen=True, slots=True)
class Writes:
    """A port's writing methods, each named as the trail says it, and the arguments never kept (payloads)."""

    actions: Mapping[str, str]  # method name: action ("kill", "create topic")
    payloads: frozenset[str] = frozenset()  # parameters kept as their size only
    reads_when: Callable[[Mapping[str, Any]], bool] = lambda _: False  # a call that only asks (validate_only=True)


# Per Sources member (tui/live/sources.py): what writes. Factories (topic_admin, elections) are audited in what they
# make.
WRITES: Mapping[str, Writes] = {
    "control": Writes({"kill": "kill", "stop": "stop", "start": "start", "restart": "restart",
                       "add_broker": "add broker"}),
    "topic_admin": Writes({"create_topic": "create topic", "delete_topic": "delete topic",
                           "add_partitions": "add partitions"}, reads_when=lambda a: bool(a.get("validate_only"))),
    "elections": Writes({"elect": "elect leaders"}),
    "reassignments": Writes({"execute": "reassign partitions", "cancel": "cancel reassignment",
                             "clear_throttle": "clear reassignment throttle"}),
    "group_tools": Writes({"delete_groups": "delete groups", "delete_offsets": "delete group offsets"}),
    "configs": Writes({"alter": "alter configs"}),
    "consoles": Writes({"send": "produce", "send_many": "produce", "send_record": "produce",
                        "send_test_messages": "produce test records", "execute_reset": "reset offsets",
                        "start_consumer": "start consumer"},
                       payloads=frozenset({"line", "lines", "key", "value", "headers"}),
                       reads_when=lambda a: "group" in a and a["group"] is None),  # no group: commits nothing
    "connect": Writes({"create": "connect create", "pause": "connect pause", "resume": "connect resume",
                       "stop": "connect stop", "restart": "connect restart", "delete": "connect delete",
                       "reset_offsets": "connect offsets --reset", "alter_offsets": "connect offsets --alter"}),
    "acls": Writes({"create": "acls --add", "delete": "acls --remove"}),
    "schemas": Writes({"register": "register schema"}, payloads=frozenset({"schema"})),
}  # fmt: skip

Record = Callable[[str, str | None, tuple[tuple[str, str], ...], Result, str | None], None]


class AuditedPort:
    """`port` with its writing methods audited through `record` (action, target, arguments, result, error)."""

    def __init__(self, port: object, writes: Writes, record: Record) -> None:
        self._port, self._writes, self._record = port, writes, record

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._port, name)
        action = self._writes.actions.get(name)
        if action is None or not callable(attr):
            return attr
        writes, record = self._writes, self._record

        def audited(*args: Any, **kwargs: Any) -> Any:
            try:
                bound = inspect.signature(attr).bind(*args, **kwargs).arguments
            except TypeError:
                bound = {f"arg{i}": a for i, a in enumerate(args)} | kwargs
            if writes.reads_when(bound):
                return attr(*args, **kwargs)
            items = list(bound.items())
            target = argument(items[0][0], items[0][1]) if items and not isinstance(items[0][1], Mapping) else None
            kept = tuple(
                (k, f"<{_size(v)}>" if k in writes.payloads else argument(k, v))
                for k, v in items[1 if target is not None else 0 :]
                if v is not None and v != {}  # an option left out is not an argument ("configs=")
            )
            try:
                out = attr(*args, **kwargs)
            except KafkatopError as e:
                record(action, target, kept, "failed", str(e))
                raise
            except BaseException as e:
                record(action, target, kept, "failed", f"{type(e).__name__}: {e}")
                raise
            record(action, target, kept, "ok", None)
            return out

        return audited


def audited_factory(make: Callable[[], Any], writes: Writes, record: Record) -> Callable[[], Any]:
    """A factory (a topic admin, an elector, opened per use) whose products are audited."""
    return lambda: AuditedPort(make(), writes, record)


def recorder(
    append: Callable[[AuditEntry], None],
    principal: str,
    context: str | None,
    cluster_id: Callable[[], str | None],
    on_error: Callable[[str], None],
) -> Record:
    """How a port's call becomes an entry: the session's who and where, the call's what; a trail that cannot be
    written is told once to `on_error` (the write itself went through)."""
    told = False

    def record(action: str, target: str | None, kept: tuple[tuple[str, str], ...], result: Result,
               error: str | None) -> None:  # fmt: skip
        nonlocal told
        entry = AuditEntry(time.time(), "live view", context, cluster_id(), principal, action, target, kept, result,
                           error)  # fmt: skip
        try:
            append(entry)
        except KafkatopError as e:
            if not told:
                told = True
                on_error(str(e))

    return record


def _size(value: object) -> str:
    if isinstance(value, str | bytes | bytearray):
        return f"{len(value)} {'characters' if isinstance(value, str) else 'bytes'}"
    if isinstance(value, list | tuple):
        return f"{len(value)} items"
    return "given" if value is not None else "none"
