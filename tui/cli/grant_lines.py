"""The commands' authorization errors, as lines that work when pasted: the `kafkatop acls --add …` line of a refusal
(backends/insight/grants.py) with the flags that reach the same cluster as one who may add ACLs — the context, the
bootstrap servers or the lab's --name and --state-dir, and, on a lab whose `admin` is a super user, its
admin.properties when the command ran as another user (by --name, by its client.properties, or by its address);
elsewhere a placeholder for an admin's settings, never the refused user's own. Kept light: main.py imports it for
every failure."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path

from kafkatop.backends.insight.grants import ADMIN_PLACEHOLDER, Doing, Refused, authorization_error, refused
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError


def admin_properties(args: argparse.Namespace) -> Path | None:
    """The admin.properties (the super user's settings of a SASL lab) of the lab this command reaches, when kafkatop
    knows it: the lab by --name (or its context), the lab whose client.properties is the --command-config given, or
    the lab whose brokers listen at the --bootstrap-server given. None elsewhere (an attached cluster, the demo)."""
    if getattr(args, "demo", False):
        return None
    from kafkatop.backends.lab.security import ADMIN_PROPERTIES
    from kafkatop.backends.lab.state import STATE_FILE, lab_dir, lab_serving
    from kafkatop.tui.cli.common import lab_name, state_root

    given = getattr(args, "command_config", None)
    if given:
        beside = Path(given).absolute().parent / ADMIN_PROPERTIES
        if beside.is_file() and beside != Path(given).absolute() and (beside.parent / STATE_FILE).is_file():
            return beside
    bootstrap = getattr(args, "bootstrap_server", None)
    found = lab_serving(state_root(args), str(bootstrap)) if bootstrap else lab_dir(state_root(args), lab_name(args))
    path = found / ADMIN_PROPERTIES if found is not None else None
    return path.absolute() if path is not None and path.is_file() else None


def acl_flags(args: argparse.Namespace) -> tuple[str, ...]:
    """What a `kafkatop acls` line needs besides its ACL to reach this cluster as one who may add ACLs — never the
    refused user's own settings: the context (its own options then apply; not a read-only one, which refuses the
    line), else --bootstrap-server or the lab's --name and --state-dir; then the lab's admin.properties where
    kafkatop knows it and would not use it by itself, else, on an attached cluster, `--command-config
    ADMIN.properties` for an admin to fill in (the line then says it is an admin's)."""
    words: list[str] = []
    context = getattr(args, "context_name", None)
    bootstrap = getattr(args, "bootstrap_server", None)
    given = getattr(args, "command_config", None)
    if context and not getattr(args, "context_read_only", False):
        words += ["--context", context]
    elif bootstrap:
        words += ["--bootstrap-server", str(bootstrap)]
    else:
        words += [w for flag in ("name", "state_dir") if getattr(args, flag, None)
                  for w in (f"--{flag.replace('_', '-')}", str(getattr(args, flag)))]  # fmt: skip
    try:
        admin = admin_properties(args)
    except KafkatopError:
        admin = None
    if admin is not None:
        if bootstrap or (given and Path(given).absolute() != admin):  # on a lab by name, kafkatop uses it by itself
            words += ["--command-config", str(admin)]
    elif bootstrap:
        words += ["--command-config", ADMIN_PLACEHOLDER]
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
