"""Properties files that hold secrets (--command-config, a lab's client.properties, the Schema Registry's
schema-registry-config), checked as ssh checks a private key: one that gives a password, a JAAS line, basic auth's
user info or a key's password (backends/model/secrets.py) and that its group or others may read is said once per
file in a run — on stderr, and on the live view's screen (tui/cli/startup_warnings.py) — with the command that makes
it private. Never a value."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from pathlib import Path

from kafkatop.backends.model.properties import parse_properties
from kafkatop.backends.model.secrets import holds_secret, open_secrets_warning
from kafkatop.tui.cli.startup_warnings import warn

_SAID: set[Path] = set()  # the files warned about in this run


def check_secrets_file(args: argparse.Namespace, path: str | Path, props: Mapping[str, str]) -> None:
    """Warns, once per file in this run, when `path` (read as `props`) gives a secret and others may read it."""
    where = Path(path).expanduser().absolute()
    if where in _SAID:
        return
    try:
        mode = os.stat(where).st_mode
    except OSError:
        return  # said by whoever reads it
    text = open_secrets_warning(str(where), [k for k, v in props.items() if holds_secret(k, v)], mode)
    if text is not None:
        _SAID.add(where)
        warn(args, text)


def check_properties_file(args: argparse.Namespace, path: str | Path) -> None:
    """check_secrets_file for a file not read here otherwise (the Schema Registry's: its client reads it)."""
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8", errors="replace")
    except OSError:
        return  # said when the registry's client reads it
    check_secrets_file(args, path, parse_properties(text))
