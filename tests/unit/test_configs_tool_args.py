"""`kafkatop configs` takes kafka-configs.sh's command lines as they are: --entity-type topics|brokers with
--entity-name or --entity-default, --describe, and --alter as an action with --add-config / --delete-config; each
misuse is refused in one line, before anything is asked of Kafka (the same lines against Kafka 4.1:
tests/integration/test_configs_tool_args_kafka.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkatop.backends.model.configs import ConfigResource
from kafkatop.tui.cli.configs import added_from_file, resource_of
from kafkatop.tui.cli.main import main
from kafkatop.tui.cli.parser import build_parser


def resource(*argv: str) -> ConfigResource:
    return resource_of(build_parser().parse_args(["configs", *argv]))


@pytest.mark.parametrize(
    ("tools", "ours"),
    [
        (("--entity-type", "topics", "--entity-name", "orders"), ("--topic", "orders")),
        (("--entity-type", "brokers", "--entity-name", "2"), ("--broker", "2")),
        (("--entity-type", "brokers", "--entity-default"), ("--broker-defaults",)),
    ],
)
def test_the_tools_entities_are_kafkatops(tools: tuple[str, ...], ours: tuple[str, ...]) -> None:
    assert resource(*tools) == resource(*ours)


def test_alter_alone_is_the_tools_action_and_add_config_its_changes() -> None:
    parsed = build_parser().parse_args(
        ["configs", "--topic", "t", "--alter", "--add-config", "a=1", "--delete-config", "b", "--alter", "c=2"]
    )
    assert (parsed.alter, parsed.delete_config) == ([None, "a=1", "c=2"], ["b"])
    assert build_parser().parse_args(["configs", "--topic", "t", "--describe"]).describe


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (("--entity-type", "users"), "--entity-type users: see `kafkatop users` (SCRAM credentials, quotas); "
         "configs reads topics and brokers"),
        (("--entity-type", "client-metrics"), "--entity-type client-metrics: see `kafkatop client-metrics`; configs "
         "reads topics and brokers"),
        (("--entity-type", "topic", "--entity-name", "t"), "--entity-type topic: not one of kafka-configs.sh's; "
         "configs reads topics and brokers"),
        (("--entity-type", "topics"), "--entity-type topics with no --entity-name: give --entity-name NAME"),
        (("--entity-type", "brokers", "--entity-name", "1", "--entity-default"), "--entity-type brokers with "
         "--entity-name and --entity-default together: give --entity-name NAME or --entity-default"),
        (("--entity-type", "brokers", "--entity-name", "b\x1b1"), "--entity-name b\\x1b1: a broker is named by its "
         "id, a whole number (--entity-type brokers --entity-name 1)"),
        (("--entity-type", "topics", "--entity-default"), "--entity-default is for brokers: topics have no default "
         "entity; give --entity-name"),
        (("--entity-name", "t"), "--entity-name and --entity-default need --entity-type topics or brokers"),
        (("--entity-type", "topics", "--entity-name", "t", "--topic", "t"), "configs of what? --topic and "
         "--entity-type together: give one of --topic NAME, --broker ID, --broker-defaults"),
        (("--topic", "t", "--alter"), "--alter changes nothing alone: give --add-config K=V or --delete-config NAME "
         "with it"),
        (("--topic", "t", "--describe", "--alter", "--add-config", "a=1"), "--describe and --alter together: give one "
         "(describe after the change: leave --describe out)"),
        (("--topic", "t", "--describe", "--delete-config", "a"), "--describe and --alter together: give one "
         "(describe after the change: leave --describe out)"),
    ],
)  # fmt: skip
def test_a_misuse_is_refused_in_one_line_before_kafka_is_asked(
    argv: tuple[str, ...], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["configs", "--bootstrap-server", "127.0.0.1:1", *argv])
    assert (status, *capsys.readouterr()) == (2, "", f"kafkatop: {said}\n")


def test_alter_alone_is_a_write_the_read_only_context_refuses(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["configs", "--bootstrap-server", "127.0.0.1:1", "--read-only", "--topic", "t", "--alter",
                   "--add-config", "a=1"])  # fmt: skip
    out, err = capsys.readouterr()
    assert (status, out) == (2, "") and "read-only" in err


def test_add_config_file_is_read_as_java_reads_properties(tmp_path: Path) -> None:
    file = tmp_path / "topic.properties"
    file.write_text(
        "# the topic's\nretention.ms = 3600000\ncleanup.policy=compact,delete\n"
        "message.timestamp.type:\\\n  LogAppendTime\n"
    )
    assert added_from_file(str(file)) == {
        "retention.ms": "3600000", "cleanup.policy": "compact,delete", "message.timestamp.type": "LogAppendTime",
    }  # fmt: skip
    assert added_from_file(None) == {}


def test_add_config_file_misuse_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.properties"
    empty.write_text("# nothing\n")
    cases = {
        ("--add-config-file", str(empty)): "--add-config-file goes with --alter, as kafka-configs.sh takes it: --alter "
        "--add-config-file FILE",
        ("--alter", "a=1", "--add-config-file", str(empty)): "--add-config and --add-config-file together: give one, "
        "as kafka-configs.sh takes them",
        ("--alter", "--add-config-file", str(empty)): f"--add-config-file {empty} is empty: --alter changes nothing "
        "alone: give --add-config K=V or --delete-config NAME with it",
        ("--alter", "--add-config-file", str(tmp_path / "missing")): f"--add-config-file {tmp_path / 'missing'}: "
        "cannot read it (No such file or directory); give a file of NAME=VALUE lines",
    }
    for argv, said in cases.items():
        status = main(["configs", "--bootstrap-server", "127.0.0.1:1", "--topic", "t", *argv])
        assert (status, *capsys.readouterr()) == (2, "", f"kafkatop: {said}\n")
