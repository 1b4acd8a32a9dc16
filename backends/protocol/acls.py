"""The ACL requests kafka-acls.sh sends, spoken by kafkatop itself: DescribeAcls (API key 29), CreateAcls (30) and
DeleteAcls (31), v2–v3 (flexible; v3, Kafka 2.8+, carries the USER resource type). librdkafka's ACL API (2.16) has
no USER or DELEGATION_TOKEN resource (and calls the CLUSTER one BROKER) and no CreateTokens, DescribeTokens or
TwoPhaseCommit operation, so it could list none of those bindings, nor grant `--user-principal`.

Codes are Kafka's own (model/acls.py); a code this version of kafkatop does not know reads as UNKNOWN, as Kafka's
fromCode() reads it. Schemas: clients/src/main/resources/common/message/{Describe,Create,Delete}Acls{Request,
Response}.json in apache/kafka (4.1). Every decoder is bounded: truncated or foreign bytes raise ProtocolError.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kafkatop.backends.model.acls import (
    OPERATION_NAMES,
    OPERATIONS,
    PATTERN_TYPE_NAMES,
    PATTERN_TYPES,
    PERMISSION_NAMES,
    PERMISSIONS,
    RESOURCE_TYPE_NAMES,
    RESOURCE_TYPES,
    AccessControlEntry,
    AclBinding,
    AclBindingFilter,
    ResourcePattern,
)
from kafkatop.backends.protocol.wire import (
    NO_TAGGED_FIELDS,
    Api,
    Reader,
    encode_compact_array,
    encode_compact_string,
    error_name,
    response_reader,
)

# The flexible versions; the bodies are the same in both.
DESCRIBE_ACLS = Api(29, "DescribeAcls", (2, 3), flexible_from=2)
CREATE_ACLS = Api(30, "CreateAcls", (2, 3), flexible_from=2)
DELETE_ACLS = Api(31, "DeleteAcls", (2, 3), flexible_from=2)

SECURITY_DISABLED = 54
CLUSTER_AUTHORIZATION_FAILED = 31
# Errors of these requests that protocol/wire.py's table does not name (Kafka's Errors enum).
ACL_ERRORS = {54: "SECURITY_DISABLED", 55: "OPERATION_NOT_ATTEMPTED", 67: "INVALID_PRINCIPAL_TYPE"}


def acl_error(code: int, message: str | None = None) -> str:
    """An error code in words: its name, then the broker's message when it sent one."""
    name = ACL_ERRORS.get(code) or error_name(code)
    return f"{name}: {message}" if message else name


def _code(value: int) -> bytes:
    return value.to_bytes(1, "big", signed=True)


def _filter(f: AclBindingFilter) -> bytes:
    """The filter's fields, in the order DescribeAcls and DeleteAcls share (None: null, any)."""
    return (
        _code(RESOURCE_TYPES[f.resource_type]) + encode_compact_string(f.name) + _code(PATTERN_TYPES[f.pattern_type])
        + encode_compact_string(f.principal) + encode_compact_string(f.host) + _code(OPERATIONS[f.operation])
        + _code(PERMISSIONS[f.permission])
    )  # fmt: skip


def _binding(r: Reader, pattern: ResourcePattern) -> AclBinding:
    """An entry (principal, host, operation, permission) read from `r`, on `pattern`."""
    principal, host = r.compact_string(), r.compact_string()
    operation, permission = OPERATION_NAMES.get(r.int8(), "UNKNOWN"), PERMISSION_NAMES.get(r.int8(), "UNKNOWN")
    return AclBinding(pattern, AccessControlEntry(principal, host, operation, permission))


def _pattern(r: Reader) -> ResourcePattern:
    resource_type, name = RESOURCE_TYPE_NAMES.get(r.int8(), "UNKNOWN"), r.compact_string()
    return ResourcePattern(resource_type, name, PATTERN_TYPE_NAMES.get(r.int8(), "UNKNOWN"))


# --- DescribeAcls -------------------------------------------------------------------------------------------------
def describe_acls_body(matching: AclBindingFilter) -> bytes:
    return _filter(matching) + NO_TAGGED_FIELDS


@dataclass(frozen=True, slots=True)
class DescribedAcls:
    error_code: int
    error_message: str | None
    bindings: tuple[AclBinding, ...]  # as the broker sent them


def decode_describe_acls(payload: bytes) -> DescribedAcls:
    r = response_reader(payload)
    r.int32()  # throttle time
    code, message = r.int16(), r.compact_nullable_string()
    bindings: list[AclBinding] = []
    for _ in range(r.compact_array_length()):
        pattern = _pattern(r)
        for _ in range(r.compact_array_length()):
            bindings.append(_binding(r, pattern))
            r.skip_tagged_fields()
        r.skip_tagged_fields()
    r.skip_tagged_fields()
    r.end()
    return DescribedAcls(code, message, tuple(bindings))


# --- CreateAcls ---------------------------------------------------------------------------------------------------
def create_acls_body(bindings: Sequence[AclBinding]) -> bytes:
    items = []
    for b in bindings:
        p, e = b.pattern, b.entry
        pattern = _code(RESOURCE_TYPES[p.resource_type]) + encode_compact_string(p.name)
        pattern += _code(PATTERN_TYPES[p.pattern_type])
        entry = encode_compact_string(e.principal) + encode_compact_string(e.host) + _code(OPERATIONS[e.operation])
        items.append(pattern + entry + _code(PERMISSIONS[e.permission]) + NO_TAGGED_FIELDS)
    return encode_compact_array(items) + NO_TAGGED_FIELDS


def decode_create_acls(payload: bytes) -> tuple[tuple[int, str | None], ...]:
    """(error code, message) per binding asked, in the order asked."""
    r = response_reader(payload)
    r.int32()  # throttle time
    results = []
    for _ in range(r.compact_array_length()):
        results.append((r.int16(), r.compact_nullable_string()))
        r.skip_tagged_fields()
    r.skip_tagged_fields()
    r.end()
    return tuple(results)


# --- DeleteAcls ---------------------------------------------------------------------------------------------------
def delete_acls_body(filters: Sequence[AclBindingFilter]) -> bytes:
    return encode_compact_array([_filter(f) + NO_TAGGED_FIELDS for f in filters]) + NO_TAGGED_FIELDS


@dataclass(frozen=True, slots=True)
class DeletedAcls:
    """One filter's result: its error, and each binding it matched with the error of its deletion (0: deleted)."""

    error_code: int
    error_message: str | None
    matching: tuple[tuple[int, str | None, AclBinding], ...]


def decode_delete_acls(payload: bytes) -> tuple[DeletedAcls, ...]:
    """One result per filter, in the order asked."""
    r = response_reader(payload)
    r.int32()  # throttle time
    results = []
    for _ in range(r.compact_array_length()):
        code, message = r.int16(), r.compact_nullable_string()
        matching = []
        for _ in range(r.compact_array_length()):
            m_code, m_message = r.int16(), r.compact_nullable_string()
            matching.append((m_code, m_message, _binding(r, _pattern(r))))
            r.skip_tagged_fields()
        r.skip_tagged_fields()
        results.append(DeletedAcls(code, message, tuple(matching)))
    r.skip_tagged_fields()
    r.end()
    return tuple(results)
