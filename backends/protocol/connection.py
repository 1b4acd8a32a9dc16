"""One socket to one broker, speaking the requests of protocol/wire.py: every read and write bounded by a deadline,
the versions agreed with ApiVersions first, over TLS and SASL when the client settings say so (security.py).
`require_supported` refuses up front what these connections cannot speak (GSSAPI, OAUTHBEARER), naming Kafka's own
tool for the same thing."""

from __future__ import annotations

import socket
import ssl
import struct
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

from kafkatop.backends.model.addresses import socket_error_reason
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.backends.protocol.api_versions import (
    ApiVersions,
    api_versions_body,
    decode_api_versions,
    decode_api_versions_v0,
)
from kafkatop.backends.protocol.security import SecurityError, authenticate, tls_context, unsupported
from kafkatop.backends.protocol.wire import (
    API_VERSIONS,
    API_VERSIONS_VERSION,
    Api,
    ProtocolError,
    encode_request,
    error_name,
)

T = TypeVar("T")
UNSUPPORTED_VERSION = 35
MAX_FRAME = 16 * 1024 * 1024  # a larger "size" means the peer is not speaking Kafka (HTTP, TLS, ZooKeeper…)


class Unsupported(ProtocolError):
    """The broker does not offer a version of the request that kafkatop speaks."""


def security_protocol(connection: KafkaConnection) -> str:
    return connection.client_settings.get("security.protocol", "PLAINTEXT").upper()


def require_supported(connection: KafkaConnection, what: str, kafka_tool: str) -> None:
    """Refuse, before any socket, a cluster whose security kafkatop's own protocol code cannot speak."""
    why = unsupported(connection.client_settings)
    if why is not None:
        raise Unsupported(f"kafkatop cannot send {what} itself with {why}: use {kafka_tool} --command-config FILE")


