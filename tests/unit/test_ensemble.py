"""The ZooKeeper four-letter-word parsers and ZooKeeperStatsSource, on answers captured from real ZooKeeper 3.9.5.

STANDALONE_* come from the tests' `zookeeper_server` (pyspark's ZooKeeper 3.9.5) with one kazoo client connected;
ENSEMBLE_* from a three-server ensemble of the same jars. Only `mntr` is cut short: the lines after the last key
the parser reads (hundreds of histogram metrics) are left out.
"""

from __future__ import annotations

import socket

import pytest

from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.backends.model.zookeeper import EnsembleSnapshot
from kafkatop.backends.zookeeper.stats import (
    ZooKeeperStatsSource,
    parse_connect_string,
    parse_cons,
    parse_mntr,
    parse_srvr,
)

VERSION_LINE = "3.9.5-293c895a8d966a3ecb92872be4a1daf87d725da2, built on 2026-02-11 20:18 UTC"

STANDALONE_SRVR = (
    f"Zookeeper version: {VERSION_LINE}\nLatency min/avg/max: 1/3.5/8\nReceived: 11\nSent: 10\nConnections: 2\n"
    "Outstanding: 0\nZxid: 0x4\nMode: standalone\nNode count: 8\n"
)
STANDALONE_MNTR = (
    f"zk_version\t{VERSION_LINE}\n"
    "zk_server_state\tstandalone\n"
    "zk_ephemerals_count\t1\n"
    "zk_num_alive_connections\t2\n"
    "zk_avg_latency\t3.5\n"
    "zk_outstanding_requests\t0\n"
    "zk_znode_count\t8\n"
    "zk_global_sessions\t1\n"
    "zk_non_mtls_remote_conn_count\t0\n"
    "zk_last_client_response_size\t88\n"
    "zk_packets_sent\t11\n"
    "zk_packets_received\t12\n"
    "zk_max_client_response_size\t88\n"
    "zk_connection_drop_probability\t0.0\n"
    "zk_watch_count\t1\n"
    "zk_auth_failed_count\t0\n"
    "zk_min_latency\t1\n"
    "zk_max_file_descriptor_count\t20000\n"
    "zk_approximate_data_size\t54\n"
    "zk_open_file_descriptor_count\t294\n"
    "zk_local_sessions\t0\n"
    "zk_uptime\t507\n"
    "zk_max_latency\t8\n"
)
# The second line is the `cons` connection itself: no session, and our own local port.
STANDALONE_CONS = (
    " /127.0.0.1:52734[1](queued=0,recved=8,sent=8,sid=0x100005aa7620000,lop=GETD,est=1795323377102,to=10000,"
    "lcxid=0x7,lzxid=0x4,lresp=5941213,llat=3,minlat=0,avglat=3,maxlat=8)\n"
    " /127.0.0.1:52764[0](queued=0,recved=1,sent=0)\n\n"
)

