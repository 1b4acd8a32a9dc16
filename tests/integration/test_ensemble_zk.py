"""ZooKeeperStatsSource against the real ZooKeeper of the session (pyspark's 3.9.x jars, `zookeeper_server`)."""

from __future__ import annotations

import socket
import threading
import uuid

from kazoo.client import KazooClient

from kafkatop.backends.zookeeper.server import ZooKeeperServer, free_port
from kafkatop.backends.zookeeper.stats import ZooKeeperStatsSource
from tests.conftest import wait_for


def test_a_connected_client_shows_up_in_cons(zookeeper_server: ZooKeeperServer) -> None:
    source = ZooKeeperStatsSource(zookeeper_server.address)
    client = KazooClient(hosts=zookeeper_server.address)
    client.start(timeout=10)
    try:
        session_id = client.client_id[0]
        snap = source.poll()
        (server,) = snap.servers
        assert snap.problems == ()
        assert server.mode == "standalone" and server.serving
        assert server.version is not None and server.version.startswith("3.")
        assert server.zxid is not None and server.zxid > 0
        assert server.latency_avg_ms is not None and server.connections is not None and server.connections >= 2
        ours = [s for s in server.sessions if s.session_id == session_id]
        assert len(ours) == 1, server.sessions
        local = client._connection._socket.getsockname()  # the client's own end, as the server sees it
        assert ours[0].client == f"{local[0]}:{local[1]}"
        assert ours[0].received >= 1 and ours[0].timeout_ms is not None
        assert all(s.session_id is not None for s in server.sessions)  # the probe's own connection is left out
    finally:
        client.stop()
        client.close()

    def gone() -> bool:
        return all(s.session_id != session_id for s in source.poll().servers[0].sessions)

    wait_for(gone, timeout_s=10, what=f"session 0x{session_id:x} to leave cons")


def test_znode_and_ephemeral_counts_grow(zookeeper_server: ZooKeeperServer) -> None:
    source = ZooKeeperStatsSource(f"{zookeeper_server.address}/ignored-chroot")
    client = KazooClient(hosts=zookeeper_server.address)
    client.start(timeout=10)
    base = f"/ensemble-test-{uuid.uuid4().hex[:8]}"
    try:
        before = source.poll().servers[0]
        assert before.znode_count is not None and before.ephemerals_count is not None and before.zxid is not None
        client.create(base)
        for i in range(5):
            client.create(f"{base}/n{i}")
        client.create(f"{base}/e", ephemeral=True)
        client.get(base, watch=lambda event: None)
        after = source.poll().servers[0]
        # Other tests share this server: at least ours, maybe more.
        assert after.znode_count is not None and after.znode_count >= before.znode_count + 7
        assert after.ephemerals_count is not None and after.ephemerals_count >= before.ephemerals_count + 1
        assert after.zxid is not None and after.zxid >= before.zxid + 7  # one transaction per create
        assert after.watch_count is not None and after.watch_count >= 1
    finally:
        client.delete(base, recursive=True)
        client.stop()
        client.close()


def test_a_dead_server_and_a_disabled_word_are_per_server_problems(zookeeper_server: ZooKeeperServer) -> None:
    dead = free_port()
    snap = ZooKeeperStatsSource(f"{zookeeper_server.address},127.0.0.1:{dead}", timeout_s=1.0).poll()
    alive, down = snap.servers
    assert alive.mode == "standalone" and alive.problem is None
    assert down.address == f"127.0.0.1:{dead}" and down.problem == "connection refused: is the server down?"
    assert [p.what for p in snap.problems] == [down.address]


def test_a_silent_server_costs_one_timeout() -> None:
    """A port that accepts and never answers (a hung server): the poll gives up after timeout_s, per server."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        accepted: list[socket.socket] = []
        stop = threading.Event()

        def accept() -> None:
            listener.settimeout(0.1)
            while not stop.is_set():
                try:
                    accepted.append(listener.accept()[0])
                except TimeoutError:
                    pass

        thread = threading.Thread(target=accept, daemon=True)
        thread.start()
        try:
            (server,) = ZooKeeperStatsSource(f"127.0.0.1:{port}", timeout_s=0.3).poll().servers
        finally:
            stop.set()
            thread.join(5)
            for conn in accepted:
                conn.close()
    assert server.problem == "no answer within 0.3 s"
