"""The scenario pane on a recorded KRaft lab, at 160×45 (beside the tables) and 80×24 (under them): seed-002 with its
first step held, the leader of purchases-0 killed and its new leader seen, its ISR being watched; and, at 80×24, a
step waiting for the user's key. The states are fixed (as a run on Kafka 4.1 reached them); the runner is a TEST
DOUBLE that tells them, since a snapshot must not kill a node or wait on a clock."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import pytest

from kafkatop.backends.checks.scenario.builtin import builtin_scenarios
from kafkatop.backends.checks.scenario.run import plan
from kafkatop.backends.model.scenario import Scenario
from kafkatop.backends.model.scenario_report import ExpectResult, ScenarioPhase, ScenarioState, StepResult
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Sources
from tests.fixtures.snapshots import TAKEN_AT, RecordedControl, kraft_lab
from tests.snapshots.test_app_snapshots import FROZEN, settled

SEED_002 = builtin_scenarios()["seed-002"]


def watching_the_isr(scenario: Scenario) -> ScenarioState:
    produced = StepResult(1, scenario.steps[0].describe(), None, TAKEN_AT - 20, None, (
        ExpectResult(scenario.steps[0].expect[0].describe(), True, 1.02, "300 of 300 acknowledged records read back",
                     scenario.steps[0].expect[0].explain),
    ))  # fmt: skip
    killing = StepResult(2, scenario.steps[1].describe(), "broker-2", TAKEN_AT - 9, None, (
        ExpectResult(scenario.steps[1].expect[0].describe(), True, 8.1, "leader 3 (was 2)",
                     scenario.steps[1].expect[0].explain),
    ))  # fmt: skip
    return ScenarioState(scenario.name, scenario.title, plan(scenario), ScenarioPhase.RUNNING, (produced,), killing,
                         "ISR 2,3,1 (3) · 9 of 30 s")  # fmt: skip


@dataclass
class RecordedSteps:
    """TEST DOUBLE of ScenarioSteps: a run held at one state."""

    state: ScenarioState
    busy: bool = True

    def next_step(self) -> object:
        return None

    def do_yourself(self, from_now_on: bool = False) -> None:
        """Nothing: a snapshot does nothing."""


@dataclass
class RecordedScenarios:
    """TEST DOUBLE of ScenarioRunner: every scenario opens at `state`."""

    state: ScenarioState

    def open(self, scenario: Scenario, on_progress: Callable[[ScenarioState], None]) -> RecordedSteps:
        on_progress(self.state)
        return RecordedSteps(self.state)

    def close(self) -> None:
        """Nothing opened."""


async def settled_quiet(pilot: Any) -> None:
    """Settled, and the opening notice gone: the pane is what is looked at."""
    await settled(pilot)
    pilot.app.clear_notifications()
    await pilot.pause()


def scenario_app(state: ScenarioState) -> KafkatopApp:
    cluster, nodes, quorum = kraft_lab()
    sources = Sources(lambda: cluster, RecordedControl(nodes), lambda: quorum, scenarios=RecordedScenarios(state))
    return KafkatopApp(sources, replace(FROZEN, launch="lab", scenario=SEED_002), clock=lambda: TAKEN_AT)


@pytest.mark.parametrize("size", [(160, 45), (80, 24)], ids=["160x45", "80x24"])
def test_a_scenario_under_way(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(scenario_app(watching_the_isr(SEED_002)), terminal_size=size, run_before=settled_quiet)


def test_a_step_waiting_for_the_users_key(snap_compare: Any) -> None:
    state = watching_the_isr(SEED_002)
    waiting = replace(state, phase=ScenarioPhase.YOUR_TURN, watching=None,
                      running=replace(state.running, expects=()) if state.running else None,
                      note="press K on broker-2 — leader:purchases-0 in Brokers (or the process table: 0); space "
                           "does it for you")  # fmt: skip
    assert snap_compare(scenario_app(waiting), terminal_size=(80, 24), run_before=settled_quiet)
