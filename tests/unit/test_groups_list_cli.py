"""`kafkatop groups`' list filters refused where they mean nothing, before anything is sent (exit 2, one line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkatop.tui.cli.main import main

NOWHERE = ["--bootstrap-server", "127.0.0.1:9"]  # nothing answers there: a refusal must come first


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--group", "g", "--share"], "--share goes with --list (the list of groups), not with --group"),
        (["--group", "g", "--json"], "--json goes with --list"),
        (["--list", "--consumer", "--share"], "--consumer and --share together: --consumer, --share and --streams"),
        (["--list", "--share", "--group-type", "classic"], "each stand alone (as in kafka-groups.sh)"),
    ],
)
def test_list_filters_where_they_mean_nothing_are_refused(
    isolated: Path, capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    assert main(["groups", *argv, *NOWHERE]) == 2
    out, err = capsys.readouterr()
    assert out == "" and says in err and len(err.strip().splitlines()) == 1
