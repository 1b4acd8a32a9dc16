"""Where the message browser starts reading, as a person types it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kafkatop.backends.insight.seek import age_text, parse_seek, parse_time
from kafkatop.backends.model.messages import BEGINNING, END, Seek, SeekKind

NOW = datetime(2026, 11, 24, 12, 0, tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    ("typed", "seek"),
    [
        ("", BEGINNING), ("beginning", BEGINNING), (" earliest ", BEGINNING), ("end", END), ("LATEST", END),
        ("1200", Seek.offset(1200)), ("-50", Seek.offset(-50)), ("0", Seek.offset(0)),
        ("1795996800000", Seek.timestamp(1795996800000)),
        ("15m ago", Seek.timestamp(int((NOW - 900) * 1000))), ("2h ago", Seek.timestamp(int((NOW - 7200) * 1000))),
        ("2026-11-24T10:30:00Z", Seek.timestamp(int(datetime(2026, 11, 24, 10, 30, tzinfo=UTC).timestamp()
                                                    * 1000))),
        ("2026-11-24T10:30+01:00", Seek.timestamp(int(datetime(2026, 11, 24, 9, 30, tzinfo=UTC).timestamp()
                                                      * 1000))),
    ],
)  # fmt: skip
def test_what_a_person_types_is_where_the_read_starts(typed: str, seek: Seek) -> None:
    assert parse_seek(typed, NOW) == seek


def test_a_time_of_day_is_today_in_local_time() -> None:
    seek = parse_seek("10:30", NOW)
    assert seek.kind is SeekKind.TIMESTAMP and seek.value is not None
    moment = datetime.fromtimestamp(seek.value / 1000)
    assert (moment.date(), moment.hour, moment.minute) == (datetime.fromtimestamp(NOW).date(), 10, 30)


@pytest.mark.parametrize("typed", ["yesterday", "2026-13-01", "12.5", "-", "ten"])
def test_what_is_not_a_place_says_which_forms_are(typed: str) -> None:
    with pytest.raises(ValueError) as refused:
        parse_seek(typed, NOW)
    assert str(refused.value).startswith(f"{typed!r}: give an offset (1200; -50: 50 before the end), beginning, end")
    with pytest.raises(ValueError, match="is not a time: give an ISO 8601 time"):
        parse_time(typed, NOW)


def test_an_age_reads_roughly() -> None:
    assert age_text(int((NOW - 3) * 1000), NOW) == "3 s ago"
    assert age_text(int((NOW - 7200) * 1000), NOW) == "2 h ago"
    assert age_text(int((NOW + 300) * 1000), NOW) == "in 5 min"
