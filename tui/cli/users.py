"""`kafkatop users`: SCRAM users and their quotas, as `kafka-configs.sh --entity-type users` lists them, line for
line; a user added or its password changed (--add), or deleted (--delete, asked first).

The password is read from the prompt (getpass: not echoed, asked twice) or, when stdin is not a terminal, as one
line from stdin; never from the command line, where any local user reads it (ps, /proc/PID/cmdline). It goes to
librdkafka, which salts and hashes it, and is never printed, logged or put in a message."""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from collections.abc import Callable
from typing import TypeVar

from kafkatop.backends.insight.grants import Refused
from kafkatop.backends.kafka.security.client_quotas import QuotasRefused, describe_client_quotas
from kafkatop.backends.kafka.security.scram import ScramAdmin, ScramRefused, describe_scram_credentials
from kafkatop.backends.lab.security import ADMIN_USER, CLIENT_USER, uses_sasl
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.backends.model.users import (
    DEFAULT_ITERATIONS,
    DEFAULT_MECHANISM,
    USER,
    UsersSnapshot,
    check_password,
    users_json,
    users_lines,
)
from kafkatop.backends.protocol.connection import Unsupported
from kafkatop.tui.cli.common import confirmed, connection, lab_connection, lab_snapshot, typed_name
from kafkatop.tui.cli.exits import DONE, FAILED, UsageError, err
from kafkatop.tui.cli.grant_lines import error_line
from kafkatop.tui.cli.parser_users import NO_PASSWORD

T = TypeVar("T")

# A SASL lab's own users: changing or deleting them breaks the lab (its brokers, its client settings).
LAB_USERS = {
    ADMIN_USER: "the lab's brokers log in to each other as admin (inter-broker): the lab would stop working",
    CLIENT_USER: "its password is in the lab's client.properties, which kafkatop and Kafka's tools use for this lab",
}


def cmd_users(args: argparse.Namespace) -> int:
    if args.stray:
        raise UsageError(f"words after the options, not shown (one may be a password): {NO_PASSWORD}")
    writes = [flag for flag, value in (("--add", args.add), ("--delete", args.delete)) if value is not None]
    if len(writes) > 1:
        raise UsageError("--add and --delete together: give one")
    if writes and (args.list or args.user or args.json):
        given = [f for f, v in (("--list", args.list), ("--user", args.user), ("--json", args.json)) if v]
        verb = "goes" if len(given) == 1 else "go"
        raise UsageError(f"{' and '.join(given)} {verb} with the listing, not with {writes[0]}: leave {writes[0]} out "
                         "to list")  # fmt: skip
    if args.iterations is not None and args.add is None:
        raise UsageError("--iterations goes with --add (the iterations of the password it sets)")
    if args.mechanism is not None and not writes:
        raise UsageError("--mechanism goes with --add or --delete; the listing shows every mechanism")
    if args.yes and args.delete is None:
        raise UsageError("--yes/--force goes with --delete (which asks first)")
    lab = None if args.bootstrap_server else lab_snapshot(args)
    name = args.add or args.delete
    if name is not None and lab is not None and uses_sasl(lab.security) and name in LAB_USERS:
        raise UsageError(f"user {name!r} is this lab's own: {LAB_USERS[name]}; nothing changed (add another user)")
    # The password before any connection: a bad one is refused with nothing sent.
    password = read_password(args.add, args.mechanism or DEFAULT_MECHANISM) if args.add is not None else None
    conn = connection(args) if lab is None else lab_connection(args, lab)
    if args.add is not None and password is not None:
        return _add(args, conn, args.add, password)
    if args.delete is not None:
        return _delete(args, conn, args.delete)
    return _list(args, conn)


def _list(args: argparse.Namespace, conn: KafkaConnection) -> int:
    credentials = describe_scram_credentials(conn, args.timeout, [args.user] if args.user else None)
    quotas_error: str | None = None
    try:
        quotas = describe_client_quotas(conn, args.timeout)
    except (Refused, QuotasRefused, Unsupported, SourceUnavailable) as e:
        quotas, quotas_error = (), error_line(e, args)  # the users are still shown
    if args.user:
        quotas = tuple(q for q in quotas if USER in q.types and q.name(USER) == args.user)
    snapshot = UsersSnapshot(credentials, quotas, quotas_error)
    if args.json:
        print(json.dumps(users_json(snapshot), indent=2))
    else:
        lines = users_lines(snapshot, args.user)
        if lines:
            print("\n".join(lines))
        elif args.user:
            err(f"user {args.user!r} has no SCRAM credentials and no quotas (`kafkatop users` lists the users)")
    if quotas_error is not None:
        err(f"quotas not shown: {quotas_error}")
    return DONE


def _add(args: argparse.Namespace, conn: KafkaConnection, user: str, password: str) -> int:
    mechanism = args.mechanism or DEFAULT_MECHANISM
    iterations = args.iterations or DEFAULT_ITERATIONS
    with ScramAdmin(conn, timeout_s=args.timeout) as admin:
        _asked(lambda: admin.upsert(user, mechanism, iterations, password))
    print(f"Completed updating config for user {user}.")  # kafka-configs.sh's own words
    return DONE


def _delete(args: argparse.Namespace, conn: KafkaConnection, user: str) -> int:
    with ScramAdmin(conn, timeout_s=args.timeout) as admin:
        has = [c.mechanism for c in admin.describe([user])]
        if not has:
            raise UsageError(f"no SCRAM user {user!r} on this cluster (`kafkatop users` lists them); nothing changed")
        if args.mechanism is not None and args.mechanism not in has:
            raise UsageError(f"user {user!r} has no {args.mechanism} credential (it has {', '.join(has)}); nothing "
                             "changed")  # fmt: skip
        mechanisms = [args.mechanism] if args.mechanism else has
        every = len(mechanisms) == len(has)
        if not confirmed(
            f"delete the {', '.join(mechanisms)} credential{'s' if len(mechanisms) > 1 else ''} of user {user!r}"
            f"{' (it can no longer log in)' if every else ''}?",
            yes=args.yes,
            unasked="nothing was deleted: --delete asks first, on a terminal; add --yes (or --force) to delete "
            "without asking",
            typed=typed_name(args),
        ):
            err("not confirmed: nothing was deleted")
            return FAILED
        _asked(lambda: admin.delete(user, mechanisms))
    print(f"Completed updating config for user {user}.")  # kafka-configs.sh's own words
    return DONE


def read_password(user: str, mechanism: str) -> str:
    """From the prompt, twice, not echoed; or one line of stdin when it is not a terminal. Never shown."""
    if sys.stdin.isatty():
        first = check_password(getpass.getpass(f"Password for user {user} ({mechanism}): "))
        if getpass.getpass("The same password again: ") != first:
            raise UsageError("the two passwords typed differ; nothing changed")
        return first
    return check_password(sys.stdin.readline().removesuffix("\n").removesuffix("\r"))


def _asked(call: Callable[[], T]) -> T:
    """`call`; a credential Kafka will not take is bad input (exit 2). Kafka's other refusals go on to main(): one
    line, exit 1 (an authorization error with the ACL to grant)."""
    try:
        return call()
    except ScramRefused as e:
        if e.code == "UNACCEPTABLE_CREDENTIAL":
            raise UsageError(f"{e}; nothing changed") from None
        raise
