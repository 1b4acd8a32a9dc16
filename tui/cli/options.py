"""The command line's parser machinery: an option means the same before and after the command (`kafkatop
--bootstrap-server X describe` is `kafkatop describe --bootstrap-server X`). argparse parses a command's options into
a namespace of their own and copies it over the top level's, so a command's default would overwrite a value given
before it: every option keeps its default aside (argparse.SUPPRESS in the namespace, `Parser.late_defaults`), the top
level stores what it was given under `before.<dest>`, and `_resolve` then merges the two, refuses an option the
command does not take or two different values, and fills in the defaults (standard library only)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

BEFORE = "before."  # the top level's dests: what was given before the command
Fail = Callable[[str], NoReturn]
# A command's last step on what was parsed: it may take words left unrecognized (extras) or refuse with `fail`.
Settle = Callable[[argparse.Namespace, list[str], Fail], None]


# --- the parser -----------------------------------------------------------------------------------------------------
class Formatter(argparse.HelpFormatter):
    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=34)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose options keep their defaults aside, so a command's default never overwrites what was
    given before the command; `option` writes the default into the help."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)
        self.dest_prefix = ""
        self.late_defaults: dict[str, object] = {}  # dest -> default, filled in after the merge
        self.required_options: list[str] = []  # dests that must be given, before or after the command
        self.flags: dict[str, str] = {}  # dest -> its long flag, for messages
        self.definitions: list[tuple[tuple[str, ...], dict[str, Any]]] = []  # to offer before the command too
        self.settle: Settle | None = None

    def error(self, message: str) -> NoReturn:
        """One line, as every refusal of kafkatop's: what was wrong, and where the options are listed."""
        self.exit(2, f"{self.prog}: {message} (`{self.prog} --help` lists the options)\n")

    def option(
        self,
        *flags: str,
        help: str,  # noqa: A002 - argparse's own name
        default: object = None,
        shown: str | None = None,
        required: bool = False,
        **kwargs: Any,
    ) -> argparse.Action:
        """An option with its default in its help: `shown`, else the default itself; `required`: checked after the
        merge, so it may come before the command."""
        if required:
            note = "required"
        elif kwargs.get("action") in ("store_true", argparse.BooleanOptionalAction) and shown is None:
            note = "default: off" if not default else "default: on"
        else:
            note = f"default: {shown if shown is not None else default}"
        kwargs.setdefault("dest", flags[-1].lstrip("-").replace("-", "_"))
        dest = kwargs["dest"]
        if kwargs.get("action", "append") == "append" and "choices" not in kwargs:
            kwargs.setdefault("metavar", dest.upper())
        self.definitions.append((flags, dict(kwargs, help=help)))
        kwargs["dest"] = self.dest_prefix + dest
        action = self.add_argument(*flags, default=argparse.SUPPRESS, help=f"{help} ({note})", **kwargs)
        self.late_defaults[dest] = default
        self.flags[dest] = flags[-1]
        if required:
            self.required_options.append(dest)
        return action


class RootParser(Parser):
    """The top level: the live view's options, and every command's options accepted before the command."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.dest_prefix = BEFORE
        self.commands: dict[str, Parser] = {}
        self.live_view_dests: set[str] = set()

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        ns, extras = super().parse_known_args(args, namespace)
        return _resolve(self, ns, extras), extras

    def offer_command_options(self) -> None:
        """Every command's options, hidden from the top level's help, so they may come before the command."""
        known = {flag for action in self._actions for flag in action.option_strings}
        for command in self.commands.values():
            for flags, kwargs in command.definitions:
                if known.isdisjoint(flags):
                    kw = dict(kwargs, dest=BEFORE + kwargs["dest"], help=argparse.SUPPRESS, default=argparse.SUPPRESS)
                    self.add_argument(*flags, **kw)
                    self.flags.setdefault(kwargs["dest"], flags[-1])
                    known.update(flags)


def _resolve(root: RootParser, ns: argparse.Namespace, extras: list[str]) -> argparse.Namespace:
    """Merge what came before the command into the command's options; refuse what it does not take, or two
    different values; fill in the defaults; then the command's own last step (`Parser.settle`)."""
    command: str | None = getattr(ns, "command", None)
    before = {dest.removeprefix(BEFORE): value for dest, value in vars(ns).items() if dest.startswith(BEFORE)}
    for dest in before:
        delattr(ns, BEFORE + dest)
    target: Parser = root if command is None else root.commands[command]
    fail: Fail = target.error
    for dest, value in before.items():
        flag = root.flags.get(dest, dest)
        if command is None:
            if dest not in root.live_view_dests:
                takers = sorted(name for name, p in root.commands.items() if dest in p.late_defaults)
                first = next(name for name in root.commands if name in takers)  # in the help's order
                which = "every command" if len(takers) == len(root.commands) else ", ".join(takers)
                fail(f"{flag} is an option of {which}, not of the live view: give the command, e.g. `kafkatop {first} "
                     f"{flag} …`")  # fmt: skip
            setattr(ns, dest, value)
            continue
        if dest not in target.late_defaults:
            if flag in target.flags.values():  # the same flag, another meaning (--config)
                meaning = next(kw["help"] for flags, kw in root.definitions if flag in flags)
                fail(f"{flag} before `{command}` is the {meaning}, which `{command}` does not take; `{command}`'s own "
                     f"{flag} goes after the command")  # fmt: skip
            fail(f"{flag} has no meaning for `{command}`: leave it out")
        if hasattr(ns, dest):
            after = getattr(ns, dest)
            if isinstance(value, list) and isinstance(after, list):
                setattr(ns, dest, value + after)
                continue
            if after != value:
                fail(f"{flag} given twice with different values: {_show(value)} before `{command}`, {_show(after)} "
                     "after it; give it once")  # fmt: skip
        setattr(ns, dest, value)
    for dest, default in target.late_defaults.items():
        if not hasattr(ns, dest):
            if dest in target.required_options:
                fail(f"{target.flags[dest]} is required")
            setattr(ns, dest, default)
    if target.settle is not None:
        target.settle(ns, extras, fail)
    return ns


def _show(value: object) -> str:
    return repr(value) if isinstance(value, str) else str(value)
