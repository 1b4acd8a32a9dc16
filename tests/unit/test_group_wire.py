"""The group-read codec (protocol/groups.py, FindCoordinator in protocol/offset_delete.py) on responses a 3-node Kafka
4.1 lab gave (tests/fixtures/groups/group_reads.json): OffsetFetch v8 for two groups in one request, v6 for one, and
DescribeGroups v5 of a group with members (one assigned six partitions) and of an idle one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kafkatop.backends.protocol.groups import (
    CommittedOffset,
    GroupOffsets,
    decode_consumer_assignment,
    decode_describe_groups,
    decode_offset_fetch,
    describe_groups_body,
    offset_fetch_body,
)
from kafkatop.backends.protocol.offset_delete import decode_find_coordinator, find_coordinator_body
from kafkatop.backends.protocol.wire import ProtocolError, response_reader

RECORDED = json.loads((Path(__file__).parents[1] / "fixtures" / "groups" / "group_reads.json").read_text())


def payload(name: str) -> bytes:
    return bytes.fromhex(RECORDED[name])


def test_find_coordinator_of_two_groups_in_one_request() -> None:
    found = decode_find_coordinator(response_reader(payload("find_both")), 6, ["rec-live", "rec-idle"])
    assert [(c.key, c.node_id, c.port, c.error_code) for c in found] == [
        ("rec-live", 2, 26101, 0),
        ("rec-idle", 1, 26100, 0),
    ]
    assert (
        find_coordinator_body(["a", "b"], 4).hex() == "00" + "03" + "0261" + "0262" + "00"
    )  # key type GROUP, [a, b], no tags
    with pytest.raises(ProtocolError, match="takes one group"):
        find_coordinator_body(["a", "b"], 3)


def test_offset_fetch_v8_answers_each_group_with_its_own_error() -> None:
    live, nobody = decode_offset_fetch(response_reader(payload("offset_fetch_v8_rec-live")), 8)
    assert live.group_id == "rec-live" and live.error_code == 0
    assert sorted((o.partition, o.offset) for o in live.offsets) == [
        (0, 204), (1, 232), (2, 196), (3, 186), (4, 196), (5, 186)
    ]  # fmt: skip
    assert nobody == GroupOffsets("rec-nobody", 0, ())  # a group with no commit: no partitions
    idle, elsewhere = decode_offset_fetch(response_reader(payload("offset_fetch_v8_rec-idle")), 8)
    assert sorted(idle.offsets, key=lambda o: o.partition) == [
        CommittedOffset("cmp", 1, 7, -1, 0),
        CommittedOffset("cmp", 4, 9, -1, 0),
    ]
    assert elsewhere.group_id == "rec-nobody" and elsewhere.error_code == 16  # NOT_COORDINATOR, for that group only


def test_offset_fetch_v6_answers_the_partitions_named() -> None:
    (idle,) = decode_offset_fetch(response_reader(payload("offset_fetch_v6_rec-idle")), 6, "rec-idle")
    assert [(o.partition, o.offset) for o in idle.offsets] == [(0, -1), (1, 7), (2, -1), (3, -1), (4, 9), (5, -1)]
    with pytest.raises(ProtocolError, match="one group"):
        decode_offset_fetch(response_reader(payload("offset_fetch_v6_rec-idle")), 6)


def test_offset_fetch_bodies() -> None:
    # v8: [group "g", topics null], RequireStable false, no tags.
    assert offset_fetch_body(8, {"g": None}).hex() == "020267000000" + "00"
    # v8, two groups, the second naming t[0, 1]: each group's topics are its own.
    assert offset_fetch_body(8, {"a": None, "b": {"t": [0, 1]}}).hex() == (
        "03" + "026100" + "00" + "0262" + "02" + "0274" + "03" + "00000000" + "00000001" + "00" + "00" + "00" + "00"
    )
    # v6: one group, its topics, no RequireStable (v7+).
    assert offset_fetch_body(6, {"g": {"t": [2]}}).hex() == "0267" + "02" + "0274" + "02" + "00000002" + "00" + "00"
    assert offset_fetch_body(7, {"g": None}).hex() == "0267" + "00" + "00" + "00"
    with pytest.raises(ProtocolError, match="takes one group"):
        offset_fetch_body(7, {"a": None, "b": None})


def test_describe_groups_members_and_their_assignment() -> None:
    (live,) = decode_describe_groups(response_reader(payload("describe_rec-live")))
    assert (live.group_id, live.error_code, live.state, live.protocol_type) == (
        "rec-live", 0, "PreparingRebalance", "consumer"
    )  # fmt: skip
    assigned = [m for m in live.members if m.assignment]
    assert len(live.members) == 2 and len(assigned) == 1
    assert assigned[0].client_id == "rec-client" and assigned[0].client_host == "/127.0.0.1"
    assert assigned[0].assignment == tuple(("cmp", p) for p in range(6))
    (idle,) = decode_describe_groups(response_reader(payload("describe_rec-idle")))
    assert (idle.state, idle.protocol_type, idle.members) == ("Empty", "", ())
    assert describe_groups_body(["a", "bc"]).hex() == "03" + "0261" + "036263" + "00" + "00"


def test_consumer_assignment_bytes() -> None:
    # Version 3, [("t", [1, 0])], UserData null: sorted by topic and partition.
    data = bytes.fromhex("0003" + "00000001" + "000174" + "00000002" + "00000001" + "00000000" + "ffffffff")
    assert decode_consumer_assignment(data) == (("t", 0), ("t", 1))
    assert decode_consumer_assignment(b"") == ()
    with pytest.raises(ProtocolError):
        decode_consumer_assignment(data[:9])


@pytest.mark.parametrize(
    ("name", "decode"),
    [
        ("offset_fetch_v8_rec-live", lambda r: decode_offset_fetch(r, 8)),
        ("offset_fetch_v6_rec-idle", lambda r: decode_offset_fetch(r, 6, "rec-idle")),
        ("describe_rec-live", decode_describe_groups),
    ],
)
def test_truncated_answers_are_protocol_errors(name: str, decode: object) -> None:
    data = payload(name)
    for cut in range(5, len(data) - 1, 7):
        with pytest.raises(ProtocolError):
            decode(response_reader(data[:cut]))  # type: ignore[operator]
