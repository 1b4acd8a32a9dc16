"""Files that hold one idea: a product module over 400 lines (a benchmark over 500) has become two ideas, and the
live view's app stays thin (its screen, its actions and its panes are elsewhere)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIMITS = {"backends": 400, "tui": 400, "spark": 400, "bench": 500}
APP_LIMIT = 250


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines())


def test_no_file_holds_more_than_one_idea() -> None:
    over = [
        f"{p.relative_to(ROOT)}: {_lines(p)} lines (at most {limit})"
        for folder, limit in LIMITS.items()
        for p in sorted((ROOT / folder).rglob("*.py"))
        if _lines(p) > limit
    ]
    assert over == [], "split these by role: " + "; ".join(over)


def test_the_app_is_thin() -> None:
    lines = _lines(ROOT / "tui" / "live" / "app.py")
    assert lines <= APP_LIMIT, f"tui/live/app.py has {lines} lines: its layout, keys and actions belong elsewhere"


def test_the_main_screen_is_thin() -> None:
    """The screen composes the tabs and routes keys: each tab's pane and keys are in its slice (tui/live/tabs/)."""
    lines = _lines(ROOT / "tui" / "live" / "main_screen.py")
    assert lines <= APP_LIMIT, f"tui/live/main_screen.py has {lines} lines: a tab's pane and keys belong in its slice"
