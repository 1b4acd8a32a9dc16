"""`kafkatop acls`'s options: kafka-acls.sh's own, with their meanings and defaults (standard library only, so
`kafkatop --help` answers at once)."""

from __future__ import annotations

import argparse

from kafkatop.tui.cli.options import Parser
from kafkatop.tui.cli.parser_common import json_option, timeout_option
from kafkatop.tui.cli.values import text

PATTERN_TYPES = ("literal", "prefixed", "match", "any")

ACLS: dict[str, str] = {
    "help": "list, add and remove ACLs (as kafka-acls.sh)",
    "description": "The cluster's ACLs, with kafka-acls.sh's options and output. --list: every ACL, or those of the "
    "resources named (--principal: of these principals). --add: the principals (--allow-principal, --deny-principal "
    "TYPE:NAME) may (or may not) do each --operation (All unless given) from each host (--allow-host, --deny-host: "
    "* unless given) on each resource named (--topic, --group, --cluster, --transactional-id, --delegation-token, "
    "--user-principal; --resource-pattern-type literal or prefixed). --producer grants Write, Describe and Create on "
    "the topics (Write and Describe on the transactional ids; --idempotent: IdempotentWrite on the Cluster), "
    "--consumer Read and Describe on the topics and Read on the groups. --remove: those ACLs (no principal: every ACL "
    "of the resources), asking first unless --force; --resource-pattern-type match also removes the prefixed and "
    "wildcard ACLs that cover the names, and any: the ACLs of every pattern type.",
    "epilog": "Spoken over DescribeAcls, CreateAcls and DeleteAcls, as the user of --command-config (a lab with an "
    "authorizer: admin.properties, its super user, by itself). The user needs Describe on the Cluster to list, Alter "
    "to add or remove. Exit codes: 0 done; 1 Kafka could not be asked, has no authorizer (SECURITY_DISABLED) or "
    "refused the user (CLUSTER_AUTHORIZATION_FAILED): each said in one line, with what to do; 2 bad input (an unknown "
    "operation, a principal without TYPE:, an operation the resource does not take, options that do not go "
    "together): nothing is sent.",
}


def pattern_type(value: str) -> str:
    chosen = value.strip().lower()
    if chosen not in PATTERN_TYPES:
        raise argparse.ArgumentTypeError(f"expected one of {', '.join(PATTERN_TYPES)}; not {value!r}")
    return chosen


def add_acls(a: Parser) -> None:
    a.option("--list", action="store_true", help="list ACLs: every one, or those of the resources named")
    a.option("--add", action="store_true", help="add ACLs")
    a.option("--remove", action="store_true", help="remove ACLs (asks first unless --force)")
    principal = text("a principal, TYPE:NAME (User:alice)")
    a.option("--allow-principal", action="append", metavar="TYPE:NAME", type=principal,
             help="a principal allowed, e.g. User:alice, User:'*' (every user); repeatable", shown="none")  # fmt: skip
    a.option("--deny-principal", action="append", metavar="TYPE:NAME", type=principal,
             help="a principal denied (a deny wins over every allow); repeatable", shown="none")  # fmt: skip
    host = text("a host (an IP address, or *)")
    a.option("--allow-host", action="append", metavar="HOST", type=host,
             help="a host the allowed principals may come from; repeatable",
             shown="* with --allow-principal")  # fmt: skip
    a.option("--deny-host", action="append", metavar="HOST", type=host,
             help="a host the denied principals are refused from; repeatable",
             shown="* with --deny-principal")  # fmt: skip
    a.option("--operation", action="append", metavar="OPERATION", type=text("an operation (Read, Write, …)"),
             help="Read, Write, Create, Delete, Alter, Describe, ClusterAction, DescribeConfigs, AlterConfigs, "
             "IdempotentWrite, CreateTokens, DescribeTokens, TwoPhaseCommit or All (any case); repeatable",
             shown="All")  # fmt: skip
    a.option("--topic", action="append", metavar="TOPIC", type=text("a topic name, or *"),
             help="a topic ('*': every topic); repeatable", shown="none")  # fmt: skip
    a.option("--group", action="append", metavar="GROUP", type=text("a group id, or *"),
             help="a consumer group ('*': every group); repeatable", shown="none")  # fmt: skip
    a.option("--cluster", action="store_true", help="the Cluster (literal pattern type only)")
    a.option("--transactional-id", action="append", metavar="ID", type=text("a transactional id, or *"),
             help="a transactional id ('*': every one); repeatable", shown="none")  # fmt: skip
    a.option("--delegation-token", action="append", metavar="TOKEN", type=text("a delegation token id, or *"),
             help="a delegation token ('*': every one); repeatable", shown="none")  # fmt: skip
    a.option("--user-principal", action="append", metavar="TYPE:NAME", type=principal,
             help="a user as the resource (of CreateTokens, DescribeTokens); repeatable", shown="none")  # fmt: skip
    a.option("--resource-pattern-type", type=pattern_type, default="literal", metavar="TYPE",
             help="literal or prefixed (--add); with --list and --remove also match (every ACL that covers the "
             "names) or any (every pattern type, names exactly)")  # fmt: skip
    a.option("--producer", action="store_true",
             help="--add/--remove the producer's ACLs: Write, Describe, Create on the --topic(s)")  # fmt: skip
    a.option("--consumer", action="store_true",
             help="--add/--remove the consumer's ACLs: Read, Describe on the --topic(s), Read on the "
             "--group(s)")  # fmt: skip
    a.option("--idempotent", action="store_true", help="with --producer: IdempotentWrite on the Cluster too")
    a.option("--principal", action="append", metavar="TYPE:NAME", type=principal,
             help="with --list: the ACLs of this principal; repeatable", shown="every principal")  # fmt: skip
    a.option("--force", action="store_true", help="--remove without asking")
    a.option("--demo", action="store_true", help="the built-in demo (whose mock cluster has no authorizer)")
    json_option(a, "with --list: a JSON list of {resource_type, name, pattern_type, principal, host, operation, "
                "permission}, Kafka's names")  # fmt: skip
    timeout_option(a, 15.0, "per request")
