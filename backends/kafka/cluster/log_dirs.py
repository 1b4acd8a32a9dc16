"""The brokers' log directories, as `kafka-log-dirs.sh --describe` reads them: one DescribeLogDirs to each broker
asked (each answers for its own directories only), within one deadline."""

from __future__ import annotations

import time
from collections.abc import Iterable

from kafkatop.backends.kafka.cluster.broker_versions import cluster_nodes
from kafkatop.backends.model.cluster import Broker
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.disks import BrokerDisks, UnreadBroker
from kafkatop.backends.model.log_dirs import BrokerLogDirs, LogDirsError, LogDirsSnapshot
from kafkatop.backends.protocol.connection import BrokerConnection, Unsupported, os_reason, require_supported
from kafkatop.backends.protocol.describe_log_dirs import DESCRIBE_LOG_DIRS, decode_response, request_body
from kafkatop.backends.protocol.wire import ProtocolError, error_name

TOOL = "kafka-log-dirs.sh --describe"


def describe_log_dirs(connection: KafkaConnection, brokers: Iterable[Broker], timeout_s: float) -> LogDirsSnapshot:
    """Every broker's log directories, in the order given; LogDirsError naming the first broker that could not be
    asked or refused, Unsupported when a broker does not speak DescribeLogDirs v1+ (Kafka before 1.1)."""
    require_supported(connection, "DescribeLogDirs", TOOL)
    deadline = time.monotonic() + timeout_s
    return LogDirsSnapshot(tuple(_of(connection, broker, deadline, timeout_s) for broker in brokers))


def _of(connection: KafkaConnection, broker: Broker, deadline: float, timeout_s: float) -> BrokerLogDirs:
    if not broker.alive or broker.host is None or broker.port is None:
        raise LogDirsError(f"broker {broker.id} is not in the cluster's metadata (down?)")
    what = f"DescribeLogDirs to broker {broker.id} at {broker.address}"
    try:
        with BrokerConnection(broker.host, broker.port, deadline, connection.client_settings) as conn:
            version, payload = conn.call(DESCRIBE_LOG_DIRS, request_body)
            answer = decode_response(payload, version)
    except Unsupported:
        raise  # it names the broker already
    except OSError as e:
        raise LogDirsError(f"{what}: {os_reason(e, timeout_s)}") from None
    except ProtocolError as e:
        raise LogDirsError(f"{what}: {e}") from None
    if answer.error_code:
        raise LogDirsError(f"{what}: {error_name(answer.error_code)}")
    return BrokerLogDirs(broker.id, answer.log_dirs, version)


class LogDirsPoll:
    """The live view's `log_dirs` source (ports.LogDirsSource): the live brokers from one Metadata request (brokers
    only, no topics), then describe_log_dirs to each in turn, each within its own `timeout_s`; a broker that could
    not be read is named with its reason, and the others still shown."""

    def __init__(self, connection: KafkaConnection, timeout_s: float) -> None:
        self.connection = connection
        self.timeout_s = timeout_s

    def poll(self) -> BrokerDisks:
        nodes = cluster_nodes(self.connection, self.timeout_s, controllers=False)
        read: list[BrokerLogDirs] = []
        unread: list[UnreadBroker] = []
        for node in sorted(nodes, key=lambda n: n.node_id):
            broker = Broker(node.node_id, node.host, node.port, node.rack)
            try:
                read.extend(describe_log_dirs(self.connection, (broker,), self.timeout_s).brokers)
            except LogDirsError as e:
                unread.append(UnreadBroker(broker.id, str(e)))
        return BrokerDisks(time.time(), tuple(read), tuple(unread))

    def close(self) -> None:
        """Nothing stays open between polls: each request has its own connection."""
