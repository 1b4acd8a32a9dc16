"""DescribeClientQuotas (API key 48), v0–v1 (v1 flexible; Kafka 2.6+): the quotas per user, client id and IP that
`kafka-configs.sh --describe --entity-type users|clients|ips` prints. confluent-kafka has no client-quota API, so
kafkatop speaks it itself; any broker answers it from its metadata.

Schemas: clients/src/main/resources/common/message/DescribeClientQuotas{Request,Response}.json in apache/kafka.
Decoders are bounded: truncated or foreign bytes raise ProtocolError.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from kafkatop.backends.model.users import UserQuota
from kafkatop.backends.protocol.wire import (
    NO_TAGGED_FIELDS,
    Api,
    encode_array,
    encode_compact_array,
    encode_compact_string,
    encode_nullable_string,
    encode_string,
    response_reader,
)

DESCRIBE_CLIENT_QUOTAS = Api(48, "DescribeClientQuotas", (0, 1), flexible_from=1)
# A filter component's match types (DescribeClientQuotasRequest.MATCH_TYPE_*).
MATCH_EXACT = 0  # the entity of this name
MATCH_DEFAULT = 1  # the default entity of the type
MATCH_SPECIFIED = 2  # any entity of the type, the default too


@dataclass(frozen=True, slots=True)
class QuotaFilter:
    """One component of the filter (ClientQuotaFilterComponent): an entity type ("user", "client-id", "ip") and how
    its name matches."""

    entity_type: str
    match_type: int = MATCH_SPECIFIED
    match: str | None = None  # the name, for MATCH_EXACT


@dataclass(frozen=True, slots=True)
class DescribeClientQuotasAnswer:
    error_code: int
    error_message: str | None
    entries: tuple[UserQuota, ...]  # in the answer's order


def request_body(components: tuple[QuotaFilter, ...], strict: bool, version: int) -> bytes:
    """No components and not strict: every entity that has a quota (ClientQuotaFilter.all())."""
    flexible = DESCRIBE_CLIENT_QUOTAS.flexible(version)
    if flexible:
        items = [
            encode_compact_string(c.entity_type) + bytes([c.match_type]) + encode_compact_string(c.match)
            + NO_TAGGED_FIELDS
            for c in components
        ]  # fmt: skip
        return encode_compact_array(items) + bytes([1 if strict else 0]) + NO_TAGGED_FIELDS
    plain = [encode_string(c.entity_type) + bytes([c.match_type]) + encode_nullable_string(c.match) for c in components]
    return encode_array(plain) + bytes([1 if strict else 0])


def decode_response(payload: bytes, version: int) -> DescribeClientQuotasAnswer:
    flexible = DESCRIBE_CLIENT_QUOTAS.flexible(version)
    r = response_reader(payload, flexible=flexible)
    string, nullable = (r.compact_string, r.compact_nullable_string) if flexible else (r.string, r.nullable_string)
    length = r.compact_array_length if flexible else r.array_length
    tags = r.skip_tagged_fields if flexible else _none
    r.int32()  # throttle time
    error_code, message = r.int16(), nullable()
    entries: list[UserQuota] = []
    for _ in range((r.compact_nullable_array_length() if flexible else r.array_length()) or 0):
        entity: list[tuple[str, str | None]] = []
        for _ in range(length()):
            entity.append((string(), nullable()))
            tags()
        values: dict[str, float] = {}
        for _ in range(length()):
            key = string()
            values[key] = struct.unpack(">d", r.take(8))[0]
            tags()
        tags()
        entries.append(UserQuota(tuple(entity), values))
    tags()
    r.end()
    return DescribeClientQuotasAnswer(error_code, message, tuple(entries))


def _none() -> None:
    """No tagged fields before the flexible versions."""
