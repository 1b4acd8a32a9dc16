"""What `zktop` showed: every server of a ZooKeeper ensemble, from its four-letter words `srvr`, `mntr` and `cons`.

Each poll opens one short TCP connection per word and server (the 4lw protocol answers once and closes), servers
in parallel. A server that is down, not serving (no quorum), or has a word left out of `4lw.commands.whitelist`
becomes a problem string on that server, never an exception: the pane shows what the other servers said.
The text formats parsed are those of ZooKeeper 3.5–3.9 (3.9.x ships in pyspark's jars).
"""

from __future__ import annotations

import ipaddress
import socket
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypedDict

from kafkatop.backends.model.addresses import parse_host_ports, socket_error_reason
from kafkatop.backends.model.cluster import Problem
from kafkatop.backends.model.zookeeper import EnsembleSnapshot, ZooKeeperServerStats, ZooKeeperSession

SOURCE = "zookeeper-stats"
DEFAULT_PORT = 2181
NOT_WHITELISTED = "is not executed because it is not in the whitelist"
NOT_SERVING = "This ZooKeeper instance is not currently serving requests"
_MAX_ANSWER = 8 * 1024 * 1024  # `cons` of a busy server is large, but not unbounded: stop reading garbage here


# --- the connect string ---------------------------------------------------------------------------------------------
def parse_connect_string(hosts: str) -> tuple[tuple[str, int], ...]:
    """`h1:2181,h2:2181[/chroot]` -> ((h1, 2181), (h2, 2181)); the chroot is irrelevant to the 4lw commands."""
    return parse_host_ports(hosts.split("/", 1)[0], DEFAULT_PORT, source=SOURCE, what="ZooKeeper connect string")


def _address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class ServerFields(TypedDict, total=False):
    """The ZooKeeperServerStats fields one word's answer carries."""

    mode: str
    version: str
    latency_min_ms: float
    latency_avg_ms: float
    latency_max_ms: float
    received: int
    sent: int
    connections: int
    outstanding: int
    zxid: int
    znode_count: int
    watch_count: int
    ephemerals_count: int
    approximate_data_size: int
    synced_followers: int
    learners: int


# --- parsing the words ----------------------------------------------------------------------------------------------
def _int(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text.strip(), 0)  # base 0: zxid and sid come as 0x…
    except ValueError:
        return None


