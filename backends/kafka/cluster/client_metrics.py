"""Client-metrics resources (KIP-714: which metrics clients push to the brokers, how often, and which clients) read
and changed as kafka-client-metrics.sh does: listed with ListConfigResources (protocol/list_config_resources.py),
described with DescribeConfigs and changed with IncrementalAlterConfigs on resource type CLIENT_METRICS (16), which
confluent-kafka's ConfigResource does not take. Spoken over the configs' own exchange (configs.py: one bounded
connection, TLS and SASL as the client settings say); Kafka's refusal comes back as its error name and message."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kafkatop.backends.kafka.cluster.configs import ConfigAdmin
from kafkatop.backends.model.configs import ConfigError, ConfigResource
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.protocol.configs import (
    DESCRIBE_CONFIGS,
    INCREMENTAL_ALTER_CONFIGS,
    decode_describe_configs,
    decode_incremental_alter_configs,
    describe_configs_body,
    incremental_alter_configs_body,
)
from kafkatop.backends.protocol.list_config_resources import (
    LIST_CONFIG_RESOURCES,
    decode_list_config_resources,
    list_config_resources_body,
)
from kafkatop.backends.protocol.wire import error_name

Entries = tuple[tuple[str, str | None], ...]  # (config name, value), in the broker's order


def _resource(name: str) -> ConfigResource:
    return ConfigResource("client-metrics", name)


def _said(code: int, message: str | None) -> str:
    name = error_name(code)
    return f"{name}: {message}" if message else name


class ClientMetricsAdmin:
    """One cluster's client-metrics resources; every call bounded by `timeout_s`. Failures: ConfigError."""

    def __init__(self, connection: KafkaConnection, timeout_s: float = 30.0) -> None:
        self._configs = ConfigAdmin(connection, timeout_s)

    def list(self) -> list[str]:
        """The resources' names, in the broker's order."""
        with self._configs._exchange() as ex:
            conn = ex.any_broker()
            version = ex.version(conn, LIST_CONFIG_RESOURCES)
            code, names = ex.exchange(conn, LIST_CONFIG_RESOURCES, version, list_config_resources_body(version),
                                      decode_list_config_resources)  # fmt: skip
        if code:
            raise ConfigError(f"Kafka refused to list the client-metrics resources: {_said(code, None)}")
        return names

    def describe(self, name: str) -> Entries:
        """The resource's configs (metrics, interval.ms, match), as the broker sends them."""
        with self._configs._exchange() as ex:
            conn = ex.any_broker()
            version = ex.version(conn, DESCRIBE_CONFIGS)
            answer = ex.exchange(conn, DESCRIBE_CONFIGS, version, describe_configs_body(_resource(name), version),
                                 decode_describe_configs)  # fmt: skip
        if answer.error_code:
            raise ConfigError(f"cannot read client-metrics resource {name!r}: {answer.error}")
        return tuple((e.name, e.value) for e in answer.entries)

    def alter(self, name: str, to_set: Mapping[str, str], to_delete: Sequence[str]) -> None:
        """Set and delete configs of the resource in one IncrementalAlterConfigs (which creates it)."""
        with self._configs._exchange() as ex:
            conn = ex.any_broker()
            version = ex.version(conn, INCREMENTAL_ALTER_CONFIGS)
            body = incremental_alter_configs_body(_resource(name), dict(to_set), tuple(to_delete), False, version)
            code, message = ex.exchange(conn, INCREMENTAL_ALTER_CONFIGS, version, body,
                                        decode_incremental_alter_configs)  # fmt: skip
        if code:
            raise ConfigError(f"Kafka refused the change to client-metrics resource {name!r}: {_said(code, message)}")

    def delete(self, name: str) -> None:
        """Every config of the resource deleted, as the tool deletes it (the resource goes with its last config)."""
        self.alter(name, {}, [config for config, _ in self.describe(name)])
