"""What each node of a cluster serves, as `kafka-broker-api-versions.sh` asks it: ApiVersions to each node, within
one deadline; the controllers listed by DescribeCluster (a controller answers it, not Metadata)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.protocol.configs import METADATA, decode_metadata_cluster, metadata_brokers_body
from kafkatop.backends.protocol.connection import (
    BrokerConnection,
    Unsupported,
    on_any_broker,
    os_reason,
    require_supported,
)
from kafkatop.backends.protocol.describe_cluster import (
    CONTROLLERS,
    DESCRIBE_CLUSTER,
    ENDPOINT_TYPE_FROM,
    ClusterNode,
    decode_response,
    request_body,
)
from kafkatop.backends.protocol.wire import ProtocolError, error_name, response_reader

TOOL = "kafka-broker-api-versions.sh"


@dataclass(frozen=True, slots=True)
class NodeVersions:
    """A node, and the versions of each API key it offers (key -> (min, max)); `error` when it could not be asked."""

    node: ClusterNode
    offered: dict[int, tuple[int, int]]
    error: str | None = None


def cluster_nodes(connection: KafkaConnection, timeout_s: float, controllers: bool) -> tuple[ClusterNode, ...]:
    """The cluster's brokers from Metadata (as the tool: not the fenced ones), or its controllers from
    DescribeCluster, asked of the first address that answers."""

    def brokers(conn: BrokerConnection) -> tuple[ClusterNode, ...]:
        version, payload = conn.call(METADATA, metadata_brokers_body)
        _, listed = decode_metadata_cluster(response_reader(payload), version)
        return tuple(ClusterNode(b.node_id, b.host, b.port, b.rack) for b in listed)

    def describe(conn: BrokerConnection) -> tuple[ClusterNode, ...]:
        version = conn.version_for(DESCRIBE_CLUSTER)
        if version < ENDPOINT_TYPE_FROM:
            raise Unsupported(f"{conn.address} speaks DescribeCluster v{version}: controllers answer v1+ (Kafka 3.7+)")
        body = request_body(version, CONTROLLERS)
        answer = decode_response(conn.send(DESCRIBE_CLUSTER, version, body), version)
        if answer.error_code:
            said = f": {answer.error_message}" if answer.error_message else ""
            raise Unsupported(f"{conn.address} answered DescribeCluster with {error_name(answer.error_code)}{said}")
        return answer.nodes

    if not controllers:
        return on_any_broker(connection, timeout_s, "Metadata", brokers)
    return on_any_broker(connection, timeout_s, "DescribeCluster", describe)


def node_versions(connection: KafkaConnection, nodes: Iterable[ClusterNode], timeout_s: float) -> list[NodeVersions]:
    """Every node's ApiVersions, in the order given; a node out of reach has its reason."""
    require_supported(connection, "ApiVersions", TOOL)
    deadline = time.monotonic() + timeout_s
    out = []
    for node in nodes:
        try:
            with BrokerConnection(node.host, node.port, deadline, connection.client_settings) as conn:
                out.append(NodeVersions(node, dict(conn.api_versions().versions)))
        except OSError as e:
            out.append(NodeVersions(node, {}, os_reason(e, timeout_s)))
        except ProtocolError as e:
            out.append(NodeVersions(node, {}, str(e)))
    return out
