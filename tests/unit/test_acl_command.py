"""kafka-acls.sh's options made into bindings and filters, and its text (backends/insight/acl_command.py), against
Kafka 4.1's AclCommand: what --add creates for each option and convenience, the filters --list and --remove send,
the checks it makes before sending anything, and its lines — compared with what kafka-acls.sh 4.1 printed for the
recorded state (tests/fixtures/protocol/kafka_acls_list_4_1.txt, as a set of blocks: the tool's own order comes from
hash codes of enums, and changes from one run to the next)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkatop.backends.insight.acl_command import (
    NO_RESOURCE,
    AclCommand,
    Removal,
    acls_json,
    action_of,
    adding_text,
    bindings_to_add,
    check,
    list_filters,
    listing_text,
    removals,
    resource_entries,
)
from kafkatop.backends.model.acls import (
    AccessControlEntry,
    AclBinding,
    AclBindingFilter,
    ResourcePattern,
    principal_named,
)
from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.protocol.acls import decode_describe_acls

RECORDED = Path(__file__).parents[1] / "fixtures" / "protocol"
TOPIC_T = ResourcePattern("TOPIC", "t")
CLUSTER = ResourcePattern("CLUSTER", "kafka-cluster")


def allow(principal: str, *operations: str, host: str = "*") -> tuple[AccessControlEntry, ...]:
    return tuple(AccessControlEntry(principal, host, op, "ALLOW") for op in operations)


def blocks(text: str) -> set[tuple[str, frozenset[str]]]:
    """The text as kafka-acls.sh's blocks, each its header and the set of its entry lines."""
    found = set()
    for block in text.split("\n\n"):
        if block:
            header, *lines = block.split("\n")
            found.add((header, frozenset(lines)))
    return found


# --- what --add creates ---------------------------------------------------------------------------------------------
def test_producer_is_write_describe_create_on_each_topic() -> None:
    cmd = AclCommand("add", topics=("t",), allow_principals=("User:client",), producer=True)
    assert bindings_to_add(cmd) == {TOPIC_T: allow("User:client", "WRITE", "CREATE", "DESCRIBE")}


def test_idempotent_producer_adds_idempotent_write_on_the_cluster_and_transactional_ids_write_describe() -> None:
    cmd = AclCommand("add", topics=("t",), transactional_ids=("pay",), allow_principals=("User:p",), producer=True,
                     idempotent=True)  # fmt: skip
    assert bindings_to_add(cmd) == {
        TOPIC_T: allow("User:p", "WRITE", "CREATE", "DESCRIBE"),
        ResourcePattern("TRANSACTIONAL_ID", "pay"): allow("User:p", "WRITE", "DESCRIBE"),
        CLUSTER: allow("User:p", "IDEMPOTENT_WRITE"),
    }


def test_consumer_and_producer_together_merge_on_the_topic() -> None:
    cmd = AclCommand("add", topics=("t",), groups=("g",), allow_principals=("User:c",), producer=True, consumer=True)
    assert bindings_to_add(cmd) == {
        TOPIC_T: allow("User:c", "READ", "WRITE", "CREATE", "DESCRIBE"),
        ResourcePattern("GROUP", "g"): allow("User:c", "READ"),
    }


def test_principals_operations_and_hosts_multiply_and_host_defaults_to_the_wildcard() -> None:
    cmd = AclCommand("add", topics=("a", "b"), allow_principals=("User:x", "User:y"), deny_principals=("User:z",),
                     deny_hosts=("10.0.0.1", "10.0.0.2"), operations=("read", "Write"),
                     pattern_type="PREFIXED")  # fmt: skip
    found = bindings_to_add(cmd)
    assert list(found) == [ResourcePattern("TOPIC", "a", "PREFIXED"), ResourcePattern("TOPIC", "b", "PREFIXED")]
    entries = found[ResourcePattern("TOPIC", "a", "PREFIXED")]
    assert len(entries) == 2 * 2 + 2 * 2  # two allowed × two operations on *, one denied × two × two hosts
    assert AccessControlEntry("User:x", "*", "WRITE", "ALLOW") in entries
    assert AccessControlEntry("User:z", "10.0.0.2", "READ", "DENY") in entries


def test_every_resource_option_and_operation_all_by_default() -> None:
    cmd = AclCommand("add", cluster=True, delegation_tokens=("tok",), user_principals=("User:bob",),
                     allow_principals=("User:a",))  # fmt: skip
    assert list(bindings_to_add(cmd)) == [CLUSTER, ResourcePattern("DELEGATION_TOKEN", "tok"),
                                          ResourcePattern("USER", "User:bob")]  # fmt: skip
    assert set(bindings_to_add(cmd).values()) == {allow("User:a", "ALL")}


