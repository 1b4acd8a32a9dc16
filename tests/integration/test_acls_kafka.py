"""`kafkatop acls` against a real Apache Kafka 4.1 with StandardAuthorizer (`up --security sasl_ssl --authorizer`):
--add --producer lets Kafka's console producer write as `client`; --list equals kafka-acls.sh --list (same admin
user), block for block and line for line (each block's entries as a set: the tool's own order comes from hash codes
of enums and changes from run to run); --remove --force refuses the producer again; bad inputs exit 2 and change
nothing kafka-acls.sh can see; `client` is told it may not and which file to use; KafkaAcls.poll reads the bindings,
the authorizer and who kafkatop is. And the librdkafka mock (no ACL requests at all) is said in one line.

Set KAFKA_HOME to run the Kafka ones. One broker and one controller on free ports, shared by the module
(tests/integration/authorizer_lab.py); every node is stopped at the end, by recorded pid if need be.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.kafka.security.acls import KafkaAcls
from kafkatop.backends.model.acls import AccessControlEntry, AclBinding, AclBindingFilter, ResourcePattern
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.tui.cli.common import client_settings
from kafkatop.tui.cli.main import main
from kafkatop.tui.cli.parser import build_parser
from tests.integration.authorizer_lab import AuthorizerLab, authorizer_lab

TOPIC = "t"


@pytest.fixture(scope="module")
def lab(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AuthorizerLab]:
    with authorizer_lab(tmp_path_factory.mktemp("acls"), kafka_home) as lab:
        yield lab


def kafkatop(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["acls", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def blocks(text: str) -> set[tuple[str, frozenset[str]]]:
    """kafka-acls.sh's output as its blocks: each a header line (with what follows its last tab) and its entries."""
    found = set()
    for block in text.split("\n\n"):
        if block.strip():
            header, *lines = block.split("\n")
            found.add((header, frozenset(lines)))
    return found


def tool_list(lab: AuthorizerLab, *args: str) -> str:
    listed = lab.kafka_acls("--list", *args)
    assert listed.returncode == 0 and "Error" not in listed.stdout, listed.stdout + listed.stderr
    return listed.stdout


def produced(lab: AuthorizerLab, line: str) -> bool:
    """Whether Kafka's console producer, as client, may write `line` to TOPIC: refused with no ACL on it (Topic
    authorization failed), or with Describe alone (a consumer's: its idempotent producer id is refused, Cluster)."""
    result = lab.produce(lab.client_properties, TOPIC, line)
    said = result.stdout + result.stderr
    if "TopicAuthorizationException: Not authorized to access topics: [t]" in said or (
        "ClusterAuthorizationException: Cluster authorization failed." in said
    ):
        return False
    assert result.returncode == 0 and "ERROR" not in said, said
    return True


@pytest.mark.kafka
def test_add_lets_the_client_produce_list_matches_kafka_acls_and_remove_refuses_it_again(
    lab: AuthorizerLab, capsys: pytest.CaptureFixture[str]
) -> None:
    assert not produced(lab, "refused")

    code, out, err = kafkatop(capsys, "--add", "--allow-principal", "User:client", "--producer", "--topic", TOPIC,
                              *lab.flags)  # fmt: skip
    assert (code, err) == (0, ""), err
    header = "Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=t, patternType=LITERAL)`: "
    entries = {f"\t(principal=User:client, host=*, operation={op}, permissionType=ALLOW)"
               for op in ("WRITE", "DESCRIBE", "CREATE")}  # fmt: skip
    first, second, *rest = out.split("\n")
    assert first == header and second.startswith(" \t") and {second[1:], *rest[:2]} == entries
    assert rest[2:] == ["", ""]  # the block, a blank line, then the newline that ends it: the tool's

    deadline = time.monotonic() + 30
    while not produced(lab, "allowed") and time.monotonic() < deadline:
        pass
    assert time.monotonic() < deadline, "the client still may not produce"

    # Another resource's ACLs and a prefixed one beside it, so that the listing has several blocks.
    assert kafkatop(capsys, "--add", "--allow-principal", "User:client", "--consumer", "--topic", TOPIC, "--group",
                    "g", *lab.flags)[0] == 0  # fmt: skip
    assert kafkatop(capsys, "--add", "--deny-principal", "User:*", "--deny-host", "10.0.0.9", "--operation", "Alter",
                    "--topic", "orders-", "--resource-pattern-type", "prefixed", *lab.flags)[0] == 0  # fmt: skip
    tool = tool_list(lab)
    code, ours, err = kafkatop(capsys, "--list", *lab.flags)
    assert (code, err) == (0, "")
    assert blocks(ours) == blocks(tool) and len(blocks(tool)) == 3, ours + tool
    assert sorted(ours.splitlines()) == sorted(tool.splitlines())
    # The same with the same user's file given as kafka-acls.sh is given it, and filtered by principal.
    same = ("--bootstrap-server", lab.bootstrap, "--command-config", str(lab.admin_properties))
    assert kafkatop(capsys, "--list", *same) == (0, ours, "")
    by_principal = ("--principal", "User:client", "--principal", "User:*")
    code, ours, _ = kafkatop(capsys, "--list", *by_principal, *lab.flags)
    tool = tool_list(lab, *by_principal)
    assert code == 0 and [line for line in ours.splitlines() if line.startswith("ACLs for principal")] == [
        line for line in tool.splitlines() if line.startswith("ACLs for principal")
    ]  # the tool's order of the principals
    assert sorted(ours.splitlines()) == sorted(tool.splitlines())
    code, out, _ = kafkatop(capsys, "--list", "--json", "--group", "g", *lab.flags)
    assert (code, json.loads(out)) == (0, [{"resource_type": "GROUP", "name": "g", "pattern_type": "LITERAL",
                                            "principal": "User:client", "host": "*", "operation": "READ",
                                            "permission": "ALLOW"}])  # fmt: skip

    code, out, err = kafkatop(capsys, "--remove", "--force", "--allow-principal", "User:client", "--producer",
                              "--topic", TOPIC, *lab.flags)  # fmt: skip
    assert (code, out, err) == (0, "", "")  # the tool says nothing either
    left = tool_list(lab, "--topic", TOPIC)
    assert "operation=WRITE" not in left and "operation=READ" in left  # the consumer's stay
    assert not produced(lab, "refused again")


