"""What a scenario run saw (backends/checks/scenario): each step, the node it acted on, and each expectation met
(✓ when, what was seen) or not (✗, what was seen instead at its deadline) — printed by `kafkatop scenario run`, as
JSON with --json; and where a run is (ScenarioState), which the live view's scenario pane draws and a recording keeps.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


@dataclass(frozen=True, slots=True)
class ExpectResult:
    expected: str  # as a person says it: "the ISR of purchases-0 has 2 replicas within 30 s"
    met: bool
    after_s: float | None  # since the step began, when met
    seen: str  # the value that met it, or the last seen at the deadline
    explain: str | None


@dataclass(frozen=True, slots=True)
class StepResult:
    number: int
    action: str  # as described: "kill -9 leader:purchases-0"
    node: str | None  # the node acted on (a leader: resolved when the step ran)
    at: float  # time.time() when it began
    error: str | None  # the action could not be done
    expects: tuple[ExpectResult, ...]

    @property
    def passed(self) -> bool:
        return self.error is None and all(e.met for e in self.expects)


@dataclass(frozen=True, slots=True)
class ScenarioReport:
    name: str
    title: str
    started_at: float
    ended_at: float
    steps: tuple[StepResult, ...]

    @property
    def passed(self) -> bool:
        return all(s.passed for s in self.steps)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scenario": self.name,
            "title": self.title,
            "passed": self.passed,
            "seconds": round(self.ended_at - self.started_at, 1),
            "steps": [
                {
                    "step": s.number,
                    "action": s.action,
                    "node": s.node,
                    "error": s.error,
                    "passed": s.passed,
                    "expect": [
                        {
                            "expected": e.expected,
                            "met": e.met,
                            "after_seconds": None if e.after_s is None else round(e.after_s, 2),
                            "seen": e.seen,
                            "explain": e.explain,
                        }
                        for e in s.expects
                    ],  # fmt: skip
                }
                for s in self.steps
            ],
        }


class ScenarioPhase(StrEnum):
    READY = "ready"  # nothing done yet: the first `space` prepares it (its topics, the cluster settled)
    PREPARING = "preparing"
    RUNNING = "running"  # a step being done, or its expectations watched
    YOUR_TURN = "your turn"  # a step the user does by key: the note says which key, on which node
    BETWEEN = "between steps"  # `space` runs the next
    DONE = "done"
    FAILED = "failed"  # it could not go on: the note says why


@dataclass(frozen=True, slots=True)
class PlannedExpect:
    expected: str  # as described: "the ISR of ch-0 has 2 replicas within 30 s"
    explain: str | None


@dataclass(frozen=True, slots=True)
class PlannedStep:
    number: int
    action: str  # as described: "kill -9 leader:ch-0"
    say: str | None
    by_key: bool
    expects: tuple[PlannedExpect, ...]


@dataclass(frozen=True, slots=True)
class ScenarioState:
    """A run as far as it got: its plan, the steps ended, the one running (its expectations met so far), and the
    expectation being watched with what the last poll saw."""

    name: str
    title: str
    plan: tuple[PlannedStep, ...]
    phase: ScenarioPhase
    ended: tuple[StepResult, ...] = ()  # in order
    running: StepResult | None = None  # the step under way: its node, its expectations decided so far
    watching: str | None = None  # "ISR 1,2,3 (3), 4 of 30 s": the expectation after those decided, as last seen
    note: str | None = None  # what to do (YOUR_TURN), or why it stopped (FAILED)

    @property
    def current(self) -> int:
        """The number of the step under way, or of the next one (past the last: all done)."""
        return self.running.number if self.running is not None else len(self.ended) + 1

    @property
    def finished(self) -> bool:
        return self.phase in (ScenarioPhase.DONE, ScenarioPhase.FAILED)

    def result(self, number: int) -> StepResult | None:
        if self.running is not None and self.running.number == number:
            return self.running
        return next((s for s in self.ended if s.number == number), None)
