"""Reading Java `.properties` files the way Kafka and ZooKeeper read them (java.util.Properties.load; the text itself
is parsed by backends/model/properties.py)."""

from __future__ import annotations

import re
from pathlib import Path

from kafkatop.backends.model.errors import PropertiesError
from kafkatop.backends.model.properties import logical_lines, split_key, unescape
from kafkatop.backends.model.properties import parse_properties as parse_properties  # the lab's modules read it here


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
    for number, line in enumerate(logical_lines(text), start=1):
        key, value = split_key(line.rstrip())
        if not value and len(key) == len(line.rstrip()):
            raise PropertiesError(
                str(path),
                f"{unescape(key)!r} has no value (setting {number}): write it as key=value, e.g. "
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
