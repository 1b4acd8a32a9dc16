"""The table of commands (tui/cli/command_table.py) is the one place a command is declared: a row added at test time
is in the parser, `kafkatop --help` and its own help, the dispatch and the read-only refusal; every row's function
exists."""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path

import pytest

from kafkatop.tui.cli import command_table
from kafkatop.tui.cli.command_table import COMMANDS, OVERVIEW, Command, cluster_options, named, overview, when
from kafkatop.tui.cli.main import main
from kafkatop.tui.cli.options import Parser
from kafkatop.tui.cli.parser import build_parser

RAN: list[argparse.Namespace] = []


def cmd_rebalance(args: argparse.Namespace) -> int:
    RAN.append(args)
    return 0


def rebalance_options(p: Parser) -> None:
    p.option("--apply", action="store_true", help="move the partitions (without: only print the plan)")


REBALANCE = Command(
    "rebalance",
    {"help": "even out the partition leaders", "epilog": "Exit codes: 0 done."},
    (cluster_options, rebalance_options),
    f"{__name__}:cmd_rebalance",
    when(lambda a: bool(a.apply), "--apply moves partitions"),
    note="a throwaway",
)


@pytest.fixture
def with_rebalance(monkeypatch: pytest.MonkeyPatch, isolated: Path) -> None:
    monkeypatch.setattr(command_table, "COMMANDS", (*COMMANDS, REBALANCE))
    RAN.clear()


@pytest.mark.usefixtures("with_rebalance")
def test_a_new_row_is_a_command_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    assert "rebalance" in build_parser().commands
    with pytest.raises(SystemExit):
        main(["--help"])
    top = " ".join(capsys.readouterr().out.split())  # unwrapped
    assert "even out the partition leaders" in top and "contexts (named clusters, --context NAME); rebalance (a " in top
    with pytest.raises(SystemExit):
        main(["rebalance", "--help"])
    own = " ".join(capsys.readouterr().out.split())
    assert "--apply" in own and "--bootstrap-server" in own and "Exit codes: 0 done." in own
    assert main(["--apply", "rebalance", "--bootstrap-server", "127.0.0.1:9"]) == 0  # an option before it, too
    assert [args.apply for args in RAN] == [True]


@pytest.mark.usefixtures("with_rebalance")
def test_a_new_row_is_refused_in_read_only_when_it_writes(capsys: pytest.CaptureFixture[str]) -> None:
    cluster = ["--bootstrap-server", "127.0.0.1:9", "--read-only"]
    assert main(["rebalance", "--apply", *cluster]) == 2
    assert "`rebalance` writes to the cluster (--apply moves partitions); nothing was sent" in capsys.readouterr().err
    assert RAN == []
    assert main(["rebalance", *cluster]) == 0 and len(RAN) == 1  # a plan only reads


def test_every_row_runs_a_function_that_exists() -> None:
    durability = named("durability").run
    assert callable(durability)
    runs = {durability(argparse.Namespace(connect=c)) for c in (False, True)}
    runs |= {c.run for c in COMMANDS if isinstance(c.run, str)}
    assert ".pipeline:cmd_pipeline" in runs and ".durability:cmd_durability" in runs
    for run in sorted(runs):
        module, function = run.split(":")
        assert callable(getattr(importlib.import_module(module, command_table.__package__), function, None)), run


def test_the_overview_names_every_command_once() -> None:
    placed = [name for _, names in OVERVIEW for name in names]
    assert sorted(placed) == sorted(c.name for c in COMMANDS)
    assert overview().startswith("Lab cluster commands: up, down, status, kill, stop, start, restart, add-broker")
    checks = "durability, chaos, scenario (the labs, step by step); counts (Spark);"
    assert f"; acls (as kafka-acls.sh), users (SCRAM users, quotas); {checks}" in overview()
