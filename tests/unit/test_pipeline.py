"""The Connect pipeline check's pure parts: its lines, each stage's counts, the report's words and verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkatop.backends.checks.pipeline.report import format_report, verdict_text
from kafkatop.backends.checks.pipeline.verdict import SinkTail, count_stage
from kafkatop.backends.model.pipeline import (
    PipelineEvent,
    PipelineRefused,
    PipelineReport,
    PipelineSettings,
    line_sequence,
    sequenced_line,
)

RUN = "0badcafe"


def lines(seqs: list[int], run: str = RUN) -> list[str | None]:
    return [sequenced_line(run, s) for s in seqs]


def test_a_line_carries_its_run_and_sequence() -> None:
    assert sequenced_line(RUN, 7) == "kafkatop-pipeline 0badcafe 00000007"
    assert line_sequence(sequenced_line(RUN, 7), RUN) == 7
    assert line_sequence(sequenced_line("other", 7), RUN) is None
    assert line_sequence("hello", RUN) is None
    assert line_sequence("kafkatop-pipeline 0badcafe x1", RUN) is None


def test_a_stage_that_got_everything_once() -> None:
    counts = count_stage("topic", lines(list(range(100))), RUN, 100)
    assert (counts.received, counts.distinct, counts.lost, counts.duplicated, counts.reordered) == (100, 100, 0, 0, 0)


def test_a_replay_after_a_restart_is_duplicated_not_reordered() -> None:
    """At-least-once: the task restarted from its last commit (40) sends 40..59 again after 59."""
    seqs = list(range(60)) + list(range(40, 100))
    counts = count_stage("topic", lines(seqs), RUN, 100)
    assert (counts.distinct, counts.lost, counts.duplicated, counts.reordered) == (100, 0, 20, 0)


def test_lost_and_reordered_lines_are_counted_and_sampled() -> None:
    seqs = [0, 1, 3, 2, 5] + list(range(20, 30))
    counts = count_stage("file out", [*lines(seqs), None, "garbage", sequenced_line("elsewhere", 4)], RUN, 30)
    assert counts.reordered == 1  # 2 after 3
    assert counts.lost == 30 - 15
    assert counts.lost_sample == (4, 6, 7, 8, 9, 10, 11, 12, 13, 14)
    assert counts.other == 3


def test_a_line_beyond_those_appended_is_other() -> None:
    assert count_stage("topic", lines([0, 1, 2]), RUN, 2).other == 1


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        (PipelineSettings(lines=0), "--records 0"),
        (PipelineSettings(rate=0), "--rate 0"),
        (PipelineSettings(kill_at=1.0), "--kill-at 1"),
        (PipelineSettings(timeout_s=0), "--timeout 0"),
    ],
)
def test_bad_settings_are_refused_naming_the_flag(settings: PipelineSettings, words: str) -> None:
    with pytest.raises(PipelineRefused, match=words):
        settings.validate()


def report(
    seqs_topic: list[int], seqs_out: list[int], *, failover: float | None = 31.5, complete: bool = True
) -> PipelineReport:
    return PipelineReport(
        run_id=RUN,
        settings=PipelineSettings(lines=100),
        workers=("http://127.0.0.1:8083", "http://127.0.0.1:8084"),
        topic=f"kafkatop-pipeline-{RUN}",
        source_file="/lab/pipeline/in.txt",
        sink_file="/lab/pipeline/out.txt",
        lines_in=100,
        stages=(count_stage("topic", lines(seqs_topic), RUN, 100), count_stage("file out", lines(seqs_out), RUN, 100)),
        events=(PipelineEvent(5.0, "kill -9 connect-1: it ran the source task; 50 lines appended"),),
        failover_s=failover,
        rebalance_delay_ms=20_000,
        offset_flush_ms=10_000,
        complete=complete,
    )


def test_the_report_says_duplicates_are_at_least_once_and_passes() -> None:
    replayed = list(range(60)) + list(range(40, 100))
    r = report(replayed, replayed)
    text = format_report(r)
    assert r.as_expected
    assert "duplicates: 20 lines arrived more than once" in text
    assert "offset.flush.interval.ms (10000 ms)" in text
    assert "ran again 31.5 s after the fault" in text
    assert "scheduled.rebalance.max.delay.ms (20000 ms here)" in text
    assert text.endswith("verdict: as expected: every line arrived in order, 0 lost; 20 duplicated (at-least-once)")
    table = [line for line in text.splitlines() if line.startswith(("STAGE", "file in", "topic ", "file out"))]
    assert table[0].split() == ["STAGE", "LINES", "DISTINCT", "LOST", "DUPLICATED", "REORDERED", "OTHER"]
    assert table[2].split() == ["topic", "120", "100", "0", "20", "0", "0"]


def test_a_lost_line_fails_and_is_named() -> None:
    r = report(list(range(100)), [s for s in range(100) if s != 42])
    assert not r.as_expected
    assert "lost before the file out: line 42" in format_report(r)
    assert verdict_text(r) == "NOT as expected: 1 lost, 0 reordered"


def test_an_incomplete_run_says_so_and_why_the_task_waited() -> None:
    r = report(list(range(50)), list(range(50)), failover=None, complete=False)
    text = format_report(r)
    assert "the source task did not run again before the run ended" in text
    assert verdict_text(r).startswith("incomplete: the sink had not written every line within 180 s (50 missing")
    assert r.to_dict()["as_expected"] is False


def test_the_sink_tail_reads_on_from_where_it_stopped_and_waits_for_a_line_being_written(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    tail = SinkTail(out, "r1")
    assert tail.distinct(5) == 0  # the sink has not made its file yet
    with open(out, "w", encoding="utf-8") as f:
        f.write(sequenced_line("r1", 0) + "\n" + sequenced_line("r1", 1) + "\n" + sequenced_line("r1", 0) + "\n")
        f.write(sequenced_line("r1", 2)[:5])  # half a line: the sink is writing it
    assert tail.distinct(5) == 2  # 0 (twice) and 1
    with open(out, "a", encoding="utf-8") as f:
        f.write(sequenced_line("r1", 2)[5:] + "\n" + sequenced_line("other-run", 3) + "\n")
    assert tail.distinct(5) == 3  # the half line, whole now; another run's line is not this one's
    assert tail.distinct(2) == 2  # only those below what was appended
