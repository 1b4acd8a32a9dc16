"""DescribeCluster (API key 60), v0–v2 (flexible; v1 asks a broker or a controller, Kafka 3.7+; v2 says which brokers
are fenced, Kafka 4.0+): the cluster's id, its controller and its nodes, as Kafka's admin client's describeCluster
reads them. A KRaft controller answers it (not Metadata): `metadata-quorum --bootstrap-controller` needs it.

Schemas: clients/src/main/resources/common/message/DescribeCluster{Request,Response}.json in apache/kafka. Decoders
are bounded: truncated or foreign bytes raise ProtocolError.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafkatop.backends.protocol.wire import NO_TAGGED_FIELDS, Api, response_reader

DESCRIBE_CLUSTER = Api(60, "DescribeCluster", (0, 2), flexible_from=0)
BROKERS, CONTROLLERS = 1, 2  # v1's EndpointType
ENDPOINT_TYPE_FROM = 1
FENCED_FROM = 2


@dataclass(frozen=True, slots=True)
class ClusterNode:
    node_id: int
    host: str
    port: int
    rack: str | None
    fenced: bool = False  # v2+; False before


@dataclass(frozen=True, slots=True)
class DescribedCluster:
    error_code: int
    error_message: str | None
    cluster_id: str
    controller_id: int
    nodes: tuple[ClusterNode, ...]


def request_body(version: int, endpoint_type: int = BROKERS, include_fenced: bool = True) -> bytes:
    """No authorized operations; v1+: the brokers or the controllers; v2+: the fenced brokers too, unless not
    `include_fenced` (as a Metadata request lists them)."""
    body = b"\x00"  # IncludeClusterAuthorizedOperations
    if version >= ENDPOINT_TYPE_FROM:
        body += bytes([endpoint_type])
    if version >= FENCED_FROM:
        body += b"\x01" if include_fenced else b"\x00"  # IncludeFencedBrokers
    return body + NO_TAGGED_FIELDS


def decode_response(payload: bytes, version: int) -> DescribedCluster:
    r = response_reader(payload)
    r.int32()  # throttle time
    error_code = r.int16()
    error_message = r.compact_nullable_string()
    if version >= ENDPOINT_TYPE_FROM:
        r.int8()  # the endpoint type answered
    cluster_id = r.compact_string()
    controller_id = r.int32()
    nodes = []
    for _ in range(r.compact_array_length()):
        node_id, host, port, rack = r.int32(), r.compact_string(), r.int32(), r.compact_nullable_string()
        fenced = r.boolean() if version >= FENCED_FROM else False
        r.skip_tagged_fields()
        nodes.append(ClusterNode(node_id, host, port, rack, fenced))
    r.int32()  # cluster authorized operations
    r.skip_tagged_fields()
    r.end()
    return DescribedCluster(error_code, error_message, cluster_id, controller_id, tuple(nodes))
