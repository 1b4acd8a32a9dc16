"""Offset resets planned as kafka-consumer-groups plans them (--to-earliest, --to-latest, --to-offset, --shift-by,
--to-datetime), the value typed beside them read as that tool reads it, and the preview's words — all without Kafka."""

from __future__ import annotations

import time

import pytest

from kafkatop.backends.model.consoles import ClientError
from kafkatop.backends.model.resets import (
    OffsetMove,
    ResetPlan,
    in_tool_order,
    iso_duration,
    parse_duration,
    parse_offsets_csv,
    parse_reset_value,
    plan_move,
    reset_option,
)
from kafkatop.tui.live.tabs.groups.reset_offsets import move_note, reset_summary


# (to, value, committed, log start, log end, offset at the time) -> (new offset, asked for, clamped to)
@pytest.mark.parametrize(
    ("to", "value", "current", "at_time", "target", "requested", "clamped"),
    [
        ("earliest", None, 40, None, 10, None, None),
        ("latest", None, 40, None, 120, None, None),
        ("offset", 50, 40, None, 50, 50, None),
        ("offset", 999_999, 40, None, 120, 999_999, "log end"),  # Kafka: "Value will be set to 120"
        ("offset", 3, 40, None, 10, 3, "log start"),  # below the log start (retention deleted the head)
        ("offset", 120, None, None, 120, 120, None),  # the log end itself is in range
        ("shift", -15, 40, None, 25, 25, None),
        ("shift", 100, 40, None, 120, 140, "log end"),
        ("shift", -100, 40, None, 10, -60, "log start"),
        ("timestamp", 1_700_000_000_000, 40, 77, 77, None, None),
    ],
)
def test_each_target_as_kafka_consumer_groups(
    to: str, value: int | None, current: int | None, at_time: int | None, target: int, requested: int | None,
    clamped: str | None,
) -> None:  # fmt: skip
    move = plan_move("orders", 2, to, value, current, 10, 120, at_time)  # type: ignore[arg-type]
    assert (move.target, move.requested, move.clamped) == (target, requested, clamped)
    assert (move.topic, move.partition, move.current, move.log_start, move.log_end) == ("orders", 2, current, 10, 120)
    assert move.changes == (current != target)


def test_a_time_after_the_last_record_is_the_log_end() -> None:
    for none_found in (None, -1):
        move = plan_move("orders", 0, "timestamp", 1_700_000_000_000, 40, 10, 120, none_found)
        assert (move.target, move.found, move.clamped) == (120, False, None)
        assert move_note(move) == "no message at or after that time: the log end"


def test_shift_needs_a_committed_offset_as_kafka_says() -> None:
    with pytest.raises(ClientError, match=r"^Cannot shift offset for partition orders-1 since there is no current"):
        plan_move("orders", 1, "shift", -5, None, 0, 10)
    with pytest.raises(ClientError, match="needs a value"):
        plan_move("orders", 1, "offset", None, 3, 0, 10)


def test_the_preview_says_what_was_clamped_and_what_moves() -> None:
    moves = (
        plan_move("orders", 0, "offset", 999_999, 2, 0, 120),
        plan_move("orders", 1, "offset", 999_999, 120, 0, 120),  # already at the end: clamped, yet nothing moves
        plan_move("billing", 0, "offset", 999_999, None, 0, 7),
    )
    plan = ResetPlan("readers", "offset", 999_999, moves)
    assert plan.topics == ("orders", "billing")
    assert [m.partition for m in plan.changed] == [0, 0]
    assert len(plan.clamped) == 3
    assert plan.option == "--to-offset 999999"
    assert move_note(moves[0]) == "asked 999999: clamped to the log end"
    assert reset_summary(plan) == (
        "group 'readers' --to-offset 999999 on orders, billing: 3 partitions, 2 to move, 3 clamped to the log end"
    )
    assert reset_summary(plan, done=True).endswith("3 partitions, 2 moved, 3 clamped to the log end")
    unclamped = ResetPlan("readers", "earliest", None, (OffsetMove("t", 0, 5, 0, 0, 9),))
    assert reset_summary(unclamped) == "group 'readers' --to-earliest on t: 1 partition, 1 to move"


