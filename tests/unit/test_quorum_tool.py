"""kafka-metadata-quorum.sh describe's lines (backends/kraft/quorum_tool.py) from DescribeQuorum answers, and
DescribeCluster (protocol/describe_cluster.py) on a recorded answer.

describe_cluster_v2_4_1.bin is a real Kafka 4.1 KRaft node's answer (broker 1 on 127.0.0.1:30303, cluster
GW7wJhrzT7arFM6cXpmJeg), recorded by tests/integration/test_kafka_tools_kafka.py. The three-voter quorums are built
here: the single-node ones of a real node are compared with the tool itself in that file."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkatop.backends.kraft.quorum_tool import QuorumDescription, QuorumError, replication_lines, status_lines
from kafkatop.backends.kraft.wire import DescribeQuorum, QuorumPartition, ReplicaState
from kafkatop.backends.protocol.describe_cluster import (
    CONTROLLERS,
    ClusterNode,
    decode_response,
    request_body,
)
from kafkatop.backends.protocol.wire import ProtocolError

RECORDED = Path(__file__).parents[1] / "fixtures" / "protocol" / "describe_cluster_v2_4_1.bin"


def described(
    voters: tuple[ReplicaState, ...], observers: tuple[ReplicaState, ...] = (), leader: int = 2
) -> QuorumDescription:
    partition = QuorumPartition("__cluster_metadata", 0, 0, None, leader, 7, 1200, voters, observers)
    endpoints = {v.replica_id: (f"CONTROLLER://c{v.replica_id}:9093",) for v in voters}
    return QuorumDescription("c2:9093", "controller", "abc", DescribeQuorum(2, 1, 0, None, (partition,), endpoints))


VOTERS = (
    ReplicaState(1, "dir1dir1dir1dir1dir1dQ", 1200, 1_000_900, 1_000_900),
    ReplicaState(2, "dir2dir2dir2dir2dir2dQ", 1210, 1_001_000, 1_001_000),
    ReplicaState(3, None, 1150, 1_000_500, 1_000_300),
)
OBSERVERS = (ReplicaState(4, "obs4obs4obs4obs4obs4oQ", 1205, 1_000_950, -1),)


def test_status_names_the_furthest_behind_voter() -> None:
    assert status_lines(described(VOTERS, OBSERVERS)) == [
        "ClusterId:              abc",
        "LeaderId:               2",
        "LeaderEpoch:            7",
        "HighWatermark:          1200",
        "MaxFollowerLag:         60",
        "MaxFollowerLagTimeMs:   700",
        'CurrentVoters:          [{"id": 1, "directoryId": "dir1dir1dir1dir1dir1dQ", "endpoints": '
        '["CONTROLLER://c1:9093"]}, {"id": 2, "directoryId": "dir2dir2dir2dir2dir2dQ", "endpoints": '
        '["CONTROLLER://c2:9093"]}, {"id": 3, "endpoints": ["CONTROLLER://c3:9093"]}]',
        'CurrentObservers:       [{"id": 4, "directoryId": "obs4obs4obs4obs4obs4oQ"}]',
    ]


def test_status_lag_time_unknown_and_the_leader_furthest_behind() -> None:
    unknown = (VOTERS[0], VOTERS[1], ReplicaState(3, None, 1150, -1, -1))
    assert status_lines(described(unknown))[4:6] == ["MaxFollowerLag:         60", "MaxFollowerLagTimeMs:   -1"]
    # Every voter caught up, the leader first: it is the first with the lowest end offset, so 0 and 0.
    level = (ReplicaState(2, None, 1210, 5, 5), ReplicaState(1, None, 1210, 4, 3))
    assert status_lines(described(level))[4:6] == ["MaxFollowerLag:         0", "MaxFollowerLagTimeMs:   0"]
    # The same, the leader second: the first voter is taken, and the difference of the caught-up times is said.
    assert status_lines(described(level[::-1]))[4:6] == ["MaxFollowerLag:         0", "MaxFollowerLagTimeMs:   2"]


def test_replication_table() -> None:
    lines = replication_lines(described(VOTERS, OBSERVERS))
    assert [line.split("\t") for line in lines] == [
        ["NodeId", "DirectoryId           ", "LogEndOffset", "Lag", "LastFetchTimestamp", "LastCaughtUpTimestamp",
         "Status  ", ""],
        ["2     ", "dir2dir2dir2dir2dir2dQ", "1210        ", "0  ", "1001000           ", "1001000              ",
         "Leader  ", ""],
        ["1     ", "dir1dir1dir1dir1dir1dQ", "1200        ", "10 ", "1000900           ", "1000900              ",
         "Follower", ""],
        ["3     ", "AAAAAAAAAAAAAAAAAAAAAA", "1150        ", "60 ", "1000500           ", "1000300              ",
         "Follower", ""],
        ["4     ", "obs4obs4obs4obs4obs4oQ", "1205        ", "5  ", "1000950           ", "-1                   ",
         "Observer", ""],
    ]  # fmt: skip
    human = replication_lines(described(VOTERS, OBSERVERS), human_readable=True, now_ms=1_001_100)
    assert [c.strip() for c in human[4].split("\t")][4:6] == ["150 ms ago", "-1"]


def test_no_leader_is_said() -> None:
    with pytest.raises(QuorumError) as raised:
        status_lines(described(VOTERS, leader=-1))
    assert str(raised.value) == "the quorum has no leader now (leader id -1, epoch 7): ask again"


def test_describe_cluster_recorded_answer() -> None:
    answer = decode_response(RECORDED.read_bytes(), 2)
    assert (answer.error_code, answer.cluster_id, answer.controller_id) == (0, "GW7wJhrzT7arFM6cXpmJeg", 1)
    assert answer.nodes == (ClusterNode(1, "127.0.0.1", 30303, None, False),)
    with pytest.raises(ProtocolError):
        decode_response(RECORDED.read_bytes()[:-3], 2)


def test_describe_cluster_request() -> None:
    assert request_body(0) == b"\x00\x00"
    assert request_body(1, CONTROLLERS) == b"\x00\x02\x00"
    assert request_body(2) == b"\x00\x01\x01\x00"
