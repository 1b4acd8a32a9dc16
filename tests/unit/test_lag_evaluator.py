"""The lag evaluator (backends/insight/lag/evaluator.py) on windows of polls: each rule, its edges, lag in time from
the offset→time points, rates and time to catch up, and the quiet poll that is not evaluated again.

A window is written as the polls a cluster source would deliver: at time t, partition `orders-0`'s log start and high
watermark, the group's committed offset, and whether a member owns the partition."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import pytest

from kafkatop.backends.insight.lag.evaluator import LagEvaluator
from kafkatop.backends.insight.lag.offset_times import POINTS, OffsetTimes
from kafkatop.backends.model.cluster import ClusterSnapshot, Partition, Topic
from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.groups import ConsumerGroup, GroupMember, GroupPartitionOffset, GroupState
from kafkatop.backends.model.lag import LagRules, LagSnapshot, LagStatus
from kafkatop.backends.model.topic_partition import TopicPartition

T0 = 1_800_000_000.0
RULES = LagRules(window_s=60.0, warn_seconds=None)


def poll(at: float, high: int, committed: int | None, *, low: int = 0, owned: bool = True) -> ClusterSnapshot:
    topic = Topic("orders", (Partition("orders", 0, 1, (1,), (1,), low_watermark=low, high_watermark=high),))
    member = GroupMember("m-1", "c", "127.0.0.1", (TopicPartition("orders", 0),))
    group = ConsumerGroup(
        "g",
        GroupState.STABLE if owned else GroupState.EMPTY,
        group_type="classic",
        members=(member,) if owned else (),
        offsets=(GroupPartitionOffset("orders", 0, committed, high, "m-1" if owned else None),),
    )
    return ClusterSnapshot("admin", T0 + at, "c", "kraft", None, (), (topic,), (group,))


def run(polls: Iterable[ClusterSnapshot], rules: LagRules = RULES) -> list[LagSnapshot]:
    evaluator = LagEvaluator(rules)
    return [evaluator.observe(p) for p in polls]


def statuses(window: list[LagSnapshot]) -> list[str]:
    return [str(s.groups[0].status) for s in window]


def test_a_group_that_reads_to_the_end_is_ok() -> None:
    window = run(poll(t, 10 * t, 10 * t) for t in range(0, 200, 2))
    assert set(statuses(window)) == {"OK"} and window[-1].groups[0].lag == 0


def test_a_stopped_consumer_is_stop_once_its_last_zero_lag_leaves_the_window() -> None:
    # Reads to the end until t=10, then leaves the group; the producer goes on.
    window = run(poll(t, 10 * t, min(10 * t, 100), owned=t <= 10) for t in range(0, 100, 2))
    seen = statuses(window)
    first_stop = seen.index("STOP")
    assert set(seen[:first_stop]) == {"OK"} and set(seen[first_stop:]) == {"STOP"}
    assert 70 <= first_stop * 2 <= 72  # lag last 0 at t=10: STOP once that poll is more than 60 s old
    g = window[-1].groups[0]
    assert g.why.startswith("orders-0: no member; offset 100 unchanged")
    # Its oldest unread record (offset 100) was written between the polls at t=10 and t=12.
    lag_s = g.lag_seconds(window[-1].taken_at)
    assert lag_s is not None and 86 <= lag_s <= 88 and not g.at_least
    assert window[-1].changes == () and any(c.now is LagStatus.STOP for s in window for c in s.changes)


def test_a_live_member_that_holds_its_offset_is_stall() -> None:
    window = run(poll(t, 10 * t, min(10 * t, 100)) for t in range(0, 100, 2))
    assert statuses(window)[-1] == "STALL"
    assert window[-1].groups[0].why == "orders-0: a member holds offset 100 with lag 880"


def test_lag_growing_while_committing_is_warn_and_falling_lag_is_ok() -> None:
    growing = run(poll(t, 10 * t, 9 * t) for t in range(2, 130, 2))  # lag t, never 0 after the start
    assert statuses(growing)[-1] == "WARN"
    assert growing[-1].groups[0].why == "orders-0: lag did not fall over the window while committing"
    # The same lag that dips once within the window: not consistently increasing.
    dipping = run(poll(t, 10 * t, 9 * t + (5 if t == 110 else 0)) for t in range(2, 130, 2))
    assert statuses(dipping)[-1] == "OK"


def test_a_rewind_is_rewind_until_the_group_catches_up() -> None:
    polls = [poll(t, 500, min(500, 50 * t)) for t in range(0, 12, 2)]  # caught up at t=10
    polls += [poll(t, 500, 200 + 10 * (t - 12)) for t in range(12, 30, 2)]  # reset to 200 at t=12
    polls += [poll(t, 500, 500) for t in range(30, 34, 2)]  # caught up again
    seen = statuses(run(polls))
    assert seen[5] == "OK" and set(seen[6:15]) == {"REWIND"} and seen[-1] == "OK"
    assert run(polls)[7].groups[0].why == "orders-0: committed offset moved back from 500 to 220"


def test_a_committed_offset_below_the_log_start_is_err() -> None:
    window = run([poll(0, 100, 40), poll(2, 100, 40, low=60)])
    assert statuses(window) == ["OK", "ERR"]
    assert window[-1].groups[0].why == "orders-0: committed offset 40 is below the log start 60"
    # At the log start exactly: the next record is there to read.
    assert statuses(run([poll(0, 100, 60, low=60)])) == ["OK"]


def test_the_window_must_be_covered_before_stall_or_stop() -> None:
    window = run(poll(t, 1000, 10, owned=False) for t in range(0, 64, 2))  # lag 990 from the first poll
    seen = statuses(window)
    assert set(seen[:30]) == {"OK"} and seen[30] == "STOP"  # t=60: observed for a whole window
    assert window[0].groups[0].why == "orders-0: observed for less than a window"
    # Written before kafkatop first saw the partition: a lower bound, from the first poll.
    g = window[-1].groups[0]
    assert g.at_least and g.lag_seconds(window[-1].taken_at) == pytest.approx(62.0)


def test_thresholds_warn_by_time_and_by_records() -> None:
    by_time = run((poll(t, 10 * t, 10 * t - 50) for t in range(10, 40, 2)), LagRules(60.0, warn_seconds=3.0))
    assert statuses(by_time)[-1] == "WARN" and "over 3 s old" in by_time[-1].groups[0].why
    by_records = run([poll(0, 100, 10)], LagRules(60.0, warn_seconds=None, warn_records=50))
    assert (
        statuses(by_records) == ["WARN"]
        and by_records[0].groups[0].why == "orders-0: lag 90 > 50 records (warn-records)"
    )


def test_rates_and_time_to_catch_up() -> None:
    # Produces 10/s, reads 15/s from 500 behind.
    window = run(poll(t, 1000 + 10 * t, 500 + 15 * t) for t in range(0, 40, 2))
    g = window[-1].groups[0]
    assert g.produce_rate == pytest.approx(10.0) and g.consume_rate == pytest.approx(15.0)
    assert g.catch_up_s == pytest.approx(g.lag / 5.0)
    # Falling behind: never, at these rates.
    behind = run(poll(t, 1000 + 10 * t, 500 + 5 * t) for t in range(0, 40, 2))[-1].groups[0]
    assert behind.catch_up_s is None


def test_a_quiet_poll_is_not_evaluated_again_but_time_still_changes_the_status() -> None:
    evaluator = LagEvaluator(RULES)
    first = evaluator.observe(poll(0, 100, 100, owned=False))
    snapshot = poll(2, 200, 100, owned=False)  # 100 behind from here on, no member
    second = evaluator.observe(snapshot)
    same = evaluator.observe(ClusterSnapshot("admin", T0 + 4, "c", "kraft", None, (), snapshot.topics, snapshot.groups))
    assert first.groups[0].status is LagStatus.OK and same.groups[0] is second.groups[0]
    later = evaluator.observe(
        ClusterSnapshot("admin", T0 + 61, "c", "kraft", None, (), snapshot.topics, snapshot.groups)
    )
    assert later.groups[0].status is LagStatus.STOP


def test_offset_times_interpolate_and_thin_out() -> None:
    times = OffsetTimes()
    for i in range(3 * POINTS):
        topic = Topic("t", (Partition("t", 0, 1, (1,), (1,), high_watermark=10 * (i + 1)),))
        times.observe((topic,), T0 + i)
    at = times.written_at("t", 0, 10 * 3 * POINTS - 5)  # between the last two points
    assert at is not None and at.at == pytest.approx(T0 + 3 * POINTS - 1 - 0.4) and not at.before
    assert times.written_at("t", 0, 10 * 3 * POINTS) is None  # not written yet
    oldest = times.written_at("t", 0, 3)  # before the first point
    assert oldest is not None and oldest.before and oldest.at == T0
    middle = times.written_at("t", 0, 10 * POINTS)  # thinned out there: between two kept points, still near
    assert middle is not None and abs(middle.at - (T0 + POINTS - 1)) <= 4


def test_a_burst_after_a_quiet_minute_is_timed_after_it() -> None:
    """The high watermark sits at 25 for a minute of polls, then 30 records arrive between two polls: they were
    written in those last 2 s, not spread over the minute (the demo read them 1m35s old when 20 s old)."""
    times = OffsetTimes()
    topic = Topic("t", (Partition("t", 0, 1, (1,), (1,), high_watermark=25),))
    for i in range(0, 62, 2):
        times.observe((topic,), T0 + i)  # the same Topic every poll: nothing moved
    times.observe((Topic("t", (Partition("t", 0, 1, (1,), (1,), high_watermark=55),)),), T0 + 62)
    first, last = times.written_at("t", 0, 25), times.written_at("t", 0, 54)
    assert first is not None and T0 + 60 < first.at <= T0 + 62 and not first.before
    assert last is not None and last.at == pytest.approx(T0 + 62)
    assert times.written_at("t", 0, 24) == (T0, True, False)  # before kafkatop's first poll: a bound


@pytest.mark.parametrize(
    ("kwargs", "said"),
    [
        ({"window_s": 0}, "lag window = 0"),
        ({"warn_seconds": -1.0}, "warn-seconds"),
        ({"warn_records": 0}, "warn-records"),
    ],
)
def test_rules_refuse_what_cannot_be_a_threshold(kwargs: dict[str, float], said: str) -> None:
    with pytest.raises(BadInput, match=said):
        LagRules(**kwargs)  # type: ignore[arg-type]


def test_status_order_and_exit_codes() -> None:
    assert [s.value for s in sorted(LagStatus, key=lambda s: s.severity)] == [
        "OK",
        "WARN",
        "REWIND",
        "STALL",
        "STOP",
        "ERR",
    ]
    assert [s.exit_code for s in LagStatus] == [0, 11, 12, 13, 14, 15]


def test_a_budget_defers_groups_to_later_polls_the_longest_waiting_first() -> None:
    def three(at: float, step: int) -> ClusterSnapshot:
        one = poll(at, 100 + step, 50 + step)
        groups = tuple(replace(one.groups[0], group_id=g) for g in ("a", "b", "c"))
        return replace(one, groups=groups)

    evaluator = LagEvaluator(RULES)
    first = evaluator.observe(three(0, 0), budget_s=0.0)
    assert (first.deferred, [g.group_id for g in first.groups]) == (2, ["a"])  # the others not shown until evaluated
    assert [g.group_id for g in evaluator.observe(three(1, 0), budget_s=0.0).groups] == ["a", "b"]
    assert [g.group_id for g in evaluator.observe(three(1.5, 0), budget_s=0.0).groups] == ["a", "b", "c"]
    as_of = []
    for step in (1, 2, 3):
        lag = evaluator.observe(three(2 * step, step), budget_s=0.0)
        assert lag.deferred == 2  # one evaluated per poll at the least
        as_of.append({g.group_id: g.as_of - T0 for g in lag.groups})
    # Round robin: each poll the group evaluated longest ago.
    assert [max(a, key=lambda g: a[g]) for a in as_of] == ["a", "b", "c"]
    assert evaluator.observe(three(8, 4)).deferred == 0  # no budget: every group


def test_a_window_shorter_than_the_commit_interval_does_not_flap() -> None:
    """Seen on a real lab: a console consumer commits every 5 s; with a 3 s window every gap between two commits read
    as STALL. Unmoved for 3 commit intervals is needed too: steady commits stay OK, 20 s without one is STALL."""
    rules = LagRules(window_s=3.0, warn_seconds=None)
    steady = [poll(t, 10 * t + 10, 10 * (t - t % 5)) for t in range(0, 40)]  # commits every 5 s, always behind
    stopped = [poll(t, 10 * t + 10, 390) for t in range(40, 60)]  # its commits stop at t=40
    seen = statuses(run(steady + stopped, rules))
    assert set(seen[:54]) == {"OK"} and seen[55] == "STALL"  # last move at t=35 (offset 350)... 390 at t=40: +15 s
