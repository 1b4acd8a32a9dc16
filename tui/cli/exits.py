"""How a command ends: its exit status, and its message on stderr. Kept light: `kafkatop --help` imports it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from kafkatop.backends.model.errors import BadInput, KafkatopError

DONE, FAILED, BAD_INPUT, INTERRUPTED = 0, 1, 2, 130


class UsageError(BadInput):
    """Bad input on the command line, worded for the user."""


class Declined(Exception):  # noqa: N818 — a choice, not an error
    """The user answered no to a question (download Kafka?): the command ends, nothing done, exit 0."""


_hearing: list[list[str]] = []  # the audit's scopes (audit.py): each keeps what is said while it is open


@contextmanager
def hearing() -> Iterator[list[str]]:
    """The messages `err` says meanwhile, in order (a command that fails says why before it returns 1)."""
    heard: list[str] = []
    _hearing.append(heard)
    try:
        yield heard
    finally:
        _hearing.remove(heard)


def err(message: str) -> None:
    for heard in _hearing:
        heard.append(message)
    try:
        print(f"kafkatop: {message}", file=sys.stderr)
    except (OSError, ValueError):
        pass  # stderr is gone (the terminal closed): nothing to tell, and the caller's way out must go on


def exit_status(error: KafkatopError) -> int:
    """A failure's exit status: 2 when the input was wrong (fix it and run again), else 1."""
    return BAD_INPUT if isinstance(error, BadInput) else FAILED
