"""Reading Java `.properties` files the way Kafka and ZooKeeper read them (java.util.Properties.load)."""

from __future__ import annotations

import re
from pathlib import Path

from kafkatop.backends.model.errors import PropertiesError

_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _logical_lines(text: str) -> list[str]:
    """Join continuation lines (an odd number of trailing backslashes) and drop comments and blanks."""
    lines: list[str] = []
    pending: str | None = None
    for raw in text.splitlines():
        line = raw.lstrip(" \t\f")
        if pending is None and (not line or line[0] in "#!"):
            continue
        trailing = len(line) - len(line.rstrip("\\"))
        continued = trailing % 2 == 1
        if continued:
            line = line[:-1]
        pending = line if pending is None else pending + line
        if not continued:
            lines.append(pending)
            pending = None
    if pending is not None:
        lines.append(pending)
    return lines


def _unescape(s: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(s):
        c = s[i]
        if c != "\\" or i + 1 == len(s):
            out.append(c)
            i += 1
            continue
        nxt = s[i + 1]
        if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", s[i + 2 : i + 6]):
            out.append(chr(int(s[i + 2 : i + 6], 16)))
            i += 6
            continue
        out.append(_ESCAPES.get(nxt, nxt))
        i += 2
    return "".join(out)


def _split_key(line: str) -> tuple[str, str]:
    """Split at the first unescaped `=`, `:` or whitespace, as java.util.Properties does."""
    i = 0
    while i < len(line):
        c = line[i]
        if c == "\\":
            i += 2
            continue
        if c in "=: \t\f":
            rest = line[i:].lstrip(" \t\f")
            if rest[:1] in ("=", ":"):
                rest = rest[1:].lstrip(" \t\f")
            return line[:i], rest
        i += 1
    return line, ""


def parse_properties(text: str) -> dict[str, str]:
    props: dict[str, str] = {}
    for line in _logical_lines(text):
        key, value = _split_key(line)
        props[_unescape(key)] = _unescape(value)
    return props


def read_properties(path: str | Path) -> dict[str, str]:
    """Read a properties file; a missing, unreadable or non-text file raises PropertiesError naming it."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise PropertiesError(str(p), "file not found") from None
    except IsADirectoryError:
        raise PropertiesError(str(p), "is a directory, not a properties file") from None
    except PermissionError:
        raise PropertiesError(str(p), "permission denied") from None
    except OSError as e:
        raise PropertiesError(str(p), e.strerror or str(e)) from None
    if b"\x00" in raw:
        raise PropertiesError(str(p), "binary content: not a properties file")
    # Java reads properties as ISO-8859-1; UTF-8 files with only ASCII keys read the same either way.
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    return parse_properties(text)


def read_client_properties(path: str | Path) -> dict[str, str]:
    """A client properties file (--command-config), as read_properties, but a line that is a bare key (no `=`, `:`
    or space before a value) is refused: java.util.Properties would read it as an empty setting, which for a client
    is a typo, not a wish."""
    props = read_properties(path)
    text = Path(path).read_bytes().decode("utf-8", errors="replace")
    for number, line in enumerate(_logical_lines(text), start=1):
        key, value = _split_key(line.rstrip())
        if not value and len(key) == len(line.rstrip()):
            raise PropertiesError(
                str(path),
                f"{_unescape(key)!r} has no value (setting {number}): write it as key=value, e.g. "
                "security.protocol=SASL_SSL",
            )
    return props


def split_list(value: str | None) -> tuple[str, ...]:
    """Kafka's comma-separated list settings (`log.dirs`, `listeners`, `process.roles`)."""
    if not value:
        return ()
    return tuple(v.strip() for v in value.split(",") if v.strip())


def listener_port(listener: str) -> int | None:
    """`PLAINTEXT://127.0.0.1:9092` or `PLAINTEXT://:9092` → 9092."""
    m = re.search(r":(\d+)$", listener.strip())
    return int(m.group(1)) if m else None
