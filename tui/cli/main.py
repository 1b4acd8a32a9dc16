"""`kafkatop`: parse the command line, then run a headless command or the live view. Each returns an exit code:
0 done, 1 failed, 2 bad input, 130 interrupted. Command modules are imported when their command runs, so
`kafkatop --help` answers at once."""

from __future__ import annotations

import argparse
import os
import sys

from kafkatop.backends.model.errors import KafkatopError
from kafkatop.tui.cli.exits import DONE, FAILED, INTERRUPTED, Declined, err, exit_status
from kafkatop.tui.cli.parser import build_parser

LAB_COMMANDS = frozenset({"up", "down", "status", "kill", "stop", "start", "restart", "add-broker", "add-connect"})


def run_command(args: argparse.Namespace) -> int:
    command: str = args.command
    if command in LAB_COMMANDS:
        from kafkatop.tui.cli import lab

        return lab.run(args)
    if command in ("create-topic", "describe"):
        from kafkatop.tui.cli import topics

        return topics.cmd_create_topic(args) if command == "create-topic" else topics.cmd_describe(args)
    if command == "configs":
        from kafkatop.tui.cli.configs import cmd_configs

        return cmd_configs(args)
    if command == "groups":
        from kafkatop.tui.cli.groups import cmd_groups

        return cmd_groups(args)
    if command == "consume":
        from kafkatop.tui.cli.consume import cmd_consume

        return cmd_consume(args)
    if command == "produce":
        from kafkatop.tui.cli.produce import cmd_produce

        return cmd_produce(args)
    if command == "reassign":
        from kafkatop.tui.cli.reassign import cmd_reassign

        return cmd_reassign(args)
    if command == "durability" and args.connect:
        from kafkatop.tui.cli.pipeline import cmd_pipeline

        return cmd_pipeline(args)
    if command == "durability":
        from kafkatop.tui.cli.durability import cmd_durability

        return cmd_durability(args)
    if command == "chaos":
        from kafkatop.tui.cli.chaos import cmd_chaos

        return cmd_chaos(args)
    if command in ("elect-leaders", "add-partitions"):
        from kafkatop.tui.cli import elect

        return elect.cmd_elect_leaders(args) if command == "elect-leaders" else elect.cmd_add_partitions(args)
    if command == "install":
        from kafkatop.tui.cli.install import cmd_install

        return cmd_install(args)
    if command == "features":
        from kafkatop.tui.cli.features import cmd_features

        return cmd_features(args)
    if command == "share-groups":
        from kafkatop.tui.cli.share_groups import cmd_share_groups

        return cmd_share_groups(args)
    if command == "transactions":
        from kafkatop.tui.cli.transactions import cmd_transactions

        return cmd_transactions(args)
    if command == "contexts":
        from kafkatop.tui.cli.contexts import cmd_contexts

        return cmd_contexts(args)
    if command == "connect":
        from kafkatop.tui.cli.connect import cmd_connect

        return cmd_connect(args)
    if command == "acls":
        from kafkatop.tui.cli.acls import cmd_acls

        return cmd_acls(args)
    if command == "users":
        from kafkatop.tui.cli.users import cmd_users

        return cmd_users(args)
    if command == "counts":
        from kafkatop.tui.cli.counts import cmd_counts

        return cmd_counts(args)
    raise AssertionError(f"no command {command!r}")  # argparse allows only the commands it knows


def parse(argv: list[str] | None) -> argparse.Namespace:
    """The command line. argparse takes a command's positionals in one go, so the NAME of `connect status --json
    NAME` (an option between the action and its name) comes back unrecognized: it is the action's, when it lacks one."""
    parser = build_parser()
    args, extras = parser.parse_known_args(argv)
    if args.command == "connect" and args.target is None and len(extras) == 1 and not extras[0].startswith("-"):
        args.target = extras.pop()
    if extras:
        parser.error(f"unrecognized arguments: {' '.join(extras)}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.command is None:  # the live view: it shows text from outside escaped itself (tui/live/text.py)
        return _run(args)
    from kafkatop.tui.cli.terminal import escaped_output

    with escaped_output(args.control_chars):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    try:
        if args.command != "contexts":
            from kafkatop.tui.cli.contexts import apply_context, refuse_writes

            apply_context(args)
            refuse_writes(args)
        if args.command is not None:
            return run_command(args)
        from kafkatop.tui.cli.compose import run_live_view

        return run_live_view(args)
    except Declined as e:
        err(str(e))
        return DONE
    except KeyboardInterrupt:
        err("interrupted")
        return INTERRUPTED
    except KafkatopError as e:
        from kafkatop.tui.cli.grant_lines import error_line

        err(error_line(e, args))  # a refusal with the line that grants it
        return exit_status(e)
    except BrokenPipeError:
        # The reader went away (`kafkatop describe | head -1`): what it did not read is not wanted, as with any Unix
        # tool. stdout goes to /dev/null so the interpreter's last flush has nowhere to fail.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return FAILED
