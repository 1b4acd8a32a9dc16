"""Making librdkafka handles, and letting go of them safely.

A handle is destroyed when its last Python reference goes. rd_kafka_destroy waits for the handle's threads (longer
with a broker down, and in one case for ever: see group_reader.GroupReader), and librdkafka aborts the process if it
runs on one of its own threads (a callback that held the last reference). So a handle kafkatop is done with is handed
to `destroy_later`, which destroys it on a thread of kafkatop's own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from confluent_kafka import Consumer, KafkaException
from confluent_kafka.admin import AdminClient

from kafkatop.backends.kafka.errors import describe_error
from kafkatop.backends.model.connection import KafkaConnection


def new_admin_client(
    connection: KafkaConnection, refuse: Callable[[str], Exception], client_id: str = "kafkatop"
) -> AdminClient:
    """An AdminClient of `connection`; settings librdkafka refuses raise `refuse(reason)`, secrets redacted."""
    try:
        return AdminClient(connection.config(client_id))
    except (KafkaException, ValueError, TypeError) as e:
        raise refuse(f"invalid client configuration: {connection.redact(describe_error(e))}") from None


def destroy_later(box: list[Any]) -> threading.Thread | None:
    """Destroys the librdkafka handles in `box`, which holds their only references, on a thread of its own.

    rd_kafka_destroy waits for the handle's threads, longer with a broker down, and in one case for ever (see
    group_reader.GroupReader): the poll must not wait for it, and neither must the interpreter's exit (a daemon thread).
    """
    if not box:
        return None
    thread = threading.Thread(target=_destroy, args=(box,), name="kafkatop-destroy", daemon=True)
    thread.start()
    return thread


def _destroy(box: list[Any]) -> None:
    while box:
        handle = box.pop(0)  # in order: callers put the handles whose destroy may hang last
        try:
            if isinstance(handle, Consumer):
                handle.close()  # leaves nothing to do for the destructor below
        except Exception:  # noqa: BLE001 - a handle being thrown away has nothing left to report to
            pass
        del handle  # the last reference: the destructor runs rd_kafka_destroy here, on this thread
