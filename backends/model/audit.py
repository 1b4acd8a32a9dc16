"""The audit trail (README "Who changed what"): one entry per write kafkatop sends — a headless command that writes
(command_table.py's `writes`), or a live-view action through a writing port — with who sent it (the principal kafkatop
authenticated as), to which cluster, what and on what, the arguments that matter (a secret's value never: `[hidden]`;
a record's payload never: its size), and how it ended (Kafka's error when it failed). As JSON lines, and as the lines
`kafkatop audit` prints. Standard library only."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.secrets import HIDDEN, names_a_secret

Result = Literal["ok", "failed", "declined", "interrupted"]
RESULTS: tuple[Result, ...] = ("ok", "failed", "declined", "interrupted")
# The live view's writes the Timeline shows from the trail: those no operation step of their own tells (an election,
# a config change, a reassignment, groups' deletes, connectors, ACLs, node actions are told by theirs). A record
# produced is not: one a line, they would bury the cluster's events.
TIMELINE_WRITES = frozenset({"create topic", "delete topic", "reset offsets", "start consumer", "register schema",
                             "produce test records"})  # fmt: skip
VALUE_MAX = 200  # an argument's value is cut here: the trail says what was done, not every byte of it
_SETTING = re.compile(r"(?<![^,\s])([A-Za-z0-9_.\-]+)=([^,]*)")
_SINCE = re.compile(r"(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>s|m|h|d)")


@dataclass(frozen=True, slots=True)
class AuditEntry:
    at: float  # epoch seconds
    source: Literal["command", "live view"]
    context: str | None  # the context named (--context, the switcher's); None: a lab or --bootstrap-server alone
    cluster_id: str | None  # as the cluster said it (None: it did not answer)
    principal: str  # User:NAME, as the brokers' default principal builder names kafkatop's credentials
    action: str  # "create-topic", "groups --reset-offsets --execute", "kill", "connect create"
    target: str | None  # the topic, group, node, connector … it was done to
    arguments: tuple[tuple[str, str], ...]  # what matters of the rest, secrets hidden
    result: Result
    error: str | None = None  # failed: Kafka's error, or the command's own message

    def to_json(self) -> dict[str, Any]:
        return {
            "time": _iso(self.at), "source": self.source, "context": self.context, "cluster_id": self.cluster_id,
            "principal": self.principal, "action": self.action, "target": self.target,
            "arguments": dict(self.arguments), "result": self.result, "error": self.error,
        }  # fmt: skip

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> AuditEntry:
        """One line's object; ValueError (or KeyError, TypeError) when it is not an entry."""
        at = datetime.fromisoformat(str(raw["time"]).replace("Z", "+00:00")).timestamp()
        result = raw["result"]
        if result not in RESULTS or raw["source"] not in ("command", "live view"):
            raise ValueError(f"not an entry: result {result!r}")
        arguments = raw.get("arguments") or {}
        return cls(at, raw["source"], _opt(raw.get("context")), _opt(raw.get("cluster_id")), str(raw["principal"]),
                   str(raw["action"]), _opt(raw.get("target")),
                   tuple((str(k), str(v)) for k, v in arguments.items()), result, _opt(raw.get("error")))  # fmt: skip

    def line(self) -> str:
        """As `kafkatop audit` prints it: time, context, cluster id, then what (`what`)."""
        return f"{_iso(self.at)}  {self.context or '-'}  {self.cluster_id or '-'}  {self.what()}"

    def what(self) -> str:
        """Who did what on what, and how it ended (the Timeline's step)."""
        args = " ".join(f"{k}={v}" for k, v in self.arguments)
        said = self.result if self.error is None else f"{self.result}: {self.error}"
        on = f" {self.target}" if self.target else ""
        return f"{self.principal}  {self.action}{on}{'  ' + args if args else ''}  → {said}"


def argument(name: str, value: object) -> str:
    """An argument as the trail keeps it: a secret's value hidden (in a mapping, each secret key's), bytes as their
    size, the rest as text cut at VALUE_MAX."""
    if names_a_secret(name):
        return HIDDEN
    if isinstance(value, bytes | bytearray):
        return f"<{len(value)} bytes>"
    if isinstance(value, Mapping):
        text = ", ".join(f"{k}={HIDDEN if names_a_secret(str(k)) else v}" for k, v in value.items())
    elif isinstance(value, list | tuple | set | frozenset):
        text = ", ".join(str(v) for v in value if v is not None)
    else:
        text = str(value)
    # `--add-config ssl.key.password=…`: a setting written key=value whose key names a secret keeps its key only
    text = _SETTING.sub(lambda m: f"{m[1]}={HIDDEN}" if names_a_secret(m[1]) and m[2] != HIDDEN else m[0], text)
    return text if len(text) <= VALUE_MAX else text[: VALUE_MAX - 1] + "…"


def since(text: str, now: float | None = None) -> float:
    """--since: "30m", "2h", "7d", "90s" ago, or an ISO date or time ("2026-12-07", "2026-12-07T10:00", UTC unless
    it says a zone); BadInput naming both forms otherwise."""
    now = time.time() if now is None else now
    m = _SINCE.fullmatch(text.strip())
    if m is not None:
        return now - float(m.group("n")) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[m.group("unit")]
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise BadInput(
            f"--since {text!r}: a time ago (30m, 2h, 7d) or an ISO date or time (2026-12-07T10:00)"
        ) from None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def chosen(entries: Iterable[AuditEntry], *, context: str | None = None, after: float | None = None,
           action: str | None = None) -> list[AuditEntry]:  # fmt: skip
    """The entries of this context, since then, whose action starts with `action` ("groups" matches every groups
    write), oldest first."""
    return [
        e
        for e in entries
        if (context is None or e.context == context)
        and (after is None or e.at >= after)
        and (action is None or e.action == action or e.action.startswith(action + " "))
    ]


def dumps(entry: AuditEntry) -> str:
    return json.dumps(entry.to_json(), ensure_ascii=False, separators=(",", ":"))


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"


def _opt(value: object) -> str | None:
    return None if value is None else str(value)
