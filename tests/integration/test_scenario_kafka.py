"""`kafkatop scenario run` against a real Apache Kafka 4.1 (KAFKA_HOME): each built-in scenario starts its own lab,
passes every expectation with --json, and stops the lab it started; a scenario whose expectation cannot hold (the ISR
keeps 3 replicas after a kill -9 of the leader) fails with what was seen instead, exit 1. Built in: the seed labs
(seed-000, seed-002, seed-004), Kafka 4.1's eligible leader replicas (elr) and acks=all refused below
min.insync.replicas (min-isr), an unclean election losing what only the old leader had (unclean), a transaction
aborted by a leader kill and what each isolation level reads (transaction), a Connect worker's tasks taken over by
the other worker (connect).

Labs on ports 30700-30702 (brokers) and 30720 (the controller), one at a time. Run:
  KAFKA_HOME=/opt/kafka_2.13-4.1.0 .venv/bin/python -m pytest -q -m kafka tests/integration/test_scenario_kafka.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kafkatop.tui.cli.main import main
from tests.unit.test_scenario import AS_WRITTEN

pytestmark = pytest.mark.kafka

# The issue's own shape (tests/unit/test_scenario.py), asked to keep 3 in sync all along after the kill: it cannot.
CANNOT_HOLD = AS_WRITTEN.replace('size = 2\nwithin = "30s"', 'size = 3\nwithin = "20s"\nthroughout = true')


def run(
    kafka_home: Path, state: Path, target: str, capsys: pytest.CaptureFixture[str]
) -> tuple[int, dict[str, object]]:
    code = main(["scenario", "run", target, "--json", "--kafka-home", str(kafka_home), "--state-dir", str(state),
                 "--base-port", "30700", "--controller-port", "30720"])  # fmt: skip
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1, out
    return code, json.loads(out[0])


def java_left(state: Path) -> list[str]:
    """Processes still running from the state directory (none: the run stopped the lab it started)."""
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if str(state) in cmdline:
            left.append(pid)
    return left


@pytest.mark.parametrize("name", ["seed-002", "seed-000", "seed-004", "elr", "min-isr", "unclean", "transaction",
                                  "connect"])  # fmt: skip
def test_a_built_in_scenario_passes_on_kafka(
    name: str, kafka_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = run(kafka_home, tmp_path, name, capsys)
    failed = [e for s in report["steps"] for e in s["expect"] if not e["met"]]  # type: ignore[attr-defined]
    assert (code, report["passed"], failed) == (0, True, []), report
    assert java_left(tmp_path) == []


def test_an_expectation_that_cannot_hold_fails_naming_what_was_seen(
    kafka_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "cannot.toml"
    file.write_text(CANNOT_HOLD, encoding="utf-8")
    code, report = run(kafka_home, tmp_path / "state", str(file), capsys)
    (step,) = report["steps"]  # type: ignore[misc]
    (expect,) = step["expect"]
    assert (code, report["passed"], expect["met"]) == (1, False, False)
    assert "throughout = true" in CANNOT_HOLD and expect["expected"] == "the ISR of ch-0 keeps 3 replicas for 20 s"
    assert str(expect["seen"]).startswith("ISR ") and "(2) after " in str(expect["seen"]), expect
    assert java_left(tmp_path / "state") == []
