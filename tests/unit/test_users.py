"""SCRAM users and client quotas in kafka-configs.sh's lines (model/users.py), and DescribeClientQuotas and
DescribeUserScramCredentials on the wire (protocol/client_quotas.py, protocol/scram_credentials.py).

The recorded answers (tests/fixtures/protocol/describe_*_4_1.bin, each a response after its size) came from real
Kafka 4.1 KRaft labs. describe_client_quotas_*: thirteen quota entities set with kafka-configs.sh 4.1 — users bob,
carol, dave, erin, frank, gina, o'neil, the default user; client ids app1 and the default; users' client ids (bob,
app1), (o'neil, 'app 2') and the default pair; ip 127.0.0.1 — beside SCRAM users bob (SCRAM-SHA-256 with 8192
iterations, and SCRAM-SHA-512), admin and client. describe_user_scram_credentials_*: a lab with an authorizer holding
users dora, admin, client and fred (SCRAM-SHA-256 with 8192 iterations, and SCRAM-SHA-512), asked for every user and
for fred and ghost (no such user) as admin, and for every user as dora (no Describe on the cluster).
kafka_configs_users_4_1.txt is what `kafka-configs.sh --describe` printed for --entity-type users, clients, users
with clients, and ips, one after the other; kafka_configs_user_bob_4_1.txt for --entity-type users --entity-name bob,
then the same with --entity-type clients. The broker answers its entities in another order than the tool prints them
(the tool's HashMaps decide), so the order is really tested."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.users import (
    CLIENT_ID,
    USER,
    ScramCredential,
    UserQuota,
    UsersSnapshot,
    check_iterations,
    check_password,
    java_double,
    users_json,
    users_lines,
)
from kafkatop.backends.protocol.client_quotas import (
    MATCH_EXACT,
    MATCH_SPECIFIED,
    QuotaFilter,
    decode_response,
    request_body,
)
from kafkatop.backends.protocol.scram_credentials import decode_response as decode_scram
from kafkatop.backends.protocol.scram_credentials import request_body as scram_body
from kafkatop.backends.protocol.wire import ProtocolError
from tests.unit.test_protocol_fuzz import MUTATIONS, NOISE, mutations, noise, only_protocol_errors

RECORDED = Path(__file__).parents[1] / "fixtures" / "protocol"
V0 = (RECORDED / "describe_client_quotas_v0_4_1.bin").read_bytes()
V1 = (RECORDED / "describe_client_quotas_v1_4_1.bin").read_bytes()
UNKNOWN_TYPE = (RECORDED / "describe_client_quotas_unknown_type_v1_4_1.bin").read_bytes()
TOOL_ALL = (RECORDED / "kafka_configs_users_4_1.txt").read_text()
TOOL_BOB = (RECORDED / "kafka_configs_user_bob_4_1.txt").read_text()
CREDENTIALS = (
    ScramCredential("bob", "SCRAM-SHA-256", 8192),
    ScramCredential("bob", "SCRAM-SHA-512", 4096),
    ScramCredential("admin", "SCRAM-SHA-512", 4096),
    ScramCredential("client", "SCRAM-SHA-512", 4096),
)  # as DescribeUserScramCredentials answered, in its order


# --- the wire ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("version", "payload"), [(0, V0), (1, V1)], ids=["v0", "v1"])
def test_the_recorded_answers_decode_to_every_entity(version: int, payload: bytes) -> None:
    answer = decode_response(payload, version)
    assert (answer.error_code, len(answer.entries)) == (0, 13)
    assert answer.error_message == ""  # as Kafka 4.1 sends it with no error
    by_entity = {q.entity: q for q in answer.entries}
    assert dict(by_entity[(("user", "bob"),)].values) == {
        "consumer_byte_rate": 2048.0, "request_percentage": 12.5, "producer_byte_rate": 1024.0,
    }  # fmt: skip
    assert dict(by_entity[(("user", None),)].values) == {"producer_byte_rate": 4096.0}
    assert dict(by_entity[(("client-id", "app 2"), ("user", "o'neil"))].values) == {"consumer_byte_rate": 6.0}
    assert dict(by_entity[(("ip", "127.0.0.1"),)].values) == {"connection_creation_rate": 20.0}
    assert by_entity[(("user", "erin"),)].values["producer_byte_rate"] == 10485760.0


def test_a_refusal_decodes_with_kafkas_message() -> None:
    answer = decode_response(UNKNOWN_TYPE, 1)  # a filter of entity type "nope"
    assert (answer.error_code, answer.error_message, answer.entries) == (35, "Unsupported entity type nope", ())


def test_the_request_bodies_are_the_schemas() -> None:
    """Every entity (what kafkatop asks), and kafka-configs.sh's --entity-type users --entity-name bob filter."""
    assert request_body((), False, 1) == b"\x01\x00\x00"  # no components, not strict, no tags
    assert request_body((), False, 0) == b"\x00\x00\x00\x00\x00"
    bob = (QuotaFilter("user", MATCH_EXACT, "bob"),)
    assert request_body(bob, True, 1) == b"\x02\x05user\x00\x04bob\x00\x01\x00"
    assert request_body(bob, True, 0) == b"\x00\x00\x00\x01\x00\x04user\x00\x00\x03bob\x01"
    any_user = (QuotaFilter("user", MATCH_SPECIFIED),)
    assert request_body(any_user, True, 1) == b"\x02\x05user\x02\x00\x00\x01\x00"


