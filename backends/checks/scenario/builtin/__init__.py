"""The scenarios kafkatop carries, one TOML file each, written from the labs in ../shared/seeds (README: "Following a
lab")."""

from __future__ import annotations

from importlib import resources

from kafkatop.backends.model.scenario import Scenario
from kafkatop.backends.model.scenario_file import parse_scenario


def builtin_scenarios() -> dict[str, Scenario]:
    """Every built-in scenario by name, parsed (a broken one is a bug: tests/unit/test_scenario.py parses them all)."""
    found: dict[str, Scenario] = {}
    for entry in sorted(resources.files(__name__).iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            scenario = parse_scenario(entry.read_text(encoding="utf-8"), f"built in: {entry.name}")
            found[scenario.name] = scenario
    return found
