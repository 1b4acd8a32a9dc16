"""Start-up warnings (tui/cli/startup_warnings.py): said on stderr as a command starts, and kept for the live view,
which shows them on screen once it is up (Settings.warnings; tests/integration/test_contexts_pilot.py shows them
drawn). Once each; never on stderr once the live view owns the terminal; a context switched to brings only its own."""

from __future__ import annotations

import argparse

import pytest

from kafkatop.tui.cli.startup_warnings import keep, kept, on_screen, warn


def test_a_warning_is_said_once_and_kept_for_the_screen(capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace()
    assert kept(args) == ()
    warn(args, "client.properties is readable by others")
    warn(args, "client.properties is readable by others")  # found again (a second client): said once
    keep(args, "said already")
    assert capsys.readouterr().err == "kafkatop: client.properties is readable by others\n"
    assert kept(args) == ("client.properties is readable by others", "said already")


def test_once_the_view_is_on_screen_warnings_are_kept_only(capsys: pytest.CaptureFixture[str]) -> None:
    first = argparse.Namespace()
    keep(first, "the first context's")
    switched = argparse.Namespace(**vars(first))  # the switcher's copy, for another context
    on_screen(first)
    warn(first, "found on a switch back")
    on_screen(switched, fresh=True)
    warn(switched, "the other context's")
    assert capsys.readouterr().err == ""  # stderr is under the live view's screen
    assert kept(first) == ("the first context's", "found on a switch back")
    assert kept(switched) == ("the other context's",)  # not the first's
