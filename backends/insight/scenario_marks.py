"""A scenario's marks on the failover timeline, from two states of its run (pure): the step that began, each
expectation decided (✓ with when and what was seen, ✗ with what was seen instead), the run's end. Worked out from the
states themselves, so a replayed recording marks its timeline as the live run did."""

from __future__ import annotations

from kafkatop.backends.model.operations import OperationKind, OperationPhase, OperationStep
from kafkatop.backends.model.scenario_report import ExpectResult, ScenarioPhase, ScenarioState, StepResult


def _steps(state: ScenarioState | None) -> dict[int, StepResult]:
    if state is None:
        return {}
    steps = {s.number: s for s in state.ended}
    if state.running is not None:
        steps[state.running.number] = state.running
    return steps


def scenario_marks(before: ScenarioState | None, now: ScenarioState) -> list[OperationStep]:
    if before is not None and before.name != now.name:
        before = None  # another scenario opened: its own marks from the start
    marks: list[OperationStep] = []
    was, steps = _steps(before), _steps(now)
    for number, step in sorted(steps.items()):
        old = was.get(number)
        if old is None:
            marks.append(_mark(OperationPhase.STARTED, f"scenario {now.name} step {number}: {step.action}"))
        if step.node is not None and (old is None or old.node is None) and not step.action.endswith(step.node):
            marks.append(_mark(OperationPhase.PROGRESS, f"scenario step {number}: {step.action} is {step.node}"))
        if step.error is not None and (old is None or old.error is None):
            marks.append(_mark(OperationPhase.FAILED, f"scenario step {number} not done: {step.error}"))
        for e in step.expects[len(old.expects) if old is not None else 0 :]:
            marks.append(_mark(OperationPhase.PROGRESS, f"scenario step {number}: {_said(e)}"))
    if now.finished and (before is None or not before.finished):
        held = sum(e.met for s in now.ended for e in s.expects)
        total = sum(len(s.expects) for s in now.ended)
        ended = "done" if now.phase is ScenarioPhase.DONE else f"stopped: {now.note}"
        phase = OperationPhase.DONE if now.phase is ScenarioPhase.DONE else OperationPhase.FAILED
        marks.append(_mark(phase, f"scenario {now.name} {ended}: {held} of {total} expectations held"))
    return marks


def _said(e: ExpectResult) -> str:
    if e.met:
        return f"✓ {e.expected}: {e.seen}" + (f" after {e.after_s:.1f} s" if e.after_s is not None else "")
    return f"✗ {e.expected}: saw {e.seen}"


def _mark(phase: OperationPhase, text: str) -> OperationStep:
    return OperationStep(OperationKind.SCENARIO, phase, text)
