"""Read-only, seen from the wire: a request-counting TCP proxy in front of a librdkafka mock cluster's first broker.
A read (`describe`) through it is counted, so the counter can fail; every write of tests/unit/test_read_only.py, with
--read-only or a read-only context pointing at the proxy, exits 2 and the proxy saw no connection at all; and no
write request of Kafka's reached the proxy (or the mock cluster, which counts every request it answers) in this
module."""

from __future__ import annotations

import selectors
import socket
import struct
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.tui.cli.main import main
from tests.conftest import wait_for
from tests.unit.test_read_only import WRITE_INVOCATIONS, cluster_flags, context_flags, read_only_contexts_file

# Kafka's requests that change a cluster, by api key (the Kafka protocol's ApiKeys).
WRITE_API_KEYS: dict[int, str] = {
    0: "Produce",
    8: "OffsetCommit",
    19: "CreateTopics",
    20: "DeleteTopics",
    21: "DeleteRecords",
    30: "CreateAcls",
    31: "DeleteAcls",
    33: "AlterConfigs",
    37: "CreatePartitions",
    42: "DeleteGroups",
    43: "ElectLeaders",
    44: "IncrementalAlterConfigs",
    45: "AlterPartitionReassignments",
    47: "OffsetDelete",
    49: "AlterClientQuotas",
    51: "AlterUserScramCredentials",
}
METADATA, API_VERSIONS = 3, 18
HEADER = struct.Struct(">ihhi")  # size, then the request header's api_key, api_version, correlation id
SETTLE_S = 0.3  # a client connects asynchronously: how long the proxy must stay unvisited after a refusal


@dataclass
class _Link:
    peer: socket.socket
    from_client: bool
    pending: bytearray = field(default_factory=bytearray)  # client bytes not yet a whole frame


class RequestCountingProxy:
    """Test helper: forwards 127.0.0.1:<port 0> to one upstream address, counting the connections accepted and the
    Kafka requests clients send through it (by api key). One selector thread; `close` ends it and every socket."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self._upstream = upstream
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.setblocking(False)
        self.address = f"127.0.0.1:{self._listener.getsockname()[1]}"
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._listener, selectors.EVENT_READ, None)
        self._lock = threading.Lock()
        self._connections = 0
        self._requests: Counter[int] = Counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="test-request-counting-proxy", daemon=True)
        self._thread.start()

    def counts(self) -> tuple[int, Counter[int]]:
        """(connections accepted, requests by api key), so far."""
        with self._lock:
            return self._connections, Counter(self._requests)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        assert not self._thread.is_alive(), "the proxy's thread did not end"
        for key in list(self._selector.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]
        self._selector.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            for key, _ in self._selector.select(timeout=0.05):
                if key.data is None:
                    self._accept()
                else:
                    self._forward(key.fileobj, key.data)  # type: ignore[arg-type]

    def _accept(self) -> None:
        try:
            client, _ = self._listener.accept()
        except BlockingIOError:
            return
        with self._lock:
            self._connections += 1
        try:
            upstream = socket.create_connection(self._upstream, timeout=5)
        except OSError:
            client.close()
            return
        for s in (client, upstream):
            s.setblocking(True)
            s.settimeout(5)  # a send never hangs the proxy for longer
        self._selector.register(client, selectors.EVENT_READ, _Link(upstream, from_client=True))
        self._selector.register(upstream, selectors.EVENT_READ, _Link(client, from_client=False))

    def _forward(self, sock: socket.socket, link: _Link) -> None:
        try:
            data = sock.recv(65536)
            if data:
                if link.from_client:
                    self._count(link, data)
                link.peer.sendall(data)
                return
        except OSError:
            pass
        for s in (sock, link.peer):  # one side closed: close both
            try:
                self._selector.unregister(s)
            except (KeyError, ValueError):
                pass
            s.close()

    def _count(self, link: _Link, data: bytes) -> None:
        link.pending += data
        while len(link.pending) >= HEADER.size:
            size, api_key, _version, _correlation = HEADER.unpack_from(link.pending)
            if len(link.pending) < 4 + size:
                return
            del link.pending[: 4 + size]
            with self._lock:
                self._requests[api_key] += 1


@pytest.fixture(scope="module")
def cluster() -> Iterator[MockCluster]:
    with MockCluster(3) as mock:
        mock.create_topic("t", 3, 3)
        mock.start_request_tracking()
        yield mock


@pytest.fixture
def proxy(cluster: MockCluster) -> Iterator[RequestCountingProxy]:
    host, _, port = cluster.bootstrap_servers.split(",")[0].rpartition(":")
    assert host == "127.0.0.1", cluster.bootstrap_servers
    counting = RequestCountingProxy((host, int(port)))
    try:
        yield counting
    finally:
        counting.close()


@pytest.fixture(autouse=True)
def no_write_request_reaches_the_cluster(proxy: RequestCountingProxy, cluster: MockCluster) -> Iterator[None]:
    """(iii): after every test, neither its proxy nor the mock cluster (counting since the module began) has seen a
    write request of Kafka's."""
    yield
    _, requests = proxy.counts()
    through_proxy = {WRITE_API_KEYS[k]: n for k, n in requests.items() if k in WRITE_API_KEYS}
    at_cluster = Counter(WRITE_API_KEYS[r.api_key] for r in cluster.requests() if r.api_key in WRITE_API_KEYS)
    assert through_proxy == {}, f"write requests reached the proxy: {through_proxy}"
    assert at_cluster == {}, f"write requests reached the mock cluster: {dict(at_cluster)}"


