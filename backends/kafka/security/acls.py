"""The cluster's ACLs, as kafka-acls.sh reads and changes them: DescribeAcls, CreateAcls and DeleteAcls, spoken by
kafkatop itself (protocol/acls.py says why not librdkafka's), and the brokers' authorizer (`authorizer.class.name`,
`super.users`, from DescribeConfigs of a broker, read once).

One connection to the first bootstrap server that answers, kept between calls (TLS and SASL as the client settings
say) and used by one call at a time; every call bounded by `timeout_s`. Any broker takes the requests: a KRaft broker
forwards CreateAcls and DeleteAcls to the active controller, and answers once the change is committed; the broker
applies it from the metadata log a moment later, so `create` and `delete` return once it shows in what that broker
describes. Kafka's refusals become AclsRefused, naming the error and what to do.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from kafkatop.backends.insight import grants
from kafkatop.backends.kafka.cluster.configs import ConfigAdmin
from kafkatop.backends.model.acls import AclBinding, AclBindingFilter, AclsSnapshot, AuthorizerInfo
from kafkatop.backends.model.configs import ConfigResource
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import BadInput, KafkatopError, SourceUnavailable
from kafkatop.backends.protocol.acls import (
    CLUSTER_AUTHORIZATION_FAILED,
    CREATE_ACLS,
    DELETE_ACLS,
    DESCRIBE_ACLS,
    SECURITY_DISABLED,
    acl_error,
    create_acls_body,
    decode_create_acls,
    decode_delete_acls,
    decode_describe_acls,
    delete_acls_body,
    describe_acls_body,
)
from kafkatop.backends.protocol.configs import (
    METADATA,
    decode_metadata_brokers,
    metadata_brokers_body,
)
from kafkatop.backends.protocol.connection import BrokerConnection, Unsupported, os_reason, require_supported
from kafkatop.backends.protocol.wire import Api, ProtocolError, response_reader

T = TypeVar("T")

SETTLE_S = 3.0  # at most this long for a change to show in what the broker describes
UNREADABLE = "unknown"  # AuthorizerInfo.class_name when the brokers' configs may not be read (DescribeConfigs refused)
INVALID = frozenset({42, 67})  # INVALID_REQUEST, INVALID_PRINCIPAL_TYPE: the input was wrong
NO_AUTHORIZER = (
    "it has no authorizer (SECURITY_DISABLED), so it keeps no ACLs: every broker and controller needs "
    "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer (KRaft) and super.users; a lab "
    "with one: `kafkatop up --security sasl_ssl --authorizer`"
)


class AclsRefused(KafkatopError):
    """Kafka refused an ACL request; `code` is its error name (SECURITY_DISABLED: no authorizer;
    CLUSTER_AUTHORIZATION_FAILED: this principal may not), or UNSUPPORTED for a cluster without the requests."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


class AclsInvalid(AclsRefused, BadInput):
    """Kafka refused what was asked (INVALID_REQUEST): fix the input (exit 2)."""


def principal_of(settings: Mapping[str, str]) -> str | None:
    """User:NAME of the SASL user (or OIDC client) the settings log in as, as insight.grants reads them; None without
    SASL (the brokers' name for it is theirs) or where only the brokers know it."""
    if not settings.get("security.protocol", "PLAINTEXT").strip().upper().startswith("SASL_"):
        return None
    name = grants.principal_of(settings)
    return None if "<" in name else name