@pytest.mark.parametrize(
    ("to", "raw", "value"),
    [
        ("earliest", "ignored", None),
        ("latest", "", None),
        ("offset", " 120 ", 120),
        ("offset", "999999", 999_999),
        ("shift", "-10", -10),
        ("shift", "+3", 3),
        ("shift", "7", 7),
        ("timestamp", "1700000000000", 1_700_000_000_000),
        ("timestamp", "2026-01-31T09:00:00.000+00:00", 1_769_850_000_000),
    ],
)
def test_reset_values_as_typed(to: str, raw: str, value: int | None) -> None:
    assert parse_reset_value(to, raw) == value  # type: ignore[arg-type]


def test_a_datetime_without_a_zone_is_utc_as_kafkas_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    """Kafka 4.1's Utils.getDateTime adds "Z" to a time without a zone: 09:00 is 09:00 UTC wherever the tool runs
    (kafka-consumer-groups.sh under TZ=Asia/Kolkata printed the same plan as under UTC; kafkatop read local time)."""
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    time.tzset()
    try:
        assert parse_reset_value("timestamp", "2026-01-31T09:00") == 1_769_850_000_000
        assert parse_reset_value("timestamp", "2026-01-31T09:00:00.123") == 1_769_850_000_123
        assert parse_reset_value("timestamp", "2026-01-31T09:00:00.000+05:30") == 1_769_830_200_000
        assert reset_option("timestamp", 1_769_850_000_000) == "--to-datetime 2026-01-31T09:00:00.000"
    finally:
        monkeypatch.undo()
        time.tzset()


@pytest.mark.parametrize("raw", ["2026-12-07", "2026-12-07 06:00:00"])
def test_a_datetime_without_its_t_is_refused_as_by_the_tool(raw: str) -> None:
    """The tool: "Error parsing timestamp. It does not contain a 'T' according to ISO8601 format"."""
    with pytest.raises(ClientError, match="a datetime needs YYYY-MM-DDTHH:MM:SS, as the tool"):
        parse_reset_value("timestamp", raw)


@pytest.mark.parametrize(
    ("to", "raw", "says"),
    [
        ("offset", "-5", "value: offset needs a whole number, 0 or more; got '-5'"),
        ("offset", "", "value: offset needs a whole number, 0 or more; got ''"),
        ("shift", "1.5", "value: shift needs a whole number (negative moves back, e.g. -10); got '1.5'"),
        ("shift", "-", "value: shift needs a whole number"),
        ("timestamp", "yesterday", "value: a datetime needs YYYY-MM-DDTHH:MM:SS, as the tool (UTC unless a zone is"),
        ("nowhere", "1", "reset to what?"),
    ],
)
def test_bad_reset_values_are_refused_with_what_to_type(to: str, raw: str, says: str) -> None:
    with pytest.raises(ClientError) as raised:
        parse_reset_value(to, raw)  # type: ignore[arg-type]
    assert str(raised.value).startswith(says)


# --- --by-duration, --from-file ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "ms"),
    [("PT1H", 3_600_000), ("P1DT2H", 93_600_000), ("pt30m", 1_800_000), ("PT0.5S", 500), ("P2D", 172_800_000),
     ("-PT1M", -60_000), ("PT-1M", -60_000), ("PT1M-30S", 30_000)],
)  # fmt: skip
def test_durations_are_read_as_javas_duration_parse_reads_them(text: str, ms: int) -> None:
    assert parse_duration(text) == ms


@pytest.mark.parametrize("text", ["1h", "P", "PT", "P1DT", "PT1H30", "P1W", ""])
def test_durations_java_refuses_are_refused(text: str) -> None:
    with pytest.raises(ClientError, match="a duration is ISO-8601 PnDTnHnMnS"):
        parse_duration(text)


