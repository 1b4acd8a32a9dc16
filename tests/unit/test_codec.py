"""The model to JSON and back (model/codec.py) and recordings' entries (model/recording.py): every kind of snapshot a
recording holds comes back equal, and bad input says where it is wrong."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from kafkatop.backends.model.cluster import Broker, ClusterSnapshot
from kafkatop.backends.model.codec import CodecError, decode, encode
from kafkatop.backends.model.consoles import AssignmentChange, ConsoleActivity, ConsumerView, Delivery, Received
from kafkatop.backends.model.recording import (
    PAYLOADS,
    ActionDone,
    ActionTaken,
    EntryReader,
    EntryWriter,
    Recorded,
    RecordingError,
    RecordingHeader,
    SourceFailed,
    ZooKeeperPush,
    header_line,
    read_header,
)
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.model.zookeeper import (
    BrokerDeregistered,
    BrokerRegistered,
    ControllerChanged,
    PartitionState,
    PartitionStateChanged,
    ZkEvent,
)
from tests.fixtures.snapshots import failover_snapshot, group_snapshot, kraft_lab, zk_lab


def round_trip(value: object, hint: Any) -> object:
    data = encode(value, hint)
    return decode(hint, json.loads(json.dumps(data)))  # through JSON text, as a recording stores it


def activity() -> ConsoleActivity:
    tp = TopicPartition("purchases", 1)
    return ConsoleActivity(
        deliveries=(Delivery(1, "purchases", 1, 41, "k1", "m1", None, 3.5), Delivery(2, "purchases", None, None, None,
                                                                                     "m2", "_MSG_TIMED_OUT", None)),
        received=(Received("c1", "g", "purchases", 1, 41, 1_700_000_000_000, "k1", "m1"),),
        changes=(AssignmentChange("c1", "g", "assigned", (tp,), 1_700_000_000.5),),
        dropped=3,
        consumers=(ConsumerView("c1", "g", ("purchases",), "consuming", (tp,), 1, None),),
    )  # fmt: skip


def zk_events() -> tuple[ZkEvent, ...]:
    return (
        BrokerRegistered(1.0, Broker(2, "127.0.0.1", 9093, "rack-2")),
        BrokerDeregistered(2.0, 2),
        ControllerChanged(3.0, 1, None, 7),
        PartitionStateChanged(4.0, "t", 0, PartitionState(1, (1, 2), 3, 1), PartitionState(2, (2,), 4, 1)),
        PartitionStateChanged(5.0, "t", 1, None, PartitionState(1, (1,), 0, 1)),
    )


@pytest.mark.parametrize(
    "value",
    [
        failover_snapshot(),
        group_snapshot(),
        *zk_lab(),
        *kraft_lab(),
        activity(),
        ZooKeeperPush(zk_events(), failover_snapshot()),
        ZooKeeperPush((), None),
        ActionTaken("kill", "broker-2", 2),
        ActionDone("broker-2 killed (kill -9)", None),
        SourceFailed("kafka: no metadata from bootstrap server 127.0.0.1:9092 within 2 s"),
    ],
    ids=lambda v: type(v).__name__,
)
def test_every_recorded_kind_comes_back_equal(value: object) -> None:
    kind = next(k for k, hint in PAYLOADS.items() if _fits(value, hint))
    assert round_trip(value, PAYLOADS[kind]) == value


def _fits(value: object, hint: Any) -> bool:
    return isinstance(value, getattr(hint, "__args__", (hint,)))


def test_a_union_of_snapshots_is_tagged_and_read_back_by_its_tag() -> None:
    _, _, zookeeper = zk_lab()
    _, _, quorum = kraft_lab()
    hint = PAYLOADS["ensemble"]
    assert encode(zookeeper, hint)["@"] == "EnsembleSnapshot"  # type: ignore[index,call-overload]
    assert round_trip(quorum, hint) == quorum and round_trip(zookeeper, hint) == zookeeper


@pytest.mark.parametrize(
    ("data", "where"),
    [
        ({"source": "x"}, "ClusterSnapshot needs 'taken_at'"),
        ({**encode(failover_snapshot(), ClusterSnapshot), "mode": "raft"}, "$.mode"),  # type: ignore[dict-item]
        ({**encode(failover_snapshot(), ClusterSnapshot), "taken_at": "soon"}, "$.taken_at: expected a number"),  # type: ignore[dict-item]
        ([1, 2], "expected an object for ClusterSnapshot"),
    ],
)
def test_what_does_not_fit_is_named(data: object, where: str) -> None:
    with pytest.raises(CodecError, match=where.replace("$", r"\$")):
        decode(ClusterSnapshot, data)  # type: ignore[arg-type]


def test_a_repeated_snapshot_is_written_as_same_and_read_back_whole() -> None:
    snap = failover_snapshot()
    later = replace(snap, taken_at=snap.taken_at + 1)
    changed = replace(snap, taken_at=snap.taken_at + 2, cluster_id="other")
    writer = EntryWriter()
    lines = [writer.line(Recorded(s.taken_at, "cluster", s)) for s in (snap, later, changed)]
    assert "payload" in lines[0] and lines[1] == {"at": later.taken_at, "kind": "cluster", "same": True,
                                                  "taken_at": later.taken_at}  # fmt: skip
    assert "payload" in lines[2]
    assert len(json.dumps(lines[1])) < 100 < len(json.dumps(lines[0]))
    reader = EntryReader()
    back = [reader.entry(json.loads(json.dumps(line)), f"line {i}") for i, line in enumerate(lines)]
    assert [e.payload for e in back] == [snap, later, changed]


def test_headers_and_entries_refuse_what_is_not_a_recording() -> None:
    header = RecordingHeader(1.0, "lab 'lab' · KRaft · Kafka 4.1.0", ("control", "ensemble"), None)
    assert read_header(json.loads(json.dumps(header_line(header)))) == header
    with pytest.raises(RecordingError, match="not a kafkatop recording"):
        read_header({"hello": 1})
    with pytest.raises(RecordingError, match="format 2; this kafkatop reads format 1"):
        read_header({**header_line(header), "kafkatop_recording": 2})
    with pytest.raises(RecordingError, match="line 3: repeats a nodes entry that never came"):
        EntryReader().entry({"at": 1.0, "kind": "nodes", "same": True, "taken_at": 1.0}, "line 3")
    with pytest.raises(RecordingError, match="line 4: not an entry"):
        EntryReader().entry({"at": 1.0, "kind": "weather"}, "line 4")
