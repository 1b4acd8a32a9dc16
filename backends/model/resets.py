"""Consumer-group offset resets as kafka-consumer-groups.sh --reset-offsets plans them (standard library only): each
partition's move (`plan_move`), the plan (`ResetPlan`), and the values its options take — a datetime, an ISO-8601
duration, a CSV file of offsets."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Literal, get_args

from kafkatop.backends.model.consoles import ClientError
from kafkatop.backends.model.java_order import hash_order, string_hash, topic_partition_hash

# kafka-consumer-groups --reset-offsets: --to-earliest, --to-latest, --to-current, --to-offset N, --shift-by N,
# --to-datetime, --by-duration, --from-file.
ResetTarget = Literal["earliest", "latest", "current", "offset", "shift", "timestamp", "duration", "file"]

# What a plan's value is: an offset (offset), a count (shift), epoch ms (timestamp), ms back from now (duration).
VALUED: frozenset[ResetTarget] = frozenset({"offset", "shift", "timestamp", "duration"})


Clamp = Literal["log start", "log end"]

# (topic, partition) -> the offset a --from-file line asks for.
FileOffsets = Mapping[tuple[str, int], int]


@dataclass(frozen=True, slots=True)
class OffsetMove:
    """One partition of a reset plan: where the group is (`current`) and where the reset puts it (`target`)."""

    topic: str
    partition: int
    current: int | None  # the committed offset; None where the group never committed
    target: int
    log_start: int
    log_end: int
    requested: int | None = (
        None  # to-offset / shift-by / from-file: the offset asked for, before it was moved into the log
    )
    found: bool = True  # to-datetime / by-duration: False when no record is at or after the time (then the log end)

    @property
    def clamped(self) -> Clamp | None:
        """Where an out-of-range offset was moved to, as kafka-consumer-groups does ("New offset (999999) is higher
        than latest offset … Value will be set to 120")."""
        if self.requested is None or self.requested == self.target:
            return None
        return "log end" if self.requested > self.target else "log start"

    @property
    def changes(self) -> bool:
        return self.current != self.target

    @property
    def clamp_warning(self) -> str | None:
        """Kafka's tool's own WARN for a clamped offset (without its log4j prefix)."""
        if self.clamped is None:
            return None
        which, side = ("higher", "latest") if self.clamped == "log end" else ("lower", "earliest")
        return (f"New offset ({self.requested}) is {which} than {side} offset for topic partition "
                f"{self.topic}-{self.partition}. Value will be set to {self.target}")  # fmt: skip


def plan_move(
    topic: str,
    partition: int,
    to: ResetTarget,
    value: int | None,
    current: int | None,
    log_start: int,
    log_end: int,
    at_time: int | None = None,
    from_file: int | None = None,
) -> OffsetMove:
    """kafka-consumer-groups' rule for one partition. `at_time`: to-datetime's and by-duration's answer (the first
    offset at or after the time; None or negative when there is none); `from_file`: the file's offset for it."""
    move = OffsetMove(topic, partition, current, log_end, log_start, log_end)
    if to == "earliest":
        return OffsetMove(topic, partition, current, log_start, log_start, log_end)
    if to == "latest":
        return move
    if to == "current":  # a partition never committed goes to the log end, as Kafka's tool does
        return move if current is None else OffsetMove(topic, partition, current, current, log_start, log_end)
    if to in ("timestamp", "duration"):
        if at_time is None or at_time < 0:
            return OffsetMove(topic, partition, current, log_end, log_start, log_end, found=False)
        return OffsetMove(topic, partition, current, at_time, log_start, log_end)
    if to == "file":
        if from_file is None:
            raise ClientError(f"the file gives no offset for {topic}-{partition}")
        requested = from_file
    elif value is None:
        raise ClientError(f"a reset to {'an offset' if to == 'offset' else 'a shift'} needs a value")
    elif to == "shift":
        if current is None:  # Kafka's own words
            raise ClientError(
                f"Cannot shift offset for partition {topic}-{partition} since there is no current committed offset"
            )
        requested = current + value
    elif to == "offset":
        requested = value
    else:
        raise ClientError(f"reset to what? One of {', '.join(get_args(ResetTarget))}, not {to!r}")
    return OffsetMove(topic, partition, current, min(max(requested, log_start), log_end), log_start, log_end, requested)


@dataclass(frozen=True, slots=True)
class ResetPlan:
    """A reset computed but not done (`--dry-run`): what executing it would commit, partition by partition."""

    group: str
    to: ResetTarget
    value: int | None
    moves: tuple[OffsetMove, ...]
    refused: str | None = None  # why Kafka would refuse to execute it now (the group has members); None: it may
    state: str | None = None  # with `refused`: the group's state as Kafka names it (Stable, PreparingRebalance, …)

    @property
    def topics(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(m.topic for m in self.moves))

    @property
    def clamped(self) -> tuple[OffsetMove, ...]:
        return tuple(m for m in self.moves if m.clamped is not None)

    @property
    def changed(self) -> tuple[OffsetMove, ...]:
        return tuple(m for m in self.moves if m.changes)

    @property
    def option(self) -> str:
        """The plan's target in kafka-consumer-groups' words: --to-offset 999999, --shift-by -3, …"""
        return reset_option(self.to, self.value)

    @property
    def tool_refusal(self) -> str | None:
        """Kafka's tool's line for a group it will not reset (it has members)."""
        if self.refused is None:
            return None
        return (f"Error: Assignments can only be reset if the group '{self.group}' is inactive, but the current state "
                f"is {self.state or 'Unknown'}.")  # fmt: skip


def in_tool_order(plans: Iterable[ResetPlan]) -> list[ResetPlan]:
    """The plans in the order kafka-consumer-groups.sh prints them (its warnings, its table, its --export): groups in
    the order of the HashMap<String, …> the admin client describes them in, each group's partitions in the order of
    the HashMap<TopicPartition, …> its reset is collected in (Collectors.toMap). Partitions sharing a bucket keep the
    order they were planned in: --all-topics the broker's OffsetFetch answer, --topic T:P,… as named — the tool's."""
    ordered = []
    for plan in hash_order(plans, lambda p: string_hash(p.group)):
        moves = hash_order(plan.moves, _move_hash)
        if plan.to == "current" and moves and all(m.current is None for m in moves):
            # Nothing committed: the tool's map is an empty HashMap given the log ends by putAll, which sizes its
            # table for them (ceil(n / 0.75), a power of two): smaller than 16, another order.
            moves = hash_order(moves, _move_hash, initial=math.ceil(len(moves) / 0.75))
        ordered.append(replace(plan, moves=tuple(moves)))
    return ordered


def _move_hash(move: OffsetMove) -> int:
    return topic_partition_hash(move.topic, move.partition)


def reset_option(to: ResetTarget, value: int | None) -> str:
    if to in ("earliest", "latest", "current"):
        return f"--to-{to}"
    if to == "file":
        return "--from-file"
    if to == "offset":
        return f"--to-offset {value}"
    if to == "shift":
        return f"--shift-by {value}"
    if to == "duration":
        return f"--by-duration {'?' if value is None else iso_duration(value)}"
    shown = "?" if value is None else utc_datetime(value)
    return f"--to-datetime {shown}"


def parse_reset_value(to: ResetTarget, raw: str) -> int | None:
    """The value typed beside a reset target, as kafka-consumer-groups reads it; None for those without one.

    offset: a whole number, 0 or more. shift: a whole number, negative moves back. timestamp: epoch milliseconds, or
    a datetime YYYY-MM-DDTHH:MM[:SS[.sss]], UTC unless it names a zone, as --to-datetime reads it (Kafka's
    Utils.getDateTime adds a "Z" to a time without a zone; a date without its 'T' and time it refuses). duration:
    ISO-8601 PnDTnHnMnS (milliseconds back from now, as --by-duration).
    """
    text = raw.strip()
    if to not in get_args(ResetTarget):
        raise ClientError(f"reset to what? One of {', '.join(get_args(ResetTarget))}, not {to!r}")
    if to not in VALUED:
        return None
    if to == "offset":
        if not text.isdigit():
            raise ClientError(f"value: offset needs a whole number, 0 or more; got {raw!r}")
        return int(text)
    if to == "shift":
        digits = text[1:] if text[:1] in "+-" else text
        if not digits.isdigit():
            raise ClientError(f"value: shift needs a whole number (negative moves back, e.g. -10); got {raw!r}")
        return int(text)
    if to == "duration":
        return parse_duration(text)
    if text.isdigit():
        return int(text)
    try:
        if "T" not in text:  # 2026-12-07 alone, or a space for the T: the tool refuses both
            raise ValueError(text)
        when = datetime.fromisoformat(text)
    except ValueError:
        raise ClientError(
            f"value: a datetime needs YYYY-MM-DDTHH:MM:SS, as the tool (UTC unless a zone is given: +02:00, Z) or "
            f"epoch milliseconds; got {raw!r}"
        ) from None
    zoned = when if when.tzinfo is not None else when.replace(tzinfo=UTC)
    return (zoned - EPOCH) // timedelta(milliseconds=1)


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def utc_datetime(ms: int) -> str:
    """Epoch ms as --to-datetime takes it, in UTC (the tool's reading of a time without a zone)."""
    return datetime.fromtimestamp(ms / 1000, UTC).replace(tzinfo=None).isoformat(timespec="milliseconds")


# Java's Duration.parse: [-]PnDTnHnMn.nS, each part optional (at least one), signed, case-insensitive.
_DURATION = re.compile(
    r"([-+]?)P(?:([-+]?\d+)D)?(?:T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?(?:([-+]?\d+)(?:[.,](\d{0,9}))?S)?)?",
    re.IGNORECASE,
)


def parse_duration(text: str) -> int:
    """An ISO-8601 duration as --by-duration takes it (Java's Duration.parse: P1DT2H, PT30M, PT0.5S), in ms."""
    m = _DURATION.fullmatch(text.strip())
    if m is None or not any(m.group(i) for i in range(2, 6)) or text.strip().upper().endswith("T"):
        raise ClientError(f"a duration is ISO-8601 PnDTnHnMnS, as --by-duration takes it (P1D, PT2H, PT30M, "
                          f"P1DT12H): not {text!r}")  # fmt: skip
    sign, days, hours, minutes, seconds, fraction = m.groups()
    ms = (int(days or 0) * 86_400 + int(hours or 0) * 3600 + int(minutes or 0) * 60) * 1000
    whole_s = int(seconds or 0)
    part_ms = int((fraction or "").ljust(3, "0")[:3]) if fraction else 0
    ms += whole_s * 1000 + (-part_ms if (seconds or "").startswith("-") else part_ms)
    return -ms if sign == "-" else ms


def iso_duration(ms: int) -> str:
    """Milliseconds as an ISO-8601 duration, as Java's Duration prints it (PT1H30M, PT0.5S, PT0S)."""
    sign, rest = ("-", -ms) if ms < 0 else ("", ms)
    hours, rest = divmod(rest, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    parts = [f"{hours}H" if hours else "", f"{minutes}M" if minutes else ""]
    if seconds or millis or not (hours or minutes):
        parts.append(f"{seconds}.{millis:03d}".rstrip("0").rstrip(".") + "S")
    return f"{sign}PT{''.join(parts)}"


def parse_offsets_csv(text: str, group: str | None = None) -> dict[tuple[str, int], int]:
    """--from-file's CSV, as --export writes it: topic,partition,offset a line; or group,topic,partition,offset
    (several groups' export), of which the lines of `group` are kept. ClientError names the first bad line."""
    out: dict[tuple[str, int], int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        cells = [c.strip() for c in line.split(",")]
        if len(cells) == 4:
            if cells[0] != group:
                continue
            cells = cells[1:]
        if len(cells) != 3 or not cells[0] or not cells[1].isdigit() or not cells[2].lstrip("-").isdigit():
            raise ClientError(f"line {number}: {line!r} is not topic,partition,offset (e.g. orders,0,42; or "
                              "group,topic,partition,offset as a several groups' --export writes it)")  # fmt: skip
        out[(cells[0], int(cells[1]))] = int(cells[2])
    return out
