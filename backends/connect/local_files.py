"""What Connect does not say of a connector whose workers run on this host (a lab's): a FileStreamSource whose
`file` does not exist. Its task (org.apache.kafka.connect.file.FileStreamSourceTask) logs a warning and tries again
until the file appears, RUNNING all along, so its status alone reads as if it were reading."""

from __future__ import annotations

import os
from dataclasses import replace

from kafkatop.backends.model.connect import Connector, ConnectSnapshot

FILE_SOURCES = frozenset({"FileStreamSource", "FileStreamSourceConnector"})  # the alias, the class's short name


def waiting_for(c: Connector) -> str | None:
    """The file `c` waits for: a RUNNING FileStreamSource's absolute `file` that this host does not have. None for any
    other connector, a relative path (the worker's folder, not ours), no file (it reads stdin)."""
    if c.state != "RUNNING" or c.class_name.rpartition(".")[2] not in FILE_SOURCES:
        return None
    path = dict(c.config).get("file", "")
    if not path or not os.path.isabs(path) or "\x00" in path:
        return None
    try:
        return None if os.path.exists(path) else path
    except (OSError, ValueError):
        return None


def noted(c: Connector) -> Connector:
    """`c` with what it waits for (or without, once the file is there)."""
    path = waiting_for(c)
    return c if path == c.waiting_for else replace(c, waiting_for=path)


def noted_snapshot(snapshot: ConnectSnapshot) -> ConnectSnapshot:
    connectors = tuple(noted(c) for c in snapshot.connectors)
    same = all(a is b for a, b in zip(connectors, snapshot.connectors, strict=True))
    return snapshot if same else replace(snapshot, connectors=connectors)
