"""The client quotas of a cluster, as `kafka-configs.sh --describe --entity-type users|clients|ips` reads them:
DescribeClientQuotas (protocol/client_quotas.py), asked of the first bootstrap server that answers, within one
deadline (`on_any_broker`); TLS and SASL as the client settings say."""

from __future__ import annotations

from typing import TypeVar

from kafkatop.backends.kafka.refusal import refusal
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.users import UserQuota
from kafkatop.backends.protocol.client_quotas import (
    DESCRIBE_CLIENT_QUOTAS,
    decode_response,
    request_body,
)
from kafkatop.backends.protocol.connection import (
    BrokerConnection,
    on_any_broker,
    require_supported,
)
from kafkatop.backends.protocol.wire import error_name

T = TypeVar("T")
SAID = "cannot describe the client quotas"


class QuotasRefused(KafkatopError):
    """The broker answered DescribeClientQuotas with an error; the message is Kafka's (an authorization error is a
    Refused instead, naming what to grant)."""


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
