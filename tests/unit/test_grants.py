"""What an authorization error asks for (backends/insight/grants.py): Kafka 4.1's operations per request, table by
table, the principal of a client's settings, and the lines — checked against what kafka-acls.sh takes."""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
from pathlib import Path

import pytest

from kafkatop.backends.insight.grants import (
    ANONYMOUS,
    AUTHORIZATION_ERRORS,
    NEEDS,
    Refused,
    authorization_error,
    grant_lines,
    grants_for,
    principal_caveat,
    principal_of,
    refusal_text,
    refused,
)
from kafkatop.backends.model.acls import OPERATIONS, RESOURCE_TYPES, Grant, ResourcePattern
from kafkatop.backends.model.text import printable
from kafkatop.tui.cli.grant_lines import acl_flags, error_line

CLIENT = "User:client"


def ops(error: str, doing: str, **resources: object) -> list[tuple[str, str, tuple[str, ...]]]:
    """(resource type, name, operations) of each grant."""
    found = grants_for(error, doing, CLIENT, **resources)  # type: ignore[arg-type]
    return [(g.pattern.resource_type, g.pattern.name, g.operations) for g in found]


# --- the table ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("error", "doing", "resources", "expected"),
    [
        # Produce: Write on the topic, and since KIP-679 (Kafka 3.0) an idempotent producer's InitProducerId passes
        # with Write on a topic: the cluster's refusal is answered with the topic's Write, never IdempotentWrite.
        ("TOPIC_AUTHORIZATION_FAILED", "produce", {"topics": ["t"]}, [("TOPIC", "t", ("WRITE",))]),
        ("TOPIC_AUTHORIZATION_FAILED", "idempotent produce", {"topics": ["t"]}, [("TOPIC", "t", ("WRITE",))]),
        ("CLUSTER_AUTHORIZATION_FAILED", "idempotent produce", {"topics": ["t"]}, [("TOPIC", "t", ("WRITE",))]),
        ("TRANSACTIONAL_ID_AUTHORIZATION_FAILED", "transactional produce", {"transactional_id": "tx"},
         [("TRANSACTIONAL_ID", "tx", ("WRITE",))]),
        ("GROUP_AUTHORIZATION_FAILED", "transactional produce", {"group": "g"}, [("GROUP", "g", ("READ",))]),
        # Consume in a group: Read on the topic (Describe implied), Read on the group (FindCoordinator, JoinGroup…).
        ("TOPIC_AUTHORIZATION_FAILED", "consume", {"topics": ["a", "b"], "group": "g"},
         [("TOPIC", "a", ("READ",)), ("TOPIC", "b", ("READ",))]),
        ("GROUP_AUTHORIZATION_FAILED", "consume", {"topics": ["a"], "group": "g"}, [("GROUP", "g", ("READ",))]),
        ("TOPIC_AUTHORIZATION_FAILED", "browse", {"topics": ["t"]}, [("TOPIC", "t", ("READ",))]),
        ("GROUP_AUTHORIZATION_FAILED", "commit", {"group": "g"}, [("GROUP", "g", ("READ",))]),
        ("TOPIC_AUTHORIZATION_FAILED", "describe topic", {"topics": ["t"]}, [("TOPIC", "t", ("DESCRIBE",))]),
        # Groups: DescribeGroups / ConsumerGroupDescribe Describe (not Read), DeleteGroups Delete, a reset Read.
        ("GROUP_AUTHORIZATION_FAILED", "describe group", {"group": "g"}, [("GROUP", "g", ("DESCRIBE",))]),
        ("GROUP_AUTHORIZATION_FAILED", "delete group", {"group": "g"}, [("GROUP", "g", ("DELETE",))]),
        ("GROUP_AUTHORIZATION_FAILED", "delete offsets", {"group": "g"}, [("GROUP", "g", ("DELETE",))]),
        ("TOPIC_AUTHORIZATION_FAILED", "delete offsets", {"group": "g", "topics": ["t"]}, [("TOPIC", "t", ("READ",))]),
        ("GROUP_AUTHORIZATION_FAILED", "reset offsets", {"group": "g"}, [("GROUP", "g", ("READ",))]),
        ("TOPIC_AUTHORIZATION_FAILED", "reset offsets", {"topics": ["t"]}, [("TOPIC", "t", ("READ",))]),
        # Configs: a topic's on the topic, a broker's on the cluster.
        ("TOPIC_AUTHORIZATION_FAILED", "describe configs", {"topics": ["t"]}, [("TOPIC", "t", ("DESCRIBE_CONFIGS",))]),
        ("CLUSTER_AUTHORIZATION_FAILED", "describe configs", {}, [("CLUSTER", "kafka-cluster", ("DESCRIBE_CONFIGS",))]),
        ("TOPIC_AUTHORIZATION_FAILED", "alter configs", {"topics": ["t"]}, [("TOPIC", "t", ("ALTER_CONFIGS",))]),
        ("CLUSTER_AUTHORIZATION_FAILED", "alter configs", {}, [("CLUSTER", "kafka-cluster", ("ALTER_CONFIGS",))]),
        # Topics: Create on the topic (the narrower of the two CreateTopics accepts), Delete, Alter for partitions.
        ("TOPIC_AUTHORIZATION_FAILED", "create topic", {"topics": ["t"]}, [("TOPIC", "t", ("CREATE",))]),
        ("TOPIC_AUTHORIZATION_FAILED", "delete topic", {"topics": ["t"]}, [("TOPIC", "t", ("DELETE",))]),
        ("TOPIC_AUTHORIZATION_FAILED", "add partitions", {"topics": ["t"]}, [("TOPIC", "t", ("ALTER",))]),
        ("TOPIC_AUTHORIZATION_FAILED", "delete records", {"topics": ["t"]}, [("TOPIC", "t", ("DELETE",))]),
        # The controller's: ElectLeaders is Alter on the cluster (ControllerApis), not the documented ClusterAction.
        ("CLUSTER_AUTHORIZATION_FAILED", "elect", {}, [("CLUSTER", "kafka-cluster", ("ALTER",))]),
        ("CLUSTER_AUTHORIZATION_FAILED", "reassign", {}, [("CLUSTER", "kafka-cluster", ("ALTER",))]),
        ("CLUSTER_AUTHORIZATION_FAILED", "list reassignments", {}, [("CLUSTER", "kafka-cluster", ("DESCRIBE",))]),
        ("CLUSTER_AUTHORIZATION_FAILED", "alter acls", {}, [("CLUSTER", "kafka-cluster", ("ALTER",))]),
        ("CLUSTER_AUTHORIZATION_FAILED", "describe acls", {}, [("CLUSTER", "kafka-cluster", ("DESCRIBE",))]),
        ("CLUSTER_AUTHORIZATION_FAILED", "alter users", {}, [("CLUSTER", "kafka-cluster", ("ALTER",))]),
        ("CLUSTER_AUTHORIZATION_FAILED", "describe quotas", {}, [("CLUSTER", "kafka-cluster", ("DESCRIBE_CONFIGS",))]),
        ("CLUSTER_AUTHORIZATION_FAILED", "abort transaction", {}, [("CLUSTER", "kafka-cluster", ("ALTER",))]),
        ("TRANSACTIONAL_ID_AUTHORIZATION_FAILED", "describe transactions", {"transactional_id": "tx"},
         [("TRANSACTIONAL_ID", "tx", ("DESCRIBE",))]),
        ("DELEGATION_TOKEN_AUTHORIZATION_FAILED", "create token", {"user": "User:bob"},
         [("USER", "User:bob", ("CREATE_TOKENS",))]),
    ],
)  # fmt: skip
def test_each_refusal_asks_for_what_kafka_checks(
    error: str, doing: str, resources: dict[str, object], expected: list[tuple[str, str, tuple[str, ...]]]
) -> None:
    assert ops(error, doing, **resources) == expected


