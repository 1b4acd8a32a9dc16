"""Where a read starts, as a person types it: an offset, N before the end, a time, the beginning or the end."""

from __future__ import annotations

import re
from datetime import datetime

from kafkatop.backends.model.messages import BEGINNING, END, Seek

TIME_FORMS = (
    "an ISO 8601 time (2026-11-24T10:30, +01:00 or Z for a zone, local time without), a time today (10:30), "
    "an age (15m ago, 2h ago, 1d ago) or milliseconds since the epoch (13 digits)"
)
SEEK_FORMS = f"an offset (1200; -50: 50 before the end), beginning, end, or a time: {TIME_FORMS}"

_AGE = re.compile(r"(\d+(?:\.\d+)?)\s*(s|m|h|d)\s+ago")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_CLOCK = re.compile(r"\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?")


def parse_time(text: str, now: float) -> int:
    """Milliseconds since the epoch for `text` (see TIME_FORMS), `now` being the time in seconds; ValueError
    naming the forms otherwise."""
    value = text.strip().lower()
    if re.fullmatch(r"\d{12,}", value):
        return int(value)
    age = _AGE.fullmatch(value)
    if age:
        return int((now - float(age.group(1)) * _UNITS[age.group(2)]) * 1000)
    try:
        if _CLOCK.fullmatch(value):
            today = datetime.fromtimestamp(now).date().isoformat()
            return int(datetime.fromisoformat(f"{today}T{value}").timestamp() * 1000)
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError(f"{text.strip()!r} is not a time: give {TIME_FORMS}") from None
    return int(moment.timestamp() * 1000)


def parse_seek(text: str, now: float) -> Seek:
    """A Seek for what was typed in the browser's "from" field; empty is the beginning."""
    value = text.strip().lower()
    if value in ("", "beginning", "earliest", "start", "first"):
        return BEGINNING
    if value in ("end", "latest", "last"):
        return END
    if re.fullmatch(r"-?\d{1,11}", value):
        return Seek.offset(int(value))
    try:
        return Seek.timestamp(parse_time(text, now))
    except ValueError:
        raise ValueError(f"{text.strip()!r}: give {SEEK_FORMS}") from None


def age_text(ms: int, now: float) -> str:
    """How long before `now` a timestamp is, roughly: "3 s ago", "2 h ago", "in 5 min" (a producer's clock ahead)."""
    delta = now - ms / 1000
    ahead = delta < 0
    seconds = abs(delta)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            amount = f"{seconds / size:.0f} {unit}"
            break
    else:
        amount = f"{seconds:.0f} s"
    return f"in {amount}" if ahead else f"{amount} ago"