@pytest.mark.parametrize(("version", "payload"), [(0, V0), (1, V1), (1, UNKNOWN_TYPE)], ids=["v0", "v1", "refused"])
def test_hostile_bytes_raise_only_protocol_errors(version: int, payload: bytes) -> None:
    """As tests/unit/test_protocol_fuzz.py does for every other decoder: mutated real answers, then noise."""
    rng = random.Random(f"kafkatop-client-quotas-{version}-{len(payload)}")
    for data in [*mutations(rng, payload, MUTATIONS), *noise(rng, NOISE)]:
        only_protocol_errors("describe_client_quotas", lambda p: decode_response(p, version), data)
    with pytest.raises(ProtocolError):
        decode_response(V1 + b"\x00", 1)  # a byte too many


SCRAM_ALL = (RECORDED / "describe_user_scram_credentials_all_4_1.bin").read_bytes()
SCRAM_NAMED = (RECORDED / "describe_user_scram_credentials_named_4_1.bin").read_bytes()
SCRAM_REFUSED = (RECORDED / "describe_user_scram_credentials_refused_4_1.bin").read_bytes()


def test_the_scram_credentials_decode_in_kafkas_order() -> None:
    answer = decode_scram(SCRAM_ALL)
    assert (answer.error_code, [r.user for r in answer.results]) == (0, ["dora", "admin", "client", "fred"])
    fred = answer.results[3].credentials
    assert fred == (ScramCredential("fred", "SCRAM-SHA-512", 4096), ScramCredential("fred", "SCRAM-SHA-256", 8192))
    named = decode_scram(SCRAM_NAMED)
    assert [(r.user, r.error_code, r.error_message) for r in named.results] == [
        ("ghost", 91, "Attempt to describe a user credential that does not exist: ghost"), ("fred", 0, ""),
    ]  # fmt: skip
    refused = decode_scram(SCRAM_REFUSED)
    assert (refused.error_code, refused.error_message, refused.results) == (31, None, ())  # CLUSTER_AUTHORIZATION…


def test_every_user_is_asked_with_an_empty_array_never_a_null_one() -> None:
    """Kafka 4.1 answers a refused null array with nothing at all (a NullPointerException in the broker)."""
    assert scram_body(None) == b"\x01\x00"
    assert scram_body(("fred", "ghost")) == b"\x03\x05fred\x00\x06ghost\x00\x00"


@pytest.mark.parametrize("payload", [SCRAM_ALL, SCRAM_NAMED, SCRAM_REFUSED], ids=["all", "named", "refused"])
def test_hostile_scram_answers_raise_only_protocol_errors(payload: bytes) -> None:
    rng = random.Random(f"kafkatop-scram-{len(payload)}")
    for data in [*mutations(rng, payload, MUTATIONS), *noise(rng, NOISE)]:
        only_protocol_errors("describe_user_scram_credentials", decode_scram, data)


# --- kafka-configs.sh's lines -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("version", "payload"), [(0, V0), (1, V1)], ids=["v0", "v1"])
def test_every_user_is_listed_as_kafka_configs_lists_them_line_for_line(version: int, payload: bytes) -> None:
    snapshot = UsersSnapshot(CREDENTIALS, decode_response(payload, version).entries)
    assert "\n".join(users_lines(snapshot)) + "\n" == TOOL_ALL