def test_nothing_is_granted_where_nothing_fits() -> None:
    assert ops("NOT_ENOUGH_REPLICAS", "produce", topics=["t"]) == []  # no authorization error
    assert ops("GROUP_AUTHORIZATION_FAILED", "produce", topics=["t"]) == []  # a producer needs nothing of a group
    assert ops("TOPIC_AUTHORIZATION_FAILED", "produce") == []  # no topic named: nothing to grant it on
    assert ops("CLUSTER_AUTHORIZATION_FAILED", "produce", topics=["t"]) == []  # not idempotent: not its InitProducerId


def test_the_table_names_only_kafkas_operations_and_resources() -> None:
    for doing, needs in NEEDS.items():
        for refused_type, need in needs.items():
            assert refused_type in AUTHORIZATION_ERRORS.values(), doing
            assert need.resource_type in RESOURCE_TYPES, doing
            assert need.operations and set(need.operations) <= set(OPERATIONS) - {"UNKNOWN", "ANY", "ALL"}, doing


def test_an_authorization_error_is_found_in_kafkas_words() -> None:
    assert authorization_error("TOPIC_AUTHORIZATION_FAILED: Broker: Topic authorization failed") == (
        "TOPIC_AUTHORIZATION_FAILED"
    )
    assert authorization_error("no coordinator: GROUP_AUTHORIZATION_FAILED") == "GROUP_AUTHORIZATION_FAILED"
    assert authorization_error("NOT_TOPIC_AUTHORIZATION_FAILEDX") is None
    assert authorization_error("UNKNOWN_TOPIC_OR_PART") is None
    assert authorization_error(None) is None