class KafkaAcls:
    """The AclAdmin port (backends/ports.py) on a Kafka cluster; see the module's docstring."""

    def __init__(self, connection: KafkaConnection, timeout_s: float = 10.0) -> None:
        self.connection = connection
        self.timeout_s = timeout_s
        self.principal = principal_of(connection.client_settings)
        self._lock = threading.Lock()  # one call at a time on the kept connection
        self._conn: BrokerConnection | None = None
        self._authorizer: AuthorizerInfo | None = None  # read once

    def close(self) -> None:
        with self._lock:
            self._drop()

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # --- the port -------------------------------------------------------------------------------------------------
    def poll(self) -> AclsSnapshot:
        """Every binding, the authorizer and who kafkatop is. A cluster that keeps no ACLs (no authorizer, no ACL
        requests), will not show them to this principal or speaks no version kafkatop does is a snapshot with
        `error`; one that cannot be reached raises SourceUnavailable."""
        try:
            bindings = self.describe(AclBindingFilter())
        except AclsRefused as e:
            none = e.code in ("SECURITY_DISABLED", "UNSUPPORTED")
            authorizer = AuthorizerInfo(None) if none else self.authorizer()
            return AclsSnapshot((), authorizer, self.principal, str(e), time.time())
        except Unsupported as e:  # versions kafkatop does not speak, or security its connections cannot
            return AclsSnapshot((), AuthorizerInfo(UNREADABLE), self.principal, str(e), time.time())
        return AclsSnapshot(bindings, self.authorizer(), self.principal, None, time.time())

    def describe(self, matching: AclBindingFilter) -> tuple[AclBinding, ...]:
        return self._call("DescribeAcls", lambda conn: self._describe(conn, matching))

    def create(self, bindings: Sequence[AclBinding]) -> None:
        """Create `bindings` (those that exist already stay as they are); refused: AclsRefused, naming each."""
        if not bindings:
            return

        def run(conn: BrokerConnection) -> None:
            results = decode_create_acls(self._call_api(conn, CREATE_ACLS, create_acls_body(bindings)))
            if len(results) != len(bindings):
                raise ProtocolError(f"CreateAcls answered {len(results)} results for {len(bindings)} ACLs")
            failed = [(b, code, message) for b, (code, message) in zip(bindings, results, strict=True) if code]
            if failed:
                raise self._refused("CreateAcls", "Alter", [(code, message, b) for b, code, message in failed])
            self._settle(conn, bindings, present=True)

        self._call("CreateAcls", run)

    def delete(self, filters: Sequence[AclBindingFilter]) -> tuple[AclBinding, ...]:
        """Delete every binding that one of `filters` matches; the bindings deleted (none matched: empty)."""
        if not filters:
            return ()

        def run(conn: BrokerConnection) -> tuple[AclBinding, ...]:
            results = decode_delete_acls(self._call_api(conn, DELETE_ACLS, delete_acls_body(filters)))
            failed: list[tuple[int, str | None, AclBinding | None]] = [
                (r.error_code, r.error_message, None) for r in results if r.error_code
            ]
            failed += [(code, message, b) for r in results for code, message, b in r.matching if code]
            if failed:
                raise self._refused("DeleteAcls", "Alter", failed)
            deleted = tuple(dict.fromkeys(b for r in results for _, _, b in r.matching))
            self._settle(conn, deleted, present=False)
            return deleted

        return self._call("DeleteAcls", run)

    def authorizer(self) -> AuthorizerInfo:
        """The brokers' authorizer and super users (read once); UNREADABLE as its class when this principal may not
        read the brokers' configs."""
        if self._authorizer is None:
            try:
                broker_id = self._call("Metadata", self._broker_id)
                configs = ConfigAdmin(self.connection, self.timeout_s).describe(ConfigResource.broker(broker_id))
            except KafkatopError:  # refused (ConfigError, a Refused naming the grant), unreachable, unsupported
                self._authorizer = AuthorizerInfo(UNREADABLE)
            else:
                name = configs.entry("authorizer.class.name")
                supers = configs.entry("super.users")
                self._authorizer = AuthorizerInfo(
                    (name.value or None) if name is not None else None,
                    tuple(u.strip() for u in (supers.value or "").split(";") if u.strip()) if supers else (),
                )
        return self._authorizer

    # --- the exchange ---------------------------------------------------------------------------------------------
    def _call(self, what: str, run: Callable[[BrokerConnection], T]) -> T:
        """`run` on the kept connection (opened first if need be), within timeout_s. A connection kept from an
        earlier call that fails (the broker closed it while idle) is opened again once."""
        require_supported(self.connection, what, "kafka-acls.sh")
        deadline = time.monotonic() + self.timeout_s
        with self._lock:
            for attempt in (1, 2):
                kept = self._conn is not None
                conn = self._open(deadline)
                try:
                    return run(conn)
                except Unsupported:
                    raise
                except (OSError, ProtocolError) as e:
                    self._drop()
                    if kept and attempt == 1 and not isinstance(e, TimeoutError):
                        continue
                    reason = os_reason(e, self.timeout_s) if isinstance(e, OSError) else str(e)
                    raise SourceUnavailable("kafka", f"{what} to {conn.address}: {reason}") from None
        raise AssertionError("unreachable")  # the loop returns or raises

    def _open(self, deadline: float) -> BrokerConnection:
        if self._conn is not None:
            self._conn.deadline = deadline
            return self._conn
        reasons = []
        for host, port in self.connection.addresses:
            try:
                self._conn = BrokerConnection(host, port, deadline, self.connection.client_settings)
                return self._conn
            except OSError as e:
                reasons.append(f"{host}:{port}: {os_reason(e, self.timeout_s)}")
            except ProtocolError as e:  # TLS or SASL refused: the same at every broker
                raise SourceUnavailable("kafka", str(e)) from None
        raise SourceUnavailable("kafka", f"no broker answered ({'; '.join(reasons)})")

    def _call_api(self, conn: BrokerConnection, api: Api, body: bytes) -> bytes:
        if api.key not in conn.api_versions().versions:
            raise AclsRefused(
                f"{conn.address} does not offer {api.name}: ACLs need a Kafka broker with an authorizer (the "
                "librdkafka mock cluster of kafkatop's demo has none: `kafkatop up --security sasl_ssl --authorizer`)",
                "UNSUPPORTED",
            )
        return conn.call(api, body)[1]

    def _describe(self, conn: BrokerConnection, matching: AclBindingFilter) -> tuple[AclBinding, ...]:
        answer = decode_describe_acls(self._call_api(conn, DESCRIBE_ACLS, describe_acls_body(matching)))
        if answer.error_code:
            raise self._refused("DescribeAcls", "Describe", [(answer.error_code, answer.error_message, None)])
        return answer.bindings

    def _broker_id(self, conn: BrokerConnection) -> int:
        """The id of the broker at the other end (another's when it advertises another address)."""
        version, payload = conn.call(METADATA, metadata_brokers_body)
        brokers = decode_metadata_brokers(response_reader(payload), version)
        if not brokers:
            raise ProtocolError("Metadata named no broker")
        here = [b.node_id for b in brokers if (f"[{b.host}]:{b.port}" if ":" in b.host else f"{b.host}:{b.port}")
                == conn.address]  # fmt: skip
        return here[0] if here else brokers[0].node_id

    def _settle(self, conn: BrokerConnection, bindings: Sequence[AclBinding], *, present: bool) -> None:
        """Until the broker shows `bindings` (or no longer does), for at most SETTLE_S."""
        patterns = {b.pattern for b in bindings}
        end = min(conn.deadline, time.monotonic() + SETTLE_S)
        while patterns:
            shown = {b for p in patterns for b in self._describe(conn, AclBindingFilter(p.resource_type, p.name,
                                                                                          p.pattern_type))}  # fmt: skip
            if all((b in shown) == present for b in bindings) or time.monotonic() >= end:
                return
            time.sleep(0.05)

    def _refused(
        self, request: str, operation: str, failed: Sequence[tuple[int, str | None, AclBinding | None]]
    ) -> AclsRefused:
        codes = {code for code, _, _ in failed}
        if SECURITY_DISABLED in codes:
            return AclsRefused(f"the cluster at {self.connection} refused {request}: {NO_AUTHORIZER}",
                               "SECURITY_DISABLED")  # fmt: skip
        if CLUSTER_AUTHORIZATION_FAILED in codes:
            who = self.principal or "kafkatop's principal (no SASL user: User:ANONYMOUS, or its certificate's)"
            return AclsRefused(
                f"{who} may not {operation} the Cluster (CLUSTER_AUTHORIZATION_FAILED): {request} needs {operation} "
                "on the Cluster, or a super user: give --command-config with the properties of a user who may (a lab "
                "with an authorizer has admin.properties beside client.properties)",
                "CLUSTER_AUTHORIZATION_FAILED",
            )
        said = "; ".join((f"{b.pattern} {b.entry}: " if b else "") + acl_error(code, message)
                         for code, message, b in failed)  # fmt: skip
        error = AclsInvalid if codes <= INVALID else AclsRefused
        return error(f"Kafka refused {request}: {said}", acl_error(min(codes)).split(":")[0])
