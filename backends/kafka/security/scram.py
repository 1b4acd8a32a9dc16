"""SCRAM users, as `kafka-configs.sh --entity-type users` reads and changes them: DescribeUserScramCredentials spoken
by kafkatop itself (protocol/scram_credentials.py says why), AlterUserScramCredentials through an AdminClient
(confluent-kafka: librdkafka salts and hashes the password itself, so only the salted password is sent), each call
bounded. The password is held in memory only for the one call that sends it, and no message of this module ever
contains it."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from confluent_kafka.admin import (
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialAlteration,
    UserScramCredentialDeletion,
    UserScramCredentialUpsertion,
)

from kafkatop.backends.kafka.errors import failure, unreachable_reason
from kafkatop.backends.kafka.handles import AdminOwner
from kafkatop.backends.kafka.refusal import refusal
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.users import ScramCredential
from kafkatop.backends.protocol.connection import BrokerConnection, on_any_broker, require_supported
from kafkatop.backends.protocol.scram_credentials import (
    DESCRIBE_USER_SCRAM_CREDENTIALS,
    RESOURCE_NOT_FOUND,
    decode_response,
    request_body,
    scram_error_name,
)

_MECHANISMS = {"SCRAM-SHA-256": ScramMechanism.SCRAM_SHA_256, "SCRAM-SHA-512": ScramMechanism.SCRAM_SHA_512}
DESCRIBE_SAID = "cannot describe the SCRAM users"
SETTLE_S = 3.0  # at most this long for a change to show in what a broker describes


class ScramRefused(KafkatopError):
    """Kafka refused a request about SCRAM credentials: `code` is its error name (CLUSTER_AUTHORIZATION_FAILED,
    RESOURCE_NOT_FOUND, UNACCEPTABLE_CREDENTIAL, UNSUPPORTED_VERSION …), the message Kafka's."""

    def __init__(self, code: str | None, message: str) -> None:
        super().__init__(message)
        self.code = code


def describe_scram_credentials(
    connection: KafkaConnection, timeout_s: float, users: Sequence[str] | None = None
) -> tuple[ScramCredential, ...]:
    """The credentials of `users` (None: of every user), in Kafka's order; a named user without credentials is left
    out, as kafka-configs.sh leaves them out. Refused (what to grant) or ScramRefused when Kafka refuses."""
    require_supported(connection, "DescribeUserScramCredentials", "kafka-configs.sh --describe --entity-type users")

    def ask(conn: BrokerConnection) -> tuple[ScramCredential, ...]:
        _, payload = conn.call(DESCRIBE_USER_SCRAM_CREDENTIALS, request_body(None if users is None else tuple(users)))
        answer = decode_response(payload)
        refused = [(answer.error_code, answer.error_message)] if answer.error_code else []
        refused += [(r.error_code, r.error_message) for r in answer.results
                    if r.error_code and r.error_code != RESOURCE_NOT_FOUND]  # fmt: skip
        if refused:
            code, message = refused[0]
            name = scram_error_name(code)
            raise refusal(name, "describe users", connection, DESCRIBE_SAID) or ScramRefused(
                name, f"{DESCRIBE_SAID}: {name}{': ' + message if message else ''}"
            )
        return tuple(c for r in answer.results for c in r.credentials)

    return on_any_broker(connection, timeout_s, "DescribeUserScramCredentials", ask)


class ScramAdmin(AdminOwner):
    """The alterations, through an AdminClient (and the reading of what they changed)."""

    def __init__(self, connection: KafkaConnection, timeout_s: float = 15.0) -> None:
        super().__init__(connection, timeout_s, lambda: KafkatopError("the SCRAM admin client is closed"))

    def describe(self, users: Sequence[str] | None = None) -> tuple[ScramCredential, ...]:
        return describe_scram_credentials(self.connection, self.timeout_s, users)

    def upsert(self, user: str, mechanism: str, iterations: int, password: str) -> None:
        """Add `user`'s credential of `mechanism`, or change its password and iterations; returns once a broker
        describes it (the controller answers on commit, a broker applies it a moment later)."""
        info = ScramCredentialInfo(_MECHANISMS[mechanism], iterations)
        self._alter([UserScramCredentialUpsertion(user, info, password.encode("utf-8"))], user, password)
        self._settle(user, lambda creds: ScramCredential(user, mechanism, iterations) in creds)

    def delete(self, user: str, mechanisms: Sequence[str]) -> None:
        """Delete `user`'s credentials of `mechanisms` (with none left, the user cannot log in); returns once a
        broker no longer describes them."""
        self._alter([UserScramCredentialDeletion(user, _MECHANISMS[m]) for m in mechanisms], user, None)
        self._settle(user, lambda creds: not {c.mechanism for c in creds} & set(mechanisms))

    def _settle(self, user: str, done: Callable[[tuple[ScramCredential, ...]], bool]) -> None:
        """Until a broker describes the change, SETTLE_S at most: what follows (a login, a listing) then sees it."""
        deadline = time.monotonic() + SETTLE_S
        while not done(self.describe([user])) and time.monotonic() < deadline:
            time.sleep(0.1)

    def _alter(self, alterations: list[UserScramCredentialAlteration], user: str, password: str | None) -> None:
        """Sent and answered within the timeout; else Refused (an authorization error: what to grant), KafkatopError
        (Kafka could not be reached) or ScramRefused (Kafka's answer)."""
        deadline = time.monotonic() + self.timeout_s + 1.0
        said = f"cannot change the SCRAM credentials of user {user!r}"
        futures = self._client().alter_user_scram_credentials(alterations, request_timeout=self.timeout_s)
        try:
            futures[user].result(timeout=max(0.0, deadline - time.monotonic()))
        except Exception as e:  # noqa: BLE001 - Kafka's refusal is the answer, said in one line
            code, text = failure(e)
            if password:
                text = text.replace(password, "***")  # never said back, whatever a broker echoes
            if code in ("_TIMED_OUT", "_TRANSPORT") or isinstance(e, TimeoutError):
                reason = unreachable_reason(self.connection, self._created, self._admin)
                raise KafkatopError(f"{said}: cannot talk to {self.connection}: {reason or text}") from None
            refused = refusal(code, "alter users", self.connection, said)
            if refused is not None:
                raise refused from None
            text = self.connection.redact(text).removeprefix("Broker: ")
            named = f"{code}: {text}" if code and not text.startswith(code) else text
            raise ScramRefused(code, f"{said}: {named}") from None
