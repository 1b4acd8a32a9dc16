"""`kafkatop connect ACTION`: Kafka Connect through its workers' REST API (backends/connect/). Tables by default;
`--json` prints the worker's own answer, so `connect list --json` is what `curl` of
`URL/connectors?expand=status&expand=info` prints. The workers: --connect-url, else the context's connect-url (filled
in by tui/cli/contexts.py), else the lab's. Writes (create, pause, resume, stop, restart, delete, offsets --reset) are
refused in a read-only context before this runs (offsets --alter too); delete and offsets --reset ask first."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Sequence
from typing import Any

from kafkatop.backends.connect.answers import offsets_of, plugins_of, status_of, validation_of
from kafkatop.backends.connect.client import ConnectClient
from kafkatop.backends.connect.local_files import noted
from kafkatop.backends.connect.masking import HIDDEN_NOTE
from kafkatop.backends.connect.rest import worker_name
from kafkatop.backends.model.columns import aligned_lines
from kafkatop.backends.model.connect import ConnectError, Connector, ConnectRefused, Validation
from kafkatop.backends.model.connect_files import ConnectorFile, read_connector_file, read_offsets_file
from kafkatop.backends.model.secrets import HIDDEN
from kafkatop.tui.cli.common import confirmed
from kafkatop.tui.cli.connect_workers import again, auth, typed_name, worker_urls
from kafkatop.tui.cli.exits import BAD_INPUT, DONE, FAILED, UsageError, err

# Each action's own options; another action's, given, is refused (it would be ignored otherwise).
TAKES: dict[str, frozenset[str]] = {
    "list": frozenset({"json"}),
    "status": frozenset({"json"}),
    "create": frozenset({"json"}),
    "validate": frozenset({"json"}),
    "pause": frozenset(),
    "resume": frozenset(),
    "stop": frozenset(),
    "restart": frozenset({"include_tasks", "only_failed"}),
    "delete": frozenset({"yes"}),
    "offsets": frozenset({"reset", "alter", "yes", "json"}),
    "plugins": frozenset({"json"}),
}
TARGET = {"create": "FILE", "validate": "FILE", "plugins": "CLASS", "list": ""}  # the rest: NAME


def check_options(args: argparse.Namespace) -> None:
    action: str = args.connect_command
    for dest in sorted(frozenset().union(*TAKES.values()) - TAKES[action]):
        if getattr(args, dest, None):
            takers = sorted(a for a, dests in TAKES.items() if dest in dests)
            flag = "--" + dest.replace("_", "-")
            raise UsageError(f"{flag} is not an option of `connect {action}` (it is of {', '.join(takers)})")
    wanted = TARGET.get(action, "NAME")
    if wanted == "" and args.target is not None:
        raise UsageError(f"`connect {action}` takes no {args.target!r}: leave it out")
    if wanted in ("NAME", "FILE") and args.target is None:
        raise UsageError(f"`connect {action}` needs the connector's {'name' if wanted == 'NAME' else 'file'}: "
                         f"kafkatop connect {action} {wanted}")  # fmt: skip


def config_of(connector: ConnectorFile) -> dict[str, str]:
    """The config as validation wants it: with its name (a required setting of every connector)."""
    return dict(connector.config, name=connector.name)


# --- the command ----------------------------------------------------------------------------------------------------
def cmd_connect(args: argparse.Namespace) -> int:
    check_options(args)
    urls = worker_urls(args)
    settings = auth(args)
    lab = getattr(args, "lab_cluster", None)  # a lab's own workers: on this host, where its files are looked for
    client = ConnectClient(urls, user_info=settings.user_info, ssl_context=settings.ssl_context,
                           timeout_s=args.timeout, local=lab is not None)  # fmt: skip
    try:
        if lab is not None and lab[1] is not None:
            client.check_cluster(lab[1], f"lab {lab[0]!r}")
        return ACTIONS[args.connect_command](client, args)
    finally:
        for passed in client.passed:
            err(f"{passed}; {client.answered} answered")
        client.close()


def _list(client: ConnectClient, args: argparse.Namespace) -> int:
    if args.json:
        _print_json(client.connectors_answer())
        return DONE
    snapshot = client.poll()
    if snapshot.problem is not None:
        raise ConnectError(snapshot.problem)
    for worker in snapshot.workers:
        if not worker.reachable:
            err(f"{worker_name(worker.url)} {worker.problem}")
            if worker_name(worker.url) in {t.worker_id for c in snapshot.connectors for t in c.tasks}:
                err(f"note: the tasks shown on {worker_name(worker.url)} are Connect's last word for them: a lost "
                    "worker's tasks keep their status until the group gives them to another worker (after "
                    "session.timeout.ms and scheduled.rebalance.max.delay.ms)")  # fmt: skip
    if not snapshot.connectors:
        err(f"no connectors on the Connect cluster at {', '.join(worker_name(u) for u in client.urls)}")
        return DONE
    rows = [("NAME", "TYPE", "STATE", "TASKS", "WORKER", "CLASS", "TOPICS")]
    for c in snapshot.connectors:
        rows.append((c.name, c.type, c.state, _tasks(c), c.worker_id or "-", c.class_name.rpartition(".")[2] or "-",
                     ",".join(c.topics) or "-"))  # fmt: skip
    _print_table(rows)
    for c in snapshot.connectors:
        if c.waiting:
            err(f"note: connector {c.name} is {c.waiting} (its task retries until it does)")
    return DONE


def _tasks(c: Connector) -> str:
    """running/total, and how many FAILED."""
    cell = f"{c.running}/{len(c.tasks)}"
    return f"{cell}, {c.failed} failed" if c.failed else cell


def _status(client: ConnectClient, args: argparse.Namespace) -> int:
    answer = client.status_answer(args.target)
    if args.json:
        _print_json(answer)
        return DONE
    c = status_of(answer, client.info_answer(args.target))
    c = noted(c) if client.local else c
    print(f"connector {c.name} ({c.type}, {c.class_name or 'class unknown'}): {c.state}"
          f"{' on ' + c.worker_id if c.worker_id else ''}")  # fmt: skip
    if c.waiting:
        print(f"note: {c.waiting} (its task retries until it does)")
    if c.topics:
        print(f"topics: {', '.join(c.topics)}")
    if c.trace:
        print(f"\nthe connector FAILED:\n{_indent(c.trace)}")
    if not c.tasks:
        print("no tasks" + (" (a STOPPED connector has none)" if c.state == "STOPPED" else ""))
        return DONE
    print()
    _print_table([("TASK", "STATE", "WORKER"), *((str(t.task), t.state, t.worker_id or "-") for t in c.tasks)])
    for t in c.tasks:
        if t.trace:
            print(f"\ntask {t.task} {t.state}:\n{_indent(t.trace)}")
    return DONE


def _indent(trace: str) -> str:
    return "\n".join("  " + line for line in trace.rstrip().splitlines())


def _refused(request: ConnectorFile, validation: Validation, done: str) -> ConnectRefused:
    lines = [f"  {p.name}: {' '.join(p.errors)}" for p in validation.problems]
    errors = f"{validation.error_count} error{'s' if validation.error_count != 1 else ''}"
    return ConnectRefused(f"the worker refused the config of connector {request.name!r} ({request.class_name}: "
                          f"{errors}), {done}:\n" + "\n".join(lines))  # fmt: skip


def _validate(client: ConnectClient, args: argparse.Namespace) -> int:
    request = read_connector_file(args.target)
    answer = client.validate_answer(config_of(request))
    validation = validation_of(answer)
    if args.json:
        _print_json(answer)
        return BAD_INPUT if validation.error_count else DONE
    if validation.error_count:
        raise _refused(request, validation, "as it is")
    print(f"valid: connector {request.name!r} ({request.class_name}), {len(request.config) + 1} settings, no errors")
    return DONE


def _create(client: ConnectClient, args: argparse.Namespace) -> int:
    request = read_connector_file(args.target)
    config = config_of(request)
    validation = client.validate(config)
    if validation.error_count:
        raise _refused(request, validation, "nothing was created")
    answer = client.create_answer(request.name, config)
    if args.json:
        _print_json(answer)
    else:
        kind = answer.get("type") if isinstance(answer, dict) else None
        print(f"created connector {request.name!r} ({request.class_name}{', ' + kind if kind else ''}): "
              f"`{again(args, 'status', request.name)}` shows its tasks")  # fmt: skip
    return DONE


def _pause(client: ConnectClient, args: argparse.Namespace) -> int:
    client.pause(args.target)
    print(f"connector {args.target!r}: pause requested; it and its tasks pause within moments")
    return DONE


def _resume(client: ConnectClient, args: argparse.Namespace) -> int:
    client.resume(args.target)
    print(f"connector {args.target!r}: resume requested; it and its tasks run again within moments")
    return DONE


def _stop(client: ConnectClient, args: argparse.Namespace) -> int:
    client.stop(args.target)
    print(f"connector {args.target!r} stopped: its tasks are shut down, its config kept (resume starts it again; "
          "its offsets may now be reset)")  # fmt: skip
    return DONE


def _restart(client: ConnectClient, args: argparse.Namespace) -> int:
    answer = client.restart_answer(args.target, include_tasks=args.include_tasks, only_failed=args.only_failed)
    if answer is None:  # 204: the connector alone, restarted
        print(f"connector {args.target!r} restarted; its tasks were not (--include-tasks restarts them too)")
        return DONE
    c = status_of(answer)
    restarting = (["the connector"] if c.state == "RESTARTING" else []) + [
        f"task {t.task}" for t in c.tasks if t.state == "RESTARTING"
    ]
    failed = [f"task {t.task}" for t in c.tasks if t.state == "FAILED"]
    if not restarting and failed and not args.include_tasks:
        print(f"connector {args.target!r}: nothing restarted: the connector has not FAILED, but {', '.join(failed)} "
              f"has; `{again(args, 'restart', args.target)} --include-tasks --only-failed` restarts it")  # fmt: skip
    elif not restarting:
        print(f"connector {args.target!r}: nothing to restart (nothing has FAILED)")
    else:
        print(f"connector {args.target!r}: restarting {', '.join(restarting)}")
    return DONE


def _delete(client: ConnectClient, args: argparse.Namespace) -> int:
    name = args.target
    client.info_answer(name)  # an unknown connector is refused before anything is asked
    if not confirmed(f"delete connector {name!r} (its tasks stop; its offsets stay)?", yes=args.yes,
                     unasked="nothing was deleted: delete asks first, on a terminal; add --yes to delete without "
                     "asking", typed=typed_name(args, client.urls)):  # fmt: skip
        err("not confirmed: nothing was deleted")
        return FAILED
    client.delete(name)
    print(f"deleted connector {name!r} (Connect keeps its offsets: a new connector of that name starts from them)")
    return DONE


def _offsets(client: ConnectClient, args: argparse.Namespace) -> int:
    name = args.target
    if args.reset and args.alter:
        raise UsageError("--reset and --alter: give one (--reset deletes every offset, --alter sets those in its file)")
    if args.reset:
        return _reset(client, args)
    if args.alter:
        return _alter(client, args)
    answer = client.offsets_answer(name)
    if args.json:
        _print_json(answer)
        return DONE
    offsets = offsets_of(answer)
    if not offsets:
        err(f"connector {name!r} has no offsets committed")
        return DONE
    rows: list[tuple[str, ...]]
    if all({"kafka_topic", "kafka_partition"} <= set(o.partition) for o in offsets):  # a sink's: its consumer's
        rows = [("TOPIC", "PARTITION", "OFFSET")]
        rows += [(str(o.partition["kafka_topic"]), str(o.partition["kafka_partition"]),
                  str((o.offset or {}).get("kafka_offset", "-"))) for o in offsets]  # fmt: skip
    else:  # a source's: whatever its connector records, as JSON
        rows = [("PARTITION", "OFFSET"), *((_compact(o.partition), _compact(o.offset)) for o in offsets)]
    _print_table(rows)
    return DONE


def _alter(client: ConnectClient, args: argparse.Namespace) -> int:
    name = args.target
    offsets = read_offsets_file(args.alter)
    _require_stopped(client, args, "alters", "altered")
    return _said(args, client.alter_offsets(name, offsets))


def _reset(client: ConnectClient, args: argparse.Namespace) -> int:
    name = args.target
    _require_stopped(client, args, "resets", "reset")
    if not confirmed(f"reset connector {name!r}'s offsets (resumed, it starts over from the beginning)?",
                     yes=args.yes, unasked="nothing was reset: --reset asks first, on a terminal; add --yes to reset "
                     "without asking", typed=typed_name(args, client.urls)):  # fmt: skip
        err("not confirmed: nothing was reset")
        return FAILED
    return _said(args, client.reset_offsets(name))


def _require_stopped(client: ConnectClient, args: argparse.Namespace, verb: str, done: str) -> None:
    """Connect changes the offsets of a STOPPED connector only: else UsageError, naming the command that stops it."""
    name = args.target
    state = status_of(client.status_answer(name)).state
    if state != "STOPPED":
        raise UsageError(f"connector {name!r} is {state}: Connect {verb} the offsets of a STOPPED connector only; "
                         f"`{again(args, 'stop', name)}` first (nothing was {done})")  # fmt: skip


def _said(args: argparse.Namespace, message: str) -> int:
    """Connect's answer to an offsets change: {"message": …} with --json, else after the connector's name."""
    if args.json:
        _print_json({"message": message})
    else:
        print(f"connector {args.target!r}: {message}")
    return DONE


def _plugins(client: ConnectClient, args: argparse.Namespace) -> int:
    if args.target is None:
        answer = client.plugins_answer()
        if args.json:
            _print_json(answer)
        else:
            plugins = plugins_of(answer)
            _print_table([("CLASS", "TYPE", "VERSION"), *((p.class_name, p.type, p.version) for p in plugins)])
        return DONE
    answer = client.plugin_config_answer(args.target)
    if args.json:
        _print_json(answer)
        return DONE
    rows = [("NAME", "TYPE", "REQUIRED", "DEFAULT", "IMPORTANCE", "DOCUMENTATION")]
    for d in answer if isinstance(answer, list) else ():
        default = d.get("default_value")
        rows.append((str(d.get("name")), str(d.get("type")), "yes" if d.get("required") else "no",
                     "-" if default is None else str(default) or '""', str(d.get("importance")),
                     " ".join(str(d.get("documentation") or "").split())))  # fmt: skip
    _print_table(rows)
    return DONE


ACTIONS = {
    "list": _list, "status": _status, "create": _create, "validate": _validate, "pause": _pause, "resume": _resume,
    "stop": _stop, "restart": _restart, "delete": _delete, "offsets": _offsets, "plugins": _plugins,
}  # fmt: skip


# --- output ---------------------------------------------------------------------------------------------------------
def _print_json(answer: Any) -> None:
    text = json.dumps(answer, indent=2)
    print(text)
    if json.dumps(HIDDEN) in text:  # the client hid a secret of a connector's config
        err(HIDDEN_NOTE)


def _compact(value: object) -> str:
    return "-" if value is None else json.dumps(value, separators=(",", ":"), sort_keys=True)


def _print_table(rows: Iterable[Sequence[str]]) -> None:
    for line in aligned_lines(list(rows)):
        print(line)
