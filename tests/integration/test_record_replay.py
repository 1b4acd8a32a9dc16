"""`--record` and `--replay`: a session on the demo cluster (the librdkafka mock, real sockets) is recorded by the
live view, then played back through the same app; the replay shows what the session showed."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafkatop.backends.demo.cluster import DemoCluster, start_demo_cluster
from kafkatop.backends.demo.node_control import DemoControl
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.records.consoles import Consoles
from kafkatop.backends.model.nodes import NodeState
from kafkatop.backends.model.recording import EntryWriter, Recorded, RecordingHeader
from kafkatop.backends.recording.file import RecordingWriter, read_recording
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.replay import Replay
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.partitions.pane import PartitionTable
from kafkatop.tui.live.widgets.nodes import NodeTable
from kafkatop.tui.live.widgets.replay import ReplayBar
from tests.conftest import pilot_until
from tests.fixtures.snapshots import failover_snapshot


@pytest.fixture
def demo() -> Iterator[tuple[DemoCluster, DemoControl]]:
    cluster = start_demo_cluster()
    control = DemoControl(cluster, rebalance_delay_s=None)
    try:
        yield cluster, control
    finally:
        control.close()


def leaders(app: KafkatopApp) -> dict[str, int]:
    assert app.snapshot is not None
    return {f"{p.topic}-{p.id}": p.leader for p in app.snapshot.partitions}


async def test_a_recorded_kill_and_start_replay_as_they_happened(
    demo: tuple[DemoCluster, DemoControl], tmp_path: Path
) -> None:
    cluster, control = demo
    admin = AdminSource(cluster.connection, watch_groups=cluster.groups, timeout_s=2.0)
    consoles = Consoles(cluster.connection)
    path = tmp_path / "demo.jsonl.gz"
    recorder = RecordingWriter(path, RecordingHeader(time.time(), "DEMO", ("control", "clients")))
    live = KafkatopApp(
        Sources(admin.poll, control, consoles=consoles, recorder=recorder), Settings(poll_interval_s=0.3)
    )
    try:
        async with live.run_test(size=(120, 40)) as pilot:
            await pilot_until(pilot, lambda: live.view.nodes is not None and live.snapshot is not None, "first polls")
            before = leaders(live)
            await pilot.press("0", "K", "y")  # the process table's first row, broker-1: kill -9, confirmed
            await pilot_until(pilot, lambda: live.view.nodes.nodes[0].state is NodeState.KILLED, "broker-1 killed")
            await pilot_until(pilot, lambda: 1 not in leaders(live).values(), "leaders moved off broker 1")
            during = leaders(live)
            await pilot.press("s")
            await pilot_until(pilot, lambda: live.view.nodes.nodes[0].state is NodeState.UP, "broker-1 up")
            await pilot_until(pilot, lambda: bool(live.timeline.snapshot().incidents), "an incident")
            await pilot.pause(1.0)
            live.hold()
            recorded_incidents = [(i.title, i.recovered) for i in live.timeline.snapshot().incidents]
    finally:
        recorder.close()
        consoles.close()
        admin.close()
    with gzip.open(path, "rt") as f:
        assert f.readline().startswith('{"kafkatop_recording":1')
    recording = read_recording(path)
    assert {"cluster", "nodes", "action", "action-finished"} <= recording.kinds
    assert path.stat().st_size < 50_000, "a quiet demo costs a few bytes a poll"

    replay = Replay(recording, paused=True)
    replay.name = path.name
    app = KafkatopApp(Sources(admin.poll), Settings(), replay=replay)
    async with app.run_test(size=(120, 40)) as pilot:
        bar = app.query_one(ReplayBar)
        assert "REPLAY  demo.jsonl.gz · DEMO" in str(bar.render())
        first_kill = next(i for i, e in enumerate(recording.entries) if e.kind == "action")
        replay.step(first_kill)
        await pilot_until(pilot, lambda: replay.state().delivered == first_kill, "the entries before the kill")
        await pilot_until(pilot, lambda: app.snapshot is not None and leaders(app) == before, "the state before")
        assert app.query_one(NodeTable).row_count == 3 and app.query_one(PartitionTable).row_count == 9
        await pilot.press("K")  # a replay acts on nothing, and says so
        await pilot.pause()
        assert "a replay only plays back what was recorded" in [n.message for n in app._notifications][-1]
        assert len(app.screen_stack) == 1  # no confirmation: nothing to kill
        await pilot.press("p")  # play the rest
        await pilot_until(pilot, lambda: "the end" in str(bar.render()), "the end of the recording", timeout_s=30)
        assert replay.state().ended
        assert [(i.title, i.recovered) for i in app.timeline.snapshot().incidents] == recorded_incidents
        assert any(leaders == during for leaders in [_leaders_of(e.payload) for e in recording.entries
                                                     if e.kind == "cluster"])  # fmt: skip
        await pilot.press("p")  # at the end, play says so instead of doing nothing
        await pilot.pause()
        assert [n.message for n in app._notifications][-1] == "The end of the recording: nothing more to play. q quits."


def _leaders_of(snapshot: object) -> dict[str, int]:
    return {f"{p.topic}-{p.id}": p.leader for p in snapshot.partitions}  # type: ignore[attr-defined]


def kafkatop(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kafkatop.tui.cli", *args], capture_output=True, text=True, timeout=60, cwd=cwd
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--replay", "missing.jsonl"], "missing.jsonl: no such file"),
        (["--replay", "notes.txt"], "notes.txt: line 1: not JSON"),
        (["--replay", "notes.txt", "--demo"], "--replay plays a recording back, with no cluster: leave out --demo"),
        (["--replay", "empty.jsonl.gz"], "empty.jsonl.gz: the recording holds no entry to play"),
        (["--record", "."], "--record .: a directory; give a file name"),
    ],
)
def test_bad_recordings_and_flags_are_told_plainly(tmp_path: Path, args: list[str], says: str) -> None:
    (tmp_path / "notes.txt").write_text("shopping list\n")
    with RecordingWriter(tmp_path / "empty.jsonl.gz", RecordingHeader(1.0, "lab", ())) as _:
        pass
    result = kafkatop(*args, cwd=tmp_path)
    assert result.returncode in (1, 2) and "Traceback" not in result.stderr
    assert result.stderr.strip().startswith(f"kafkatop: {says}")


GOOD_HEADER = b'{"kafkatop_recording":1,"started_at":1.0,"title":"lab"}\n'
A_CLUSTER = json.dumps(EntryWriter().line(Recorded(1.0, "cluster", failover_snapshot()))).encode() + b"\n"


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (GOOD_HEADER + b"[" * 100_000 + b"\n", "bad.jsonl: line 2: nested too deeply"),
        (GOOD_HEADER + A_CLUSTER + b'{"at":1.0,"kind":"cluster","same":true}\n', "bad.jsonl: line 3: "),
        (GOOD_HEADER + b'{"at":1.0,"kind":["cluster"]}\n', "bad.jsonl: line 2: not an entry of a kafkatop recording"),
        (
            GOOD_HEADER + b'{"at":1.0,"kind":"action-finished","payload":{"what":"\xff"}}\n',
            "bad.jsonl: line 2: not UTF-8",
        ),
        (GOOD_HEADER + b'{"at":1.0,"kind":"action-finished","payload":{"what":7}}\n', "bad.jsonl: line 2: "),
        (GOOD_HEADER + b'{"at":1.0,"kind":"cluster","payload":{"topics":{}}}\n', "bad.jsonl: line 2: "),
        (b"\x1f\x8b\x08\x00 not deflate at all" * 4, "bad.jsonl: line 1: "),
        (b'{"kafkatop_recording":2}\n', "bad.jsonl: line 1: recorded in format 2"),
    ],
    ids=["deep", "same-no-time", "kind-array", "utf8", "wrong-type", "wrong-shape", "gzip", "format"],
)
def test_a_damaged_recording_is_one_line_and_exit_2(tmp_path: Path, content: bytes, says: str) -> None:
    (tmp_path / "bad.jsonl").write_bytes(content)
    result = kafkatop("--replay", "bad.jsonl", cwd=tmp_path)
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"kafkatop: {says}") and result.stderr.count("\n") == 1, result.stderr
