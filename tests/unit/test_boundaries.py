"""The architecture's boundary: backends/ and spark/ hold no UI; tui/ never talks to a data library itself."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = {
    "backends": {"textual", "rich"},
    "spark": {"textual", "rich"},
    "tui": {"confluent_kafka", "kazoo", "psutil", "pyspark"},
}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_stay_on_their_side(package: str) -> None:
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"{package}/ has no Python files"
    offenders = {
        str(f.relative_to(ROOT)): sorted(imported_modules(f) & FORBIDDEN[package])
        for f in files
        if imported_modules(f) & FORBIDDEN[package]
    }
    assert offenders == {}


def test_the_tui_process_never_loads_pyspark() -> None:
    """Spark runs in its own process: importing everything the TUI runs (app, launcher, every backend it reaches)
    must not pull pyspark (and its JVM gateway) in, directly or through a backend."""
    code = (
        "import sys\n"
        "import kafkatop.tui.cli, kafkatop.tui.launch, kafkatop.tui.app, kafkatop.tui.commands\n"
        "import kafkatop.backends.admin, kafkatop.backends.consoles, kafkatop.backends.control\n"
        "import kafkatop.backends.demo, kafkatop.backends.ensemble, kafkatop.backends.quorum\n"
        "import kafkatop.backends.supervisor, kafkatop.backends.topics, kafkatop.backends.zookeeper\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pyspark'))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
