"""The ports of the checks the live view runs from its workers: the durability check (`v`) and the scenarios (the
scenario pane). Each blocks while it works; what it does is told as frozen progress values (the model only)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from kafkatop.backends.model.durability import DurabilityProgress, DurabilityReport, DurabilitySettings
from kafkatop.backends.model.scenario import Scenario
from kafkatop.backends.model.scenario_report import ScenarioState


class DurabilityRun(Protocol):
    """One durability check: run() blocks for the whole run; cancel() from any thread ends it early."""

    def run(self) -> DurabilityReport: ...

    def cancel(self) -> None: ...


# (settings, on_progress) -> a check bound to the cluster and its node control.
DurabilityRunFactory = Callable[[DurabilitySettings, Callable[[DurabilityProgress], None]], DurabilityRun]


class ScenarioSteps(Protocol):
    """A scenario's run in the live view (backends/checks/scenario/run.py), driven from a worker a step at a time;
    each change told to the `on_progress` it was opened with."""

    @property
    def state(self) -> ScenarioState: ...

    @property
    def busy(self) -> bool:
        """A step under way (in a worker)."""
        ...

    def next_step(self) -> object:
        """Blocking: prepares the run if not yet, does the next step and watches its expectations."""
        ...

    def do_yourself(self, from_now_on: bool = False) -> None:
        """A step waiting for the user's key is done by the run instead (and, `from_now_on`, every later one)."""
        ...


class ScenarioRunner(Protocol):
    """The live view's scenarios on its cluster (Sources.scenarios): one run open at a time."""

    def open(self, scenario: Scenario, on_progress: Callable[[ScenarioState], None]) -> ScenarioSteps:
        """A new run, nothing done yet (its state told at once); the one before it closed. KafkatopError while the
        one before is under way."""
        ...

    def close(self) -> None: ...