def _float(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return float(text.strip())
    except ValueError:
        return None


def _short_version(text: str | None) -> str | None:
    """`3.9.5-293c895…, built on 2026-02-11 20:18 UTC` -> `3.9.5`."""
    if not text:
        return None
    return text.split(",", 1)[0].split("-", 1)[0].strip() or None


def _key_values(text: str, sep: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        key, found, value = line.partition(sep)
        if found:
            out[key.strip()] = value.strip()
    return out


def _put_int(out: ServerFields, name: str, text: str | None) -> None:
    value = _int(text)
    if value is not None:
        out[name] = value  # type: ignore[literal-required]  # names come from the tables below


def _put_float(out: ServerFields, name: str, text: str | None) -> None:
    value = _float(text)
    if value is not None:
        out[name] = value  # type: ignore[literal-required]


# What srvr and mntr name each field the pane shows.
_SRVR_INTS = {
    "Received": "received",
    "Sent": "sent",
    "Connections": "connections",
    "Outstanding": "outstanding",
    "Zxid": "zxid",
    "Node count": "znode_count",
}
_MNTR_INTS = {
    "zk_packets_received": "received",
    "zk_packets_sent": "sent",
    "zk_num_alive_connections": "connections",
    "zk_outstanding_requests": "outstanding",
    "zk_znode_count": "znode_count",
    "zk_watch_count": "watch_count",
    "zk_ephemerals_count": "ephemerals_count",
    "zk_approximate_data_size": "approximate_data_size",
    "zk_synced_followers": "synced_followers",
    "zk_followers": "learners",  # ZooKeeper 3.5's name for what 3.6+ calls zk_learners
    "zk_learners": "learners",
}
_MNTR_FLOATS = {
    "zk_min_latency": "latency_min_ms",
    "zk_avg_latency": "latency_avg_ms",
    "zk_max_latency": "latency_max_ms",
}


def parse_srvr(text: str) -> ServerFields:
    """`srvr` (or `stat`): `Key: value` lines."""
    raw = _key_values(text, ":")
    out = ServerFields()
    if version := _short_version(raw.get("Zookeeper version")):
        out["version"] = version
    parts = raw.get("Latency min/avg/max", "").split("/")
    if len(parts) == 3:
        for name, part in zip(("latency_min_ms", "latency_avg_ms", "latency_max_ms"), parts, strict=True):
            _put_float(out, name, part)
    for key, name in _SRVR_INTS.items():
        _put_int(out, name, raw.get(key))
    if raw.get("Mode"):
        out["mode"] = raw["Mode"]
    return out


def parse_mntr(text: str) -> ServerFields:
    """`mntr`: `zk_key<TAB>value` lines; the few the pane shows are picked, the hundreds of others ignored."""
    raw = _key_values(text, "\t")
    out = ServerFields()
    for key, name in _MNTR_INTS.items():
        _put_int(out, name, raw.get(key))
    for key, name in _MNTR_FLOATS.items():
        _put_float(out, name, raw.get(key))
    if version := _short_version(raw.get("zk_version")):
        out["version"] = version
    if raw.get("zk_server_state"):
        out["mode"] = raw["zk_server_state"]
    return out


def parse_cons(text: str) -> tuple[ZooKeeperSession, ...]:
    """`cons`: one line per connection, ` /127.0.0.1:54932[1](queued=0,recved=8,sent=8,sid=0x1000…,lop=GETD,…)`."""
    sessions = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("/") or "(" not in line or not line.endswith(")"):
            continue
        head, _, body = line[1:-1].partition("(")
        client = head.rsplit("[", 1)[0]  # `[1]`: the interest ops, nothing to show
        stats: dict[str, str] = {}
        for item in body.split(","):
            key, sep, value = item.partition("=")
            if sep:
                stats[key.strip()] = value.strip()
        lop = stats.get("lop")
        sessions.append(
            ZooKeeperSession(
                client=client,
                session_id=_int(stats.get("sid")),
                queued=_int(stats.get("queued")) or 0,
                received=_int(stats.get("recved")) or 0,
                sent=_int(stats.get("sent")) or 0,
                last_operation=lop if lop and lop != "NA" else None,
                timeout_ms=_int(stats.get("to")),
                established_ms=_int(stats.get("est")),
                avg_latency_ms=_int(stats.get("avglat")),
                max_latency_ms=_int(stats.get("maxlat")),
            )
        )
    return tuple(sessions)


def _same_endpoint(client: str, local: tuple[str, int]) -> bool:
    """Whether a `cons` client (`127.0.0.1:5493`, `0:0:0:0:0:0:0:1:5493`) is this socket's own local end."""
    host, _, port = client.rpartition(":")
    if _int(port) != local[1]:
        return False
    try:
        return ipaddress.ip_address(host.strip("[]")) == ipaddress.ip_address(local[0].split("%", 1)[0])
    except ValueError:
        return host == local[0]


# --- talking to a server --------------------------------------------------------------------------------------------
class _WordFailed(Exception):
    """The word got no usable answer; the message says why, for the server's problem string."""


def ask(host: str, port: int, word: str, timeout_s: float) -> tuple[str, tuple[str, int]]:
    """Send one four-letter word; (the answer, our socket's local (host, port)). Raises OSError if unreachable."""
    with socket.create_connection((host, port), timeout=timeout_s) as s:
        s.settimeout(timeout_s)
        local = s.getsockname()
        s.sendall(word.encode("ascii"))
        chunks = []
        size = 0
        while size < _MAX_ANSWER and (chunk := s.recv(65536)):
            chunks.append(chunk)
            size += len(chunk)
    return b"".join(chunks).decode("utf-8", errors="replace"), (str(local[0]), int(local[1]))


def _unreachable(e: OSError, timeout_s: float) -> str:
    return socket_error_reason(e, timeout_s)


class ZooKeeperStatsSource:
    """Polls every server of a connect string with `srvr`, `mntr` and `cons`; `poll()` never raises for a server."""

    def __init__(
        self,
        hosts: str,
        timeout_s: float = 1.0,
        *,
        ask: Callable[[str, int, str, float], tuple[str, tuple[str, int]]] = ask,
    ) -> None:
        self.hosts = hosts
        self.servers = parse_connect_string(hosts)
        self.timeout_s = timeout_s
        self._ask = ask  # tests replace the socket with recorded answers

    def poll(self) -> EnsembleSnapshot:
        if len(self.servers) == 1:
            stats = [self.poll_server(*self.servers[0])]
        else:
            # In parallel: a server that is down costs one connect timeout, not one per server.
            with ThreadPoolExecutor(max_workers=min(len(self.servers), 8), thread_name_prefix="kafkatop-4lw") as pool:
                stats = list(pool.map(lambda hp: self.poll_server(*hp), self.servers))
        problems = tuple(Problem(SOURCE, s.address, s.problem) for s in stats if s.problem is not None)
        return EnsembleSnapshot(taken_at=time.time(), servers=tuple(stats), problems=problems)

    def poll_server(self, host: str, port: int) -> ZooKeeperServerStats:
        address = _address(host, port)
        values = ServerFields()
        notes: list[str] = []
        sessions: tuple[ZooKeeperSession, ...] = ()
        answered = False
        for word in ("srvr", "mntr", "cons"):
            try:
                text, local = self._word(host, port, word)
            except OSError as e:
                if not answered:  # down: the other words would only wait for the same timeout
                    return ZooKeeperServerStats(address, problem=_unreachable(e, self.timeout_s))
                notes.append(f"{word}: {_unreachable(e, self.timeout_s)}")
                continue
            except _WordFailed as e:
                answered = True
                if str(e) == NOT_SERVING:
                    return ZooKeeperServerStats(
                        address,
                        reachable=True,
                        problem="not serving requests: it has no quorum (electing a leader, or cut off from the "
                        "other servers)",
                    )
                notes.append(str(e))
                continue
            answered = True
            if word == "srvr":
                values.update(parse_srvr(text))
            elif word == "mntr":
                values = {**parse_mntr(text), **values}  # srvr and mntr agree; srvr's values win
            else:
                sessions = tuple(s for s in parse_cons(text) if not _same_endpoint(s.client, local))
        return ZooKeeperServerStats(
            address,
            reachable=True,
            sessions=sessions,
            problem="; ".join(notes) or None,
            **values,
        )

    def _word(self, host: str, port: int, word: str) -> tuple[str, tuple[str, int]]:
        text, local = self._ask(host, port, word, self.timeout_s)
        if NOT_WHITELISTED in text:
            raise _WordFailed(f"{word} is not in the server's 4lw.commands.whitelist")
        if NOT_SERVING in text:
            raise _WordFailed(NOT_SERVING)
        if not text.strip() and word != "cons":  # cons of a server without clients is just a blank line
            raise _WordFailed(f"{word}: empty answer (four-letter words disabled, or not a ZooKeeper server?)")
        return text, local
