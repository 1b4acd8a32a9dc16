"""Tools that keep the code honest: mypy --strict over backends/, tui/ and spark/ (checked as the installed
`kafkatop.*` packages they become), and ruff's lint and format rules over the repository."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_strict_type_check(tmp_path: Path) -> None:
    pytest.importorskip("mypy", reason="mypy is a test dependency: pip install -e '.[test]'")
    # The repository keeps backends/, tui/, spark/ at the top; mypy needs the package path they are imported by.
    pkg = tmp_path / "kafkatop"
    pkg.mkdir()
    for top in ("backends", "tui", "spark"):
        (pkg / top).symlink_to(ROOT / top, target_is_directory=True)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(ROOT / ".mypy_cache"),
            "-p",
            "kafkatop.backends",
            "-p",
            "kafkatop.tui",
            "-p",
            "kafkatop.spark",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]], ids=["lint", "format"])
def test_ruff(command: list[str]) -> None:
    """ruff's lint rules and formatting (pyproject.toml [tool.ruff]) over everything in the repository."""
    pytest.importorskip("ruff", reason="ruff is a test dependency: pip install -e '.[test]'")
    targets = ["backends", "tui", "spark", "tests", "bench"]
    result = subprocess.run(
        [sys.executable, "-m", "ruff", *command, *targets], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
