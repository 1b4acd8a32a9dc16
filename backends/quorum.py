"""The KRaft quorum, as `kafka-metadata-quorum.sh describe --status --replication` shows it, without a JVM.

confluent-kafka has no DescribeQuorum, so this speaks the two requests it needs over a plain TCP socket:
ApiVersions (v3) to learn which DescribeQuorum versions the node serves, then DescribeQuorum (API key 55, v0–v2)
for `__cluster_metadata` partition 0. Schemas: clients/src/main/resources/common/message/*.json in apache/kafka.

Either kind of listener answers: a KRaft broker forwards DescribeQuorum to the active controller (since Kafka 3.0,
KAFKA-12967), which is what `--bootstrap-server` does; a controller listener answers it itself, but only the quorum
leader does (`--bootstrap-controller`): another controller answers NOT_LEADER_OR_FOLLOWER and the next address is
tried. ZooKeeper-mode brokers do not offer the API at all. PLAINTEXT listeners only: no TLS, no SASL.
"""

from __future__ import annotations

import base64
import socket
import struct
import time
from dataclasses import dataclass

from kafkatop.backends.addresses import parse_host_ports, socket_error_reason
from kafkatop.backends.errors import KafkatopError, SourceUnavailable

SOURCE = "quorum"
METADATA_TOPIC = "__cluster_metadata"
METADATA_PARTITION = 0
DEFAULT_PORT = 9092
CLIENT_ID = "kafkatop"
CLIENT_SOFTWARE = ("kafkatop", "0.1.0")  # ApiVersions v3+ rejects names outside [a-zA-Z0-9.-]

API_PRODUCE = 0
API_VERSIONS = 18
API_DESCRIBE_QUORUM = 55
API_VERSIONS_VERSION = 3  # the first flexible version (Kafka 2.4+)
DESCRIBE_QUORUM_VERSIONS = (0, 2)  # what this codec reads: v1 adds fetch times, v2 nodes and directory ids
_MAX_FRAME = 16 * 1024 * 1024  # a larger "size" means the peer is not speaking Kafka (HTTP, TLS, ZooKeeper…)

# Kafka's error codes (org.apache.kafka.common.protocol.Errors) that these two requests can plausibly return.
ERROR_NAMES = {
    -1: "UNKNOWN_SERVER_ERROR",
    3: "UNKNOWN_TOPIC_OR_PARTITION",
    5: "LEADER_NOT_AVAILABLE",
    6: "NOT_LEADER_OR_FOLLOWER",
    7: "REQUEST_TIMED_OUT",
    8: "BROKER_NOT_AVAILABLE",
    13: "NETWORK_EXCEPTION",
    15: "COORDINATOR_NOT_AVAILABLE",
    31: "CLUSTER_AUTHORIZATION_FAILED",
    34: "ILLEGAL_SASL_STATE",
    35: "UNSUPPORTED_VERSION",
    41: "NOT_CONTROLLER",
    42: "INVALID_REQUEST",
    56: "KAFKA_STORAGE_ERROR",
    104: "INCONSISTENT_CLUSTER_ID",
}
_ERROR_HINTS = {
    6: "this controller is not the quorum leader",
    31: "the principal needs DESCRIBE on the cluster",
    35: "the node does not support this request version",
}


def error_name(code: int) -> str:
    return ERROR_NAMES.get(code, f"error code {code}")


class ProtocolError(KafkatopError):
    """Bytes that do not decode as the expected Kafka response."""


# --- the codec: Kafka's primitive types -----------------------------------------------------------------------------
def encode_uvarint(value: int) -> bytes:
    """Unsigned LEB128, as Kafka's compact lengths and tagged-field headers use."""
    if value < 0:
        raise ValueError(f"uvarint of a negative number: {value}")
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def encode_compact_string(value: str | None) -> bytes:
    """Length + 1 as a uvarint (0 = null), then UTF-8."""
    if value is None:
        return b"\x00"
    data = value.encode("utf-8")
    return encode_uvarint(len(data) + 1) + data


def encode_nullable_string(value: str | None) -> bytes:
    """int16 length (-1 = null), then UTF-8: the request header's client id, even in flexible versions."""
    if value is None:
        return struct.pack(">h", -1)
    data = value.encode("utf-8")
    return struct.pack(">h", len(data)) + data


NO_TAGGED_FIELDS = b"\x00"


def format_uuid(raw: bytes) -> str | None:
    """Kafka's Uuid.toString(): URL-safe base64 without padding; the all-zero uuid (ZERO_UUID) is None."""
    if raw == bytes(16):
        return None
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


