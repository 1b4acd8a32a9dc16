"""Java `.properties` text parsed the way Kafka and ZooKeeper read it (java.util.Properties.load): pure, so that the
lab (backends/lab/properties.py reads files with it) and a Kafka Connect connector file (model/connect_files.py) read
it alike."""

from __future__ import annotations

import re

_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def logical_lines(text: str) -> list[str]:
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


def unescape(s: str) -> str:
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


def split_key(line: str) -> tuple[str, str]:
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
    for line in logical_lines(text):
        key, value = split_key(line)
        props[unescape(key)] = unescape(value)
    return props
