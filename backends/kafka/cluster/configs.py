"""Topic and broker configs, read and changed as `kafka-configs.sh` does: DescribeConfigs with synonyms, and
IncrementalAlterConfigs, checked before anything is sent (an unknown name, a read-only config, a value of the wrong
type, a delete of what is not set), then sent with validate_only, then for real. Kafka's refusal comes back as its
error name and message, and nothing is changed.

Spoken over kafkatop's own wire protocol code (protocol/configs.py says why not confluent-kafka's), one bounded
connection per broker asked, every call within `timeout_s`. A broker's configs are asked of that broker (Kafka
answers only for itself); a topic's and the cluster-wide defaults of any broker (a KRaft broker forwards a change
to the controller). TLS and SASL as the client settings say (protocol/security.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from kafkatop.backends.insight.grants import Doing, Refused, refused
from kafkatop.backends.model.configs import (
    ConfigError,
    ConfigRefused,
    ConfigResource,
    ResourceConfigs,
    check_change,
)
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.protocol.configs import (
    DESCRIBE_CONFIGS,
    INCREMENTAL_ALTER_CONFIGS,
    METADATA,
    BrokerAddress,
    decode_describe_configs,
    decode_incremental_alter_configs,
    decode_metadata_brokers,
    describe_configs_body,
    incremental_alter_configs_body,
    metadata_brokers_body,
)
from kafkatop.backends.protocol.connection import BrokerConnection, Unsupported, os_reason
from kafkatop.backends.protocol.security import SecurityError, unsupported
from kafkatop.backends.protocol.wire import (
    Api,
    ProtocolError,
    Reader,
    error_name,
    response_reader,
)

T = TypeVar("T")

# Kafka's refusals of what was asked (a value, a name, a resource): the user fixes the input (exit 2).
_REFUSALS = {"INVALID_CONFIG", "INVALID_REQUEST", "POLICY_VIOLATION", "UNKNOWN_TOPIC_OR_PARTITION"}
_NO_DESCRIBE_CONFIGS = (
    "does not offer DescribeConfigs: configs need a real Kafka (the librdkafka mock cluster of kafkatop's demo has "
    "no DescribeConfigs or IncrementalAlterConfigs)"
)
SETTLE_S = 3.0  # at most this long for a change to show in what a broker describes (KRaft: the metadata log)


def _address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class _Exchange:
    """The connections of one call, every read and write before one deadline; closed together."""

    def __init__(self, admin: ConfigAdmin) -> None:
        self.admin = admin
        self.deadline = time.monotonic() + admin.timeout_s
        self.conns: dict[str, BrokerConnection] = {}
        self._brokers: list[BrokerAddress] | None = None

    def __enter__(self) -> _Exchange:
        return self

    def __exit__(self, *_: object) -> None:
        for conn in self.conns.values():
            conn.close()

    def _fail(self, address: str, e: BaseException) -> ConfigError:
        timeout = self.admin.timeout_s
        if isinstance(e, TimeoutError):
            return ConfigError(f"no answer from Kafka at {address} within {timeout:g} s: is the broker up?")
        if isinstance(e, OSError):
            return ConfigError(f"cannot talk to Kafka at {address}: {os_reason(e, timeout)}")
        return ConfigError(f"{address}: {e}")

    def _open(self, host: str, port: int) -> BrokerConnection:
        address = _address(host, port)
        conn = self.conns.get(address)
        if conn is None:
            try:
                conn = BrokerConnection(host, port, self.deadline, self.admin.connection.client_settings)
            except SecurityError as e:
                raise ConfigError(f"{address}: {e}" if address not in str(e) else str(e)) from None
            except (OSError, TimeoutError) as e:
                raise self._fail(address, e) from None
            self.conns[address] = conn
        return conn

    def any_broker(self) -> BrokerConnection:
        """A connection to the first bootstrap address that answers."""
        if self.conns:
            return next(iter(self.conns.values()))
        reasons = []
        for host, port in self.admin.connection.addresses:
            try:
                return self._open(host, port)
            except ConfigError as e:
                reasons.append(str(e))
        raise ConfigError("; ".join(reasons) or f"no bootstrap address in {self.admin.connection}")

    def broker(self, broker_id: int) -> BrokerConnection:
        """A connection to this broker, found in the metadata; refused when the cluster has no such broker."""
        known = self.brokers()
        found = next((b for b in known if b.node_id == broker_id), None)
        if found is None:
            ids = ", ".join(str(b.node_id) for b in sorted(known, key=lambda b: b.node_id))
            raise ConfigRefused(
                f"broker {broker_id} is not in the cluster (its live brokers: {ids}): give one of those ids",
                resource=ConfigResource.broker(broker_id),
            )
        return self._open(found.host, found.port)

    def brokers(self) -> list[BrokerAddress]:
        if self._brokers is None:
            conn = self.any_broker()
            version = self.version(conn, METADATA)
            body = metadata_brokers_body(version)
            self._brokers = self.exchange(conn, METADATA, version, body, decode_metadata_brokers)
        return self._brokers

    def exchange(
        self, conn: BrokerConnection, api: Api, version: int, body: bytes, decode: Callable[[Reader, int], T]
    ) -> T:
        """One request and its decoded response; a socket or protocol failure becomes a ConfigError."""
        try:
            payload = conn.send(api, version, body)
            return decode(response_reader(payload, flexible=api.flexible(version)), version)
        except (OSError, TimeoutError, ProtocolError) as e:
            raise self._fail(conn.address, e) from None

    def version(self, conn: BrokerConnection, api: Api) -> int:
        try:
            if api in (DESCRIBE_CONFIGS, INCREMENTAL_ALTER_CONFIGS) and api.key not in conn.api_versions().versions:
                raise ConfigError(f"{conn.address} {_NO_DESCRIBE_CONFIGS}", code="UNSUPPORTED")
            return conn.version_for(api)
        except Unsupported as e:
            raise ConfigError(str(e), code="UNSUPPORTED") from None
        except (OSError, TimeoutError, ProtocolError) as e:
            raise self._fail(conn.address, e) from None


class ConfigAdmin:
    """Describes and changes the configs of topics, brokers and the broker defaults; every call bounded by
    `timeout_s`. Failures are ConfigError (ConfigRefused when the input was wrong: nothing changed)."""

    def __init__(self, connection: KafkaConnection, timeout_s: float = 10.0) -> None:
        self.connection = connection
        self.timeout_s = timeout_s

    def close(self) -> None:
        """Nothing stays open between calls: each opens and closes its own connections."""

    def _exchange(self) -> _Exchange:
        why = unsupported(self.connection.client_settings)
        if why is not None:
            raise ConfigError(
                f"kafkatop cannot read or change configs itself with {why}: use kafka-configs.sh --command-config "
                "FILE for it",
                code="UNSUPPORTED",
            )
        return _Exchange(self)

    # --- describe -----------------------------------------------------------------------------------------------
    def describe(
        self, resource: ConfigResource, expect: tuple[Mapping[str, str], Sequence[str]] | None = None
    ) -> ResourceConfigs:
        """Every entry of `resource`, with synonyms, sorted by name (as kafka-configs prints them).

        `expect` (set, deleted): a change just made. A broker applies it from the metadata log a moment later, so
        the entries are read again (for at most SETTLE_S) until it shows.
        """
        with self._exchange() as ex:
            configs = self._describe(ex, resource)
            if expect is not None:
                end = min(ex.deadline, time.monotonic() + SETTLE_S)
                while not _shows(configs, *expect) and time.monotonic() < end:
                    time.sleep(0.05)
                    configs = self._describe(ex, resource)
            return configs

    def _connection_for(self, ex: _Exchange, resource: ConfigResource) -> BrokerConnection:
        if resource.kind == "broker":
            if not resource.name.isdigit():
                raise ConfigRefused(f"a broker is named by its id, a whole number: not {resource.name!r}")
            return ex.broker(int(resource.name))
        return ex.any_broker()

    def _describe(self, ex: _Exchange, resource: ConfigResource) -> ResourceConfigs:
        conn = self._connection_for(ex, resource)
        version = ex.version(conn, DESCRIBE_CONFIGS)
        body = describe_configs_body(resource, version)
        answer = ex.exchange(conn, DESCRIBE_CONFIGS, version, body, decode_describe_configs)
        if answer.error_code:
            code = error_name(answer.error_code)
            if code == "UNKNOWN_TOPIC_OR_PARTITION":
                said = f"topic {resource.name!r} does not exist ({answer.error}): `kafkatop describe` lists the topics"
                raise ConfigRefused(said, resource=resource, code=code)
            said = f"cannot read the configs of {resource}"
            raise self._refused(code, "describe configs", resource, said) or ConfigError(
                f"{said}: {answer.error}", resource=resource, code=code
            )
        return ResourceConfigs(resource, tuple(sorted(answer.entries, key=lambda e: e.name)))

    # --- alter ----------------------------------------------------------------------------------------------------
    def alter(self, resource: ConfigResource, to_set: Mapping[str, str], to_delete: Sequence[str]) -> None:
        """Set and delete configs of `resource` in one IncrementalAlterConfigs: checked here first (check_change),
        then by Kafka (validate_only), then made. Refused: ConfigRefused, and nothing changed."""
        to_set, to_delete = dict(to_set), tuple(to_delete)
        with self._exchange() as ex:
            current = self._describe(ex, resource)
            known = None
            if resource.kind == "broker-defaults":
                # The defaults describe only what is set; any broker's own configs say which names exist.
                known = self._describe(ex, ConfigResource.broker(ex.brokers()[0].node_id))
            if problems := check_change(current, to_set, to_delete, known):
                raise ConfigRefused(f"Cannot change {resource}: " + "; ".join(problems), resource=resource)
            conn = self._connection_for(ex, resource)
            version = ex.version(conn, INCREMENTAL_ALTER_CONFIGS)
            for validate_only in (True, False):
                body = incremental_alter_configs_body(resource, to_set, to_delete, validate_only, version)
                code, message = ex.exchange(
                    conn, INCREMENTAL_ALTER_CONFIGS, version, body, decode_incremental_alter_configs
                )
                if code:
                    name = error_name(code)
                    said = f"{name}: {message}" if message else name
                    error = ConfigRefused if name in _REFUSALS else ConfigError
                    what = f"Kafka refused the change to {resource} (nothing was changed)"
                    raise self._refused(name, "alter configs", resource, what) or error(
                        f"Kafka refused the change to {resource}: {said}. Nothing was changed.", resource=resource,
                        code=name,
                    )  # fmt: skip

    def _refused(self, code: str, doing: Doing, resource: ConfigResource, said: str) -> Refused | None:
        """The authorizer's refusal, with what to grant: on the topic, or on the cluster for a broker's configs."""
        topics = [resource.name] if resource.kind == "topic" else []
        return refused(code, doing, self.connection.client_settings, said, topics=topics)


def _shows(configs: ResourceConfigs, to_set: Mapping[str, str], to_delete: Sequence[str]) -> bool:
    """Whether the described configs show the change: each set name overridden here with its value (a sensitive one
    only by its source), each deleted one no longer."""
    resource = configs.resource
    for name, value in to_set.items():
        entry = configs.entry(name)
        if entry is None or not entry.overridden_on(resource) or (not entry.is_sensitive and entry.value != value):
            return False
    return not any((e := configs.entry(name)) is not None and e.overridden_on(resource) for name in to_delete)