class Reader:
    """Reads Kafka's primitive types from one response; any overrun is a ProtocolError, never an IndexError."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise ProtocolError(f"response truncated: wanted {n} bytes at offset {self.pos} of {len(self.data)}")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def _unpack(self, fmt: str, size: int) -> int:
        value: int = struct.unpack(fmt, self.take(size))[0]
        return value

    def int16(self) -> int:
        return self._unpack(">h", 2)

    def uint16(self) -> int:
        return self._unpack(">H", 2)

    def int32(self) -> int:
        return self._unpack(">i", 4)

    def int64(self) -> int:
        return self._unpack(">q", 8)

    def uuid(self) -> bytes:
        return self.take(16)

    def uvarint(self) -> int:
        value = shift = 0
        while True:
            byte = self.take(1)[0]
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return value
            shift += 7
            if shift > 63:
                raise ProtocolError(f"varint longer than 10 bytes at offset {self.pos}")

    def compact_nullable_string(self) -> str | None:
        n = self.uvarint()
        if n == 0:
            return None
        return self.take(n - 1).decode("utf-8", errors="replace")

    def compact_string(self) -> str:
        value = self.compact_nullable_string()
        if value is None:
            raise ProtocolError(f"null where a string is required at offset {self.pos}")
        return value

    def compact_array_length(self) -> int:
        """Length + 1 as a uvarint; null (0) reads as empty, since no field read here is nullable."""
        return max(self.uvarint() - 1, 0)

    def array_length(self) -> int:
        """int32 length of a non-flexible array (-1 = null, read as empty)."""
        return max(self.int32(), 0)

    def skip_tagged_fields(self) -> None:
        """Skip a tagged-field section: none of the tags of these messages is needed, known or not."""
        for _ in range(self.uvarint()):
            self.uvarint()  # the tag
            self.take(self.uvarint())

    def end(self) -> None:
        if self.pos != len(self.data):
            raise ProtocolError(f"{len(self.data) - self.pos} unread bytes after the response")


# --- the two requests -----------------------------------------------------------------------------------------------
def encode_request(
    api_key: int, api_version: int, correlation_id: int, body: bytes, client_id: str = CLIENT_ID
) -> bytes:
    """Size-prefixed request with header v2 (flexible), which every request version sent here uses."""
    header = struct.pack(">hhi", api_key, api_version, correlation_id) + encode_nullable_string(client_id)
    frame = header + NO_TAGGED_FIELDS + body
    return struct.pack(">i", len(frame)) + frame


def api_versions_body() -> bytes:
    name, version = CLIENT_SOFTWARE
    return encode_compact_string(name) + encode_compact_string(version) + NO_TAGGED_FIELDS


def describe_quorum_body(topic: str = METADATA_TOPIC, partition: int = METADATA_PARTITION) -> bytes:
    """Topics: [{TopicName, Partitions: [{PartitionIndex}]}]; identical in v0–v2."""
    return (
        encode_uvarint(2)
        + encode_compact_string(topic)
        + encode_uvarint(2)
        + struct.pack(">i", partition)
        + NO_TAGGED_FIELDS  # partition
        + NO_TAGGED_FIELDS  # topic
        + NO_TAGGED_FIELDS  # request
    )


@dataclass(frozen=True, slots=True)
class ApiVersions:
    correlation_id: int
    error_code: int
    versions: dict[int, tuple[int, int]]  # api key -> (min, max)


def decode_api_versions(payload: bytes) -> ApiVersions:
    """An ApiVersions response (after the size). Its header is v0 even for v3: the client cannot know yet."""
    r = Reader(payload)
    correlation_id = r.int32()
    error_code = r.int16()
    versions: dict[int, tuple[int, int]] = {}
    if error_code == 35:
        # UNSUPPORTED_VERSION comes as a v0 body, so an old broker can still say what it supports.
        for _ in range(r.array_length()):
            key, lo, hi = r.int16(), r.int16(), r.int16()
            versions[key] = (lo, hi)
        return ApiVersions(correlation_id, error_code, versions)
    for _ in range(r.compact_array_length()):
        key, lo, hi = r.int16(), r.int16(), r.int16()
        r.skip_tagged_fields()
        versions[key] = (lo, hi)
    r.int32()  # throttle time
    r.skip_tagged_fields()  # supported and finalized features
    r.end()
    return ApiVersions(correlation_id, error_code, versions)


@dataclass(frozen=True, slots=True)
class ReplicaState:
    """DescribeQuorumResponse's ReplicaState, as sent; timestamps are the leader's wall clock in ms, -1 unknown."""

    replica_id: int
    directory_id: str | None  # v2+
    log_end_offset: int
    last_fetch_timestamp: int  # v1+
    last_caught_up_timestamp: int  # v1+


@dataclass(frozen=True, slots=True)
class QuorumPartition:
    topic: str
    partition: int
    error_code: int
    error_message: str | None  # v2+
    leader_id: int
    leader_epoch: int
    high_watermark: int
    voters: tuple[ReplicaState, ...]
    observers: tuple[ReplicaState, ...]


@dataclass(frozen=True, slots=True)
class DescribeQuorum:
    """A decoded DescribeQuorum response."""

    version: int
    correlation_id: int
    error_code: int
    error_message: str | None  # v2+
    partitions: tuple[QuorumPartition, ...]
    endpoints: dict[int, tuple[str, ...]]  # v2+: voter id -> ("CONTROLLER://host:port", …)


def _replica_state(r: Reader, version: int) -> ReplicaState:
    replica_id = r.int32()
    directory_id = format_uuid(r.uuid()) if version >= 2 else None
    log_end_offset = r.int64()
    last_fetch = r.int64() if version >= 1 else -1
    last_caught_up = r.int64() if version >= 1 else -1
    r.skip_tagged_fields()
    return ReplicaState(replica_id, directory_id, log_end_offset, last_fetch, last_caught_up)


def decode_describe_quorum(payload: bytes, version: int) -> DescribeQuorum:
    """A DescribeQuorum response (after the size): header v1, then the body of `version`."""
    if not DESCRIBE_QUORUM_VERSIONS[0] <= version <= DESCRIBE_QUORUM_VERSIONS[1]:
        raise ProtocolError(f"DescribeQuorum v{version} is not one this codec reads")
    r = Reader(payload)
    correlation_id = r.int32()
    r.skip_tagged_fields()
    error_code = r.int16()
    error_message = (r.compact_nullable_string() or None) if version >= 2 else None  # "" when no error
    partitions = []
    for _ in range(r.compact_array_length()):
        topic = r.compact_string()
        for _ in range(r.compact_array_length()):
            index = r.int32()
            p_error = r.int16()
            p_message = (r.compact_nullable_string() or None) if version >= 2 else None
            leader_id, leader_epoch, high_watermark = r.int32(), r.int32(), r.int64()
            voters = tuple(_replica_state(r, version) for _ in range(r.compact_array_length()))
            observers = tuple(_replica_state(r, version) for _ in range(r.compact_array_length()))
            r.skip_tagged_fields()
            partitions.append(
                QuorumPartition(
                    topic, index, p_error, p_message, leader_id, leader_epoch, high_watermark, voters, observers
                )
            )
        r.skip_tagged_fields()
    endpoints: dict[int, tuple[str, ...]] = {}
    if version >= 2:
        for _ in range(r.compact_array_length()):
            node_id = r.int32()
            listeners = []
            for _ in range(r.compact_array_length()):
                name, host, port = r.compact_string(), r.compact_string(), r.uint16()
                r.skip_tagged_fields()
                listeners.append(f"{name}://{host}:{port}")
            r.skip_tagged_fields()
            endpoints[node_id] = tuple(listeners)
    r.skip_tagged_fields()
    r.end()
    return DescribeQuorum(version, correlation_id, error_code, error_message, tuple(partitions), endpoints)


# --- the snapshot ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class QuorumReplica:
    replica_id: int
    log_end_offset: int  # -1: unknown to the leader
    lag: int | None  # leader's log end offset - this one's, as kafka-metadata-quorum prints it; None when unknown
    last_fetch_ms_ago: int | None  # None: unknown (v0, or a voter that never fetched)
    last_caught_up_ms_ago: int | None
    directory_id: str | None = None  # v2+, Kafka's base64 form
    endpoints: tuple[str, ...] = ()  # v2+, voters only: "CONTROLLER://127.0.0.1:9093"


@dataclass(frozen=True, slots=True)
class QuorumSnapshot:
    taken_at: float  # time.time() when the response arrived
    leader_id: int  # -1: no leader right now
    leader_epoch: int
    high_watermark: int
    voters: tuple[QuorumReplica, ...]
    observers: tuple[QuorumReplica, ...]
    source: str = ""  # the address that answered
    via: str = "broker"  # "broker" (forwarded to the active controller) or "controller"
    api_version: int = 0  # the DescribeQuorum version both sides spoke

    @property
    def leader(self) -> QuorumReplica | None:
        return next((v for v in self.voters if v.replica_id == self.leader_id), None)

    @property
    def max_follower_lag(self) -> int | None:
        """MaxFollowerLag of `describe --status`: the leader's log end offset minus the furthest-behind voter's."""
        lags = [v.lag for v in self.voters if v.lag is not None]
        return max(lags) if lags else None


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


# --- the source -----------------------------------------------------------------------------------------------------
def parse_bootstrap(bootstrap: str) -> tuple[tuple[str, int], ...]:
    """`h1:9092,h2:9093` (also `PLAINTEXT://h1:9092`, `[::1]:9092`) -> ((h1, 9092), (h2, 9093))."""
    return parse_host_ports(bootstrap, DEFAULT_PORT, source=SOURCE, what="bootstrap list")


class _Connection:
    """One socket, one request at a time, every read and write bounded by the poll's deadline."""

    def __init__(self, host: str, port: int, deadline: float) -> None:
        self.deadline = deadline
        self.sock = socket.create_connection((host, port), timeout=self._left())
        self.correlation_id = 0

    def _left(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("timed out")
        return left

    def close(self) -> None:
        self.sock.close()

    def request(self, api_key: int, api_version: int, body: bytes) -> bytes:
        self.correlation_id += 1
        self.sock.settimeout(self._left())
        self.sock.sendall(encode_request(api_key, api_version, self.correlation_id, body))
        size = struct.unpack(">i", self._read(4))[0]
        if not 4 <= size <= _MAX_FRAME:
            raise ProtocolError(f"a {size}-byte frame: not a Kafka PLAINTEXT listener (TLS, HTTP, ZooKeeper…?)")
        payload = self._read(size)
        if struct.unpack(">i", payload[:4])[0] != self.correlation_id:
            raise ProtocolError("the response answers another request (correlation id mismatch)")
        return payload

    def _read(self, n: int) -> bytes:
        chunks = []
        while n > 0:
            self.sock.settimeout(self._left())
            chunk = self.sock.recv(min(n, 1 << 20))
            if not chunk:
                raise ConnectionResetError("closed by the peer")
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)


