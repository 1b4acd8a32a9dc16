"""Every partition's log start and end offsets, two ListOffsets requests per leader per poll (earliest, latest), spoken
by kafkatop itself (protocol/list_offsets.py) over a connection kept to each leader.

confluent-kafka answers ListOffsets with a Future per partition: at 10,000 partitions, 20,000 Futures a poll, most of
a second of Python before a single figure is read. Here a leader's answer is one response decoded into plain tuples.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.protocol.connection import KeptConnections, Unsupported, os_reason
from kafkatop.backends.protocol.list_offsets import (
    EARLIEST_TIMESTAMP,
    LATEST_TIMESTAMP,
    LIST_OFFSETS,
    decode_list_offsets,
    list_offsets_body,
)
from kafkatop.backends.protocol.security import unsupported
from kafkatop.backends.protocol.wire import ProtocolError, error_name

CONSUMER_REPLICA_ID = -1  # as a consumer asks: the high watermark, not a follower's log end
LEADER_THREADS = 8

Offsets = dict[tuple[str, int], tuple[int, int | None]]  # (topic, partition): (offset, leader epoch)


@dataclass
class Watermarks:
    """One poll's answers: log start (`low`) and end (`high`) offsets, and the partitions not answered, by reason."""

    low: Offsets = field(default_factory=dict)
    high: Offsets = field(default_factory=dict)
    # (request, reason): the partitions it failed for, e.g. ("ListOffsets(latest)", "NOT_LEADER_OR_FOLLOWER"): ["t-0"]
    failures: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    unsupported: str | None = None  # the brokers speak no ListOffsets kafkatop reads: read them another way
    requests: int = 0


class WatermarkReader:
    """See the module's docstring. `start` returns at once; the reads run on threads, one per leader."""

    def __init__(self, connection: KafkaConnection) -> None:
        self.settings = connection.client_settings
        self._connections = KeptConnections(self.settings)
        self._pool = ThreadPoolExecutor(LEADER_THREADS, thread_name_prefix="kafkatop-watermarks")

    @staticmethod
    def speaks(connection: KafkaConnection) -> bool:
        return unsupported(connection.client_settings) is None

    def start(
        self,
        leaders: Mapping[int, tuple[str, int]],
        partitions: Mapping[int, Mapping[str, Sequence[int]]],
        deadline: float,
    ) -> list[Future[Watermarks]]:
        """`partitions`: by leader id, the topics' partition ids it leads; `leaders`: where each leader listens (a
        leader missing there is down: its partitions are not asked, and said so)."""
        started: list[Future[Watermarks]] = []
        for node, asked in partitions.items():
            if node in leaders:
                started.append(self._pool.submit(self._read, node, leaders[node], asked, deadline))
                continue
            down: Future[Watermarks] = Future()
            names = [f"{t}-{p}" for t, ps in asked.items() for p in ps]
            down.set_result(Watermarks(failures={("ListOffsets", f"leader broker {node} is down"): names}))
            started.append(down)
        return started

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        self._connections.close()

    def _read(
        self, node: int, address: tuple[str, int], asked: Mapping[str, Sequence[int]], deadline: float
    ) -> Watermarks:
        kept = node in self._connections
        out = self._read_once(node, address, asked, deadline)
        if out.failures and kept and not out.low and not out.high and time.monotonic() < deadline:
            out = self._read_once(node, address, asked, deadline)  # a kept connection the broker closed meanwhile
        return out

    def _read_once(
        self, node: int, address: tuple[str, int], asked: Mapping[str, Sequence[int]], deadline: float
    ) -> Watermarks:
        out = Watermarks()
        host, port = address
        try:
            conn = self._connections.get(node, host, port, deadline)
            version = conn.version_for(LIST_OFFSETS)
            for what, timestamp, into in (
                ("earliest", EARLIEST_TIMESTAMP, out.low),
                ("latest", LATEST_TIMESTAMP, out.high),
            ):
                timeout_ms = max(1, int((deadline - time.monotonic()) * 1000))
                body = list_offsets_body(
                    version, asked, timestamp=timestamp, replica_id=CONSUMER_REPLICA_ID, timeout_ms=timeout_ms
                )
                out.requests += 1
                payload = conn.send(LIST_OFFSETS, version, body)
                for p in decode_list_offsets(payload, version).partitions:
                    if p.error_code:
                        key = (f"ListOffsets({what})", error_name(p.error_code))
                        out.failures.setdefault(key, []).append(f"{p.topic}-{p.partition}")
                    elif p.offset >= 0:
                        into[(p.topic, p.partition)] = (p.offset, p.leader_epoch if p.leader_epoch >= 0 else None)
        except Unsupported as e:
            out.unsupported = str(e)
        except (OSError, ProtocolError) as e:
            self._connections.drop(node)
            why = os_reason(e, max(0.0, deadline - time.monotonic())) if isinstance(e, OSError) else str(e)
            names = [f"{t}-{p}" for t, ps in asked.items() for p in ps]
            out.failures.setdefault(("ListOffsets", f"leader broker {node} ({host}:{port}): {why}"), []).extend(names)
        return out