# --- the principal --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("settings", "principal"),
    [
        ({}, ANONYMOUS),
        ({"security.protocol": "SSL", "ssl.ca.location": "/ca.pem"}, ANONYMOUS),
        ({"security.protocol": "SASL_SSL", "sasl.mechanisms": "SCRAM-SHA-512", "sasl.username": "client"}, CLIENT),
        ({"security.protocol": "sasl_plaintext", "sasl.mechanism": "PLAIN", "sasl.username": "alice"}, "User:alice"),
        # The Java client's properties, as --command-config files hold them.
        ({"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-256",
          "sasl.jaas.config": 'org.apache.kafka.common.security.scram.ScramLoginModule required username="bob" '
                              'password="secret";'}, "User:bob"),
        ({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "GSSAPI",
          "sasl.kerberos.principal": "kafkaclient/host.example.com@EXAMPLE.COM"}, "User:kafkaclient"),
        ({"security.protocol": "SASL_SSL", "sasl.mechanism": "OAUTHBEARER",
          "sasl.oauthbearer.config": "principal=svc scope=x"}, "User:svc"),
    ],
)  # fmt: skip
def test_the_principal_is_who_the_brokers_see(settings: dict[str, str], principal: str) -> None:
    assert principal_of(settings) == principal


def test_a_guessed_principal_says_so() -> None:
    assert principal_caveat({"security.protocol": "SASL_SSL", "sasl.username": "client"}) is None
    cert = principal_caveat({"security.protocol": "SSL", "ssl.certificate.location": "/me.pem"})
    assert cert is not None and "certificate's subject" in cert
    assert principal_caveat({"security.protocol": "SSL"}) is None  # no client certificate: ANONYMOUS it is


# --- the lines ------------------------------------------------------------------------------------------------------
def test_a_refusal_names_who_what_and_where_and_the_line() -> None:
    found = refused("TOPIC_AUTHORIZATION_FAILED", "produce", {"security.protocol": "SASL_SSL", "sasl.username":
                    "client"}, "cannot send to 't'", topics=["t"])  # fmt: skip
    assert isinstance(found, Refused)
    assert str(found) == (
        "cannot send to 't': TOPIC_AUTHORIZATION_FAILED: User:client may not Write on Topic:t — grant it: "
        "kafkatop acls --add --allow-principal User:client --operation Write --topic t"
    )
    assert refused("UNKNOWN_TOPIC_OR_PART", "produce", {}, topics=["t"]) is None


def test_the_line_is_kafka_acls_options_and_pastes_whole() -> None:
    grants = (
        Grant(CLIENT, ("READ",), ResourcePattern("TOPIC", "a b")),
        Grant(CLIENT, ("READ",), ResourcePattern("GROUP", "g")),
    )
    line = grant_lines(grants, ("--name", "lab"))
    first, second = line.split(" && ")
    assert shlex.split(first) == ["kafkatop", "acls", "--add", "--allow-principal", CLIENT, "--operation", "Read",
                                  "--topic", "a b", "--name", "lab"]  # fmt: skip
    assert shlex.split(second)[-4:] == ["--group", "g", "--name", "lab"]
    assert refusal_text("GROUP_AUTHORIZATION_FAILED", grants).startswith(
        "GROUP_AUTHORIZATION_FAILED: User:client may not Read on Topic:a b, Group:g — grant them: "
    )
    cluster = (Grant(CLIENT, ("ALTER",), ResourcePattern("CLUSTER", "kafka-cluster")),)
    assert grant_lines(cluster).endswith("--operation Alter --cluster")


def _args(**given: object) -> argparse.Namespace:
    base: dict[str, object] = {"bootstrap_server": None, "command_config": None, "name": None, "state_dir": None,
                               "context_name": None, "demo": False, "config": None}  # fmt: skip
    return argparse.Namespace(**(base | given))


def test_the_line_reaches_the_cluster_as_one_who_may_grant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no kafkatop.toml here
    lab = tmp_path / "state" / "lab1"
    lab.mkdir(parents=True)
    (lab / "admin.properties").write_text("security.protocol=SASL_SSL\n")
    client = str(lab / "client.properties")
    state = str(tmp_path / "state")
    # As the lab's client: the lab by name, and its admin.properties (kafkatop's acls by itself would also use it).
    assert acl_flags(_args(name="lab1", state_dir=state, command_config=client)) == (
        "--name", "lab1", "--state-dir", state, "--command-config", str(lab / "admin.properties"))  # fmt: skip
    # As the lab's admin (kafkatop's own default on the lab): nothing more than where.
    assert acl_flags(_args(name="lab1", state_dir=state)) == ("--name", "lab1", "--state-dir", state)
    # An attached cluster: the same bootstrap servers, and an admin's settings to fill in — never the refused user's.
    assert acl_flags(_args(bootstrap_server="b:9092", command_config="me.properties")) == (
        "--bootstrap-server", "b:9092", "--command-config", "ADMIN.properties")  # fmt: skip
    assert acl_flags(_args(context_name="prod", bootstrap_server="b:9092", command_config="me.properties")) == (
        "--context", "prod", "--command-config", "ADMIN.properties")  # fmt: skip
    found = refused("CLUSTER_AUTHORIZATION_FAILED", "elect", {}, "Not authorized to perform leader election")
    assert found is not None
    assert error_line(found, _args(bootstrap_server="b:9092")) == (
        "Not authorized to perform leader election: CLUSTER_AUTHORIZATION_FAILED: User:ANONYMOUS may not Alter on "
        "Cluster — as an admin, grant it: kafkatop acls --add --allow-principal User:ANONYMOUS --operation Alter "
        "--cluster --bootstrap-server b:9092 --command-config ADMIN.properties"
    )


