"""Bad input to a headless command: refused with exit 2 before any connection is made."""

from __future__ import annotations

import pytest

from kafkatop.tui.cli.main import main

NOWHERE = "127.0.0.1:1"  # nothing listens: a command that connected would fail with 1, not 2


def refused_offline(command: str, argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """`kafkatop COMMAND ARGV --bootstrap-server NOWHERE` exits 2; what it wrote on stderr."""
    assert main([command, *argv, "--bootstrap-server", NOWHERE]) == 2
    return capsys.readouterr().err
