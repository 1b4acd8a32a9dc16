"""The two trees measured: "today" (the tree at --baseline, unpacked once) and "now" (this working tree), and a
measurement in a fresh child process of either."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench._scale import ROOT, SCRIPT


def baseline_path(rev: str) -> Path:
    """A PYTHONPATH entry whose `kafkatop` is the tree at `rev` (unpacked once, kept in the temp folder)."""
    commit = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.strip()  # fmt: skip
    base = Path(tempfile.gettempdir()) / f"kafkatop-bench-{commit}"
    pkg = base / "path" / "kafkatop"
    if not (pkg / "__init__.py").exists():
        tree = base / "tree"
        tree.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        pkg.mkdir(parents=True, exist_ok=True)
        for name in ("backends", "tui", "spark"):
            link = pkg / name
            if not link.exists():
                link.symlink_to(tree / name)
        (pkg / "__init__.py").write_text("")
    return base / "path"


def child_env(tree: str, baseline: Path) -> dict[str, str]:
    env = dict(os.environ)
    if tree == "today":
        env["PYTHONPATH"] = f"{baseline}{os.pathsep}{env.get('PYTHONPATH', '')}"
    return env


def run_child(tree: str, baseline: Path, *args: str, stdin: str | None = None, timeout: float = 900) -> dict[str, Any]:
    """One measurement in a fresh process of `tree`; its last stdout line is its JSON result."""
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--child", *args], cwd=ROOT, env=child_env(tree, baseline), input=stdin,
        capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(
            f"{tree} {args[0]} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        )
    result: dict[str, Any] = json.loads(lines[-1])
    return result
