"""The audit trail's file: `$XDG_STATE_HOME/kafkatop/audit.jsonl`, one JSON object per line, readable and writable by
its owner only (0600, its folder 0700 when made here), appended to with one write per entry (O_APPEND: two kafkatops at
once each add whole lines), rotated past ROTATE_BYTES to audit.jsonl.1 … .KEEP (the oldest dropped). A line that is no
entry (a file edited by hand, a line cut by a full disk) is skipped and counted, never a reason to refuse the rest.

A trail that cannot be written (a full disk, a file not the user's) is said on stderr by the caller, once: the write
to the cluster itself has been sent, and is not undone for it."""

from __future__ import annotations

import json
import os
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

from kafkatop.backends.model.audit import AuditEntry, dumps
from kafkatop.backends.model.errors import KafkatopError

FILE = "audit.jsonl"
ROTATE_BYTES = 10 * 2**20
KEEP = 3


class AuditError(KafkatopError):
    """The trail could not be written or read: the path and why."""


class AuditTrail:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()  # the live view's workers write from several threads

    def append(self, entry: AuditEntry) -> None:
        line = (dumps(entry) + "\n").encode()
        with self._lock:
            try:
                self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                self._rotate(len(line))
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
                try:
                    mode = os.fstat(fd).st_mode
                    if stat.S_ISREG(mode) and stat.S_IMODE(mode) & 0o077:
                        os.fchmod(fd, 0o600)  # made by another tool, or before: others may not read who did what
                    os.write(fd, line)
                finally:
                    os.close(fd)
            except OSError as e:
                raise AuditError(f"cannot write the audit trail {self.path}: {e.strerror or e}") from None

    def _rotate(self, adding: int) -> None:
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return
        if size + adding <= ROTATE_BYTES:
            return
        for n in range(KEEP - 1, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{n}")
            if older.exists():
                older.replace(self.path.with_name(f"{self.path.name}.{n + 1}"))
        self.path.replace(self.path.with_name(f"{self.path.name}.1"))


def read_trail(path: Path) -> tuple[list[AuditEntry], int]:
    """Every entry of the trail and its rotated files, oldest first, and how many lines were no entry."""
    entries: list[AuditEntry] = []
    skipped = 0
    for file in [*(path.with_name(f"{path.name}.{n}") for n in range(KEEP, 0, -1)), path]:
        for line in _lines(file):
            try:
                entries.append(AuditEntry.from_json(json.loads(line)))
            except (ValueError, KeyError, TypeError, AttributeError):
                skipped += 1
    entries.sort(key=lambda e: e.at)
    return entries, skipped


def _lines(file: Path) -> Iterator[str]:
    try:
        with open(file, encoding="utf-8", errors="replace") as f:
            yield from (line for line in f if line.strip())
    except FileNotFoundError:
        return
    except OSError as e:
        raise AuditError(f"cannot read the audit trail {file}: {e.strerror or e}") from None
