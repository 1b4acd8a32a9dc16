"""Recordings on disk: a writer the live view hands every entry to (from its worker threads), and a reader for
`--replay`. JSON lines, gzip-compressed when the file name ends in `.gz`."""

from __future__ import annotations

import gzip
import json
import threading
import time
from pathlib import Path
from typing import IO, cast

from kafkatop.backends.model.recording import (
    EntryReader,
    EntryWriter,
    Payload,
    Recorded,
    Recording,
    RecordingError,
    RecordingHeader,
    RecordKind,
    header_line,
    read_header,
)

FLUSH_EVERY_S = 1.0  # a recording cut short (a crash, a closed terminal) loses at most this much


def _open(path: Path, mode: str) -> IO[str]:
    if path.suffix == ".gz":
        return cast(IO[str], gzip.open(path, mode + "t", encoding="utf-8"))
    return open(path, mode, encoding="utf-8")


class RecordingWriter:
    """Thread-safe: the live view's workers record from their own threads."""

    def __init__(self, path: Path, header: RecordingHeader) -> None:
        self.path = path
        try:
            self._file: IO[str] | None = _open(path, "w")
        except OSError as e:
            raise RecordingError(f"cannot write the recording {path}: {e.strerror or e}") from None
        self._lock = threading.Lock()
        self._lines = EntryWriter()
        self._flushed_at = time.monotonic()
        self._write(header_line(header))
        self.entries = 0

    def _write(self, data: object) -> None:
        assert self._file is not None
        self._file.write(json.dumps(data, separators=(",", ":")) + "\n")

    def record(self, at: float, kind: RecordKind, payload: Payload) -> None:
        with self._lock:
            if self._file is None:
                return  # closed: the app is quitting
            self._write(self._lines.line(Recorded(at, kind, payload)))
            self.entries += 1
            if time.monotonic() - self._flushed_at >= FLUSH_EVERY_S:
                self._file.flush()
                self._flushed_at = time.monotonic()

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None

    def __enter__(self) -> RecordingWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_recording(path: Path) -> Recording:
    """The whole recording; RecordingError says what is wrong and on which line. A last line cut short (the
    recording ended by a crash) is left out."""
    try:
        with _open(path, "r") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        raise RecordingError(f"{path}: no such file") from None
    except (OSError, EOFError, UnicodeDecodeError) as e:
        raise RecordingError(f"{path}: cannot read it as a recording ({e})") from None
    if not lines:
        raise RecordingError(f"{path}: empty, not a kafkatop recording")
    try:
        header = read_header(json.loads(lines[0]))
    except json.JSONDecodeError:
        raise RecordingError(f"{path}: not a kafkatop recording (line 1 is not JSON)") from None
    except RecordingError as e:
        raise RecordingError(f"{path}: {e}") from None
    reader = EntryReader()
    entries = []
    for number, line in enumerate(lines[1:], start=2):
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines):
                break  # cut short while it was written
            raise RecordingError(f"{path}: line {number} is not JSON") from None
        entries.append(reader.entry(data, f"{path}:{number}"))
    return Recording(header, tuple(entries))