def stays_unvisited(proxy: RequestCountingProxy, cluster: MockCluster, requests: int) -> None:
    """For SETTLE_S, no connection to the proxy and no new request at the cluster (a late client would show)."""
    deadline = time.monotonic() + SETTLE_S
    while time.monotonic() < deadline:
        assert proxy.counts() == (0, Counter()), f"the proxy was connected to: {proxy.counts()}"
        assert len(cluster.requests()) == requests, [r.api_name for r in cluster.requests()[requests:]]
        time.sleep(0.05)


def test_a_read_through_the_proxy_is_counted(
    isolated: Path, proxy: RequestCountingProxy, cluster: MockCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    """(i): the counter counts: `describe` through the proxy asks for metadata there."""
    assert proxy.counts() == (0, Counter())
    assert main(["describe", "--bootstrap-server", proxy.address, "--timeout", "10"]) == 0, capsys.readouterr().err
    assert "t" in capsys.readouterr().out
    connections, requests = wait_for(lambda: (c := proxy.counts())[1][METADATA] and c, timeout_s=10,
                                     what="a Metadata request through the proxy")  # fmt: skip
    assert connections > 0 and requests[API_VERSIONS] + requests[METADATA] > 0
    assert any(r.api_key == METADATA for r in cluster.requests())


@pytest.mark.parametrize("argv", [argv for _, argv in WRITE_INVOCATIONS], ids=[i for i, _ in WRITE_INVOCATIONS])
@pytest.mark.parametrize("how", ["flag", "context"])
def test_a_refused_write_never_reaches_the_proxy(
    isolated: Path,
    proxy: RequestCountingProxy,
    cluster: MockCluster,
    capsys: pytest.CaptureFixture[str],
    how: str,
    argv: list[str],
) -> None:
    """(ii): with --read-only or a read-only context at the proxy, a write exits 2 and the proxy is never
    connected to (the lab's own commands name no address: refused all the same, before anything starts)."""
    requests = len(cluster.requests())
    if how == "flag":
        flags = ["--read-only", *cluster_flags(argv, proxy.address)]
    else:
        read_only_contexts_file(isolated / "kafkatop.toml", proxy.address)
        flags = context_flags(argv)
    assert main([*argv, *flags]) == 2
    err = capsys.readouterr().err
    assert "read-only" in err and "nothing was sent" in err and "Traceback" not in err, err
    stays_unvisited(proxy, cluster, requests)


def test_the_proxy_counts_each_request_by_api_key_even_split_across_reads() -> None:
    """The helper's own check: hand-made request headers (ApiVersions, then CreateTopics) sent a few bytes at a time
    are counted once each, by api key. Upstream is a listener that never answers (not the mock: nothing is written)."""

    def frame(api_key: int, correlation: int) -> bytes:
        body = struct.pack(">hhi", api_key, 0, correlation) + struct.pack(">h", -1)  # null client id
        return struct.pack(">i", len(body)) + body

    with socket.create_server(("127.0.0.1", 0)) as sink:
        counting = RequestCountingProxy(("127.0.0.1", sink.getsockname()[1]))
        try:
            host, _, port = counting.address.rpartition(":")
            with socket.create_connection((host, int(port)), timeout=5) as client:
                data = frame(API_VERSIONS, 1) + frame(19, 2)
                for i in range(0, len(data), 3):
                    client.sendall(data[i : i + 3])
                    time.sleep(0.005)
                wait_for(lambda: counting.counts()[1] == Counter({API_VERSIONS: 1, 19: 1}), timeout_s=5,
                         what=f"both requests counted, not {counting.counts()}")  # fmt: skip
            assert counting.counts()[0] == 1
        finally:
            counting.close()