def test_a_duration_is_shown_as_java_prints_it() -> None:
    assert [iso_duration(ms) for ms in (3_600_000, 5_400_000, 500, 0, 93_600_000)] == [
        "PT1H", "PT1H30M", "PT0.5S", "PT0S", "PT26H"
    ]  # fmt: skip


def test_the_csv_of_export_is_read_back_for_from_file() -> None:
    assert parse_offsets_csv("t,0,6\nt,1,6\n\n") == {("t", 0): 6, ("t", 1): 6}
    several = "audit,t,2,7\nbilling,t,0,4\n"
    assert parse_offsets_csv(several, "billing") == {("t", 0): 4}
    with pytest.raises(ClientError, match=r"^line 2: 't,one,4' is not topic,partition,offset"):
        parse_offsets_csv("t,0,1\nt,one,4\n")


def _plan(group: str, to: str, moves: list[tuple[str, int, int | None]]) -> ResetPlan:
    return ResetPlan(group, to, None, tuple(OffsetMove(t, p, c, 0, 0, 99) for t, p, c in moves))  # type: ignore[arg-type]


def _rows(plans: list[ResetPlan]) -> list[tuple[str, str, int]]:
    return [(p.group, m.topic, m.partition) for p in plans for m in p.moves]


def test_plans_come_in_the_order_kafka_consumer_groups_prints_them() -> None:
    """Orders kafka-consumer-groups.sh 4.1 printed on a 3-broker lab (--dry-run): its HashMaps' orders, not ours."""
    # --all-topics: the broker's OffsetFetch answered t2-0, t2-1, t1-0, t1-2, t1-1; t1-0 and t2-1 share a bucket, so
    # the answer's order decides between them.
    answered = [("t2", 0, 97), ("t2", 1, 23), ("t1", 0, 16), ("t1", 2, 81), ("t1", 1, 23)]
    assert _rows(in_tool_order([_plan("g1", "latest", answered)])) == [
        ("g1", "t1", 2), ("g1", "t1", 1), ("g1", "t2", 1), ("g1", "t1", 0), ("g1", "t2", 0)]  # fmt: skip
    # --from-file t2,1 / t1,0 / t1,2 (the file's order): t2-1 before t1-0 this time.
    from_file = [("t2", 1, 97), ("t1", 0, 16), ("t1", 2, 81)]
    assert _rows(in_tool_order([_plan("g1", "file", from_file)])) == [
        ("g1", "t1", 2), ("g1", "t2", 1), ("g1", "t1", 0)]  # fmt: skip
    # --group billing --group zeta: zeta first (String.hashCode's bucket 0, billing's 15).
    both = [_plan(g, "offset", [("t4", 0, 2), ("t4", 1, 1)]) for g in ("billing", "zeta")]
    assert [p.group for p in in_tool_order(both)] == ["zeta", "billing"]


def test_to_current_with_nothing_committed_is_in_a_smaller_tables_order() -> None:
    """--to-current of a group that never committed: the tool's map is filled by putAll into an empty HashMap, sized
    for 4 keys (a table of 8), where --to-latest's is 16: kafka-consumer-groups.sh printed orders first for the
    one, payments first for the other (group nobody, topics orders and payments of 2 partitions)."""
    moves = [("orders", 0, None), ("orders", 1, None), ("payments", 0, None), ("payments", 1, None)]
    orders_first = [("nobody", t, p) for t, p, _ in moves]
    payments_first = orders_first[2:] + orders_first[:2]
    assert _rows(in_tool_order([_plan("nobody", "current", moves)])) == orders_first
    assert _rows(in_tool_order([_plan("nobody", "latest", moves)])) == payments_first
    committed = [(t, p, 0) for t, p, _ in moves]  # a commit each: the map of committed offsets, 16 buckets
    assert _rows(in_tool_order([_plan("nobody", "current", committed)])) == payments_first
