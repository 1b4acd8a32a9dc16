"""Warnings a command says as it starts (a context kept read-only, a contexts file others can read), on stderr — where
the live view cannot leave them: it takes the terminal at once, and stderr is hidden behind it. So each is also kept
in the command's options, and the composition root hands the live view those of the cluster it opens
(`Settings.warnings`); the app shows them once it is on screen, as notices (text, never markup). One road for every
such warning: `warn` where it is found, `kept` where the live view's settings are made (compose.compose_sources)."""

from __future__ import annotations

import argparse

from kafkatop.tui.cli.exits import err

_KEPT = "startup_warnings"  # a tuple in the options: a copy of them (the switcher's, per context) shares nothing
_ON_SCREEN = "startup_warnings_on_screen"  # the options of a cluster opened while the live view owns the terminal


def warn(args: argparse.Namespace, text: str) -> None:
    """`text` on stderr — unless the live view already owns the terminal (`on_screen`) — and kept for the live view;
    once, however often it is found."""
    if text in kept(args):
        return
    if not getattr(args, _ON_SCREEN, False):
        err(text)
    keep(args, text)


def keep(args: argparse.Namespace, *texts: str) -> None:
    """Kept for the live view only (said on stderr already, or with no terminal to say them on); each once."""
    setattr(args, _KEPT, tuple(dict.fromkeys((*kept(args), *texts))))


def kept(args: argparse.Namespace) -> tuple[str, ...]:
    """The warnings kept for the cluster `args` name, in the order found."""
    return tuple(getattr(args, _KEPT, None) or ())


def on_screen(args: argparse.Namespace, *, fresh: bool = False) -> None:
    """From now on the live view owns the terminal: warnings found for the cluster `args` name are kept for its screen,
    never said on stderr under it. `fresh`: `args` are a copy made for another cluster (a context switched to), and
    the warnings kept so far are not its."""
    setattr(args, _ON_SCREEN, True)
    if fresh:
        setattr(args, _KEPT, ())