ENSEMBLE_LEADER_SRVR = (
    f"Zookeeper version: {VERSION_LINE}\nLatency min/avg/max: 0/0.0/0\nReceived: 2\nSent: 1\nConnections: 1\n"
    "Outstanding: 0\nZxid: 0x100000004\nMode: leader\nNode count: 8\nProposal sizes last/min/max: 86/48/88\n"
)
ENSEMBLE_LEADER_MNTR = (
    f"zk_version\t{VERSION_LINE}\n"
    "zk_server_state\tleader\n"
    "zk_peer_state\tleading - broadcast\n"
    "zk_ephemerals_count\t1\n"
    "zk_num_alive_connections\t1\n"
    "zk_avg_latency\t0.0\n"
    "zk_outstanding_requests\t0\n"
    "zk_znode_count\t8\n"
    "zk_global_sessions\t1\n"
    "zk_non_mtls_remote_conn_count\t0\n"
    "zk_last_client_response_size\t-1\n"
    "zk_packets_sent\t2\n"
    "zk_packets_received\t3\n"
    "zk_synced_followers\t2\n"
    "zk_connection_drop_probability\t0.0\n"
    "zk_watch_count\t0\n"
    "zk_synced_non_voting_followers\t0\n"
    "zk_synced_observers\t0\n"
    "zk_auth_failed_count\t0\n"
    "zk_min_latency\t0\n"
    "zk_approximate_data_size\t190\n"
    "zk_open_file_descriptor_count\t299\n"
    "zk_last_proposal_size\t86\n"
    "zk_pending_syncs\t0\n"
    "zk_leader_uptime\t916\n"
    "zk_local_sessions\t0\n"
    "zk_uptime\t994\n"
    "zk_max_latency\t0\n"
    "zk_outstanding_tls_handshake\t0\n"
    "zk_learners\t2\n"
)
ENSEMBLE_LEADER_CONS = " /127.0.0.1:33722[0](queued=0,recved=1,sent=0)\n\n"
ENSEMBLE_FOLLOWER_SRVR = (
    f"Zookeeper version: {VERSION_LINE}\nLatency min/avg/max: 0/9.0/24\nReceived: 9\nSent: 8\nConnections: 2\n"
    "Outstanding: 0\nZxid: 0x100000004\nMode: follower\nNode count: 8\n"
)
ENSEMBLE_FOLLOWER_CONS = (
    " /127.0.0.1:39586[0](queued=0,recved=1,sent=0)\n"
    " /127.0.0.1:39556[1](queued=0,recved=7,sent=7,sid=0x100005706020000,lop=CREA,est=1795323139421,to=10000,"
    "lcxid=0x6,lzxid=0x100000004,lresp=5703556,llat=8,minlat=0,avglat=9,maxlat=24)\n\n"
)
# A server of a three-server ensemble whose two peers are down.
NOT_SERVING = "This ZooKeeper instance is not currently serving requests\n"
NOT_WHITELISTED = "dump is not executed because it is not in the whitelist.\n"


# --- parsers --------------------------------------------------------------------------------------------------------
def test_srvr_of_a_standalone_server() -> None:
    assert parse_srvr(STANDALONE_SRVR) == {
        "version": "3.9.5",
        "latency_min_ms": 1.0,
        "latency_avg_ms": 3.5,
        "latency_max_ms": 8.0,
        "received": 11,
        "sent": 10,
        "connections": 2,
        "outstanding": 0,
        "zxid": 4,
        "mode": "standalone",
        "znode_count": 8,
    }


def test_srvr_of_a_leader_reads_the_zxid_in_hex() -> None:
    fields = parse_srvr(ENSEMBLE_LEADER_SRVR)
    assert fields["mode"] == "leader"
    assert fields["zxid"] == 0x1_0000_0004  # epoch 1, counter 4


def test_mntr_picks_what_srvr_lacks() -> None:
    fields = parse_mntr(STANDALONE_MNTR)
    assert fields["mode"] == "standalone"
    assert fields["version"] == "3.9.5"
    assert (fields["watch_count"], fields["ephemerals_count"], fields["znode_count"]) == (1, 1, 8)
    assert (fields["latency_min_ms"], fields["latency_avg_ms"], fields["latency_max_ms"]) == (1.0, 3.5, 8.0)
    assert (fields["received"], fields["sent"], fields["connections"]) == (12, 11, 2)
    assert fields["approximate_data_size"] == 54
    assert "synced_followers" not in fields and "learners" not in fields


def test_mntr_of_a_leader_counts_its_followers() -> None:
    fields = parse_mntr(ENSEMBLE_LEADER_MNTR)
    assert fields["mode"] == "leader"
    assert (fields["synced_followers"], fields["learners"]) == (2, 2)


def test_mntr_of_zookeeper_3_5_names_followers_differently() -> None:
    assert parse_mntr("zk_server_state\tleader\nzk_followers\t4\nzk_synced_followers\t3\n")["learners"] == 4


