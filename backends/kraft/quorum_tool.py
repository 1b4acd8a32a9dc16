"""The KRaft quorum in `kafka-metadata-quorum.sh describe --status | --replication`'s lines: the quorum as the live
view's QuorumSource reads it (its raw answer, whose timestamps and directory ids the tool prints as sent), and the
cluster's id from DescribeCluster to the node that answered (a controller answers DescribeCluster, not Metadata)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from kafkatop.backends.kraft.quorum import QuorumSource
from kafkatop.backends.kraft.wire import DescribeQuorum, QuorumPartition, ReplicaState, decode_describe_quorum
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.transactions import table_lines
from kafkatop.backends.protocol.connection import BrokerConnection, Unsupported, os_reason
from kafkatop.backends.protocol.describe_cluster import (
    BROKERS,
    CONTROLLERS,
    DESCRIBE_CLUSTER,
    ENDPOINT_TYPE_FROM,
    decode_response,
    request_body,
)
from kafkatop.backends.protocol.wire import ProtocolError, error_name

ZERO_UUID_TEXT = "AAAAAAAAAAAAAAAAAAAAAA"  # Uuid.ZERO_UUID.toString()
REPLICATION_HEADERS = ("NodeId", "DirectoryId", "LogEndOffset", "Lag", "LastFetchTimestamp",
                       "LastCaughtUpTimestamp", "Status")  # fmt: skip


class QuorumError(KafkatopError):
    """The quorum or the cluster's id could not be read, or has no leader now: exit 1."""


@dataclass(frozen=True, slots=True)
class QuorumDescription:
    """The quorum as the node at `address` answered DescribeQuorum, and the cluster's id."""

    address: str
    via: str  # "broker" or "controller"
    cluster_id: str
    answer: DescribeQuorum

    @property
    def partition(self) -> QuorumPartition:
        return self.answer.partitions[0]


def describe_metadata_quorum(connection: KafkaConnection, timeout_s: float) -> QuorumDescription:
    source = QuorumSource(connection, timeout_s=timeout_s)
    snapshot = source.poll()  # SourceUnavailable, saying why, when no address answers
    assert source.last_response is not None  # set by every poll that answers
    version, payload = source.last_response
    answer = decode_describe_quorum(payload, version)
    if not answer.partitions:
        raise QuorumError(f"{snapshot.source} answered DescribeQuorum without the metadata partition")
    return QuorumDescription(snapshot.source, snapshot.via, _cluster_id(connection, snapshot.source, snapshot.via,
                                                                       timeout_s), answer)  # fmt: skip


def _cluster_id(connection: KafkaConnection, address: str, via: str, timeout_s: float) -> str:
    host, port = next((h, p) for h, p in connection.addresses if (f"[{h}]:{p}" if ":" in h else f"{h}:{p}") == address)
    what = f"DescribeCluster to {address}"
    try:
        with BrokerConnection(host, port, time.monotonic() + timeout_s, connection.client_settings) as conn:
            version = conn.version_for(DESCRIBE_CLUSTER)
            if via == "controller" and version < ENDPOINT_TYPE_FROM:
                raise QuorumError(f"{what}: the controller speaks DescribeCluster v{version}; v1 (Kafka 3.7+) "
                                  "answers for controllers")  # fmt: skip
            endpoint_type = CONTROLLERS if via == "controller" else BROKERS
            cluster = decode_response(conn.send(DESCRIBE_CLUSTER, version, request_body(version, endpoint_type)),
                                      version)  # fmt: skip
    except Unsupported as e:
        raise QuorumError(f"{what}: {e}") from None
    except OSError as e:
        raise QuorumError(f"{what}: {os_reason(e, timeout_s)}") from None
    except ProtocolError as e:
        raise QuorumError(f"{what}: {e}") from None
    if cluster.error_code:
        said = f": {cluster.error_message}" if cluster.error_message else ""
        raise QuorumError(f"{what}: {error_name(cluster.error_code)}{said}")
    return cluster.cluster_id


def _leader(p: QuorumPartition) -> ReplicaState:
    leader = next((v for v in p.voters if v.replica_id == p.leader_id), None)
    if leader is None:
        raise QuorumError(f"the quorum has no leader now (leader id {p.leader_id}, epoch {p.leader_epoch}): ask again")
    return leader


def _nodes(d: QuorumDescription, replicas: tuple[ReplicaState, ...]) -> str:
    """The tool's (4.1) `[{"id": 1, "directoryId": "…", "endpoints": ["CONTROLLER://host:9093"]}, …]`, without
    "directoryId" when the replica has none (a static voter set) and "endpoints" when none are known (observers)."""

    def node(r: ReplicaState) -> str:
        directory = "" if r.directory_id is None else f', "directoryId": "{r.directory_id}"'
        endpoints = d.answer.endpoints.get(r.replica_id, ())
        listed = ', "endpoints": [' + ", ".join(f'"{e}"' for e in endpoints) + "]" if endpoints else ""
        return f'{{"id": {r.replica_id}{directory}{listed}}}'

    return "[" + ", ".join(node(r) for r in replicas) + "]"


def status_lines(d: QuorumDescription) -> list[str]:
    """`describe --status`: the furthest-behind voter is the first with the lowest log end offset."""
    p = d.partition
    leader = _leader(p)
    behind = min(p.voters, key=lambda v: v.log_end_offset)  # min() keeps the first of equals, as Stream.min
    if behind.replica_id == leader.replica_id:
        lag_time = 0
    elif leader.last_caught_up_timestamp != -1 and behind.last_caught_up_timestamp != -1:
        lag_time = leader.last_caught_up_timestamp - behind.last_caught_up_timestamp
    else:
        lag_time = -1
    return [
        f"ClusterId:              {d.cluster_id}",
        f"LeaderId:               {p.leader_id}",
        f"LeaderEpoch:            {p.leader_epoch}",
        f"HighWatermark:          {p.high_watermark}",
        f"MaxFollowerLag:         {leader.log_end_offset - behind.log_end_offset}",
        f"MaxFollowerLagTimeMs:   {lag_time}",
        f"CurrentVoters:          {_nodes(d, p.voters)}",
        f"CurrentObservers:       {_nodes(d, p.observers)}",
    ]


def replication_lines(d: QuorumDescription, human_readable: bool = False, now_ms: int | None = None) -> list[str]:
    """`describe --replication [--human-readable]`: the leader, the other voters, the observers."""
    p = d.partition
    leader = _leader(p)
    now = int(time.time() * 1000) if now_ms is None else now_ms

    def when(timestamp: int) -> str:
        if timestamp == -1:
            return "-1"
        return f"{max(0, now - timestamp)} ms ago" if human_readable else str(timestamp)

    def rows(replicas: Iterable[ReplicaState], status: str) -> list[tuple[object, ...]]:
        return [
            (
                r.replica_id,
                r.directory_id or ZERO_UUID_TEXT,
                r.log_end_offset,
                leader.log_end_offset - r.log_end_offset,
                when(r.last_fetch_timestamp),
                when(r.last_caught_up_timestamp),
                status,
            )  # fmt: skip
            for r in replicas
        ]

    followers = tuple(v for v in p.voters if v.replica_id != leader.replica_id)
    return table_lines(REPLICATION_HEADERS, [*rows((leader,), "Leader"), *rows(followers, "Follower"),
                                             *rows(p.observers, "Observer")])  # fmt: skip