def test_a_labs_address_or_client_file_is_known_as_the_lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Given a lab's bootstrap servers and its client.properties, as a user copies them from `kafkatop status`: the
    line names the lab's admin.properties, which kafkatop knows, not the refused user's file (issue 38)."""
    monkeypatch.chdir(tmp_path)
    state = tmp_path / "state"
    lab = state / "lab1"
    lab.mkdir(parents=True)
    nodes = [{"name": "broker-1", "role": "broker", "node_id": 1, "port": 19092},
             {"name": "controller-2", "role": "controller", "node_id": 2, "port": 19093}]  # fmt: skip
    (lab / "cluster.json").write_text(json.dumps({"nodes": nodes}))
    (lab / "admin.properties").write_text("security.protocol=SASL_SSL\n")
    admin = str(lab / "admin.properties")
    by_address = _args(bootstrap_server="localhost:19092", command_config="/elsewhere/me.properties",
                       state_dir=str(state))  # fmt: skip
    assert acl_flags(by_address)[-2:] == ("--command-config", admin)
    by_file = _args(bootstrap_server="127.0.0.1:19092", command_config=str(lab / "client.properties"))
    assert acl_flags(by_file) == ("--bootstrap-server", "127.0.0.1:19092", "--command-config", admin)
    elsewhere = _args(bootstrap_server="127.0.0.1:19093", command_config="me.properties", state_dir=str(state))
    assert acl_flags(elsewhere)[-1] == "ADMIN.properties"  # a controller's port is no broker of the lab


def test_a_wildcard_is_never_offered_as_a_grant() -> None:
    """`*` as a topic, group or transactional id is every one of them to Kafka, `User:*` every user: the text says
    why it is not offered, and the line that allows it on purpose (issue 38)."""
    settings = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.username": "client"}
    found = refused("TOPIC_AUTHORIZATION_FAILED", "produce", settings, topics=["*", "orders"])
    assert found is not None
    assert [g.wildcard for g in found.grants] == [True, False]
    text = found.text(("--name", "lab"))
    assert "— grant it: kafkatop acls --add --allow-principal User:client --operation Write --topic orders " in text
    assert "--topic '*'" not in text.split(";")[0]  # the line to paste grants only what was refused
    assert text.endswith(
        "Topic:* is Kafka's wildcard: an ACL on it would allow Write on every topic, more than was refused, so "
        "kafkatop does not offer it; to allow that on purpose: kafkatop acls --add --allow-principal User:client "
        "--operation Write --topic '*' --name lab"
    )
    group = refused("GROUP_AUTHORIZATION_FAILED", "describe group", settings, group="*")
    assert group is not None and "on every group" in group.text() and "grant it" not in group.text()
    anyone = Grant("User:*", ("READ",), ResourcePattern("TOPIC", "t"))
    assert anyone.wildcard and not Grant(CLIENT, ("ALTER",), ResourcePattern("CLUSTER", "kafka-cluster")).wildcard


def test_a_grant_line_still_names_a_hostile_group_when_printed_at_a_terminal() -> None:
    """A group named with ESC and U+202E: its line is written with bash's $'…', printable as it is (a terminal's
    escaping changes nothing), and a shell reads the group's own name back from it (issue 38)."""
    group = "e\x1b[31mvil\u202e'\\"
    settings = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.username": "client"}
    found = refused("GROUP_AUTHORIZATION_FAILED", "describe group", settings, group=group)
    assert found is not None
    line = found.text(("--name", "lab")).split("grant it: ", 1)[1]
    assert printable(line) == line
    words = subprocess.run(["bash", "-c", 'printf "%s\\0" ' + line.removeprefix("kafkatop ")], capture_output=True,
                           check=True, timeout=10).stdout.split(b"\0")  # fmt: skip
    assert group.encode() in words and words[words.index(b"--group") + 1] == group.encode()
