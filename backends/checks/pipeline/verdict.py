"""What arrived where: each stage's lines counted against those appended (pure)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from kafkatop.backends.model.pipeline import StageCounts, line_sequence

LOST_SAMPLE = 10


def count_stage(stage: str, lines: Iterable[str | None], run_id: str, appended: int) -> StageCounts:
    """The lines (record values, or the sink file's lines) in the order they arrived, against `appended` lines of
    run `run_id` (sequences 0 … appended-1). A line that is not this run's counts as other."""
    seen: set[int] = set()
    received = duplicated = reordered = other = 0
    highest = -1
    for line in lines:
        seq = None if line is None else line_sequence(line, run_id)
        if seq is None or seq >= appended:
            other += 1
            continue
        received += 1
        if seq in seen:
            duplicated += 1  # a replay: at-least-once re-sends from the last committed offset
            continue
        seen.add(seq)
        if seq < highest:
            reordered += 1
        highest = max(highest, seq)
    missing = [s for s in range(appended) if s not in seen] if len(seen) < appended else []
    return StageCounts(
        stage=stage,
        received=received,
        distinct=len(seen),
        lost=len(missing),
        duplicated=duplicated,
        reordered=reordered,
        other=other,
        lost_sample=tuple(missing[:LOST_SAMPLE]),
    )


class SinkTail:
    """The sink file's distinct sequence numbers, read on from where the last look stopped: it is looked at every
    half second until it holds every line, and reading it whole each time grew with the run."""

    def __init__(self, path: Path, run_id: str) -> None:
        self.path, self.run_id = path, run_id
        self.offset = 0
        self.seen: set[int] = set()

    def distinct(self, appended: int) -> int:
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                chunk = f.read()
        except FileNotFoundError:
            return 0
        whole = chunk.rfind(b"\n") + 1  # a line the sink is still writing is read whole next time
        self.offset += whole
        for line in chunk[:whole].decode("utf-8", errors="replace").splitlines():
            seq = line_sequence(line, self.run_id)
            if seq is not None:
                self.seen.add(seq)
        return sum(1 for s in self.seen if s < appended)
