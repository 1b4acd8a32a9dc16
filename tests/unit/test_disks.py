"""The brokers' disks (model/disks.py, the live view's `log_dirs` source): each broker's bytes, its share of the bytes
and of the leaders against an even share, flagged past ±25 %; recorded, written as "same" while nothing changed, and
replayed through the feed as polled."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from textual.message import Message

from kafkatop.backends.model.disks import SKEW_THRESHOLD, BrokerDisks, BrokerShare, UnreadBroker, shares
from kafkatop.backends.model.log_dirs import BrokerLogDirs, LogDir, ReplicaLog
from kafkatop.backends.model.recording import EntryReader, EntryWriter
from kafkatop.tui.live.feed import SOURCES, Feed, source
from kafkatop.tui.live.messages import Polled
from kafkatop.tui.live.sources import Settings
from tests.fixtures.snapshots import TAKEN_AT, kraft_disks
from tests.unit.test_connect_feed import KeptRecorder


def test_an_even_cluster_has_no_skew() -> None:
    got = shares({1: 100, 2: 100, 3: 100}, [1, 2, 3])
    assert {b: (round(s.share, 3), s.skew, s.skewed) for b, s in got.items()} == {
        1: (0.333, 0.0, False), 2: (0.333, 0.0, False), 3: (0.333, 0.0, False),
    }  # fmt: skip


def test_a_share_past_a_quarter_of_an_even_one_either_way_is_skewed() -> None:
    got = shares({1: 500, 2: 300, 3: 200}, [1, 2, 3])
    assert {b: round(s.skew, 3) for b, s in got.items()} == {1: 0.5, 2: -0.1, 3: -0.4}
    assert [b for b, s in got.items() if s.skewed] == [1, 3]


@pytest.mark.parametrize(("skew", "skewed"), [(0.25, False), (-0.25, False), (0.2501, True), (-0.2501, True)])
def test_the_threshold_itself_is_not_skewed(skew: float, skewed: bool) -> None:
    assert SKEW_THRESHOLD == 0.25
    assert BrokerShare(0.0, skew).skewed is skewed


def test_a_broker_missing_from_the_amounts_has_none_and_nothing_to_share_gives_no_shares() -> None:
    got = shares({1: 10, 2: 10}, [1, 2, 3])
    assert got[3] == BrokerShare(0.0, -1.0) and got[3].skewed
    assert got[1].skew == pytest.approx(0.5)
    assert shares({1: 0, 2: 0}, [1, 2]) == {} and shares({1: 5}, []) == {}


def test_bytes_by_broker_leave_out_offline_directories_and_sizes_leave_out_future_replicas() -> None:
    online = LogDir("/a", 0, (ReplicaLog("t", 0, 100, 0, False), ReplicaLog("t", 0, 40, 60, True)))
    offline = LogDir("/b", 56, (ReplicaLog("t", 1, 7, 0, False),))
    disks = BrokerDisks(TAKEN_AT, (BrokerLogDirs(1, (online, offline)),), (UnreadBroker(2, "timed out"),))
    assert disks.bytes_by_broker == {1: 140}
    assert disks.replica_sizes() == {("t", 0, 1): 100, ("t", 1, 1): 7}


def test_the_log_dirs_source_is_a_row_polled_every_30_s_by_default() -> None:
    row = source("log_dirs")
    assert row in SOURCES and row.interval_s(Settings()) == 30.0 and row.problem == "log_dirs_problem"


def test_a_read_is_recorded_written_as_same_while_unchanged_and_replayed_as_polled() -> None:
    posted: list[Message] = []
    recorder = KeptRecorder()
    feed = Feed(posted.append, recorder)
    first, again = kraft_disks(), replace(kraft_disks(), taken_at=TAKEN_AT + 30)
    feed.log_dirs(first)
    feed.log_dirs(again)
    assert [(e.kind, e.at) for e in recorder.entries] == [("log_dirs", TAKEN_AT), ("log_dirs", TAKEN_AT + 30)]

    writer, reader = EntryWriter(), EntryReader()
    lines = [json.loads(json.dumps(writer.line(e))) for e in recorder.entries]
    assert lines[1] == {"at": TAKEN_AT + 30, "kind": "log_dirs", "same": True, "taken_at": TAKEN_AT + 30}
    read = [reader.entry(line, f"line {i}") for i, line in enumerate(lines, start=2)]
    assert [r.payload for r in read] == [first, again]

    replayed: list[Message] = []
    for entry in read:
        Feed(replayed.append).replayed(entry)
    assert [(m.source, m.snapshot) for m in replayed if isinstance(m, Polled)] == [
        ("log_dirs", first), ("log_dirs", again),
    ]  # fmt: skip
    assert [(m.source, m.snapshot) for m in posted if isinstance(m, Polled)] == [
        ("log_dirs", first), ("log_dirs", again),
    ]  # fmt: skip
