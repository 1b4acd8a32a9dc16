"""Who answers at an address: the cluster id and the brokers a Metadata request there returns. kafkatop asks before it
acts on something it believes is its own — a lab's ports, a local process taken for an attached cluster's broker —
so that another cluster on those ports is named, and left alone."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

from kafkatop.backends.protocol.configs import (
    METADATA,
    BrokerAddress,
    decode_metadata_cluster,
    metadata_brokers_body,
)
from kafkatop.backends.protocol.connection import BrokerConnection
from kafkatop.backends.protocol.wire import response_reader


@dataclass(frozen=True, slots=True)
class Answered:
    """What a listener said of itself: its cluster's id, and that cluster's brokers as it knows them."""

    address: str
    cluster_id: str | None
    brokers: tuple[BrokerAddress, ...]
    mode: str = "unknown"  # "zk" or "kraft", as the broker's ApiVersions tells it (mode_of)

    def node_ids_on(self, port: int) -> tuple[int, ...]:
        """The ids of the brokers that this cluster says listen on `port` (one, on a single host)."""
        return tuple(b.node_id for b in self.brokers if b.port == port)


def who_answers(host: str, port: int, settings: Mapping[str, str], timeout_s: float) -> Answered:
    """One Metadata request (no topics) to host:port. OSError when nothing answers; SecurityError when TLS or SASL
    fail (another cluster's credentials?); ProtocolError when what answers does not speak Kafka."""
    with BrokerConnection(host, port, time.monotonic() + timeout_s, settings) as conn:
        version, payload = conn.call(METADATA, metadata_brokers_body)
        cluster_id, brokers = decode_metadata_cluster(response_reader(payload), version)
        return Answered(conn.address, cluster_id, tuple(brokers), mode_of(conn.api_versions().versions))


API_LEADER_AND_ISR, API_DESCRIBE_QUORUM = 4, 55


def mode_of(versions: Mapping[int, object]) -> str:
    """A ZooKeeper-mode broker takes the controller's LeaderAndIsr, and says so in ApiVersions; a KRaft broker does
    not, and forwards DescribeQuorum; the librdkafka mock does neither ("unknown")."""
    if API_LEADER_AND_ISR in versions:
        return "zk"
    return "kraft" if API_DESCRIBE_QUORUM in versions else "unknown"
