"""The commands' authorization errors, as lines that work when pasted: the `kafkatop acls --add …` line of a refusal
(backends/insight/grants.py) with the flags that reach the same cluster as one who may add ACLs — the context, the
bootstrap servers or the lab's --name and --state-dir, and, on a lab whose `admin` is a super user, its
admin.properties when the command ran as another user. Kept light: main.py imports it for every failure."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path

from kafkatop.backends.insight.grants import Doing, Refused, authorization_error, refused
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError


def lab_admin_properties(args: argparse.Namespace) -> Path | None:
    """The lab's admin.properties (its super user's settings, on a SASL lab), when the command targets a lab."""
    if getattr(args, "bootstrap_server", None) or getattr(args, "demo", False):
        return None
    from kafkatop.backends.lab.security import ADMIN_PROPERTIES
    from kafkatop.backends.lab.state import lab_dir
    from kafkatop.tui.cli.common import lab_name, state_root

    path = lab_dir(state_root(args), lab_name(args)) / ADMIN_PROPERTIES
    return path.absolute() if path.is_file() else None


def acl_flags(args: argparse.Namespace) -> tuple[str, ...]:
    """What a `kafkatop acls` line needs besides its ACL to reach this cluster as one who may add ACLs: the context
    (its own options then apply), else --bootstrap-server (and the --command-config given: the same user, who may
    or may not add ACLs) or the lab's --name and --state-dir; on a lab with admin.properties, that file when the
    command ran with another --command-config (by itself, kafkatop uses it on the lab)."""
    words: list[str] = []
    context = getattr(args, "context_name", None)
    given = getattr(args, "command_config", None)
    if context:
        words += ["--context", context]
    elif getattr(args, "bootstrap_server", None):
        words += ["--bootstrap-server", str(args.bootstrap_server)]
        words += ["--command-config", str(given)] if given else []
    else:
        words += [w for flag in ("name", "state_dir") if getattr(args, flag, None)
                  for w in (f"--{flag.replace('_', '-')}", str(getattr(args, flag)))]  # fmt: skip
    try:
        admin = lab_admin_properties(args)
    except KafkatopError:
        admin = None
    if admin is not None and given and Path(given).absolute() != admin:
        words += ["--command-config", str(admin)]
    return tuple(words)


def error_line(error: KafkatopError, args: argparse.Namespace) -> str:
    """A command's failure as its line on stderr: a refusal with the line that grants it, ready to paste."""
    if not isinstance(error, Refused):
        return str(error)
    try:
        return error.text(acl_flags(args))
    except KafkatopError:
        return str(error)


def explained(
    text: str,
    doing: Doing,
    connection: KafkaConnection,
    args: argparse.Namespace,
    *,
    topics: Iterable[str] = (),
    group: str | None = None,
) -> str:
    """A per-item answer of Kafka's (a group not deleted, a partition's offsets not deleted) as printed: `text`, or,
    when it is an authorization error, who may not do what, and the line that grants it."""
    found = refused(authorization_error(text), doing, connection.client_settings, topics=topics, group=group)
    return text if found is None else error_line(found, args)
