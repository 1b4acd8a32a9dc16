"""One request description (protocol/wire.py `Api`), the one call that negotiates its version and sends it, and the
one way to ask each bootstrap server in turn (`first_answer`)."""

from __future__ import annotations

import time

import pytest

from kafkatop.backends.protocol.api_versions import ApiVersions
from kafkatop.backends.protocol.connection import BrokerConnection, Unsupported, first_answer
from kafkatop.backends.protocol.offset_delete import OFFSET_DELETE
from kafkatop.backends.protocol.wire import Api, ProtocolError

LIST_OFFSETS = Api(2, "ListOffsets", (1, 10), flexible_from=6)


def test_flexible_from_its_first_flexible_version() -> None:
    assert not LIST_OFFSETS.flexible(5) and LIST_OFFSETS.flexible(6)
    assert not OFFSET_DELETE.flexible(0)  # OffsetDelete has no flexible version
    assert LIST_OFFSETS.speaks(1) and LIST_OFFSETS.speaks(10) and not LIST_OFFSETS.speaks(11)


class _Offered(BrokerConnection):
    """A connection without a socket: the broker offers `offered`; `sent` keeps each request's header choices."""

    def __init__(self, offered: dict[int, tuple[int, int]]) -> None:
        self.address = "broker:9092"
        self._versions = ApiVersions(0, 0, offered)
        self.sent: list[tuple[int, int, bytes, bool]] = []

    def request(self, api_key: int, api_version: int, body: bytes, *, flexible: bool = True) -> bytes:
        self.sent.append((api_key, api_version, body, flexible))
        return b"answer"


def test_call_speaks_the_highest_common_version_with_its_header() -> None:
    conn = _Offered({2: (0, 7)})
    assert conn.call(LIST_OFFSETS, lambda v: f"v{v}".encode()) == (7, b"answer")
    assert conn.call(LIST_OFFSETS, b"same") == (7, b"answer")
    assert conn.sent == [(2, 7, b"v7", True), (2, 7, b"same", True)]
    conn = _Offered({2: (0, 5)})
    conn.call(LIST_OFFSETS, b"")
    assert conn.sent == [(2, 5, b"", False)]


def test_call_names_what_the_broker_does_not_offer() -> None:
    with pytest.raises(Unsupported, match="does not offer ListOffsets"):
        _Offered({}).call(LIST_OFFSETS, b"")
    with pytest.raises(Unsupported, match="offers ListOffsets v11–v12 only; kafkatop reads v1–v10"):
        _Offered({2: (11, 12)}).call(LIST_OFFSETS, b"")


def test_first_answer_passes_by_what_does_not_answer() -> None:
    def ask(host: str, port: int) -> str:
        if host == "down":
            raise ConnectionRefusedError
        if host == "nonsense":
            raise ProtocolError("a 5-byte frame")
        return f"{host} answered"

    reasons: list[str] = []
    addresses = [("down", 1), ("nonsense", 2), ("up", 3), ("later", 4)]
    assert first_answer(addresses, ask, 5, reasons, prefix="Ask to ") == "up answered"
    assert reasons == [
        "Ask to down:1: connection refused: is the node down, or is this the wrong port?",
        "Ask to nonsense:2: a 5-byte frame",
    ]
    reasons.clear()
    assert first_answer([("down", 1)], ask, 5, reasons) is None and reasons[0].startswith("down:1: ")


def test_first_answer_stops_at_unsupported_and_at_the_deadline() -> None:
    def unsupported(host: str, port: int) -> str:
        raise Unsupported("no such request")

    with pytest.raises(Unsupported):
        first_answer([("a", 1), ("b", 2)], unsupported, 5, [])

    def timed_out(host: str, port: int) -> str:
        raise TimeoutError("timed out")

    reasons: list[str] = []
    assert first_answer([("a", 1), ("b", 2)], timed_out, 0, reasons, deadline=time.monotonic()) is None
    assert reasons == ["a:1: no answer within 0 s"]
