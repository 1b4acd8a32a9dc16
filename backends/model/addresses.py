"""`host:port` lists as Kafka and ZooKeeper write them: bootstrap servers, ZooKeeper connect strings."""

from __future__ import annotations

import socket

from kafkatop.backends.model.errors import BadAddress


def parse_host_ports(text: str, default_port: int, *, source: str, what: str) -> tuple[tuple[str, int], ...]:
    """`h1:9092, PLAINTEXT://h2:9093,[::1]:9094,h3` -> ((h1, 9092), (h2, 9093), (::1, 9094), (h3, default_port)).
    A listener prefix (`PLAINTEXT://`) is dropped; a bare host gets `default_port`. Anything unreadable raises
    BadAddress(source, …) naming the item and the whole `what`."""
    out = []
    for raw in text.split(","):
        item = raw.strip().rpartition("://")[2]
        if not item:
            continue
        if item.startswith("["):  # [::1]:2181
            host, _, rest = item[1:].partition("]")
            port_text = rest.removeprefix(":")
        elif item.count(":") == 1:
            host, _, port_text = item.partition(":")
        else:  # a bare host, or a bare IPv6 address
            host, port_text = item, ""
        try:
            port = int(port_text) if port_text else default_port
        except ValueError:
            port = -1
        if not host or any(c.isspace() for c in host) or not 0 < port < 65536:
            raise BadAddress(
                source, f"cannot read {item!r} in the {what} {text!r}: give HOST:PORT, a port from 1 to 65535"
            )
        out.append((host, port))
    if not out:
        raise BadAddress(source, f"no address in the {what} {text!r}: give HOST:PORT, e.g. 127.0.0.1:9092")
    return tuple(out)


def socket_error_reason(e: OSError, timeout_s: float, refused: str = "connection refused: is the server down?") -> str:
    """Why a connection failed, in words: refused, no answer, unknown host, or the OS's own reason."""
    if isinstance(e, ConnectionRefusedError):
        return refused
    if isinstance(e, TimeoutError):
        return f"no answer within {timeout_s:g} s"
    if isinstance(e, socket.gaierror):
        return f"unknown host ({e.strerror})"
    return f"unreachable ({e.strerror or type(e).__name__})"