class BrokerConnection:
    """One socket, one request at a time, every read and write bounded by `deadline` (time.monotonic()).

    `settings`: the connection's client settings (KafkaConnection.client_settings): TLS and SASL as they say;
    PLAINTEXT without them. OSError when the broker cannot be reached, SecurityError when TLS or SASL fail."""

    def __init__(self, host: str, port: int, deadline: float, settings: Mapping[str, str] | None = None) -> None:
        self.deadline = deadline
        self.address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        settings = settings or {}
        protocol = settings.get("security.protocol", "PLAINTEXT").strip().upper()
        why = unsupported(settings)
        if why is not None:
            raise SecurityError(f"kafkatop's own requests cannot use {why}")
        sock = socket.create_connection((host, port), timeout=self._left())
        if protocol.endswith("SSL"):
            sock = self._tls(sock, host, settings)
        self.sock: socket.socket = sock
        self.correlation_id = 0
        self._versions: ApiVersions | None = None
        if protocol.startswith("SASL_"):
            try:
                self.api_versions()
                authenticate(lambda key, v, body: self.request(key, v, body, flexible=False), settings, self.address)
            except BaseException:
                self.close()
                raise

    def _tls(self, sock: socket.socket, host: str, settings: Mapping[str, str]) -> socket.socket:
        try:
            context = tls_context(settings)
            sock.settimeout(self._left())
            return context.wrap_socket(sock, server_hostname=host)
        except ssl.SSLCertVerificationError as e:
            sock.close()
            raise SecurityError(
                f"{self.address}: the broker's TLS certificate is not trusted ({e.verify_message}): check "
                "ssl.truststore.location (or ssl.endpoint.identification.algorithm) in the client properties"
            ) from None
        except ssl.SSLError as e:
            sock.close()
            raise SecurityError(
                f"{self.address}: TLS failed ({e.reason or e}): does this listener speak TLS?"
            ) from None
        except BaseException:
            sock.close()
            raise

    def __enter__(self) -> BrokerConnection:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _left(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("timed out")
        return left

    def close(self) -> None:
        self.sock.close()

    def api_versions(self) -> ApiVersions:
        """What the broker serves (asked once per connection)."""
        if self._versions is None:
            payload = self.request(API_VERSIONS, API_VERSIONS_VERSION, api_versions_body())
            try:
                versions = decode_api_versions(payload)
            except ProtocolError:
                versions = ApiVersions(0, UNSUPPORTED_VERSION, {})  # a v3 refusal that does not decode (the mock's)
            if versions.error_code == UNSUPPORTED_VERSION:
                # As librdkafka does: ask again in v0, which every broker reads.
                versions = decode_api_versions_v0(self.request(API_VERSIONS, 0, b"", flexible=False))
            if versions.error_code:
                raise Unsupported(f"{self.address} answered ApiVersions with {error_name(versions.error_code)}")
            self._versions = versions
        return self._versions

    def version_for(self, api: Api) -> int:
        """The highest version of `api` both sides speak; Unsupported (saying which) when there is none."""
        offered = self.api_versions().versions.get(api.key)
        if offered is None:
            raise Unsupported(f"{self.address} does not offer {api.name} (a Kafka too old for it?)")
        spoken = api.versions
        version = min(offered[1], spoken[1])
        if version < max(offered[0], spoken[0]):
            raise Unsupported(
                f"{self.address} offers {api.name} v{offered[0]}–v{offered[1]} only; "
                f"kafkatop reads v{spoken[0]}–v{spoken[1]}"
            )
        return version

    def call(self, api: Api, body: bytes | Callable[[int], bytes]) -> tuple[int, bytes]:
        """One request of `api` in the highest version both sides speak, its body the same in every version or made
        for that one: (the version, the response's bytes after the size)."""
        version = self.version_for(api)
        return version, self.send(api, version, body if isinstance(body, bytes) else body(version))

    def send(self, api: Api, version: int, body: bytes) -> bytes:
        """One request of `api` in `version` (agreed by `version_for`), its header flexible as that version is."""
        return self.request(api.key, version, body, flexible=api.flexible(version))

    def request(self, api_key: int, api_version: int, body: bytes, *, flexible: bool = True) -> bytes:
        """Send one request and return its response's bytes after the size (the header included)."""
        self.correlation_id += 1
        self.sock.settimeout(self._left())
        self.sock.sendall(encode_request(api_key, api_version, self.correlation_id, body, flexible=flexible))
        size = struct.unpack(">i", self._read(4))[0]
        if not 4 <= size <= MAX_FRAME:
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


class KeptConnections:
    """One BrokerConnection per broker, kept from poll to poll (a connection costs a handshake, and TLS and SASL
    more); each is used by one thread at a time, with the deadline of the call that uses it."""

    def __init__(self, settings: Mapping[str, str]) -> None:
        self.settings = settings
        self._by_node: dict[int, BrokerConnection] = {}

    def __contains__(self, node: int) -> bool:
        return node in self._by_node

    def get(self, node: int, host: str, port: int, deadline: float) -> BrokerConnection:
        conn = self._by_node.get(node)
        if conn is not None and conn.address != (f"[{host}]:{port}" if ":" in host else f"{host}:{port}"):
            conn.close()  # the broker moved: another listener
            conn = None
        if conn is None:
            conn = self._by_node[node] = BrokerConnection(host, port, deadline, self.settings)
        conn.deadline = deadline
        return conn

    def drop(self, node: int) -> None:
        """After a failure: the next call connects again."""
        conn = self._by_node.pop(node, None)
        if conn is not None:
            conn.close()

    def close(self) -> None:
        for conn in self._by_node.values():
            conn.close()
        self._by_node.clear()


def os_reason(e: OSError, timeout_s: float) -> str:
    """An OSError of a BrokerConnection, in words."""
    if isinstance(e, ConnectionResetError | BrokenPipeError):
        return "connection closed by the node (a TLS or SASL listener? see security.protocol)"
    return socket_error_reason(e, timeout_s, "connection refused: is the node down, or is this the wrong port?")


def first_answer(
    addresses: Iterable[tuple[str, int]],
    ask: Callable[[str, int], T],
    timeout_s: float,
    reasons: list[str],
    deadline: float | None = None,
    prefix: str = "",
) -> T | None:
    """`ask` of each address in turn (a cluster's bootstrap servers, mostly): the first answer. An address out of
    reach or answering nonsense (OSError, ProtocolError) is passed by, "host:port: why" added to `reasons`; None
    when none answered (`ask` answers something else), for the caller to say so in its own words. Unsupported goes
    up at once: every broker of a cluster speaks the same protocol, so asking another changes nothing. `deadline`:
    no address tried after it; `prefix`: words before each reason ("FindCoordinator to ")."""
    for host, port in addresses:
        try:
            return ask(host, port)
        except Unsupported:
            raise
        except (OSError, ProtocolError) as e:
            reasons.append(f"{prefix}{host}:{port}: {os_reason(e, timeout_s) if isinstance(e, OSError) else e}")
            if deadline is not None and deadline - time.monotonic() <= 0:
                break
    return None


def on_any_broker(connection: KafkaConnection, timeout_s: float, what: str, call: Callable[[BrokerConnection], T]) -> T:
    """`call` on a connection to the first bootstrap server that answers, every read and write within `timeout_s`
    (`BrokerConnection.deadline`). SourceUnavailable when none answers; Unsupported when the cluster does not speak
    `what`."""
    deadline = time.monotonic() + timeout_s

    def ask(host: str, port: int) -> T:
        with BrokerConnection(host, port, deadline, connection.client_settings) as conn:
            return call(conn)

    reasons: list[str] = []
    answer = first_answer(connection.addresses, ask, timeout_s, reasons)
    if answer is None:
        raise SourceUnavailable("kafka", f"no broker answered {what} ({'; '.join(reasons)})")
    return answer
