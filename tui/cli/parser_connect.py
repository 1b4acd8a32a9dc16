"""`kafkatop connect`'s options: Kafka Connect's connectors, tasks, offsets and plugins through the workers' REST API
(standard library only, so `kafkatop --help` answers at once)."""

from __future__ import annotations

import argparse

from kafkatop.tui.cli.options import Fail, Parser
from kafkatop.tui.cli.parser_common import command_config, json_option, lab_options, timeout_option
from kafkatop.tui.cli.values import connect_url, text

# Each action, and whether it changes a connector (offsets writes only with --reset or --alter): read-only refuses it.
CONNECT_ACTIONS: dict[str, bool] = {
    "list": False, "status": False, "create": True, "validate": False, "pause": True, "resume": True, "stop": True,
    "restart": True, "delete": True, "offsets": False, "plugins": False,
}  # fmt: skip

CONNECT: dict[str, str] = {
    "help": "Kafka Connect: list, create, pause, resume, stop, restart and delete connectors; offsets; plugins",
    "description": "Talks to Kafka Connect workers' REST API. list: every connector (NAME TYPE STATE TASKS WORKER "
    "CLASS TOPICS; --json: exactly GET /connectors?expand=status&expand=info). status NAME: the connector and its "
    "tasks, each with the worker it runs on and a failed one's trace. create FILE: a connector from Connect's JSON "
    '({"name": …, "config": {…}}), a flat JSON config with "name", or the .properties connect-standalone takes, '
    "validated first (a config the worker refuses is shown field by field, and nothing is created); validate FILE: "
    "that check alone. pause, resume, stop, delete NAME (delete asks first); restart NAME (--include-tasks, "
    "--only-failed). offsets NAME: its offsets (KIP-875); --reset deletes them, --alter FILE sets them, which Connect "
    "does only for a STOPPED connector. plugins: the worker's plugins; plugins CLASS: the settings a connector class "
    "takes.",
    "epilog": "The workers: --connect-url (repeatable), else the context's connect-url, else the lab's workers "
    "(`kafkatop up --connect N`). A worker that does not answer is named and the next is asked. Basic auth and TLS "
    "come from --command-config: connect.basic.auth.user.info=USER:PASSWORD, connect.ssl.ca.location, "
    "connect.ssl.certificate.location, connect.ssl.key.location, connect.ssl.key.password. Exit codes: 0 done; 1 no "
    "worker answered, or one failed the request (its message shown); 2 bad input, or a request Connect refused (an "
    "unknown connector, a config it rejects, offsets of a connector not stopped), with the worker's own message.",
}


def add_connect(c: Parser) -> None:
    c.add_argument("connect_command", choices=tuple(CONNECT_ACTIONS), metavar="ACTION",
                   help=f"one of {', '.join(CONNECT_ACTIONS)}")  # fmt: skip
    c.add_argument("target", nargs="?", metavar="NAME|FILE|CLASS",
                   help="the connector (status, pause, resume, stop, restart, delete, offsets), the file (create, "
                   "validate) or the plugin class (plugins)")  # fmt: skip
    lab_options(c, spec_file=False)
    c.option("--connect-url", action="append", metavar="URL", type=connect_url,
             help="a Connect worker's REST URL (http://HOST:8083); repeatable: the next is asked when one does not "
             "answer", shown="the context's connect-url, else the lab's workers")  # fmt: skip
    command_config(c)
    c.option("--include-tasks", action="store_true", help="restart: the connector's tasks too")
    c.option("--only-failed", action="store_true", help="restart: only what has FAILED")
    c.option("--reset", action="store_true", help="offsets: delete the connector's offsets (it must be STOPPED)")
    c.option("--alter", metavar="FILE", type=text("a file"),
             help="offsets: set the connector's offsets from FILE, as `offsets NAME --json` prints them ({\"offsets\": "
             "[{\"partition\": …, \"offset\": …}]}; an offset of null removes it; it must be STOPPED)")  # fmt: skip
    c.option("--yes", action="store_true", help="delete, offsets --reset: without asking")
    json_option(c, "list, status, create, validate, offsets, plugins: the worker's JSON answer as it is")
    timeout_option(c, 15.0, "per request, per worker asked")


def connect_writes(args: argparse.Namespace) -> bool:
    return CONNECT_ACTIONS[args.connect_command] or bool(args.reset) or bool(args.alter)


def settle_connect(args: argparse.Namespace, extras: list[str], fail: Fail) -> None:
    """argparse takes a command's positionals in one go, so the NAME of `connect status --json NAME` (an option
    between the action and its name) comes back unrecognized: it is the action's, when it lacks one."""
    if args.target is None and len(extras) == 1 and not extras[0].startswith("-"):
        args.target = extras.pop()