def test_cons_lines_become_sessions() -> None:
    client, probe = parse_cons(STANDALONE_CONS)
    assert client.client == "127.0.0.1:52734"
    assert client.session_id == 0x100005AA7620000
    assert client.session_hex == "0x100005aa7620000"
    assert (client.queued, client.received, client.sent) == (0, 8, 8)
    assert client.last_operation == "GETD"
    assert (client.timeout_ms, client.established_ms) == (10000, 1795323377102)
    assert (client.avg_latency_ms, client.max_latency_ms) == (3, 8)
    assert probe.client == "127.0.0.1:52764"
    assert probe.session_id is None and probe.session_hex is None
    assert (probe.queued, probe.received, probe.sent) == (0, 1, 0)


def test_cons_of_ipv6_clients_and_garbage() -> None:
    text = " /0:0:0:0:0:0:0:1:40660[1](queued=2,recved=7,sent=7,sid=0x3000056d5d00000,lop=NA)\nnot a line\n\n"
    (session,) = parse_cons(text)
    assert session.client == "0:0:0:0:0:0:0:1:40660"
    assert session.queued == 2
    assert session.last_operation is None  # NA: no operation yet


def test_parsers_survive_garbage() -> None:
    assert parse_srvr("Latency min/avg/max: x/y\nZxid: zz\nMode:\n") == {}
    assert parse_mntr("zk_znode_count\tmany\n") == {}
    assert parse_cons("") == ()


# --- the connect string ---------------------------------------------------------------------------------------------
def test_connect_string_with_chroot_default_port_and_ipv6() -> None:
    assert parse_connect_string("zk1:2181, zk2 ,[::1]:2182/kafka/prod") == (
        ("zk1", 2181),
        ("zk2", 2181),
        ("::1", 2182),
    )


@pytest.mark.parametrize("hosts", ["", "/kafka", "zk1:notaport", "zk1:70000", ":2181"])
def test_bad_connect_strings_say_what_is_wrong(hosts: str) -> None:
    with pytest.raises(SourceUnavailable, match="connect string"):
        parse_connect_string(hosts)


# --- the source, on recorded answers --------------------------------------------------------------------------------
class Recorded:
    """Stands in for the socket: answers[(port, word)] is a text, or an OSError to raise."""

    def __init__(self, answers: dict[tuple[int, str], str | OSError], local_port: int = 52764) -> None:
        self.answers = answers
        self.local = ("127.0.0.1", local_port)
        self.asked: list[tuple[int, str, float]] = []

    def __call__(self, host: str, port: int, word: str, timeout_s: float) -> tuple[str, tuple[str, int]]:
        self.asked.append((port, word, timeout_s))
        answer = self.answers.get((port, word), ConnectionRefusedError(111, "Connection refused"))
        if isinstance(answer, OSError):
            raise answer
        return answer, self.local


def test_standalone_server_with_its_own_probe_left_out_of_sessions() -> None:
    ask = Recorded({(2181, "srvr"): STANDALONE_SRVR, (2181, "mntr"): STANDALONE_MNTR, (2181, "cons"): STANDALONE_CONS})
    snap = ZooKeeperStatsSource("127.0.0.1:2181/kafka", timeout_s=0.5, ask=ask).poll()
    assert isinstance(snap, EnsembleSnapshot)
    (server,) = snap.servers
    assert snap.problems == () and server.problem is None
    assert server.address == "127.0.0.1:2181"
    assert server.reachable and server.serving
    assert server.mode == "standalone" and server.version == "3.9.5"
    assert (server.latency_min_ms, server.latency_avg_ms, server.latency_max_ms) == (1.0, 3.5, 8.0)
    assert (server.received, server.sent) == (11, 10)  # srvr's, asked first; mntr's come a packet later
    assert (server.connections, server.outstanding, server.znode_count) == (2, 0, 8)
    assert (server.zxid, server.zxid_hex, server.epoch) == (4, "0x4", 0)
    assert (server.watch_count, server.ephemerals_count) == (1, 1)
    assert [s.client for s in server.sessions] == ["127.0.0.1:52734"]  # not 127.0.0.1:52764: that was us
    assert snap.leader is server
    assert {t for _, _, t in ask.asked} == {0.5}


