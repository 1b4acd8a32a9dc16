"""Kafka Connect's polls on their way to the Connect tab (tui/live/feed.py): recorded (kind `connect`, without each
connector's REST answer) and read back equal, delivered to the timeline, and when no worker answers the last
connectors kept on screen beside the workers' problems; a replay delivers them through the same path."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from textual.message import Message

from kafkatop.backends.model.codec import decode, encode
from kafkatop.backends.model.connect import ConnectSnapshot
from kafkatop.backends.model.recording import (
    PAYLOADS,
    EntryReader,
    EntryWriter,
    Payload,
    Recorded,
    RecordKind,
    SourceFailed,
)
from kafkatop.tui.live.feed import Feed
from kafkatop.tui.live.messages import Polled, PollFailed
from tests.fixtures.connect_views import WORKER_IDS, connect_snapshot, unreachable

T0 = 1_700_000_000.0


class KeptRecorder:
    """TEST DOUBLE of the Recorder port: keeps what it is given."""

    def __init__(self) -> None:
        self.entries: list[Recorded] = []

    def record(self, at: float, kind: RecordKind, payload: Payload) -> None:
        self.entries.append(Recorded(at, kind, payload))

    def close(self) -> None:
        pass


def test_a_connect_snapshot_comes_back_equal_with_its_rest_answer() -> None:
    snapshot = connect_snapshot()
    data = json.loads(json.dumps(encode(snapshot, PAYLOADS["connect"])))
    back: Any = decode(PAYLOADS["connect"], data)
    assert back == snapshot
    assert back.connectors[0].raw == snapshot.connectors[0].raw  # a Mapping field reads back as the dict it was


def test_a_quiet_connect_is_written_as_same() -> None:
    writer, reader = EntryWriter(), EntryReader()
    first, again = connect_snapshot(at=T0), connect_snapshot(at=T0 + 2)
    lines = [writer.line(Recorded(T0, "connect", first)), writer.line(Recorded(T0 + 2, "connect", again))]
    assert lines[1] == {"at": T0 + 2, "kind": "connect", "same": True, "taken_at": T0 + 2}
    read = [reader.entry(json.loads(json.dumps(line)), f"line {i}") for i, line in enumerate(lines, start=2)]
    assert [r.payload for r in read] == [first, again]


def test_the_feed_records_without_the_rest_answers_and_keeps_the_last_connectors_when_none_answers() -> None:
    posted: list[Message] = []
    recorder = KeptRecorder()
    feed = Feed(posted.append, recorder)
    feed.connect(connect_snapshot(at=T0))
    feed.connect(unreachable(T0 + 2))

    assert [e.kind for e in recorder.entries] == ["connect", "connect"]
    recorded = recorder.entries[0].payload
    assert isinstance(recorded, ConnectSnapshot)
    assert recorded == connect_snapshot(at=T0) and all(c.raw == {} for c in recorded.connectors)
    assert recorder.entries[1].payload == unreachable(T0 + 2)  # as polled: no connectors

    shown = [m.snapshot for m in posted if isinstance(m, Polled) and m.source == "connect"]
    assert shown[0] == connect_snapshot(at=T0)
    kept = shown[1]
    assert kept.taken_at == T0 and kept.connectors == shown[0].connectors  # the last read, with its time
    assert kept.problem is not None and kept.problem.startswith("no Connect worker answered")
    assert [w.reachable for w in kept.workers] == [False, False]
    last = posted[-1]
    assert isinstance(last, Polled) and last.source == "connect" and last.timeline is not None
    assert {e.node for e in last.timeline.events} == set(WORKER_IDS)  # each worker lost, named


def test_a_replay_delivers_connect_and_its_failures_through_the_same_path() -> None:
    posted: list[Message] = []
    feed = Feed(posted.append)
    polled = replace(connect_snapshot(at=T0), connectors=connect_snapshot(at=T0).connectors[:1])
    feed.replayed(Recorded(T0, "connect", polled))
    feed.replayed(Recorded(T0 + 2, "connect-failed", SourceFailed("no Connect worker answered: …")))
    assert isinstance(posted[0], Polled) and posted[0].source == "connect" and posted[0].snapshot == polled
    assert isinstance(posted[1], PollFailed) and (posted[1].source, posted[1].at) == ("connect", T0 + 2)
