"""Where a scenario's run is, as the live view's pane draws it, the timeline marks it and a recording keeps it: the
marks from two states (each step begun, each expectation decided, the end — worked out again on a replay), the pane's
lines (names from a file shown as text), and a state through a recording's codec and back."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from textual.message import Message

from kafkatop.backends.checks.scenario.builtin import builtin_scenarios
from kafkatop.backends.checks.scenario.run import plan
from kafkatop.backends.insight.scenario_marks import scenario_marks
from kafkatop.backends.model.operations import OperationPhase
from kafkatop.backends.model.recording import RecordingHeader
from kafkatop.backends.model.scenario_report import ExpectResult, ScenarioPhase, ScenarioState, StepResult
from kafkatop.backends.recording.file import RecordingWriter, read_recording
from kafkatop.tui.live.feed import Feed
from kafkatop.tui.live.messages import Polled
from kafkatop.tui.live.widgets.scenario import scenario_lines
from tests.unit.test_connect_feed import KeptRecorder

SEED = builtin_scenarios()["seed-002"]
READY = ScenarioState(SEED.name, SEED.title, plan(SEED), ScenarioPhase.READY)
KILLING = replace(READY, phase=ScenarioPhase.RUNNING,
                  ended=(StepResult(1, "produce", None, 1.0, None, (ExpectResult("read back", True, 1.0, "300 of 300",
                                                                                  None),)),),
                  running=StepResult(2, "kill -9 leader:purchases-0", "broker-2", 2.0, None, ()))  # fmt: skip
LED = replace(KILLING, running=replace(KILLING.running, expects=(  # type: ignore[type-var]
    ExpectResult("the leader of purchases-0 is another broker within 30 s", True, 8.1, "leader 3 (was 2)", None),
)), watching="ISR 1,2,3 (3) · 9 of 30 s")  # fmt: skip


def test_the_marks_say_what_changed_between_two_states() -> None:
    marks = scenario_marks(READY, KILLING)
    assert [(m.phase, m.text) for m in marks] == [
        (OperationPhase.STARTED, "scenario seed-002 step 1: produce"),
        (OperationPhase.PROGRESS, "scenario step 1: ✓ read back: 300 of 300 after 1.0 s"),
        (OperationPhase.STARTED, "scenario seed-002 step 2: kill -9 leader:purchases-0"),
        (OperationPhase.PROGRESS, "scenario step 2: kill -9 leader:purchases-0 is broker-2"),
    ]
    assert [m.text for m in scenario_marks(KILLING, LED)] == [
        "scenario step 2: ✓ the leader of purchases-0 is another broker within 30 s: leader 3 (was 2) after 8.1 s"
    ]
    assert scenario_marks(LED, replace(LED, watching="ISR 2,3 (2) · 10 of 30 s")) == []  # a poll seen: no mark
    failed = replace(LED, phase=ScenarioPhase.FAILED, running=None, note="broker-2 did not stop")
    assert (
        scenario_marks(LED, failed)[-1].text
        == "scenario seed-002 stopped: broker-2 did not stop: 1 of 1 expectations held"
    )


def test_the_pane_shows_each_step_and_escapes_what_a_file_says() -> None:
    head, body, current_at, tail = scenario_lines(LED)
    assert head.plain.startswith("Scenario seed-002 1/1 held · ")
    assert body[0].plain.startswith("✓ 1 produce")
    assert body[current_at].plain == "▶ 2 kill -9 leader:purchases-0 → broker-2"
    lines = [line.plain for line in body]
    assert "    ✓ the leader of purchases-0 is another broker within 30 s — leader 3 (was 2) · 8.1 s" in lines
    watched = next(line for line in lines if line.startswith("    … the ISR of purchases-0 has 2 replicas"))
    assert watched.endswith("now ISR 1,2,3 (3) · 9 of 30 s")
    assert tail[-1].plain == "watching … (A: run the rest)"
    hostile = replace(LED, title="[bold red]x\x1b[2J", note="press K on \x07broker-2")
    head, _, _, tail = scenario_lines(hostile)
    assert "[bold red]x\\x1b[2J" in head.plain and "\x1b" not in head.plain  # markup as text, ESC as its escape
    assert tail[0].plain == "» press K on \\x07broker-2"
    _, compact, _, _ = scenario_lines(LED, compact=True)
    assert not any("why:" in line.plain for line in compact) and len(compact) < len(body)


def test_a_state_is_recorded_and_read_back_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with RecordingWriter(path, RecordingHeader(0.0, "lab 'seed-002'")) as writer:
        writer.record(3.0, "scenario", LED)
    (entry,) = read_recording(path).entries
    assert entry.kind == "scenario" and entry.payload == LED


def test_once_done_the_pane_keeps_the_last_step_in_view() -> None:
    done = replace(LED, phase=ScenarioPhase.DONE, running=None, watching=None,
                   ended=(*LED.ended, replace(LED.running, expects=()), StepResult(3, "start last-down", "broker-2",  # type: ignore[type-var]
                                                                                  3.0, None, ())))  # fmt: skip
    _, body, current_at, tail = scenario_lines(done)
    assert body[current_at].plain == "✓ 3 start last-down → broker-2" and tail[-1].plain.startswith("done")


def test_the_feed_records_a_run_and_a_replay_shows_it_with_the_same_marks() -> None:
    """Each state is recorded, but one differing only in the value being watched every 2 s at most; replayed, the
    pane gets the states and the timeline the same marks."""
    posted: list[Message] = []
    recorder = KeptRecorder()
    feed = Feed(posted.append, recorder)
    later = replace(LED, watching="ISR 1,2,3 (3) · 10 of 30 s")
    for at, state in ((0.0, READY), (1.0, KILLING), (2.0, LED), (2.5, later),
                      (4.5, replace(LED, watching="ISR 2,3 (2) · 12 of 30 s"))):  # fmt: skip
        feed.scenario(state, at)
    assert [e.at for e in recorder.entries] == [0.0, 1.0, 2.0, 4.5]
    assert isinstance(posted[-1], Polled) and posted[-1].source == "scenario" and posted[-1].snapshot.watching == (
        "ISR 2,3 (2) · 12 of 30 s")  # fmt: skip
    live_marks = [e.text for e in feed.timeline.snapshot().events]
    replay = Feed(posted.append)
    for entry in recorder.entries:
        replay.replayed(entry)
    assert [e.text for e in replay.timeline.snapshot().events] == live_marks and len(live_marks) == 5
