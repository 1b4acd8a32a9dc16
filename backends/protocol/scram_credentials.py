"""DescribeUserScramCredentials (API key 50), v0 (flexible; Kafka 2.7+): each user's SCRAM mechanisms and iterations,
as `kafka-configs.sh --describe --entity-type users` prints them. kafkatop speaks it itself: librdkafka 2.16 aborts the
process (a bad free) when the answer carries a top-level error, which is what an authorizer answers a user without
Describe on the cluster. Any broker answers it from its metadata.

Schemas: clients/src/main/resources/common/message/DescribeUserScramCredentials{Request,Response}.json in
apache/kafka. Decoders are bounded: truncated or foreign bytes raise ProtocolError.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafkatop.backends.model.users import ScramCredential
from kafkatop.backends.protocol.wire import (
    NO_TAGGED_FIELDS,
    Api,
    encode_compact_array,
    encode_compact_string,
    error_name,
    response_reader,
)

DESCRIBE_USER_SCRAM_CREDENTIALS = Api(50, "DescribeUserScramCredentials", (0, 0))
MECHANISMS = {1: "SCRAM-SHA-256", 2: "SCRAM-SHA-512"}  # org.apache.kafka.clients.admin.ScramMechanism's types
RESOURCE_NOT_FOUND = 91  # a user named that has no credentials
_ERRORS = {RESOURCE_NOT_FOUND: "RESOURCE_NOT_FOUND", 68: "DUPLICATE_RESOURCE"}  # besides wire.py's


@dataclass(frozen=True, slots=True)
class UserCredentials:
    user: str
    error_code: int
    error_message: str | None
    credentials: tuple[ScramCredential, ...]


@dataclass(frozen=True, slots=True)
class DescribeUserScramCredentialsAnswer:
    error_code: int
    error_message: str | None
    results: tuple[UserCredentials, ...]  # in the answer's order


def scram_error_name(code: int) -> str:
    return _ERRORS.get(code) or error_name(code)


def request_body(users: tuple[str, ...] | None) -> bytes:
    """None: every user, sent as an empty array, which means the same: Kafka 4.1's broker answers a null one it
    refuses (no Describe on the cluster) with a NullPointerException and no answer at all."""
    items = [encode_compact_string(u) + NO_TAGGED_FIELDS for u in users or ()]
    return encode_compact_array(items) + NO_TAGGED_FIELDS


def decode_response(payload: bytes) -> DescribeUserScramCredentialsAnswer:
    r = response_reader(payload)
    r.int32()  # throttle time
    error_code, message = r.int16(), r.compact_nullable_string()
    results: list[UserCredentials] = []
    for _ in range(r.compact_array_length()):
        user, code, said = r.compact_string(), r.int16(), r.compact_nullable_string()
        credentials: list[ScramCredential] = []
        for _ in range(r.compact_array_length()):
            mechanism, iterations = r.int8(), r.int32()
            credentials.append(ScramCredential(user, MECHANISMS.get(mechanism, f"UNKNOWN({mechanism})"), iterations))
            r.skip_tagged_fields()
        r.skip_tagged_fields()
        results.append(UserCredentials(user, code, said, tuple(credentials)))
    r.skip_tagged_fields()
    r.end()
    return DescribeUserScramCredentialsAnswer(error_code, message, tuple(results))
