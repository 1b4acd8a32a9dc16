"""Which brokers in a cluster's metadata answer a TCP connection now.

A broker killed moments ago stays in the metadata, leading its partitions, until the controller fences it (KRaft:
broker.session.timeout.ms, 9 s by default; ZooKeeper: its session timeout). kafka-topics prints that metadata as it
is; kafkatop prints the same lines and says which of them rest on a broker that is not there.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor

from kafkatop.backends.model.cluster import Broker


def unreachable(brokers: Iterable[Broker], timeout_s: float = 1.0) -> dict[int, str]:
    """Broker id → why a connection to it failed (refused, timed out), for the brokers that did not accept one;
    all are tried at once, so this takes at most `timeout_s`."""
    listed = [(b.id, b.host, b.port) for b in brokers if b.alive and b.host and b.port]
    if not listed:
        return {}
    with ThreadPoolExecutor(min(len(listed), 16), thread_name_prefix="kafkatop-reach") as pool:
        reasons = list(pool.map(lambda b: _connect(b[1], b[2], timeout_s), listed))
    return {b[0]: reason for b, reason in zip(listed, reasons, strict=True) if reason is not None}


def _connect(host: str, port: int, timeout_s: float) -> str | None:
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return None
    except TimeoutError:
        return f"no answer within {timeout_s:g} s"
    except ConnectionRefusedError:
        return "connection refused"
    except OSError as e:
        return e.strerror or str(e)
