"""The scenario pane (`kafkatop scenario NAME`, or a scenario picked in the palette): beside the tables on a wide
terminal, under them on a narrow one. Its steps, the one under way highlighted; each expectation ✓ with when it was met
and what was seen, ✗ with what was seen instead at its deadline, … with what the last poll saw while it is watched;
the explanation under the expectations of the step under way (and under one that failed); at the foot, what to press.
Drawn from the view's ScenarioState only; a short pane shows the lines around the step under way."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual.widget import Widget

from kafkatop.backends.model.scenario_report import (
    ExpectResult,
    PlannedStep,
    ScenarioPhase,
    ScenarioState,
    StepResult,
)
from kafkatop.tui.live.state import LiveView
from kafkatop.tui.live.text import shown
from kafkatop.tui.live.widgets.pane import LivePane

_FOOT = {
    ScenarioPhase.READY: "space: first step (its topics are created) · A: run all",
    ScenarioPhase.PREPARING: "creating its topics, waiting for their leaders and full ISRs …",
    ScenarioPhase.RUNNING: "watching … (A: run the rest)",
    ScenarioPhase.BETWEEN: "space: next step · A: run the rest",
    ScenarioPhase.DONE: "done · ctrl+p: another scenario",
    ScenarioPhase.FAILED: "stopped · ctrl+p: open it again, or another",
}


def scenario_lines(state: ScenarioState, compact: bool = False) -> tuple[Text, list[Text], int, list[Text]]:
    """The pane's head (one line), its body and the index in it of the step under way (kept in view on a short
    pane), and its tail: what to do, always shown. `compact`: without what the steps are for and why (a short pane
    keeps the expectations)."""
    met = sum(e.met for s in state.ended for e in s.expects)
    decided = sum(len(s.expects) for s in state.ended)
    head = Text(no_wrap=True, overflow="ellipsis")
    head.append("Scenario ", style="bold")
    head.append_text(shown(state.name, "bold"))
    if decided:
        head.append(f" {met}/{decided} held", style="green" if met == decided else "bold red")
    head.append(" · ")
    head.append_text(shown(state.title))
    body: list[Text] = []
    current_at = 0
    for planned in state.plan:
        result = state.result(planned.number)
        under_way = planned.number == state.current and not state.finished
        if under_way or (state.finished and planned.number == len(state.ended)):
            current_at = len(body)  # kept in view: the step under way, or the last one done once all are
        body.append(_step_line(planned, result, under_way))
        if planned.say and under_way and not compact:
            body.append(shown(f"    {planned.say}", "italic"))
        body += _expect_lines(planned, result, state if under_way else None, compact)
    tail: list[Text] = []
    if state.note:
        style = "bold yellow" if state.phase is ScenarioPhase.YOUR_TURN else "bold red"
        tail.append(shown(f"» {state.note}", style))
    tail.append(Text(_FOOT.get(state.phase, ""), style="dim"))
    return head, body, current_at, tail


def _step_line(planned: PlannedStep, result: StepResult | None, under_way: bool) -> Text:
    if result is not None and not under_way:
        mark, style = ("✓", "green") if result.passed else ("✗", "bold red")
    else:
        mark, style = ("▶", "bold reverse") if under_way else (" ", "")
    line = Text(f"{mark} {planned.number} ", style=style if not under_way else "bold")
    line.append_text(shown(planned.action, style))
    if result is not None and result.node is not None and result.node != planned.action.split()[-1]:
        line.append(f" → {result.node}", style="bold" if under_way else "")
    if planned.by_key:
        line.append(" (by key)", style="dim")
    if result is not None and result.error:
        line.append_text(shown(f" — {result.error}", "red"))
    return line


def _expect_lines(
    planned: PlannedStep, result: StepResult | None, under_way: ScenarioState | None, compact: bool
) -> list[Text]:
    decided: tuple[ExpectResult, ...] = result.expects if result is not None else ()
    lines: list[Text] = []
    for i, expected in enumerate(planned.expects):
        if i < len(decided):
            e = decided[i]
            line = Text("    ✓ " if e.met else "    ✗ ", style="green" if e.met else "bold red")
            line.append_text(shown(e.expected))
            said = f"{e.seen} · {e.after_s:.1f} s" if e.met and e.after_s is not None else f"saw {e.seen}"
            line.append_text(shown(f" — {said}", "green" if e.met else "red"))
            lines.append(line)
            if not e.met and e.explain and not compact:
                lines.append(shown(f"      why: {e.explain}", "dim"))
            continue
        watched = under_way is not None and i == len(decided) and under_way.phase is ScenarioPhase.RUNNING
        line = Text("    … " if watched else "    · ", style="yellow" if watched else "dim")
        line.append_text(shown(expected.expected, "" if under_way is not None else "dim"))
        if watched and under_way is not None and under_way.watching:
            line.append_text(shown(f" — now {under_way.watching}", "yellow"))
        lines.append(line)
        if under_way is not None and expected.explain and not compact:
            lines.append(shown(f"      why: {expected.explain}", "dim"))
    return lines


class ScenarioPane(LivePane, Widget):
    """Hidden until a scenario is open."""

    DEFAULT_CSS = "ScenarioPane { display: none; }"

    def __init__(self) -> None:
        super().__init__(id="scenario")
        self._state: ScenarioState | None = None

    def take(self, view: LiveView) -> None:
        """Every view, on screen or not (it shows itself when a scenario opens): redrawn when its state changed."""
        before, self._state = self._state, view.scenario
        if view.scenario is not before:
            self.display = view.scenario is not None
            self.refresh()
            if (before is None) or (view.scenario is None) or before.phase is not view.scenario.phase:
                self.app.refresh_bindings()  # space and A in the footer while a scenario is open and not over

    def draw(self, view: LiveView) -> None:
        """Nothing more: `take` redraws it."""

    def render(self) -> RenderableType:
        if self._state is None:
            return Text()
        head, body, current_at, tail = scenario_lines(self._state)
        width, height = max(1, self.size.width), self.size.height
        console = self.app.console
        budget = height - 1 - sum(len(line.wrap(console, width)) for line in tail)
        rows = [len(line.wrap(console, width)) for line in body]
        if height and sum(rows) > budget and height < 16:  # short: the expectations before the why
            head, body, current_at, tail = scenario_lines(self._state, compact=True)
            rows = [len(line.wrap(console, width)) for line in body]
        if height and sum(rows) > budget:
            # A short pane: from the step under way (and the line before it, if there is room) as much as fits.
            start = (
                current_at - 1 if current_at and sum(rows[current_at - 1 : current_at + 3]) <= budget else current_at
            )
            while start and sum(rows[start - 1 :]) <= budget:  # near the end: filled from above, no blank below
                start -= 1
            kept: list[Text] = []
            for line, taken in zip(body[start:], rows[start:], strict=True):
                if taken > budget:
                    break
                kept.append(line)
                budget -= taken
            body = kept
        return Group(head, Text("\n").join([*body, *tail]))
