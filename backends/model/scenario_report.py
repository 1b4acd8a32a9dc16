"""What a scenario run saw (backends/checks/scenario): each step, the node it acted on, and each expectation met
(✓ when, what was seen) or not (✗, what was seen instead at its deadline) — printed by `kafkatop scenario run`, as
JSON with --json."""

from __future__ import annotations

from dataclasses import dataclass
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
