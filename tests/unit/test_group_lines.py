"""kafka-consumer-groups.sh's layouts, on lines Kafka 4.1's tool printed for the same groups (a console consumer's
group `g3` with one member on 6 partitions, and `g1`, empty, coordinated by broker 2); and the FindCoordinator and
OffsetDelete codecs of --delete-offsets, on responses a Kafka 4.1 node gave."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kafkatop.backends.insight.group_lines import members_lines, offsets_lines, state_lines
from kafkatop.backends.model.cluster import Broker
from kafkatop.backends.model.groups import ConsumerGroup, GroupMember, GroupPartitionOffset, GroupState
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.backends.protocol.offset_delete import (
    OffsetDeleteResponse,
    decode_find_coordinator,
    decode_offset_delete,
    offset_delete_body,
)
from kafkatop.backends.protocol.wire import ProtocolError, response_reader

MEMBER = "console-consumer-c68acb7b-1b06-4f41-9e65-3c904ef64200"
G3 = ConsumerGroup(
    "g3", GroupState.STABLE, assignor="range", coordinator=1,
    members=(GroupMember(MEMBER, "console-consumer", "127.0.0.1", tuple(TopicPartition("t6", p) for p in range(6))),),
    offsets=(GroupPartitionOffset("t6", 0, 29806, 29806, MEMBER),),
)  # fmt: skip
G1 = ConsumerGroup("g1", GroupState.EMPTY, coordinator=2, offsets=(GroupPartitionOffset("t6", 4, 10, 36049),))
BROKERS = tuple(Broker(b, "127.0.0.1", 25999 + b) for b in (1, 2, 3))


def test_offsets() -> None:
    assert offsets_lines(G3) == [
        "",
        "GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             "
        "CONSUMER-ID                                           HOST            CLIENT-ID",
        "g3              t6              0          29806           29806           0               "
        f"{MEMBER} /127.0.0.1      console-consumer",
    ]
    assert offsets_lines(G1)[2] == (
        "g1              t6              4          10              36049           36039           -               -  "
        "             -"
    )


def test_members_and_state() -> None:
    assert members_lines(G3)[1:] == [
        "GROUP           CONSUMER-ID                                           HOST            CLIENT-ID        "
        "#PARTITIONS     ",
        f"g3              {MEMBER} /127.0.0.1      console-consumer 6               ",
    ]
    assert members_lines(G1) == ["", "GROUP           CONSUMER-ID     HOST            CLIENT-ID       #PARTITIONS     "]
    assert state_lines(G1, BROKERS) == [
        "",
        "GROUP           COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                #MEMBERS",
        "g1              127.0.0.1:26001  (2)      -                    Empty                0",
    ]


# --- OffsetDelete, on responses a Kafka 4.1 node gave ----------------------------------------------------------------
RECORDED = json.loads((Path(__file__).parents[1] / "fixtures" / "groups" / "offset_delete.json").read_text())


def test_find_coordinator_batched_and_not() -> None:
    version = RECORDED["find_version"]
    (found,) = decode_find_coordinator(response_reader(bytes.fromhex(RECORDED["find_od2"])), version, ["od2"])
    assert (found.key, found.node_id, found.host, found.port, found.error_code) == ("od2", 1, "127.0.0.1", 28000, 0)
    (v3,) = decode_find_coordinator(response_reader(bytes.fromhex(RECORDED["find_od2_v3"])), 3, ["od2"])
    assert (v3.key, v3.node_id, v3.port, v3.error_code) == ("od2", 1, 28000, 0)
    with pytest.raises(ProtocolError):  # an answer for another group than the one asked
        decode_find_coordinator(response_reader(bytes.fromhex(RECORDED["find_od2"])), version, ["other"])


def test_offset_delete_per_partition_and_whole() -> None:
    done = decode_offset_delete(response_reader(bytes.fromhex(RECORDED["delete_od2"]), flexible=False))
    assert done == OffsetDeleteResponse(0, (("nope", 0, 3), ("t", 0, 0)))  # an unknown topic: UNKNOWN_TOPIC_...
    nope = decode_offset_delete(response_reader(bytes.fromhex(RECORDED["delete_nope"]), flexible=False))
    assert nope == OffsetDeleteResponse(69, ())  # GROUP_ID_NOT_FOUND
    payload = bytes.fromhex(RECORDED["delete_od2"])
    for cut in range(4, len(payload) - 1, 2):
        with pytest.raises(ProtocolError):
            decode_offset_delete(response_reader(payload[:cut], flexible=False))
    assert offset_delete_body("g", {"t": [1, 0]}).hex() == "00016700000001000174000000020000000000000001"


def _rows(group: ConsumerGroup) -> list[list[str]]:
    return [line.split()[1:3] for line in offsets_lines(group)[2:]]


def test_rows_and_lag_as_the_tool_printed_them() -> None:
    """kafka-consumer-groups.sh 4.1 --describe on a 3-broker lab: rows in its HashMaps' order (not sorted), and LAG
    the log end minus the commit, -1 where a commit is past the log end."""
    g1 = ConsumerGroup("g1", GroupState.EMPTY, offsets=tuple(
        GroupPartitionOffset(t, p, c, e) for t, p, c, e in
        [("t1", 0, 7, 16), ("t1", 1, 7, 23), ("t1", 2, 7, 81), ("t2", 0, 97, 97), ("t2", 1, 23, 23)]))  # fmt: skip
    assert _rows(g1) == [["t1", "2"], ["t1", "1"], ["t1", "0"], ["t2", "1"], ["t2", "0"]]
    billing = ConsumerGroup("billing", GroupState.EMPTY, offsets=(
        GroupPartitionOffset("t1", 0, 2, 16), GroupPartitionOffset("t1", 1, 2, 23),
        GroupPartitionOffset("t4", 1, 1, 0)))  # fmt: skip
    assert offsets_lines(billing)[2:] == [
        "billing         t4              1          1               0               -1              -               -  "
        "             -",
        "billing         t1              1          2               23              21              -               -  "
        "             -",
        "billing         t1              0          2               16              14              -               -  "
        "             -",
    ]


def test_rows_of_members_as_the_tool_printed_them() -> None:
    """Group g5, two members (round robin over t1, t2, t4, orders, payments): the member with more partitions first,
    each one's partitions in the HashMap's order; --members in the coordinator's order (m1 was answered first)."""
    m0 = [("t4", 1), ("payments", 0), ("orders", 0), ("t1", 2), ("t1", 0), ("t2", 1)]
    m1 = [("t4", 0), ("payments", 1), ("orders", 1), ("t1", 1), ("t2", 0)]
    members = (GroupMember("m1-e7", "m1", "127.0.0.1", tuple(TopicPartition(t, p) for t, p in sorted(m1))),
               GroupMember("m0-8f", "m0", "127.0.0.1", tuple(TopicPartition(t, p) for t, p in sorted(m0))))  # fmt: skip
    offsets = [GroupPartitionOffset(t, p, None, 0, member) for member, tps in (("m0-8f", m0), ("m1-e7", m1))
               for t, p in sorted(tps)]  # fmt: skip
    g5 = ConsumerGroup("g5", GroupState.STABLE, members=members, offsets=tuple(offsets))
    assert _rows(g5) == [[t, str(p)] for t, p in m0 + m1]
    assert [line.split()[1] for line in members_lines(g5)[2:]] == ["m1-e7", "m0-8f"]