BAD = [
    ("--add", "--allow-principal", "User:client", "--operation", "Fly", "--topic", TOPIC),
    ("--add", "--allow-principal", "client", "--producer", "--topic", TOPIC),
    ("--add", "--allow-principal", "User:client", "--topic", TOPIC, "--resource-pattern-type", "match"),
    ("--add", "--allow-principal", "User:client", "--producer"),
    ("--add", "--allow-principal", "User:client", "--consumer", "--topic", TOPIC),
    ("--add", "--allow-principal", "User:client", "--operation", "IdempotentWrite", "--topic", TOPIC),
    ("--add", "--operation", "Write", "--topic", TOPIC),
    ("--add", "--allow-principal", "User:client", "--topic", "*", "--resource-pattern-type", "prefixed"),
    ("--remove", "--topic", TOPIC),  # no terminal to ask on, and no --force
]


@pytest.mark.kafka
def test_bad_inputs_and_a_user_who_may_not_change_nothing(
    lab: AuthorizerLab, capsys: pytest.CaptureFixture[str]
) -> None:
    before = tool_list(lab)
    for argv in BAD:
        code, out, err = kafkatop(capsys, *argv, *lab.flags)
        assert (code, out) == (2, "") and err.count("\n") == 1 and err.startswith("kafkatop: "), (argv, err)

    # client may not: told so, with the file that may (the lab's admin.properties, beside its client.properties).
    as_client = ("--bootstrap-server", lab.bootstrap, "--command-config", str(lab.client_properties))
    code, out, err = kafkatop(capsys, "--list", *as_client)
    assert (code, out) == (1, "")
    assert err == (
        "kafkatop: User:client may not Describe the Cluster (CLUSTER_AUTHORIZATION_FAILED): `kafkatop acls --list` "
        f"needs Describe on the Cluster, or a super user: give --command-config {lab.admin_properties} (the lab's "
        "admin, a super user)\n"
    )
    code, _, err = kafkatop(capsys, "--add", "--allow-principal", "User:client", "--cluster", "--operation", "Alter",
                            *as_client)  # fmt: skip
    assert code == 1 and "User:client may not Alter the Cluster (CLUSTER_AUTHORIZATION_FAILED)" in err
    assert blocks(tool_list(lab)) == blocks(before)


@pytest.mark.kafka
def test_poll_reads_the_bindings_the_authorizer_and_who_kafkatop_is(lab: AuthorizerLab) -> None:
    settings = client_settings(build_parser().parse_args(["acls", "--list", *lab.flags]))  # the lab's admin
    admin = KafkaAcls(KafkaConnection.parse(lab.bootstrap, settings), timeout_s=20)
    try:
        binding = AclBinding(ResourcePattern("TRANSACTIONAL_ID", "pay-"),
                             AccessControlEntry("User:client", "*", "WRITE", "ALLOW"))  # fmt: skip
        admin.create([binding])
        snap = admin.poll()
        assert snap.error is None and snap.principal == "User:admin" and binding in snap.bindings
        assert snap.authorizer.class_name == "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
        assert admin.delete([AclBindingFilter.exactly(binding)]) == (binding,)
        assert binding not in admin.poll().bindings
    finally:
        admin.close()
    as_client = ["acls", "--list", "--bootstrap-server", lab.bootstrap, "--command-config", str(lab.client_properties)]
    client = KafkaAcls(KafkaConnection.parse(lab.bootstrap, client_settings(build_parser().parse_args(as_client))))
    try:
        refused = client.poll()
        assert (refused.bindings, refused.principal) == ((), "User:client")
        assert refused.error is not None and "CLUSTER_AUTHORIZATION_FAILED" in refused.error
    finally:
        client.close()


def test_the_mock_cluster_answers_no_acl_request(mock_cluster: MockCluster, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = kafkatop(capsys, "--list", "--bootstrap-server", mock_cluster.bootstrap_servers)
    assert (code, out) == (1, "")
    assert "does not offer DescribeAcls" in err and "kafkatop up --security sasl_ssl --authorizer" in err
