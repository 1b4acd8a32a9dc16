"""A consumer group's lag as an operator acts on it: in records and in time, how long it would take to catch up, and
a status per partition and per group from a window of polls, with Burrow's names (insight/lag/evaluator.py says
how each is decided). Standard library only."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from kafkatop.backends.model.errors import BadInput


class LagStatus(StrEnum):
    """Worst last: a group's status is its worst partition's."""

    OK = "OK"
    WARN = "WARN"  # lag grew over the whole window while the group committed (or past a threshold)
    REWIND = "REWIND"  # a committed offset moved back within the window, and the group has not caught up since
    STALL = "STALL"  # a member owns the partition, its committed offset did not move over the window, lag > 0
    STOP = "STOP"  # no member owns the partition, its committed offset did not move over the window, lag > 0
    ERR = "ERR"  # the committed offset is below the log start: records were deleted under it

    @property
    def severity(self) -> int:
        return _ORDER.index(self)

    @property
    def exit_code(self) -> int:
        """`kafkatop lag`'s exit status when this is the worst status it fails on (README: "kafkatop lag")."""
        return 0 if self is LagStatus.OK else 10 + self.severity


_ORDER = tuple(LagStatus)


def worst(statuses: list[LagStatus] | tuple[LagStatus, ...]) -> LagStatus:
    return max(statuses, key=_ORDER.index, default=LagStatus.OK)


@dataclass(frozen=True, slots=True)
class LagRules:
    """How statuses are decided: a context's `[contexts.NAME.lag]` table, or these defaults."""

    window_s: float = 60.0  # the polls a status is decided over
    warn_seconds: float | None = 300.0  # WARN past this lag in time; None: off
    warn_records: int | None = None  # WARN past this lag in records; None: off

    def __post_init__(self) -> None:
        if not self.window_s > 0:
            raise BadInput(f"lag window = {self.window_s!r}: give a number of seconds above 0 (default 60)")
        if self.warn_seconds is not None and not self.warn_seconds > 0:
            raise BadInput(f"lag warn-seconds = {self.warn_seconds!r}: give seconds above 0, or leave it out")
        if self.warn_records is not None and self.warn_records < 1:
            raise BadInput(f"lag warn-records = {self.warn_records!r}: give a whole number above 0, or leave it out")


_LAG_KEYS = {"window": "window_s", "warn-seconds": "warn_seconds", "warn-records": "warn_records"}


def parse_lag_rules(table: object, where: str) -> LagRules:
    """A context's `[contexts.NAME.lag]` table: window = 60, warn-seconds = 300 (0: off), warn-records = 10000."""
    if table is None:
        return LagRules()
    if not isinstance(table, dict):
        raise BadInput(f"{where}: lag is a table, e.g. [contexts.NAME.lag] with window = 60")
    unknown = sorted(set(table) - set(_LAG_KEYS))
    if unknown:
        raise BadInput(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(_LAG_KEYS)}")
    given: dict[str, float | int | None] = {}
    for key, value in table.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise BadInput(f"{where}: {key} = {value!r} must be a number")
        if key == "warn-records" and not isinstance(value, int):
            raise BadInput(f"{where}: warn-records = {value!r} must be a whole number")
        given[_LAG_KEYS[key]] = None if key != "window" and value == 0 else value
    try:
        return LagRules(**given)  # type: ignore[arg-type]
    except BadInput as e:
        raise BadInput(f"{where}: {e}") from None


@dataclass(frozen=True, slots=True)
class PartitionLag:
    topic: str
    partition: int
    committed: int
    high_watermark: int
    lag: int
    # When the next record the group has not read was written (its lag in time: now − this); None: no lag, or not
    # known.
    written_at: float | None
    at_least: bool  # the record is older than the offset→time history reaches: its lag in time is a lower bound
    status: LagStatus
    why: str  # the rule that gave the status, in words
    exact: bool = False  # written_at from the record's own timestamp (read on demand), not interpolated

    def lag_seconds(self, now: float) -> float | None:
        return _seconds(self.lag, self.written_at, now)


@dataclass(frozen=True, slots=True)
class GroupLag:
    group_id: str
    group_type: str
    status: LagStatus
    lag: int
    written_at: float | None  # its oldest unread record's (the partitions' earliest)
    at_least: bool
    consume_rate: float | None  # records/s its committed offsets advanced over the window; None: under two polls
    produce_rate: float | None  # records/s its partitions' high watermarks advanced over the window
    observed_s: float  # how much of the window the polls cover so far
    partitions: tuple[PartitionLag, ...]
    why: str
    as_of: float = 0.0  # the poll it was evaluated at: an earlier one when that poll's budget ran out

    def lag_seconds(self, now: float) -> float | None:
        return _seconds(self.lag, self.written_at, now)

    @property
    def catch_up_s(self) -> float | None:
        """Seconds to read up to the end at the current rates; 0 with no lag; None when not catching up."""
        if self.lag == 0:
            return 0.0
        if self.consume_rate is None or self.produce_rate is None or self.consume_rate <= self.produce_rate:
            return None
        return self.lag / (self.consume_rate - self.produce_rate)


def _seconds(lag: int, written_at: float | None, now: float) -> float | None:
    if lag == 0:
        return 0.0
    return None if written_at is None else max(0.0, now - written_at)


@dataclass(frozen=True, slots=True)
class StatusChange:
    group_id: str
    was: LagStatus | None  # None: first evaluated
    now: LagStatus
    at: float
    why: str


@dataclass(frozen=True, slots=True)
class LagSnapshot:
    taken_at: float
    rules: LagRules
    groups: tuple[GroupLag, ...]  # by group id
    changes: tuple[StatusChange, ...] = ()  # this evaluation's, first evaluations left out
    deferred: int = 0  # groups that moved but kept an earlier evaluation (the poll's budget ran out)

    @property
    def not_ok(self) -> int:
        return sum(1 for g in self.groups if g.status is not LagStatus.OK)

    def group(self, group_id: str) -> GroupLag | None:
        return next((g for g in self.groups if g.group_id == group_id), None)
