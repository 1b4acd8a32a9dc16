"""The KRaft quorum, as `kafka-metadata-quorum.sh describe --status --replication` shows it, without a JVM.

confluent-kafka has no DescribeQuorum, so this speaks the two requests it needs over a plain TCP socket:
ApiVersions (v3) to learn which DescribeQuorum versions the node serves, then DescribeQuorum (API key 55, v0–v2)
for `__cluster_metadata` partition 0. Schemas: clients/src/main/resources/common/message/*.json in apache/kafka.

Either kind of listener answers: a KRaft broker forwards DescribeQuorum to the active controller (since Kafka 3.0,
KAFKA-12967), which is what `--bootstrap-server` does; a controller listener answers it itself, but only the quorum
leader does (`--bootstrap-controller`): another controller answers NOT_LEADER_OR_FOLLOWER and the next address is
tried. ZooKeeper-mode brokers do not offer the API at all. TLS and SASL as the client settings say
(protocol/security.py).
"""

from __future__ import annotations

import time

from kafkatop.backends.insight.grants import refused
from kafkatop.backends.kraft.wire import (
    DESCRIBE_QUORUM,
    DescribeQuorum,
    ReplicaState,
    decode_describe_quorum,
    describe_quorum_body,
)
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.backends.model.quorum import METADATA_PARTITION, METADATA_TOPIC, QuorumReplica, QuorumSnapshot
from kafkatop.backends.protocol.connection import BrokerConnection, Unsupported, os_reason
from kafkatop.backends.protocol.security import SecurityError
from kafkatop.backends.protocol.wire import API_PRODUCE, ProtocolError, error_name

SOURCE = "quorum"
# A refused DescribeQuorum is asked again this rarely: each refusal is an ERROR line in the controller's server.log.
REFUSED_AGAIN_S = 60.0


_ERROR_HINTS = {
    6: "this controller is not the quorum leader",
    31: "the principal needs DESCRIBE on the cluster",
    35: "the node does not support this request version",
}


def _ms_ago(timestamp_ms: int, now_ms: int) -> int | None:
    if timestamp_ms < 0:
        return None
    return max(now_ms - timestamp_ms, 0)  # the leader's clock may run ahead of ours; an age is never negative


def to_snapshot(response: DescribeQuorum, taken_at: float, *, source: str = "", via: str = "broker") -> QuorumSnapshot:
    """The snapshot of the metadata partition in a decoded response; its errors raise SourceUnavailable."""
    if response.error_code:
        raise SourceUnavailable(SOURCE, _error_reason(source, response.error_code, response.error_message))
    partition = next(
        (p for p in response.partitions if (p.topic, p.partition) == (METADATA_TOPIC, METADATA_PARTITION)), None
    )
    if partition is None:
        raise SourceUnavailable(SOURCE, f"{source}: the DescribeQuorum response has no {METADATA_TOPIC}-0")
    if partition.error_code:
        raise SourceUnavailable(SOURCE, _error_reason(source, partition.error_code, partition.error_message))
    now_ms = int(taken_at * 1000)
    leader = next((v for v in partition.voters if v.replica_id == partition.leader_id), None)
    leader_leo = leader.log_end_offset if leader is not None and leader.log_end_offset >= 0 else None

    def replica(state: ReplicaState) -> QuorumReplica:
        known = leader_leo is not None and state.log_end_offset >= 0
        return QuorumReplica(
            replica_id=state.replica_id,
            log_end_offset=state.log_end_offset,
            lag=leader_leo - state.log_end_offset if known and leader_leo is not None else None,
            last_fetch_ms_ago=_ms_ago(state.last_fetch_timestamp, now_ms),
            last_caught_up_ms_ago=_ms_ago(state.last_caught_up_timestamp, now_ms),
            directory_id=state.directory_id,
            endpoints=response.endpoints.get(state.replica_id, ()),
        )

    return QuorumSnapshot(
        taken_at=taken_at,
        leader_id=partition.leader_id,
        leader_epoch=partition.leader_epoch,
        high_watermark=partition.high_watermark,
        voters=tuple(replica(v) for v in partition.voters),
        observers=tuple(replica(o) for o in partition.observers),
        source=source,
        via=via,
        api_version=response.version,
    )


