"""Making librdkafka handles, and letting go of them safely.

Every AdminClient, Consumer and Producer kafkatop makes comes from here, kept alive by model.lifetime from its
creation until `release` frees it on a thread of kafkatop's own: librdkafka aborts the process if a handle is
destroyed on one of its threads, which Python would do wherever the last reference went (see model/lifetime.py).
tests/unit/test_handles.py checks that no module makes a handle any other way.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any, Self

from confluent_kafka import Consumer, KafkaException, Producer
from confluent_kafka.admin import AdminClient

from kafkatop.backends.kafka.errors import describe_error
from kafkatop.backends.model import lifetime
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import SourceUnavailable


def admin_client(config: Mapping[str, Any]) -> AdminClient:
    return lifetime.keep(AdminClient(dict(config)))


def consumer(config: Mapping[str, Any]) -> Consumer:
    return lifetime.keep(Consumer(dict(config)))


def producer(config: Mapping[str, Any]) -> Producer:
    return lifetime.keep(Producer(dict(config)))


def new_admin_client(
    connection: KafkaConnection, refuse: Callable[[str], Exception], client_id: str = "kafkatop"
) -> AdminClient:
    """An AdminClient of `connection`; settings librdkafka refuses raise `refuse(reason)`, secrets redacted."""
    try:
        return admin_client(connection.config(client_id))
    except (KafkaException, ValueError, TypeError) as e:
        raise refuse(f"invalid client configuration: {connection.redact(describe_error(e))}") from None


class AdminOwner:
    """What each of kafkatop's admins (of topics, groups, offsets, users, elections) is made of: its connection, a
    bound for every request, and an AdminClient of its own, `_client()` until `close` (or the end of `with`) lets go
    of it. `closed()` is what a call after that raises; `admin` makes the client (by default the connection's, its
    settings refused as SourceUnavailable)."""

    def __init__(
        self,
        connection: KafkaConnection,
        timeout_s: float,
        closed: Callable[[], Exception],
        admin: Callable[[], AdminClient] | None = None,
    ) -> None:
        self.connection = connection
        self.timeout_s = timeout_s
        self._created = time.monotonic()  # librdkafka's failures logged since then are this client's (errors.py)
        self._admin: AdminClient | None = (
            admin() if admin is not None else new_admin_client(connection, lambda r: SourceUnavailable("kafka", r))
        )
        self._closed = closed

    def close(self) -> None:
        # AdminClient has no close(): the handle is destroyed on a thread of kafkatop's own (`release`).
        box: list[Any] = [self._admin] if self._admin is not None else []
        self._admin = None
        release(box)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def _client(self) -> AdminClient:
        if self._admin is None:
            raise self._closed()
        return self._admin


def release(box: list[Any]) -> threading.Thread | None:
    """Destroys the handles in `box`, which holds their only references, on a thread of kafkatop's own (a Consumer
    is closed first). rd_kafka_destroy waits for the handle's threads, longer with a broker down, and in one case for
    ever (see group_reader.GroupReader): callers join the thread with a bound, if at all."""
    return lifetime.release(box, close=_close)


def _close(handle: Any) -> None:
    if isinstance(handle, Consumer):
        handle.close()