def test_an_ensemble_with_a_server_down() -> None:
    ask = Recorded(
        {
            (1, "srvr"): ENSEMBLE_FOLLOWER_SRVR,
            (1, "mntr"): "zk_server_state\tfollower\nzk_watch_count\t0\n",
            (1, "cons"): ENSEMBLE_FOLLOWER_CONS,
            (2, "srvr"): ENSEMBLE_LEADER_SRVR,
            (2, "mntr"): ENSEMBLE_LEADER_MNTR,
            (2, "cons"): ENSEMBLE_LEADER_CONS,
        },
        local_port=39586,
    )
    snap = ZooKeeperStatsSource("zk1:1,zk2:2,zk3:3", ask=ask).poll()
    follower, leader, down = snap.servers
    assert [s.address for s in snap.servers] == ["zk1:1", "zk2:2", "zk3:3"]
    assert follower.mode == "follower" and leader.mode == "leader"
    assert snap.leader is leader and snap.serving == 2
    assert (leader.synced_followers, leader.learners, leader.epoch) == (2, 2, 1)
    assert [s.session_hex for s in follower.sessions] == ["0x100005706020000"]
    assert down.problem == "connection refused: is the server down?"
    assert not down.reachable and not down.serving and down.mode is None
    assert [(p.source, p.what, p.reason) for p in snap.problems] == [
        ("zookeeper-stats", "zk3:3", "connection refused: is the server down?")
    ]
    assert [w for p, w, _ in ask.asked if p == 3] == ["srvr"]  # down: asked once, not three times


def test_all_servers_down_is_still_a_snapshot() -> None:
    ask = Recorded({(2, "srvr"): TimeoutError("timed out")})
    snap = ZooKeeperStatsSource("a:1,b:2", timeout_s=1.0, ask=ask).poll()
    assert [s.problem for s in snap.servers] == ["connection refused: is the server down?", "no answer within 1 s"]
    assert len(snap.problems) == 2 and snap.leader is None and snap.serving == 0


def test_words_left_out_of_the_whitelist_leave_the_rest() -> None:
    ask = Recorded(
        {
            (1, "srvr"): STANDALONE_SRVR,
            (1, "mntr"): NOT_WHITELISTED.replace("dump", "mntr"),
            (1, "cons"): NOT_WHITELISTED.replace("dump", "cons"),
        }
    )
    (server,) = ZooKeeperStatsSource("zk:1", ask=ask).poll().servers
    assert server.mode == "standalone" and server.znode_count == 8
    assert server.watch_count is None and server.sessions == ()
    assert server.problem == (
        "mntr is not in the server's 4lw.commands.whitelist; cons is not in the server's 4lw.commands.whitelist"
    )


def test_a_server_without_quorum_is_not_serving() -> None:
    ask = Recorded({(1, w): NOT_SERVING for w in ("srvr", "mntr", "cons")})
    (server,) = ZooKeeperStatsSource("zk:1", ask=ask).poll().servers
    assert server.reachable and not server.serving
    assert server.problem is not None and server.problem.startswith("not serving requests")
    assert [w for _, w, _ in ask.asked] == ["srvr"]


def test_an_empty_answer_is_a_problem_not_a_crash() -> None:
    ask = Recorded({(1, "srvr"): "", (1, "mntr"): "", (1, "cons"): "\n"})
    (server,) = ZooKeeperStatsSource("zk:1", ask=ask).poll().servers
    assert server.reachable and server.mode is None
    assert server.problem is not None and "srvr: empty answer" in server.problem


def test_unknown_host_is_a_problem() -> None:
    ask = Recorded({(1, "srvr"): socket.gaierror(-2, "Name or service not known")})
    (server,) = ZooKeeperStatsSource("nohost.invalid:1", ask=ask).poll().servers
    assert server.problem == "unknown host (Name or service not known)"
