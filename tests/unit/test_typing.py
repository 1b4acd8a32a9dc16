"""mypy --strict over backends/, checked as the installed `kafkatop.backends` package it becomes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_backends_type_check(tmp_path: Path) -> None:
    pytest.importorskip("mypy", reason="mypy is a test dependency: pip install -e '.[test]'")
    # The repository keeps backends/ at the top; mypy needs the package path it is imported by.
    pkg = tmp_path / "kafkatop"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "backends").symlink_to(ROOT / "backends", target_is_directory=True)
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
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
