"""The audit trail from the command line (README "Who changed what"):
- every headless command that writes (command_table.py's `writes` says which, as given) appends one entry once it
  has ended — run through `audited` by main.py, the one place every command passes;
- `kafkatop audit` lists the trail (`--context`, `--since`, `--action`, `--json`).
The live view's writes are audited by its ports (tui/cli/audit_live.py)."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

from kafkatop.backends.audit.trail import FILE, AuditError, AuditTrail, read_trail
from kafkatop.backends.insight.grants import principal_of
from kafkatop.backends.model.audit import AuditEntry, Result, argument, chosen, since
from kafkatop.backends.model.errors import BadInput, KafkatopError
from kafkatop.tui.cli import command_table
from kafkatop.tui.cli.exits import BAD_INPUT, DONE, INTERRUPTED, Declined, err, hearing

# The options that make a command write, named in its action ("groups --reset-offsets --execute").
_WRITING = ("create", "alter", "delete", "delete_config", "delete_offsets", "reset_offsets", "execute", "cancel",
            "status", "add", "remove")  # fmt: skip
# Where its target is, first found first.
_TARGETS = ("group", "topic", "entity_name", "broker", "node", "target", "transactional_id", "offset_json_file",
            "reassignment_json_file", "add", "delete")  # fmt: skip
# Not kept: how it was asked (output, connection, waiting), never what was done; records' payloads.
_LEFT_OUT = {"command", "json", "yes", "control_chars", "timeout", "interval", "read_only", "bootstrap_server",
             "command_config", "state_dir", "kafka_home", "context", "context_name", "context_file",
             "context_read_only", "context_colour", "context_lag", "context_mask", "context_audit_topic",
             "startup_warnings", "value", "key", "headers", "records", "line"}  # fmt: skip


def trail_path() -> Path:
    from kafkatop.backends.lab.state import default_state_root

    return default_state_root() / FILE


def audited(args: argparse.Namespace, writes: str | None, run: Callable[[argparse.Namespace], int]) -> int:
    """Runs the command; when it writes, appends its entry however it ended (an exception goes on up) — but for bad
    input (exit 2), refused before anything was sent."""
    if writes is None:
        return run(args)
    result: Result | None = "failed"
    error = outcome = None  # Kafka's error or the command's message; what it said last when it went well
    with hearing() as said:
        try:
            code = run(args)
            result = "ok" if code == DONE else "interrupted" if code == INTERRUPTED else "failed"
            result = None if code == BAD_INPUT else result  # refused before anything was sent
            error = None if code == DONE else (said[-1] if said else f"exit {code}: its lines say why")
            outcome = said[-1] if said and code == DONE else None  # "3 records produced"
            return code
        except Declined:
            result = "declined"
            raise
        except KeyboardInterrupt:
            result = "interrupted"
            raise
        except BadInput:
            result = None
            raise
        except KafkatopError as e:
            error = str(e)
            raise
        finally:
            if result is not None:
                _append(args, *_who_and_where(args), result, error, outcome)


def cmd_audit(args: argparse.Namespace) -> int:
    path = trail_path()
    after = since(args.since) if args.since else None
    entries, skipped = read_trail(path)
    shown = chosen(entries, context=args.context_filter, after=after, action=args.action)
    if skipped:
        err(f"{path}: {skipped} line(s) are no audit entry: left out")
    if args.json:
        for e in shown:
            print(json.dumps(e.to_json(), ensure_ascii=False))
        return DONE
    if not shown:
        known = sorted({e.context for e in entries if e.context})
        if args.context_filter and args.context_filter not in known:
            said = f"contexts in it: {', '.join(known)}" if known else "no write in it was to a context"
            print(f"no writes to context {args.context_filter!r} in {path} ({said}; a lab by --name has none)")
            return DONE
        print(f"no writes in {path}" + (" that match" if entries else " yet"))
        return DONE
    for e in shown:
        print(e.line())
    return DONE


def _who_and_where(args: argparse.Namespace) -> tuple[str, str | None]:
    """The principal its credentials give, and the cluster's id (a lab's as recorded; an attached cluster asked,
    once the command has ended); neither is a reason for the entry not to be written."""
    settings: dict[str, str] = {}
    try:
        from kafkatop.backends.lab.properties import read_client_properties
        from kafkatop.backends.model.client_properties import translate_client_properties
        from kafkatop.tui.cli.common import lab_client_properties

        path = getattr(args, "command_config", None) or lab_client_properties(args)
        if path:
            settings = dict(translate_client_properties(read_client_properties(path)).settings)
    except (KafkatopError, OSError):
        pass
    return principal_of(settings), _cluster_id(args, settings)


def _cluster_id(args: argparse.Namespace, settings: dict[str, str]) -> str | None:
    try:
        if getattr(args, "bootstrap_server", None):
            from kafkatop.backends.model.connection import KafkaConnection
            from kafkatop.backends.protocol.identity import who_answers

            host, port = KafkaConnection.parse(args.bootstrap_server, settings).addresses[0]
            return who_answers(host, port, settings, timeout_s=3.0).cluster_id
        from kafkatop.tui.cli.common import open_cluster

        return open_cluster(args, need_install=False).snapshot().cluster_id
    except (KafkatopError, OSError):
        return None


def _append(args: argparse.Namespace, principal: str, cluster_id: str | None, result: Result,
            error: str | None, outcome: str | None = None) -> None:  # fmt: skip
    given = {k: v for k, v in vars(args).items() if v not in (None, False, [], ()) and k not in _LEFT_OUT}
    flags = [f"--{k.replace('_', '-')}" for k in _WRITING if given.get(k)]  # a switch, or one taking values
    subs = [given.pop(k) for k in ("what", "transactions_command", "connect_command", "action") if k in given]
    sub = next((str(v) for v in subs if isinstance(v, str)), None)
    action = " ".join([args.command, *([sub] if sub and sub not in (f.lstrip("-") for f in flags) else []), *flags])
    lab_only = command_table.named(args.command).lab_only
    targets = (*_TARGETS, "name") if lab_only else _TARGETS  # `up --name x`: the lab; elsewhere --name is where
    target_key = next((k for k in targets if isinstance(v := given.get(k), str | int | list) and v is not True
                       and v), None)  # fmt: skip
    target = argument(target_key, given.pop(target_key)) if target_key else None
    if "name" in given:  # lab options' --name: the lab (its target only when nothing else is: `up --name x`)
        given["lab"] = given.pop("name")
    kept = tuple((k, argument(k, v)) for k, v in sorted(given.items()) if v is not True)
    kept += tuple((k, "yes") for k, v in sorted(given.items()) if v is True and k not in _WRITING)
    kept += (("said", argument("said", outcome)),) if outcome else ()
    entry = AuditEntry(time.time(), "command", getattr(args, "context_name", None), cluster_id, principal, action,
                       target, kept, result, error)  # fmt: skip
    try:
        AuditTrail(trail_path()).append(entry)
    except AuditError as e:
        err(f"{e}: this write is not in the trail")
    topic = getattr(args, "context_audit_topic", None)
    if topic and not getattr(args, "read_only", False):  # read-only: nothing is written to that cluster
        _publish(args, topic, entry)


def _publish(args: argparse.Namespace, topic: str, entry: AuditEntry) -> None:
    """The entry also to the context's audit-topic; a failure is one line, the local trail holding it."""
    from kafkatop.backends.kafka.records.audit_topic import AuditTopic
    from kafkatop.tui.cli.common import connection

    try:
        sink = AuditTopic(connection(args), topic)
    except (KafkatopError, OSError) as e:
        problem: str | None = f"audit-topic {topic!r}: {e}"
    else:
        sink.publish(entry)
        problem = sink.close()
    if problem is not None:
        err(f"{problem}: this write is in the local trail ({trail_path()}) only")
