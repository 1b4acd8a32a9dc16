"""ARCHITECTURE.md is read to find one's way: every path and every class, method or function it names in backticks
must exist, or the reader is sent nowhere."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "ARCHITECTURE.md"
# Short paths in the flow diagram are named from the folder they sit in.
FOLDERS = (ROOT, ROOT / "backends", ROOT / "tui" / "live", ROOT / "tui" / "cli")
PATH = re.compile(r"(?<![\w.])((?:[\w-]+/)+[\w-]*(?:\.\w+)?)(?![<\w])")
NAME = re.compile(r"`([A-Z]\w+(?:\.\w+)?|[a-z_]+\.[a-z_]\w*\(\))`")


def _source() -> str:
    return "\n".join(p.read_text() for d in ("backends", "tui", "spark") for p in (ROOT / d).rglob("*.py"))


def test_every_path_the_document_names_exists() -> None:
    missing = []
    for path in sorted(set(PATH.findall(DOC.read_text()))):
        if "<" in path or path.startswith(("http", "kafka_", "github")):
            continue
        if not any((folder / path).exists() for folder in FOLDERS):
            missing.append(path)
    assert missing == [], f"ARCHITECTURE.md names paths that do not exist: {missing}"


def test_every_class_and_method_the_document_names_exists() -> None:
    source, missing = _source(), []
    for name in sorted(set(NAME.findall(DOC.read_text()))):
        if name.isupper():
            continue  # an environment variable
        *owner, member = name.removesuffix("()").split(".")
        defined = rf"^\s*(class|def) {member}\b" if owner or member[0].isupper() else None
        if owner and owner[0][0].isupper() and not re.search(rf"^class {owner[0]}\b", source, re.M):
            missing.append(name)
        elif (
            defined is not None
            and not re.search(defined, source, re.M)
            and not re.search(rf"^\s*{member}\s*[:=]", source, re.M)
        ):
            missing.append(name)
    assert missing == [], f"ARCHITECTURE.md names what the code does not define: {missing}"
