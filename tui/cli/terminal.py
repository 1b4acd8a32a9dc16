"""What the commands print, on a terminal: text from outside — a group id, a transactional id, a connector, a record,
an error text of Kafka's or Connect's — with every character a terminal would act on written as its escape (\\x1b,
\\u202e: backends/model/text.py), as `ls` shows a file's name at a terminal. To a pipe or a file the output is left
byte for byte, as Kafka's tools and kcat leave it. `--control-chars escape|raw` says otherwise, for every command.

One way for every command: `escaped_output` wraps stdout and stderr for the command's run; what a command writes to
`sys.stdout.buffer` (consume's records, bytes) asks `escapes(sys.stdout)`. kafkatop's own terminal sequences (a
progress line redrawn in place) go to `unescaped(stream)`."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Literal, TextIO

from kafkatop.backends.model.text import hidden, printable

ControlChars = Literal["escape", "raw"]
CHOICES: tuple[ControlChars, ...] = ("escape", "raw")


class Escaping(io.TextIOBase):
    """A text stream that writes what it is given with its control characters escaped (its lines and tabs kept)."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(printable(text, lines=True))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]  # io.TextIOBase's is a read-only attribute
        return self.stream.encoding

    @property
    def buffer(self) -> IO[bytes]:
        """The bytes beneath, as they are: a command that writes bytes asks `escapes` first."""
        return self.stream.buffer


def _escaping(stream: TextIO, mode: ControlChars | None) -> bool:
    if mode is not None:
        return mode == "escape"
    try:
        return stream.isatty()
    except (OSError, ValueError):
        return False


@contextmanager
def escaped_output(mode: ControlChars | None) -> Iterator[None]:
    """stdout and stderr escaped for the block: at a terminal (`mode` None), always ("escape") or never ("raw")."""
    kept = sys.stdout, sys.stderr
    if _escaping(sys.stdout, mode):
        sys.stdout = Escaping(sys.stdout)
    if _escaping(sys.stderr, mode):
        sys.stderr = Escaping(sys.stderr)
    try:
        yield
    finally:
        for wrapped in (sys.stdout, sys.stderr):
            if isinstance(wrapped, Escaping):
                wrapped.flush()
        sys.stdout, sys.stderr = kept


def escapes(stream: object) -> bool:
    """Whether what is written to `stream` (sys.stdout, sys.stderr) is to be escaped, bytes included."""
    return isinstance(stream, Escaping)


def escaped_bytes(data: bytes) -> bytes:
    """Bytes (a record's key or value) as a terminal may show them: UTF-8 decoded, bytes that are not as \\xNN, every
    control character escaped, on one line."""
    return printable(data.decode("utf-8", "backslashreplace")).encode("utf-8")


def escaped_json(line: bytes) -> bytes:
    """A JSON line (consume --json) as a terminal may show it, still JSON: each hidden character in a string as
    \\uXXXX (JSON has already escaped the C0 controls)."""
    body, end = (line[:-1], b"\n") if line.endswith(b"\n") else (line, b"")
    text = body.decode("utf-8", "backslashreplace")
    if text.isprintable():
        return line
    return "".join(_json_escape(c) if hidden(c) else c for c in text).encode("utf-8") + end


def _json_escape(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # beyond the BMP: a surrogate pair, as JSON writes one
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def unescaped(stream: TextIO) -> TextIO:
    """The stream beneath an Escaping one: for kafkatop's own terminal sequences (\\r, erase the line)."""
    return stream.stream if isinstance(stream, Escaping) else stream
