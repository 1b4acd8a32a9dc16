"""`kafkatop`: parse the command line, then run a headless command (its row in tui/cli/command_table.py) or the live
view. Each returns an exit code: 0 done, 1 failed, 2 bad input, 130 interrupted. Command modules are imported when
their command runs, so `kafkatop --help` answers at once."""

from __future__ import annotations

import argparse
import os
import sys

from kafkatop.backends.model.errors import KafkatopError
from kafkatop.tui.cli import command_table
from kafkatop.tui.cli.exits import DONE, FAILED, INTERRUPTED, Declined, err, exit_status
from kafkatop.tui.cli.parser import build_parser

SCENARIO_COMMANDS = ("list", "check", "run", "-h", "--help")


def parse(argv: list[str] | None) -> argparse.Namespace:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) > 1 and argv[0] == "scenario" and argv[1] not in SCENARIO_COMMANDS and not argv[1].startswith("-"):
        # `kafkatop scenario NAME`: the live view with its pane (with --json, only `run` can mean it)
        argv = ["scenario", "run", *argv[1:]] if "--json" in argv else ["--scenario", *argv[1:]]
    return build_parser().parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.command is None:  # the live view: it shows text from outside escaped itself (tui/live/text.py)
        return _run(args)
    from kafkatop.tui.cli.terminal import escaped_output

    with escaped_output(args.control_chars):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    try:
        from kafkatop.tui.cli.contexts import apply_context, refuse_writes

        apply_context(args)  # `contexts` and `install` take no --context: nothing to apply
        refuse_writes(args)
        if args.command is not None:
            from kafkatop.tui.cli.audit import audited

            return audited(args, command_table.named(args.command).writes(args), command_table.run)
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
