"""Recordings on disk: a writer the live view hands every entry to (from its worker threads), and a reader for
`--replay`. JSON lines, gzip-compressed when the file name ends in `.gz`.

A recording holds what the cluster said, record keys and values included: it is written readable by its owner only.
It is read line by line, each line and the whole within a bound, and whatever the file holds, reading it gives the
recording or one RecordingError naming the file, the line and what was wrong."""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import stat
import threading
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO

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
# A poll of 10,000 partitions with 100,000 committed offsets (bench/scale.py's cluster) is one ~12 MiB line; the
# fixtures' lines are under 25 KiB. The bounds leave room for several times that, and keep a file that is not a
# recording (one endless line, a gzip bomb) from taking the memory.
MAX_LINE_BYTES = 64 * 2**20
MAX_RECORDING_BYTES = 2 * 2**30  # uncompressed
GZIP_MAGIC = b"\x1f\x8b"
# json.dumps writes characters beyond the BMP as escaped surrogate pairs; a lone one is no character at all
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _create_private(path: Path) -> int:
    """A descriptor of `path`, opened for writing, emptied and readable by its owner only (0600)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):  # not /dev/null or a pipe, whose mode is not ours to change
            # O_CREAT's mode applies to a new file only: one written over would keep its mode (0644?). It is
            # emptied once private: if it cannot be made so, what it held is left as it was.
            try:
                os.fchmod(fd, 0o600)
            except PermissionError:
                raise RecordingError(
                    f"cannot write the recording {path}: cannot make it readable by its owner only (it is not "
                    "yours?): record to a new file"
                ) from None
            os.ftruncate(fd, 0)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _size(n: int) -> str:
    return f"{n / 2**30:g} GiB" if n >= 2**30 else f"{n / 2**20:g} MiB" if n >= 2**20 else f"{n / 2**10:g} KiB"


class RecordingWriter:
    """Thread-safe: the live view's workers record from their own threads."""

    def __init__(self, path: Path, header: RecordingHeader) -> None:
        self.path = path
        try:
            raw = open(_create_private(path), "wb")  # closed by close()
        except OSError as e:
            raise RecordingError(f"cannot write the recording {path}: {e.strerror or e}") from None
        self._raw: io.BufferedWriter | None = None  # the file under gzip's stream, which gzip does not close
        binary: io.BufferedWriter | gzip.GzipFile = raw
        if path.suffix == ".gz":
            self._raw = raw
            binary = gzip.GzipFile(str(path), "wb", fileobj=raw)
        self._file: IO[str] | None = io.TextIOWrapper(binary, encoding="utf-8")
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
                try:
                    self._file.close()
                finally:
                    if self._raw is not None:
                        self._raw.close()
                    self._file = self._raw = None

    def __enter__(self) -> RecordingWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_recording(path: Path) -> Recording:
    """The whole recording, read line by line (gzip or not, whatever its name); RecordingError says what is wrong
    and on which line. A last line cut short (the recording ended by a crash) is left out.

    Replay needs every entry up front (how many, the time they span): the entries are kept, decoded; the text is not."""
    try:
        raw = open(path, "rb")
    except FileNotFoundError:
        raise RecordingError(f"{path}: no such file") from None
    except OSError as e:
        raise RecordingError(f"{path}: cannot read it: {e.strerror or e}") from None
    with raw:
        try:
            gzipped = raw.peek(len(GZIP_MAGIC))[: len(GZIP_MAGIC)] == GZIP_MAGIC
        except OSError as e:
            raise RecordingError(f"{path}: cannot read it: {e.strerror or e}") from None
        source: io.BufferedReader | gzip.GzipFile = gzip.GzipFile(fileobj=raw, mode="rb") if gzipped else raw
        with source:
            return _read(path, _lines(path, source))


def _read(path: Path, lines: Iterator[tuple[int, bytes]]) -> Recording:
    first = next(lines, None)
    if first is None:
        raise RecordingError(f"{path}: empty, not a kafkatop recording")
    number, line = first
    data = _parse(path, number, line)
    try:
        header = read_header(data)
    except RecordingError as e:
        raise RecordingError(f"{path}: line 1: {e}") from None
    reader = EntryReader()
    entries = []
    for number, line in lines:
        try:
            data = _parse(path, number, line)
        except RecordingError:
            if not line.endswith(b"\n"):
                break  # the last line, cut short while it was written
            raise
        entries.append(reader.entry(data, f"{path}: line {number}"))
    return Recording(header, tuple(entries))


def _lines(path: Path, source: io.BufferedReader | gzip.GzipFile) -> Iterator[tuple[int, bytes]]:
    """The file's lines, numbered from 1, each within MAX_LINE_BYTES and all within MAX_RECORDING_BYTES. A gzip
    stream cut short (the recording ended by a crash) ends at its last whole line."""
    total = 0
    number = 0
    while True:
        number += 1
        try:
            line = source.readline(MAX_LINE_BYTES + 1)
        except EOFError:
            return
        except (OSError, zlib.error) as e:
            raise RecordingError(f"{path}: line {number}: cannot read it: damaged, or not gzip ({e})") from None
        if not line:
            return
        if len(line) > MAX_LINE_BYTES:
            raise RecordingError(
                f"{path}: line {number}: longer than {_size(MAX_LINE_BYTES)}, more than kafkatop writes in a line; "
                "was it written by kafkatop --record?"
            )
        total += len(line)
        if total > MAX_RECORDING_BYTES:
            raise RecordingError(
                f"{path}: line {number}: the recording passes {_size(MAX_RECORDING_BYTES)} uncompressed, more than "
                "kafkatop replays"
            )
        yield number, line


def _parse(path: Path, number: int, line: bytes) -> object:
    """One line as JSON, its strings all Unicode; RecordingError for anything else."""
    where = f"{path}: line {number}"
    try:
        data = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise RecordingError(f"{where}: not UTF-8 text (at byte {e.start + 1}: {e.reason})") from None
    except RecursionError:
        raise RecordingError(f"{where}: nested too deeply for a kafkatop recording") from None
    except json.JSONDecodeError as e:
        raise RecordingError(f"{where}: not JSON ({e.msg} at column {e.colno})") from None
    except ValueError:  # an integer of more digits than Python converts (sys.get_int_max_str_digits)
        raise RecordingError(f"{where}: not JSON (a number too long to read)") from None
    if _SURROGATE_ESCAPE.search(line) and not _unicode(data):
        raise RecordingError(f"{where}: a string that is not valid Unicode (an unpaired \\u surrogate escape)")
    return data


def _unicode(data: object) -> bool:
    """Whether every string in `data` (keys too) is encodable: no lone surrogate, which would fail on the terminal."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
    return True