class _TryNext(Exception):
    """This address could not answer; the message says why. The next bootstrap address is tried."""


class QuorumSource:
    """The KRaft quorum over DescribeQuorum. `poll()` tries each bootstrap address until one answers.

    Each address gets `timeout_s` for connect, ApiVersions and DescribeQuorum together; a fresh connection per poll
    keeps no state to go stale between polls (a poll every few seconds costs one loopback or LAN handshake).
    """

    def __init__(self, bootstrap: str, timeout_s: float = 2.0) -> None:
        self.bootstrap = bootstrap
        self.addresses = parse_bootstrap(bootstrap)
        self.timeout_s = timeout_s
        # The last response's raw bytes (payload after the size) and version: for recording test data.
        self.last_response: tuple[int, bytes] | None = None

    def poll(self) -> QuorumSnapshot:
        reasons = []
        for host, port in self.addresses:
            address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
            try:
                return self._describe(host, port, address)
            except _TryNext as e:
                reasons.append(str(e))
        raise SourceUnavailable(SOURCE, "; ".join(reasons))

    def _describe(self, host: str, port: int, address: str) -> QuorumSnapshot:
        try:
            conn = _Connection(host, port, time.monotonic() + self.timeout_s)
        except OSError as e:
            raise _TryNext(f"{address}: {_os_reason(e, self.timeout_s)}") from None
        try:
            versions = decode_api_versions(conn.request(API_VERSIONS, API_VERSIONS_VERSION, api_versions_body()))
            if versions.error_code:
                raise _TryNext(f"{address} answered ApiVersions with {error_name(versions.error_code)}")
            offered = versions.versions.get(API_DESCRIBE_QUORUM)
            if offered is None:
                raise _TryNext(
                    f"{address} does not offer DescribeQuorum: a ZooKeeper-mode broker, or Kafka older than 3.0"
                )
            version = min(offered[1], DESCRIBE_QUORUM_VERSIONS[1])
            if version < max(offered[0], DESCRIBE_QUORUM_VERSIONS[0]):
                raise _TryNext(
                    f"{address} offers DescribeQuorum v{offered[0]}–v{offered[1]} only; kafkatop reads v0–v2"
                )
            # Brokers serve Produce; controllers do not.
            via = "broker" if API_PRODUCE in versions.versions else "controller"
            payload = conn.request(API_DESCRIBE_QUORUM, version, describe_quorum_body())
            taken_at = time.time()
            self.last_response = (version, payload)
            response = decode_describe_quorum(payload, version)
        except OSError as e:
            raise _TryNext(f"{address}: {_os_reason(e, self.timeout_s)}") from None
        except ProtocolError as e:
            raise _TryNext(f"{address}: {e}") from None
        finally:
            conn.close()
        try:
            return to_snapshot(response, taken_at, source=address, via=via)
        except SourceUnavailable as e:
            raise _TryNext(e.reason) from None


def _os_reason(e: OSError, timeout_s: float) -> str:
    if isinstance(e, ConnectionResetError | BrokenPipeError):
        return "connection closed by the node (a TLS or SASL listener? kafkatop speaks PLAINTEXT only)"
    return socket_error_reason(e, timeout_s, "connection refused: is the node down, or is this the wrong port?")