def test_one_user_is_listed_as_kafka_configs_lists_it() -> None:
    snapshot = UsersSnapshot(CREDENTIALS, decode_response(V1, 1).entries)
    assert "\n".join(users_lines(snapshot, "bob")) + "\n" == TOOL_BOB
    assert users_lines(snapshot, "ghost") == []  # kafka-configs.sh prints nothing for a user it does not know
    assert users_lines(snapshot, "admin") == [
        "SCRAM credential configs for user-principal 'admin' are SCRAM-SHA-512=iterations=4096"
    ]


def test_the_quotas_of_a_hash_map_come_in_its_order_not_the_answers() -> None:
    """The tool's HashMap<String, Double> of a user's quotas, sized to them: Kafka's answer order does not count."""
    values = {"request_percentage": 300.0, "controller_mutation_rate": 4.0, "consumer_byte_rate": 200.0,
              "producer_byte_rate": 100.0}  # fmt: skip
    quota = UserQuota((("user", "gina"),), values)
    assert quota.line() == (
        "Quota configs for user-principal 'gina' are producer_byte_rate=100.0, consumer_byte_rate=200.0, "
        "controller_mutation_rate=4.0, request_percentage=300.0"
    )  # as kafka-configs.sh printed it (kafka_configs_users_4_1.txt)
    pair = UserQuota(((CLIENT_ID, None), (USER, None)), {"consumer_byte_rate": 5.0})
    assert pair.entity_text == "the default user-principal, the default client-id"
    assert (pair.name(USER), pair.types) == (None, {USER, CLIENT_ID})


# Java 17's Double.toString of each (printed by a Java program on this machine).
JAVA_DOUBLES = [
    (1024.0, "1024.0"), (12.5, "12.5"), (10485760.0, "1.048576E7"), (1e7, "1.0E7"), (9999999.0, "9999999.0"),
    (0.001, "0.001"), (0.0001, "1.0E-4"), (0.5, "0.5"), (-3.0, "-3.0"), (1e21, "1.0E21"),
    (123456789.125, "1.23456789125E8"), (2e-3, "0.002"), (1.0 / 3, "0.3333333333333333"), (100.0, "100.0"),
    (0.0, "0.0"), (-0.0, "-0.0"), (1.7976931348623157e308, "1.7976931348623157E308"), (5e-5, "5.0E-5"),
    (1234567.0, "1234567.0"), (0.1 + 0.2, "0.30000000000000004"), (2.5e-10, "2.5E-10"),
    (float("nan"), "NaN"), (float("inf"), "Infinity"), (float("-inf"), "-Infinity"),
]  # fmt: skip


@pytest.mark.parametrize(("value", "text"), JAVA_DOUBLES, ids=[t for _, t in JAVA_DOUBLES])
def test_a_quota_value_is_written_as_java_writes_it(value: float, text: str) -> None:
    assert java_double(value) == text


def test_the_json_says_each_entity_and_its_defaults() -> None:
    snapshot = UsersSnapshot(CREDENTIALS[:2], (UserQuota((("client-id", None), ("user", "bob")), {"x": 1.0}),))
    assert users_json(snapshot) == {
        "users": [{"user": "bob", "credentials": [{"mechanism": "SCRAM-SHA-256", "iterations": 8192},
                                                  {"mechanism": "SCRAM-SHA-512", "iterations": 4096}]}],
        "quotas": [{"client-id": None, "user": "bob", "values": {"x": 1.0}}],
        "quotas_error": None,
    }  # fmt: skip


# --- what --add checks before anything is sent ------------------------------------------------------------------------
def test_iterations_outside_kafkas_range_and_an_empty_password_are_bad_input() -> None:
    assert check_iterations(4096) == 4096 and check_iterations(16384) == 16384
    for n in (4095, 16385, 0):
        with pytest.raises(BadInput, match=f"--iterations {n}: Kafka takes 4096 to 16384"):
            check_iterations(n)
    with pytest.raises(BadInput, match="empty password"):
        check_password("")
    assert check_password(" spaces are kept ") == " spaces are kept "
