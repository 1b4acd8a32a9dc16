"""Which Kafka Connect workers `kafkatop connect` (and the live view's Connect tab, and `durability --connect`) ask,
and how they authenticate: --connect-url (or a context's connect-url) with --command-config's `connect.*` settings,
else a lab's own workers, with a secured lab's connect-admin.properties (its workers' REST API asks for user admin:
backends/lab/connect_auth.py)."""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Sequence
from pathlib import Path

from kafkatop.backends.connect.auth import ConnectAuth, connect_auth
from kafkatop.backends.connect.rest import worker_name
from kafkatop.backends.lab.properties import read_client_properties
from kafkatop.backends.model.errors import BadInput, KafkatopError
from kafkatop.tui.cli.common import open_cluster
from kafkatop.tui.cli.exits import UsageError, err
from kafkatop.tui.cli.secret_files import check_secrets_file

ADD_WORKERS = "give --connect-url http://HOST:8083 (repeatable), connect-url in a context, or a lab's workers"


def worker_urls(args: argparse.Namespace) -> tuple[str, ...]:
    """--connect-url (or the context's connect-url), else the workers of the lab named by --name / --state-dir."""
    if args.connect_url:
        return tuple(args.connect_url)
    context = getattr(args, "context_name", None)
    if getattr(args, "bootstrap_server", None):
        raise UsageError(f"context {context!r} names no Connect workers: add connect-url = [\"http://HOST:8083\"] "
                         "to it, or give --connect-url")  # fmt: skip
    try:
        lab = open_cluster(args, need_install=False).snapshot()
    except BadInput:
        raise
    except KafkatopError as e:
        raise UsageError(f"no Connect workers to ask: {ADD_WORKERS} (no lab either: {e})") from None
    if not lab.connect_urls:
        add = shlex.join(["kafkatop", "add-connect", *(w for flag, value in (("--name", args.name),
                          ("--state-dir", args.state_dir)) if value for w in (flag, str(value)))])  # fmt: skip
        raise UsageError(f"lab {lab.name!r} has no Kafka Connect workers: `{add}` adds one, or --connect-url names "
                         "others")  # fmt: skip
    args.lab_cluster = (lab.name, lab.cluster_id)  # whose workers these must be: checked before they are asked
    args.lab_connect_auth = lab.connect_admin_properties  # a secured lab's workers' REST user
    return lab.connect_urls


def again(args: argparse.Namespace, action: str, name: str) -> str:
    """`kafkatop connect ACTION NAME` with the flags that reach these workers again, ready to paste."""
    words = ["kafkatop", "connect", action, name]
    if getattr(args, "context_name", None):
        words += ["--context", args.context_name]
    elif args.connect_url:
        words += [w for url in args.connect_url for w in ("--connect-url", url)]
    else:
        words += [w for flag, value in (("--name", args.name), ("--state-dir", args.state_dir)) if value
                  for w in (flag, str(value))]  # fmt: skip
    return shlex.join(words)


def auth(args: argparse.Namespace) -> ConnectAuth:
    """--command-config's basic auth and TLS; without it, a lab's own (its workers', found by worker_urls)."""
    path = args.command_config
    if not path:
        return lab_auth(getattr(args, "lab_connect_auth", None))
    where = f"--command-config {path}"
    try:
        props = read_client_properties(path)
        check_secrets_file(args, path, props)  # its connect.basic.auth.user.info: said once if others may read it
        settings = connect_auth(props, where)
    except KafkatopError as e:
        raise UsageError(str(e) if str(e).startswith(where) else f"--command-config {e}") from None
    if settings.warning():
        err(f"{where}: {settings.warning()}")
    return settings


def lab_auth(path: Path | None) -> ConnectAuth:
    """A lab's Connect workers' basic auth, from its connect-admin.properties (a secured lab's: its workers' REST API
    asks for user admin, backends/lab/connect_auth.py); none for a plaintext lab, whose workers ask no one."""
    if path is None:
        return ConnectAuth()
    try:
        return connect_auth(read_client_properties(path), str(path))
    except KafkatopError as e:
        raise UsageError(str(e)) from None


def typed_name(args: argparse.Namespace, urls: Sequence[str]) -> str | None:
    """What to type before a delete on workers not a lab's: the context's name, else the first worker's host:port."""
    if not args.connect_url:
        return None
    return getattr(args, "context_name", None) or worker_name(urls[0])
