"""The users command's options: SCRAM users and their quotas, as kafka-configs.sh --entity-type users (standard
library only, so `kafkatop --help` answers at once)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import NoReturn

from kafkatop.tui.cli.options import Parser
from kafkatop.tui.cli.parser_common import json_option, timeout_option
from kafkatop.tui.cli.values import text, whole

MECHANISMS = ("SCRAM-SHA-256", "SCRAM-SHA-512")  # model/users.py's, here so --help loads no model
NO_PASSWORD = (
    "passwords are never taken from the command line (any local user reads it in ps): type it at the prompt or pipe "
    "it on stdin"
)

USERS: dict[str, str] = {
    "help": "SCRAM users and their quotas: list, add or change a password, delete (as kafka-configs.sh "
    "--entity-type users)",
    "description": "Lists each SCRAM user with its mechanisms and iterations, and the quotas per user, client id "
    "and IP (producer_byte_rate, consumer_byte_rate, request_percentage, controller_mutation_rate …), in "
    "kafka-configs.sh --describe's lines (--entity-type users, then clients, users with clients, ips). --add NAME "
    "adds a user or changes its password; the password is read from the prompt (twice, not echoed) or, when stdin "
    "is not a terminal, as one line from stdin — never from the command line. --delete NAME removes the user's "
    "credentials (asks first unless --force): it can no longer log in. On a SASL lab the lab's own users (admin, "
    "client) are refused: the lab and its client.properties depend on them.",
    "epilog": "Quotas are set with kafka-configs.sh --alter --add-config producer_byte_rate=1024 --entity-type "
    "users --entity-name NAME (kafkatop shows them). Exit codes: 0 done; 1 Kafka could not be asked or refused "
    "(its error name and message are shown, and the ACL to grant when it is an authorization error), or a deletion "
    "was not confirmed; 2 bad input (an unknown mechanism or user, iterations out of range, an empty or mismatched "
    "password).",
}


class RefusePassword(argparse.Action):
    """`--password`: refused, its value never shown (argparse's own error for an unknown option would echo it)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[object] | None,
        option_string: str | None = None,
    ) -> NoReturn:
        parser.error(NO_PASSWORD)


def add_users(u: Parser) -> None:
    u.option("--list", action="store_true", help="each SCRAM user with its mechanisms and iterations, and the "
             "quotas, as kafka-configs.sh --describe", shown="on, without --add or --delete")  # fmt: skip
    u.option("--user", metavar="NAME", type=text("a user name"), help="with --list: this user only (its quotas, "
             "its SCRAM credentials, its client ids' quotas)", shown="every user")  # fmt: skip
    u.option("--add", metavar="NAME", type=text("a user name"), help="add this user, or change its password "
             "(read from the prompt or stdin)", shown="none")  # fmt: skip
    u.option("--delete", metavar="NAME", type=text("a user name"), help="delete this user's SCRAM credentials: it "
             "can no longer log in", shown="none")  # fmt: skip
    u.option("--mechanism", type=str.upper, choices=MECHANISMS, metavar="MECHANISM",
             help="with --add or --delete: SCRAM-SHA-256 or SCRAM-SHA-512",
             shown="--add: SCRAM-SHA-512; --delete: every one the user has")  # fmt: skip
    u.option("--iterations", type=whole(4096, 16384, "a number of iterations"), metavar="N",
             help="with --add: SCRAM iterations (Kafka takes 4096 to 16384)", shown="4096")  # fmt: skip
    u.option("--password", action=RefusePassword, nargs="?", metavar="PASSWORD",
             help="never taken here: --add asks at the prompt, or reads one line from stdin",
             shown="the prompt, or stdin")  # fmt: skip
    u.option("--force", "--yes", dest="yes", action="store_true", help="with --delete: without asking")
    json_option(u, "with --list: {users: [{user, credentials}], quotas: [{user?, client-id?, ip?, values}]}")
    timeout_option(u, 15.0, "to read or change the users")
    # Words after the options are refused by cmd_users without being shown: one of them may be a password.
    u.add_argument("stray", nargs="*", help=argparse.SUPPRESS)