def _error_reason(source: str, code: int, message: str | None) -> str:
    hint = _ERROR_HINTS.get(code)
    detail = f": {message}" if message else (f" ({hint})" if hint else "")
    return f"{source} answered DescribeQuorum with {error_name(code)}{detail}"


class _TryNext(Exception):
    """This address could not answer; the message says why. The next bootstrap address is tried."""


class _Refused(Exception):
    """The authorizer refused DescribeQuorum: who may not do what, and the line that grants it. Another address
    would refuse it too."""


class QuorumSource:
    """The KRaft quorum over DescribeQuorum. `poll()` tries each bootstrap address until one answers.

    Each address gets `timeout_s` for connect, ApiVersions and DescribeQuorum together; a fresh connection per poll
    keeps no state to go stale between polls (a poll every few seconds costs one loopback or LAN handshake).
    """

    def __init__(self, connection: KafkaConnection, timeout_s: float = 2.0) -> None:
        self.connection = connection
        self.addresses = connection.addresses  # parsed once, with the connection
        self.timeout_s = timeout_s
        # The last response's raw bytes (payload after the size) and version: for recording test data.
        self.last_response: tuple[int, bytes] | None = None
        self._refused: tuple[float, SourceUnavailable] | None = None  # until when the refusal stands, and it

    def poll(self) -> QuorumSnapshot:
        """The quorum; SourceUnavailable when no address answers it. A refusal by the authorizer is raised again
        without asking for REFUSED_AGAIN_S."""
        if self._refused is not None and time.monotonic() < self._refused[0]:
            raise self._refused[1]
        reasons = []
        for host, port in self.addresses:
            address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
            try:
                return self._describe(host, port, address)
            except _TryNext as e:
                reasons.append(str(e))
            except _Refused as e:
                problem = SourceUnavailable(SOURCE, f"{e} (asked again every {REFUSED_AGAIN_S:g} s)")
                self._refused = (time.monotonic() + REFUSED_AGAIN_S, problem)
                raise problem from None
        raise SourceUnavailable(SOURCE, "; ".join(reasons))

    def _describe(self, host: str, port: int, address: str) -> QuorumSnapshot:
        try:
            conn = BrokerConnection(host, port, time.monotonic() + self.timeout_s, self.connection.client_settings)
        except SecurityError as e:
            raise _TryNext(str(e)) from None
        except OSError as e:
            raise _TryNext(f"{address}: {os_reason(e, self.timeout_s)}") from None
        try:
            try:
                versions = conn.api_versions()
                if DESCRIBE_QUORUM.key not in versions.versions:
                    raise _TryNext(
                        f"{address} does not offer DescribeQuorum: a ZooKeeper-mode broker, or Kafka older than 3.0"
                    )
                version = conn.version_for(DESCRIBE_QUORUM)
            except Unsupported as e:
                raise _TryNext(str(e)) from None
            # Brokers serve Produce; controllers do not.
            via = "broker" if API_PRODUCE in versions.versions else "controller"
            payload = conn.send(DESCRIBE_QUORUM, version, describe_quorum_body())
            taken_at = time.time()
            self.last_response = (version, payload)
            response = decode_describe_quorum(payload, version)
        except OSError as e:
            raise _TryNext(f"{address}: {os_reason(e, self.timeout_s)}") from None
        except ProtocolError as e:
            raise _TryNext(f"{address}: {e}") from None
        finally:
            conn.close()
        code = response.error_code or next((p.error_code for p in response.partitions if p.error_code), 0)
        said = f"the quorum was not read ({address} answered DescribeQuorum)"
        if code and (found := refused(error_name(code), "describe cluster", self.connection.client_settings, said)):
            raise _Refused(found.text())
        try:
            return to_snapshot(response, taken_at, source=address, via=via)
        except SourceUnavailable as e:
            raise _TryNext(e.reason) from None
