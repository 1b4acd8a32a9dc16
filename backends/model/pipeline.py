"""The Connect pipeline check (`kafkatop durability --connect`): a FileStreamSource reads a file of sequenced lines
into a topic, a FileStreamSink writes the topic back out, and a worker running a task is killed midway. What it was
asked to do, what happened when, and what arrived where (standard library only; the run is
backends/checks/pipeline/run.py, its verdict and text beside it)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

from kafkatop.backends.model.errors import BadInput, KafkatopError

RestartPolicy = Literal["after-failover", "never"]
DEFAULT_LINES = 10_000
DEFAULT_RATE = 1_000.0  # lines appended per second: slow enough that a kill at half lands mid-stream
LINE_PREFIX = "kafkatop-pipeline"


class PipelineRefused(BadInput):
    """The check cannot run as asked (no workers, one flag wrong): nothing was created. Exit 2."""


class PipelineError(KafkatopError):
    """The run could not go on (Connect or Kafka stopped answering): exit 1."""


@dataclass(frozen=True, slots=True)
class PipelineSettings:
    lines: int = DEFAULT_LINES
    rate: float = DEFAULT_RATE
    kill_at: float | None = 0.5  # fraction of the lines appended when the source task's worker is killed; None: none
    fault: Literal["kill", "stop"] = "kill"
    restart: RestartPolicy = "after-failover"  # start the worker again once its task runs elsewhere, or leave it down
    timeout_s: float = 180.0  # the whole run's deadline after the last line is appended
    keep: bool = False  # keep the connectors, topic and files for a look afterwards

    def validate(self) -> PipelineSettings:
        problems = []
        if self.lines < 1:
            problems.append(f"--records {self.lines}: give at least 1 line")
        if self.rate <= 0:
            problems.append(f"--rate {self.rate:g}: give lines per second above 0")
        if self.kill_at is not None and not 0.0 < self.kill_at < 1.0:
            problems.append(f"--kill-at {self.kill_at:g}: give a fraction between 0 and 1 (0.5 = half the lines)")
        if self.timeout_s <= 0:
            problems.append(f"--timeout {self.timeout_s:g}: give seconds above 0")
        if problems:
            raise PipelineRefused("; ".join(problems))
        return self


def sequenced_line(run_id: str, seq: int) -> str:
    """Line `seq` of run `run_id`, as appended to the source file (and, unchanged, a record's value and a line out)."""
    return f"{LINE_PREFIX} {run_id} {seq:08d}"


def line_sequence(line: str, run_id: str) -> int | None:
    """The sequence number of one of this run's lines; None for anything else."""
    parts = line.strip().split(" ")
    if len(parts) != 3 or parts[0] != LINE_PREFIX or parts[1] != run_id or not parts[2].isdigit():
        return None
    return int(parts[2])


@dataclass(frozen=True, slots=True)
class StageCounts:
    """One stage's view of the lines: the topic, or the sink's file."""

    stage: str  # "topic", "file out"
    received: int  # records or lines of this run found there
    distinct: int
    lost: int  # appended to the source file, never found here
    duplicated: int  # found more than once (at-least-once: replays after a task restarts from its last commit)
    reordered: int  # first seen after a line with a higher sequence
    other: int = 0  # records or lines that are not this run's
    lost_sample: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class PipelineEvent:
    at: float  # seconds since the run started
    what: str


@dataclass(frozen=True, slots=True)
class PipelineReport:
    run_id: str
    settings: PipelineSettings
    workers: tuple[str, ...]  # the worker URLs asked
    topic: str
    source_file: str
    sink_file: str
    lines_in: int  # appended to the source file
    stages: tuple[StageCounts, ...]
    events: tuple[PipelineEvent, ...]
    failover_s: float | None  # kill → the source task RUNNING again (elsewhere, or on the restarted worker)
    rebalance_delay_ms: int | None  # the workers' scheduled.rebalance.max.delay.ms, where it could be read
    offset_flush_ms: int | None  # offset.flush.interval.ms: how far back a restarted source task re-reads
    complete: bool  # the sink caught up with every line, or the run's deadline came first
    problems: tuple[str, ...] = field(default=())

    @property
    def lost(self) -> int:
        return max((s.lost for s in self.stages), default=0)

    @property
    def as_expected(self) -> bool:
        """Connect's file connectors are at-least-once: nothing lost and nothing reordered; duplicates may be."""
        return self.complete and all(s.lost == 0 and s.reordered == 0 for s in self.stages)

    def to_dict(self) -> dict[str, object]:
        out = asdict(self)
        out["as_expected"] = self.as_expected
        return out