# --- bad input: refused before anything is sent ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("cmd", "said"),
    [
        (AclCommand("add", topics=("t",), operations=("Foo",), allow_principals=("User:a",)), "unknown operation"),
        (AclCommand("add", topics=("t",), allow_principals=("client",)), "principal 'client' is not TYPE:NAME"),
        (AclCommand("list", principals=("alice",)), "principal 'alice' is not TYPE:NAME"),
        (AclCommand("add", allow_principals=("User:a",), producer=True), "with --producer you must give a --topic"),
        (AclCommand("add", topics=("t",), allow_principals=("User:a",), consumer=True), "and a --group"),
        (AclCommand("add", topics=("t",), groups=("g",), cluster=True, consumer=True, allow_principals=("User:a",)),
         "no --cluster"),
        (AclCommand("list", topics=("t",), producer=True), "--list does not go with --producer"),
        (AclCommand("add", topics=("t",), producer=True, operations=("Read",), allow_principals=("User:a",)),
         "--producer does not go with --operation"),
        (AclCommand("remove", topics=("t",), principals=("User:a",)), "--principal filters --list"),
        (AclCommand("add", topics=("t",), idempotent=True, allow_principals=("User:a",)), "--idempotent goes with"),
    ],
)  # fmt: skip
def test_the_tools_checks(cmd: AclCommand, said: str) -> None:
    with pytest.raises(BadInput, match=said.replace("(", r"\(")):
        check(cmd)


@pytest.mark.parametrize(
    ("cmd", "said"),
    [
        (AclCommand("add", topics=("t",), operations=("IdempotentWrite",), allow_principals=("User:a",)),
         "--operation IdempotentWrite does not apply to a Topic: it takes Read, Write, Create, Describe, Delete, "
         "Alter, DescribeConfigs, AlterConfigs, All (IdempotentWrite applies to Cluster)"),
        (AclCommand("add", groups=("g",), operations=("Write",), allow_principals=("User:a",)),
         "--operation Write does not apply to a Group"),
        (AclCommand("add", topics=("t",), operations=("Read",)), "--add needs a principal"),
        (AclCommand("add", topics=("t",), allow_principals=("User:a",), pattern_type="MATCH"),
         "--resource-pattern-type match is a filter"),
        (AclCommand("add", topics=("t",), allow_principals=("User:a",), pattern_type="ANY"),
         "--resource-pattern-type any is a filter"),
        (AclCommand("add", topics=("*",), allow_principals=("User:a",), pattern_type="PREFIXED"),
         "--topic '*' with --resource-pattern-type prefixed is the prefix `*`"),
        (AclCommand("add", cluster=True, allow_principals=("User:a",), pattern_type="PREFIXED"),
         "--cluster takes the literal pattern type only"),  # fmt: skip
        (AclCommand("add", allow_principals=("User:a",)), NO_RESOURCE),
    ],
)  # fmt: skip
def test_what_add_refuses(cmd: AclCommand, said: str) -> None:
    check(cmd)
    with pytest.raises(BadInput) as refused:
        bindings_to_add(cmd)
    assert said in str(refused.value)


def test_a_prefixed_wildcard_may_still_be_listed_and_removed() -> None:
    """Kafka takes one (kafka-acls.sh adds it): kafkatop refuses to add it, not to clean it up."""
    cmd = AclCommand("remove", topics=("*",), pattern_type="PREFIXED")
    assert removals(cmd)[0].filters == (AclBindingFilter("TOPIC", "*", "PREFIXED"),)


def test_exactly_one_action() -> None:
    assert action_of(False, True, False) == "remove"
    for flags in ((False, False, False), (True, False, True)):
        with pytest.raises(BadInput, match="give exactly one action"):
            action_of(*flags)


# --- what --remove and --list send ---------------------------------------------------------------------------------
def test_remove_without_a_principal_deletes_every_acl_of_the_resource_and_asks_so() -> None:
    (removal,) = removals(AclCommand("remove", groups=("g",), pattern_type="MATCH"))
    assert removal.filters == (AclBindingFilter("GROUP", "g", "MATCH"),)
    assert removal.question == ("Are you sure you want to delete all ACLs for resource filter `ResourcePattern("
                                "resourceType=GROUP, name=g, patternType=MATCH)`? (y/n)\n")  # fmt: skip


