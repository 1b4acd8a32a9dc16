"""DescribeAcls, CreateAcls and DeleteAcls on the wire (backends/protocol/acls.py): the requests, byte for byte from the
4.1 schemas, and answers recorded from a real Kafka 4.1 KRaft node (tests/fixtures/protocol/*acls*_4_1.bin, each a
response after its size): with StandardAuthorizer, asked as its super user `admin` (bindings of every kind: a
prefixed topic, the wildcard topic denied from one host, the Cluster, a User resource, a prefixed group for User:*,
a transactional id; a creation Kafka refused for its empty name; deletions that matched and one that did not) and as
`client`, who may not (CLUSTER_AUTHORIZATION_FAILED); and without an authorizer (SECURITY_DISABLED). Then every
decoder on mutated answers and noise: ProtocolError only, as tests/unit/test_protocol_fuzz.py has it."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from kafkatop.backends.model.acls import AccessControlEntry, AclBinding, AclBindingFilter, ResourcePattern
from kafkatop.backends.protocol.acls import (
    DeletedAcls,
    acl_error,
    create_acls_body,
    decode_create_acls,
    decode_delete_acls,
    decode_describe_acls,
    delete_acls_body,
    describe_acls_body,
)
from kafkatop.backends.protocol.wire import ProtocolError
from tests.unit.test_protocol_fuzz import MUTATIONS, NOISE, mutations, noise, only_protocol_errors

RECORDED = Path(__file__).parents[1] / "fixtures" / "protocol"


def recorded(name: str) -> bytes:
    return (RECORDED / f"{name}_v3_4_1.bin").read_bytes()


def binding(rt: str, name: str, pt: str, principal: str, op: str, perm: str = "ALLOW", host: str = "*") -> AclBinding:
    return AclBinding(ResourcePattern(rt, name, pt), AccessControlEntry(principal, host, op, perm))


# --- requests -------------------------------------------------------------------------------------------------------
def test_describe_every_acl_is_any_and_nulls() -> None:
    # ResourceTypeFilter ANY (1), name null, PatternTypeFilter ANY (1), principal null, host null, operation ANY,
    # permission ANY, no tags.
    assert describe_acls_body(AclBindingFilter()).hex() == "01" + "00" + "01" + "00" + "00" + "01" + "01" + "00"


def test_create_carries_each_binding_in_kafkas_codes() -> None:
    body = create_acls_body([binding("TOPIC", "t", "PREFIXED", "User:a", "IDEMPOTENT_WRITE", "DENY", "10.0.0.1")])
    assert body.hex() == (
        "02" + "02" + "0274" + "04" + "07" + b"User:a".hex() + "09" + b"10.0.0.1".hex() + "0c" + "02" + "00" + "00"
    )  # fmt: skip


def test_delete_carries_each_filter() -> None:
    user = AclBindingFilter("USER", "User:b", "LITERAL", "User:a", "*", "CREATE_TOKENS", "ALLOW")
    body = delete_acls_body([AclBindingFilter("GROUP", "g", "MATCH"), user])
    assert body.hex() == (
        "03"
        + "03" + "0267" + "02" + "00" + "00" + "01" + "01" + "00"
        + "07" + "07" + b"User:b".hex() + "03" + "07" + b"User:a".hex() + "022a" + "0d" + "03" + "00"
        + "00"
    )  # fmt: skip


# --- answers recorded from Kafka 4.1 --------------------------------------------------------------------------------
def test_recorded_describe_holds_every_kind_of_binding() -> None:
    answer = decode_describe_acls(recorded("describe_acls"))
    assert (answer.error_code, answer.error_message) == (0, "")  # KRaft answers "", not null
    assert len(answer.bindings) == 10
    for expected in (
        binding("TOPIC", "orders-", "PREFIXED", "User:alice", "READ"),
        binding("TOPIC", "*", "LITERAL", "User:bob", "WRITE", "DENY", "10.0.0.1"),
        binding("CLUSTER", "kafka-cluster", "LITERAL", "User:alice", "IDEMPOTENT_WRITE"),
        binding("USER", "User:carol", "LITERAL", "User:alice", "CREATE_TOKENS"),
        binding("GROUP", "app", "PREFIXED", "User:*", "READ"),
        binding("TRANSACTIONAL_ID", "pay-1", "LITERAL", "User:alice", "WRITE"),
    ):
        assert expected in answer.bindings


def test_recorded_create_says_per_binding() -> None:
    assert decode_create_acls(recorded("create_acls")) == ((0, ""), (0, ""), (0, ""), (0, ""),
                                                           (42, "Invalid empty resource name"))  # fmt: skip


def test_recorded_delete_says_what_each_filter_matched() -> None:
    prefixed, user, nothing = decode_delete_acls(recorded("delete_acls"))
    assert prefixed == DeletedAcls(0, None, ((0, None, binding("TOPIC", "orders-", "PREFIXED", "User:alice", "READ")),))
    assert user.matching[0][2] == binding("USER", "User:carol", "LITERAL", "User:alice", "CREATE_TOKENS")
    assert nothing == DeletedAcls(0, None, ())


def test_recorded_refusals() -> None:
    refused = decode_describe_acls(recorded("describe_acls_refused"))
    assert (refused.error_code, refused.bindings) == (31, ())
    assert "needs DESCRIBE permission" in str(refused.error_message)
    ((code, message),) = decode_create_acls(recorded("create_acls_refused"))
    assert code == 31 and "needs ALTER permission" in str(message)
    disabled = decode_describe_acls(recorded("describe_acls_disabled"))
    assert acl_error(disabled.error_code, disabled.error_message) == (
        "SECURITY_DISABLED: No Authorizer is configured on the broker"
    )
    assert decode_create_acls(recorded("create_acls_disabled")) == ((54, "No Authorizer is configured."),)
    (deleted,) = decode_delete_acls(recorded("delete_acls_disabled"))
    assert deleted == DeletedAcls(54, "No Authorizer is configured.", ())


def test_an_unknown_code_reads_as_unknown() -> None:
    data = bytearray(recorded("describe_acls"))
    data[4 + 1 + 4 + 2 + 1 + 1] = 99  # after the header, throttle, error, "" message and count: the first type
    assert decode_describe_acls(bytes(data)).bindings[0].pattern.resource_type == "UNKNOWN"


# --- hostile bytes --------------------------------------------------------------------------------------------------
DECODERS: dict[str, tuple[Callable[[bytes], object], tuple[bytes, ...]]] = {
    "describe": (decode_describe_acls, (recorded("describe_acls"), recorded("describe_acls_refused"))),
    "create": (decode_create_acls, (recorded("create_acls"), recorded("create_acls_refused"))),
    "delete": (decode_delete_acls, (recorded("delete_acls"), recorded("delete_acls_disabled"))),
}


@pytest.mark.parametrize("name", sorted(DECODERS))
def test_mutated_answers_and_noise_raise_only_protocol_errors(name: str) -> None:
    decode, answers = DECODERS[name]
    rng = random.Random(f"kafkatop-acls-{name}")
    for answer in answers:
        decode(answer)
        for data in mutations(rng, answer, MUTATIONS):
            only_protocol_errors(name, decode, data)
    for data in noise(rng, NOISE):
        only_protocol_errors(name, decode, data)


def test_trailing_bytes_are_refused() -> None:
    with pytest.raises(ProtocolError, match="unread bytes"):
        decode_create_acls(recorded("create_acls") + b"\x00")
