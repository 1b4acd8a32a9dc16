"""The command line's options mean the same before and after the command; each says its default."""

from __future__ import annotations

import argparse

import pytest

from kafkatop.tui.cli.options import BEFORE
from kafkatop.tui.cli.parser import build_parser


def parse(*argv: str) -> dict[str, object]:
    return vars(build_parser().parse_args(list(argv)))


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (["--bootstrap-server", "h:1", "describe", "--topic", "t"],
         ["describe", "--topic", "t", "--bootstrap-server", "h:1"]),
        (["--topic", "t", "--json", "describe"], ["describe", "--json", "--topic", "t"]),
        (["--timeout", "5", "up"], ["up", "--timeout", "5"]),
        (["--detach", "--kafka-home", "/k", "up"], ["up", "--kafka-home", "/k", "--detach"]),
        (["--partitions", "3", "create-topic", "t", "--replication-factor", "1"],
         ["create-topic", "--topic", "t", "--partitions", "3", "--replication-factor", "1"]),
        (["--name", "nc", "--state-dir", "/s", "kill", "2"], ["kill", "2", "--state-dir", "/s", "--name", "nc"]),
        (["--interval", "0.5", "chaos", "--topic", "t"], ["chaos", "--topic", "t", "--interval", "0.5"]),
        (["--no-idempotence", "durability", "--topic", "t"], ["durability", "--topic", "t", "--no-idempotence"]),
        (["-p", "a=1", "up", "-p", "b=2"], ["up", "-p", "a=1", "-p", "b=2"]),
        (["--bootstrap-server", "h:1", "describe", "--bootstrap-server", "h:1"],
         ["describe", "--bootstrap-server", "h:1"]),
    ],
)  # fmt: skip
def test_an_option_means_the_same_before_and_after_the_command(before: list[str], after: list[str]) -> None:
    assert parse(*before) == parse(*after)


def test_a_commands_defaults_fill_in_and_never_overwrite_what_came_before() -> None:
    assert parse("up")["timeout"] == 180.0 and parse("describe")["timeout"] == 15.0
    assert parse("--timeout", "7", "describe")["timeout"] == 7.0
    live = parse()
    assert (live["command"], live["interval"], live["timeout"], live["spark_master"]) == (None, 1.0, 2.0, "local[*]")
    assert parse("--base-port", "49092", "--config", "k.toml")["base_port"] == 49092
    assert not any(k.startswith(BEFORE) for k in parse("--json", "status"))
    assert "topic_name" not in parse("create-topic", "t", "--partitions", "1", "--replication-factor", "1")


def test_every_option_says_its_default() -> None:
    root = build_parser()
    parsers: list[argparse.ArgumentParser] = [root, *root.commands.values()]
    for parser in parsers:
        for action in parser._actions:
            if not action.option_strings or action.help in (argparse.SUPPRESS, "show this help message and exit"):
                continue
            assert action.help is not None and ("(default: " in action.help or "(required)" in action.help), (
                parser.prog,
                action.option_strings,
            )


def test_scenario_name_opens_the_live_view_and_its_commands_stay_commands() -> None:
    """`kafkatop scenario NAME` is the live view with the scenario's pane (--scenario); list, check and run are the
    headless commands; with --json only `run` can be meant."""
    from kafkatop.tui.cli.main import parse

    live = parse(["scenario", "seed-002", "--demo"])
    assert live.command is None and live.scenario == "seed-002" and live.demo
    ran = parse(["scenario", "run", "seed-002", "--json"])
    assert (ran.command, ran.what, ran.target, ran.json) == ("scenario", "run", "seed-002", True)
    assert vars(parse(["scenario", "seed-002", "--json"])) == vars(ran)
    assert parse(["scenario", "list"]).what == "list"