def test_remove_with_a_principal_deletes_exactly_those_entries() -> None:
    cmd = AclCommand("remove", topics=("t",), allow_principals=("User:client",), producer=True)
    (removal,) = removals(cmd)
    assert removal.filters == tuple(
        AclBindingFilter("TOPIC", "t", "LITERAL", "User:client", "*", op, "ALLOW")
        for op in ("WRITE", "CREATE", "DESCRIBE")
    )
    assert removal.question == (
        "Are you sure you want to remove ACLs: \n"
        " \t(principal=User:client, host=*, operation=WRITE, permissionType=ALLOW)\n"
        "\t(principal=User:client, host=*, operation=CREATE, permissionType=ALLOW)\n"
        "\t(principal=User:client, host=*, operation=DESCRIBE, permissionType=ALLOW)\n"
        " from resource filter `ResourcePattern(resourceType=TOPIC, name=t, patternType=LITERAL)`? (y/n)\n"
    )


def test_list_asks_for_every_acl_or_each_resource_named() -> None:
    assert list_filters(AclCommand("list")) == (AclBindingFilter(),)
    assert list_filters(AclCommand("list", topics=("t",), cluster=True, pattern_type="ANY")) == (
        AclBindingFilter("TOPIC", "t", "ANY"),  # --cluster only with literal, as the tool has it
    )
    assert resource_entries(AclCommand("remove", topics=("t",))) == {TOPIC_T: ()}


# --- the text -------------------------------------------------------------------------------------------------------
def test_adding_text_is_the_tools() -> None:
    assert adding_text(TOPIC_T, allow("User:client", "WRITE", "DESCRIBE")) == (
        "Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=t, patternType=LITERAL)`: \n"
        " \t(principal=User:client, host=*, operation=WRITE, permissionType=ALLOW)\n"
        "\t(principal=User:client, host=*, operation=DESCRIBE, permissionType=ALLOW)\n\n"
    )


def recorded_bindings() -> tuple[AclBinding, ...]:
    return decode_describe_acls((RECORDED / "describe_acls_v3_4_1.bin").read_bytes()).bindings


def test_list_text_has_the_tools_blocks_for_the_recorded_state() -> None:
    """Every kind the recorded state holds: prefixed, wildcard, deny with a host, Cluster, User, TransactionalId."""
    tool = (RECORDED / "kafka_acls_list_4_1.txt").read_text()
    ours = listing_text(recorded_bindings())
    assert blocks(ours) == blocks(tool)
    assert sorted(ours.splitlines()) == sorted(tool.splitlines())  # every line, blank ones too
    assert ours.endswith("\n\n") and not ours.startswith("\n")


def test_list_by_principal_in_the_tools_order() -> None:
    """kafka-acls.sh 4.1 printed these four principals in this order (a HashSet of KafkaPrincipal: hashed by their
    strings); a principal without ACLs gets its header alone."""
    text = listing_text(recorded_bindings(), ["User:client", "User:admin", "User:zed", "Group:ops"])
    headers = [line for line in text.splitlines() if line.startswith("ACLs for principal")]
    assert headers == [f"ACLs for principal `{p}`" for p in ("User:client", "Group:ops", "User:zed", "User:admin")]
    assert text.startswith("ACLs for principal `User:client`\nCurrent ACLs for resource `ResourcePattern("
                           "resourceType=TOPIC, name=t, patternType=LITERAL)`:\n")  # fmt: skip
    assert "ACLs for principal `User:admin`\n" == text[-len("ACLs for principal `User:admin`\n") :]


def test_list_json_is_one_object_per_binding() -> None:
    found = acls_json(recorded_bindings())
    assert len(found) == 10
    assert {"resource_type": "TOPIC", "name": "*", "pattern_type": "LITERAL", "principal": "User:bob",
            "host": "10.0.0.1", "operation": "WRITE", "permission": "DENY"} in found  # fmt: skip


def test_removal_of_no_entries_sends_one_filter() -> None:
    assert Removal(TOPIC_T, ()).filters == (AclBindingFilter("TOPIC", "t", "LITERAL"),)


@pytest.mark.parametrize(
    ("typed", "example"), [("User:", "User:alice"), ("client", "User:client"), (":bob", "User:bob"), ("", "User:alice")]
)
def test_a_principal_without_its_type_or_name_is_refused_with_an_example_made_of_what_was_typed(
    typed: str, example: str
) -> None:
    with pytest.raises(BadInput, match=f"e.g. {example}$"):
        principal_named(typed)
