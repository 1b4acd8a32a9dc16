"""The scenario open in the live view (its pane: widgets/scenario.py), opened by `kafkatop scenario NAME` or from the
palette: the keys object of `space` and `A` (keymap.py's owner "scenario"). `space` does the next step — or, while a
step waits for the user's key, does it for them — and `A` runs the rest, every step by kafkatop. The run works in a
thread worker of the screen's; each state it reaches comes back through the feed (recorded, marked on the timeline)
to the pane, as the `scenario` row of feed.py's SOURCES. Each context's screen has its own."""

from __future__ import annotations

from typing import cast

from textual.screen import Screen

from kafkatop.backends.check_ports import ScenarioSteps
from kafkatop.backends.checks.scenario.builtin import builtin_scenarios
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.scenario import Scenario
from kafkatop.backends.model.scenario_report import ScenarioPhase
from kafkatop.tui.live.host import Host


class ScenarioDesk:
    def __init__(self, screen: Screen[None]) -> None:
        self.screen = screen
        self.app = cast(Host, screen.app)
        self.run: ScenarioSteps | None = None
        self._to_the_end = False  # A: the worker goes on after the step under way
        scenario = self.app.settings.scenario
        if scenario is not None and self.app.replay is None:
            self.open(scenario)  # `kafkatop scenario NAME`: its pane, nothing run yet

    def keys_apply(self) -> bool:
        """Whether space and A act (shown in the footer): a scenario open and not over."""
        return self.run is not None and not self.run.state.finished

    def open(self, scenario: Scenario) -> None:
        app, runner = self.app, self.app.sources.scenarios
        if runner is None:
            app.notify("a scenario runs on a lab cluster or the demo (it kills and starts nodes): `kafkatop scenario "
                       f"{scenario.name}` starts a lab of its shape", severity="warning", timeout=6)  # fmt: skip
            return
        if app.settings.read_only_reason is not None:
            app.notify(f"{app.settings.read_only_reason}: a scenario kills nodes and writes records",
                       severity="warning", timeout=5)  # fmt: skip
            return
        try:  # told to this context's feed: muted once another context is shown, as its pollers are
            self.run = runner.open(scenario, app.feed.scenario)
        except KafkatopError as e:
            app.notify(str(e), severity="warning", timeout=5)
            return
        self._to_the_end = False
        app.notify(f"scenario {scenario.name}: space does a step, A runs them all", timeout=5)

    def action_open(self, name: str) -> None:
        """The palette's "Scenario: NAME": a built-in scenario on the cluster in view."""
        scenario = builtin_scenarios().get(name)
        if scenario is not None:
            self.open(scenario)

    def action_next(self) -> None:
        run = self._open_run()
        if run is None:
            return
        if run.state.phase is ScenarioPhase.YOUR_TURN:
            run.do_yourself()
        elif run.busy:
            self.app.notify(f"step {run.state.current} is under way: its expectations are being watched (A runs "
                            "the rest after it)", timeout=4)  # fmt: skip
        else:
            self._work(run)

    def action_all(self) -> None:
        run = self._open_run()
        if run is None:
            return
        self._to_the_end = True
        run.do_yourself(from_now_on=True)  # a step waiting for a key, and those after it, are kafkatop's
        if not run.busy:
            self._work(run)

    def _open_run(self) -> ScenarioSteps | None:
        run = self.run
        if run is None:
            self.app.notify("no scenario open: ctrl+p, then Scenario: …", timeout=4)
            return None
        if run.state.finished:
            self.app.notify(f"scenario {run.state.name} is {run.state.phase.value}: ctrl+p opens it again",
                            timeout=4)  # fmt: skip
            return None
        return run

    def _work(self, run: ScenarioSteps) -> None:
        def steps() -> None:
            try:
                run.next_step()
                while self._to_the_end and self.run is run and not run.state.finished:
                    run.next_step()
            except KafkatopError:
                pass  # stopped: the view closed, or another scenario opened
            except Exception as e:  # noqa: BLE001 - a bug of the run is said, never a crash
                self.screen.app.call_from_thread(self.app.notify, f"the scenario stopped: {type(e).__name__}: {e}",
                                          severity="error", timeout=8)  # fmt: skip

        self.screen.run_worker(steps, thread=True, group="scenario", exit_on_error=False)
