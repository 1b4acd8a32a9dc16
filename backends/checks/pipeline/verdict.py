"""What arrived where: each stage's lines counted against those appended (pure)."""

from __future__ import annotations

from collections.abc import Iterable

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
