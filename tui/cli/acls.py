"""`kafkatop acls`: the cluster's ACLs listed, added and removed as kafka-acls.sh does, with its options and its
output line for line (backends/insight/acl_command.py), over kafkatop's own DescribeAcls, CreateAcls and DeleteAcls
(backends/kafka/acls.py). Every check of the options is made before anything is sent."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kafkatop.backends.insight.acl_command import (
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
)
from kafkatop.backends.kafka.security.acls import AclsRefused, KafkaAcls
from kafkatop.backends.model.acls import AclBinding
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.tui.cli.common import connection
from kafkatop.tui.cli.exits import DONE, FAILED, UsageError, err

DEMO = (
    "the demo's mock cluster has no authorizer (librdkafka's mock answers no ACL request): for ACLs start a lab with "
    "one, `kafkatop up --security sasl_ssl --authorizer`, and run `kafkatop acls` on it"
)
NOT_ASKED = (
    "--remove asks before it removes ACLs, and stdin is not a terminal to ask on: add --force to remove them without "
    "asking (nothing was sent)"
)


def _many(args: argparse.Namespace, dest: str) -> tuple[str, ...]:
    value = getattr(args, dest, None)  # a list; one value when given before the command as another's option
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def command_of(args: argparse.Namespace) -> AclCommand:
    """The options as kafka-acls.sh reads them, checked as it checks them (BadInput, exit 2)."""
    cmd = AclCommand(
        action=action_of(bool(args.add), bool(args.remove), bool(args.list)),
        topics=_many(args, "topic"),
        groups=_many(args, "group"),
        transactional_ids=_many(args, "transactional_id"),
        delegation_tokens=_many(args, "delegation_token"),
        user_principals=_many(args, "user_principal"),
        cluster=bool(args.cluster),
        pattern_type=str(args.resource_pattern_type).upper(),
        operations=_many(args, "operation"),
        allow_principals=_many(args, "allow_principal"),
        deny_principals=_many(args, "deny_principal"),
        allow_hosts=_many(args, "allow_host"),
        deny_hosts=_many(args, "deny_host"),
        producer=bool(args.producer),
        consumer=bool(args.consumer),
        idempotent=bool(args.idempotent),
        principals=_many(args, "principal"),
    )
    check(cmd)
    if args.json and cmd.action != "list":
        raise UsageError("--json goes with --list: --add and --remove print kafka-acls.sh's lines")
    return cmd


def cmd_acls(args: argparse.Namespace) -> int:
    if args.demo:
        err(DEMO)
        return FAILED
    cmd = command_of(args)
    # Everything is worked out before the first request: a refusal of the input sends nothing.
    to_add = bindings_to_add(cmd) if cmd.action == "add" else {}
    to_remove = removals(cmd) if cmd.action == "remove" else ()
    if to_remove and not args.force and not sys.stdin.isatty():
        raise UsageError(NOT_ASKED)
    acls = KafkaAcls(connection(args), timeout_s=args.timeout)
    try:
        if cmd.action == "list":
            _list(acls, cmd, args.json)
        for pattern, entries in to_add.items():
            _write(adding_text(pattern, entries))
            acls.create([AclBinding(pattern, e) for e in entries])
        for removal in to_remove:
            if args.force or _confirmed(removal):
                acls.delete(removal.filters)
    except AclsRefused as e:
        raise _with_hint(e, args, cmd.action, acls.principal) from None
    finally:
        acls.close()
    return DONE


def _list(acls: KafkaAcls, cmd: AclCommand, as_json: bool) -> None:
    found: dict[AclBinding, None] = {}
    for matching in list_filters(cmd):
        found.update(dict.fromkeys(acls.describe(matching)))
    if as_json:
        wanted = set(cmd.principals)
        print(json.dumps(acls_json(b for b in found if not wanted or b.entry.principal in wanted), indent=2))
    else:
        _write(listing_text(found, cmd.principals))


def _confirmed(removal: Removal) -> bool:
    """The tool's question on stdout, and its answer: y (any case) removes."""
    _write(removal.question)
    return sys.stdin.readline().strip().lower() == "y"


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def _with_hint(e: AclsRefused, args: argparse.Namespace, action: str, principal: str | None) -> KafkatopError:
    """Not allowed: which properties file to give, where kafkatop knows one (a lab's admin.properties)."""
    if e.code != "CLUSTER_AUTHORIZATION_FAILED":
        return e
    operation = "Describe" if action == "list" else "Alter"
    admin = _admin_properties(args)
    where = (
        f"give --command-config {admin} (the lab's admin, a super user)"
        if admin is not None
        else "give --command-config with the properties of a user who may (a lab with an authorizer has "
        "admin.properties beside client.properties)"
    )
    who = principal or "kafkatop's principal (no SASL user: User:ANONYMOUS, or its TLS certificate's)"
    return AclsRefused(f"{who} may not {operation} the Cluster (CLUSTER_AUTHORIZATION_FAILED): `kafkatop acls "
                       f"--{action}` needs {operation} on the Cluster, or a super user: {where}", e.code)  # fmt: skip


def _admin_properties(args: argparse.Namespace) -> Path | None:
    """The lab's admin.properties: beside the --command-config given (a lab's client.properties), the lab's own, or
    that of the lab at the --bootstrap-server given."""
    from kafkatop.tui.cli.grant_lines import admin_properties

    try:
        return admin_properties(args)
    except KafkatopError:
        return None
