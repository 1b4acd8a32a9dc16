"""The client quotas of a cluster, as `kafka-configs.sh --describe --entity-type users|clients|ips` reads them:
DescribeClientQuotas (protocol/client_quotas.py), asked of the first bootstrap server that answers, within one
deadline; TLS and SASL as the client settings say. `on_any_broker` is that asking, for the other requests of
`kafkatop users` too."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from kafkatop.backends.kafka.refusal import refusal
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError, SourceUnavailable
from kafkatop.backends.model.users import UserQuota
from kafkatop.backends.protocol.client_quotas import (
    DESCRIBE_CLIENT_QUOTAS,
    decode_response,
    request_body,
)
from kafkatop.backends.protocol.connection import BrokerConnection, Unsupported, os_reason, require_supported
from kafkatop.backends.protocol.wire import ProtocolError, error_name

T = TypeVar("T")
SAID = "cannot describe the client quotas"


class QuotasRefused(KafkatopError):
    """The broker answered DescribeClientQuotas with an error; the message is Kafka's (an authorization error is a
    Refused instead, naming what to grant)."""


def on_any_broker(connection: KafkaConnection, timeout_s: float, what: str, call: Callable[[BrokerConnection], T]) -> T:
    """`call` on a connection to the first bootstrap server that answers, every read and write within `timeout_s`.
    SourceUnavailable when none answers; Unsupported when the cluster does not speak `what` (asking another broker
    of the same cluster changes nothing)."""
    deadline = time.monotonic() + timeout_s
    reasons: list[str] = []
    for host, port in connection.addresses:
        try:
            with BrokerConnection(host, port, deadline, connection.client_settings) as conn:
                return call(conn)
        except Unsupported:
            raise
        except OSError as e:
            reasons.append(f"{host}:{port}: {os_reason(e, timeout_s)}")
        except ProtocolError as e:
            reasons.append(f"{host}:{port}: {e}")
    raise SourceUnavailable("kafka", f"no broker answered {what} ({'; '.join(reasons)})")


def describe_client_quotas(connection: KafkaConnection, timeout_s: float) -> tuple[UserQuota, ...]:
    """Every entity that has a quota (ClientQuotaFilter.all()), in the broker's order. SourceUnavailable when no
    bootstrap server answers, Unsupported when the cluster has no DescribeClientQuotas (before Kafka 2.6, the
    librdkafka mock), Refused (what to grant) or QuotasRefused when it refuses."""
    require_supported(connection, "DescribeClientQuotas", "kafka-configs.sh --describe --entity-type users")

    def ask(conn: BrokerConnection) -> tuple[UserQuota, ...]:
        version, payload = conn.call(DESCRIBE_CLIENT_QUOTAS, lambda v: request_body((), False, v))
        answer = decode_response(payload, version)
        if answer.error_code:
            name = error_name(answer.error_code)
            said = f"{SAID}: {name}{': ' + answer.error_message if answer.error_message else ''}"
            raise refusal(name, "describe quotas", connection, SAID) or QuotasRefused(said)
        return answer.entries

    return on_any_broker(connection, timeout_s, "DescribeClientQuotas", ask)
