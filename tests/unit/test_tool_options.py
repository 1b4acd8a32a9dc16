"""Each kafkatop command that does what one of Kafka's tools does ("as kafka-X.sh"), its options beside the tool's.

The tools' `--help` texts are recordings of Kafka 4.1.0 (tests/fixtures/tool_help/, each file's first line names the
command that made it; record.sh makes them again). A tool's option is either taken by the kafkatop command under the
same name, or listed below: under another name (`renamed`), or not taken, with the reason (`not_taken`). An option
kafkatop takes under the tool's name with another meaning is named too (`other_meaning`). A tool option in none of
these fails the test: take it (an alias is cheap where kafkatop has the option under another name), or say why not.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest

from kafkatop.tui.cli import command_table
from kafkatop.tui.cli.parser import build_parser

HELP = Path(__file__).parents[1] / "fixtures" / "tool_help"
README = Path(__file__).parents[2] / "README.md"
RECORDED = "# Kafka 4.1.0: "

# A recorded option: joptsimple's `--name <…>` (`* --name` when required) at the line's start, or argparse's
# `  --name`, `  -h, --help` two spaces in. A description's `--other` is further in, and is not one.
OPTION = re.compile(r"^(?:\* )?(--[A-Za-z][\w.-]*)|^ {2}(?:-\w, )?(--[A-Za-z][\w.-]*)", re.MULTILINE)

VERSION = "Kafka's version; kafkatop's commands ask any version (`kafkatop api-versions`: what each broker serves)"
BROKERS = "kafkatop asks the brokers (--bootstrap-server); only metadata-quorum and api-versions ask the controllers"
MS_NOT_SECONDS = "kafkatop's --timeout is in seconds, for the whole command; the tool's is in milliseconds"


@dataclass(frozen=True)
class Compared:
    command: str  # kafkatop's
    tool: str  # kafka-X.sh
    helps: tuple[str, ...]  # the recordings holding the tool's options (a tool with commands: one per command)
    renamed: Mapping[str, str] = field(default_factory=dict)  # the tool's option → kafkatop's name for it
    not_taken: Mapping[str, str] = field(default_factory=dict)  # the tool's option → why kafkatop does not take it
    other_meaning: Mapping[str, str] = field(default_factory=dict)  # the same name in both, meaning something else
    scope: frozenset[str] | None = None  # the tool's options this command does (None: all of them)


TOPICS_DESCRIBE = frozenset({
    "--bootstrap-server", "--command-config", "--describe", "--topic", "--exclude-internal", "--at-min-isr-partitions",
    "--under-replicated-partitions", "--under-min-isr-partitions", "--unavailable-partitions",
    "--topics-with-overrides", "--topic-id", "--partition-size-limit-per-response", "--help",
})  # fmt: skip
DESCRIBE_SLICES = "`kafkatop topics --describe` takes it (describe is every topic or one, and --json)"

COMPARED: tuple[Compared, ...] = (
    Compared("topics", "kafka-topics.sh", ("kafka-topics.sh",), not_taken={
        "--version": VERSION,
        "--delete-config": "not supported by the tool since Kafka 4.0: `kafkatop configs --topic T --delete-config`",
        "--topic-id": "a topic is named by its name; `kafkatop describe --json` shows each topic_id",
        "--partition-size-limit-per-response": "kafkatop pages DescribeTopicPartitions itself, a cursor at a time",
    }),
    Compared("describe", "kafka-topics.sh", ("kafka-topics.sh",), scope=TOPICS_DESCRIBE, not_taken={
        "--describe": "the command itself",
        "--exclude-internal": DESCRIBE_SLICES,
        "--at-min-isr-partitions": DESCRIBE_SLICES,
        "--under-replicated-partitions": DESCRIBE_SLICES,
        "--under-min-isr-partitions": DESCRIBE_SLICES,
        "--unavailable-partitions": DESCRIBE_SLICES,
        "--topics-with-overrides": DESCRIBE_SLICES,
        "--topic-id": "a topic is named by its name; --json shows each topic_id",
        "--partition-size-limit-per-response": "kafkatop pages DescribeTopicPartitions itself, a cursor at a time",
    }),
    Compared("create-topic", "kafka-topics.sh", ("kafka-topics.sh",), scope=frozenset({
        "--bootstrap-server", "--command-config", "--create", "--topic", "--partitions", "--replication-factor",
        "--config", "--replica-assignment", "--if-not-exists", "--help",
    }), not_taken={
        "--create": "the command itself",
        "--replica-assignment": "`kafkatop topics --create --replica-assignment`",
        "--if-not-exists": "`kafkatop topics --create --if-not-exists`",
    }),
    Compared("add-partitions", "kafka-topics.sh", ("kafka-topics.sh",), scope=frozenset({
        "--bootstrap-server", "--command-config", "--alter", "--topic", "--partitions", "--replica-assignment",
        "--if-exists", "--help",
    }), not_taken={
        "--alter": "the command itself",
        "--replica-assignment": "`kafkatop topics --alter --replica-assignment`",
        "--if-exists": "`kafkatop topics --alter --if-exists`",
    }),
    Compared("groups", "kafka-consumer-groups.sh", ("kafka-consumer-groups.sh",), not_taken={
        "--version": VERSION,
        "--validate-regex": "checks a regular expression against RE2 and asks nothing of the cluster",
    }, other_meaning={"--timeout": MS_NOT_SECONDS}),
    Compared("groups", "kafka-groups.sh", ("kafka-groups.sh",), not_taken={"--version": VERSION}),
    Compared("share-groups", "kafka-share-groups.sh", ("kafka-share-groups.sh",), not_taken={
        "--version": VERSION,
        **dict.fromkeys(
            ("--reset-offsets", "--all-topics", "--to-datetime", "--to-earliest", "--to-latest", "--dry-run",
             "--execute"),
            "not built yet: a share group's offsets are reset by AlterShareGroupOffsets (Kafka 4.1), which kafkatop "
            "does not send",
        ),
    }, other_meaning={"--timeout": MS_NOT_SECONDS}),  # fmt: skip
    Compared("transactions", "kafka-transactions.sh", (
        "kafka-transactions.sh", "kafka-transactions.sh-list", "kafka-transactions.sh-describe",
        "kafka-transactions.sh-describe-producers", "kafka-transactions.sh-abort", "kafka-transactions.sh-find-hanging",
        "kafka-transactions.sh-forceTerminateTransaction",
    ), not_taken={
        "--version": VERSION,
        "--transactionalId": "forceTerminateTransaction (KIP-939, Kafka 4.1) is not built",
    }),
    Compared("features", "kafka-features.sh", ("kafka-features.sh", "kafka-features.sh-describe"), not_taken={
        "--bootstrap-controller": BROKERS,
    }),
    Compared("acls", "kafka-acls.sh", ("kafka-acls.sh",), not_taken={
        "--version": VERSION,
        "--bootstrap-controller": BROKERS,
    }),
    Compared("configs", "kafka-configs.sh", ("kafka-configs.sh",), not_taken={
        "--version": VERSION,
        "--bootstrap-controller": BROKERS,
        "--broker-logger": "brokers' log4j levels are not read or set",
        "--client": "client quotas: `kafkatop users` lists them; they are set with kafka-configs.sh",
        "--client-defaults": "client quotas: `kafkatop users` lists them; they are set with kafka-configs.sh",
        "--user": "users' SCRAM credentials and quotas: `kafkatop users`",
        "--user-defaults": "users' quotas: `kafkatop users` lists them; they are set with kafka-configs.sh",
        "--ip": "IP quotas: `kafkatop users` lists them; they are set with kafka-configs.sh",
        "--ip-defaults": "IP quotas: `kafkatop users` lists them; they are set with kafka-configs.sh",
        "--client-metrics": "`kafkatop client-metrics`",
        "--group": "group configs are not read or set yet",
    }),
    Compared("users", "kafka-configs.sh", ("kafka-configs.sh",), scope=frozenset({
        "--bootstrap-server", "--command-config", "--describe", "--alter", "--add-config", "--delete-config",
        "--entity-type", "--entity-name", "--entity-default", "--user", "--user-defaults", "--help",
    }), renamed={"--describe": "--list"}, not_taken={
        "--alter": "--add USER (a SCRAM credential, its password asked at the terminal); quotas are set with "
        "kafka-configs.sh",
        "--add-config": "--add USER --mechanism M --iterations N: the password is never on the command line",
        "--delete-config": "--delete USER deletes its SCRAM credentials",
        "--entity-type": "the command itself: users",
        "--entity-name": "--user NAME (and --add/--delete NAME)",
        "--entity-default": "the users' default quotas are listed by --list",
        "--user-defaults": "the users' default quotas are listed by --list",
    }),
    Compared("elect-leaders", "kafka-leader-election.sh", ("kafka-leader-election.sh",),
             not_taken={"--version": VERSION}),
    Compared("reassign", "kafka-reassign-partitions.sh", ("kafka-reassign-partitions.sh",), not_taken={
        "--version": VERSION,
        "--bootstrap-controller": BROKERS,
        "--topics-to-move-json-file": "--topic NAME: one topic's proposal at a time",
        "--disable-rack-aware": "the proposal always spreads replicas over racks where the brokers have them",
        "--additional": "always so: --execute starts beside those in progress (the tool refuses to without it)",
        "--disallow-replication-factor-change": "--replication-factor says what it becomes (default: as now)",
        "--preserve-throttles": "--status clears the throttle kafkatop set once the reassignment is done",
        "--replica-alter-log-dirs-throttle": "moves between brokers only, not between one broker's log directories",
    }, other_meaning={
        "--timeout": "the tool's waits for a move between log directories to begin (ms); kafkatop's is in seconds, "
        "for every request",
    }),
    Compared("consume", "kafka-console-consumer.sh", ("kafka-console-consumer.sh",), renamed={
        "--timeout-ms": "--timeout",  # in seconds: how long it waits with nothing read
    }, not_taken={
        "--version": VERSION,
        "--group": "consume joins no group and commits nothing: it reads partitions by offset (`kafkatop groups` "
        "for a group's)",
        "--include": "one topic, --topic; a regular expression over many is not read",
        "--property": "--format '%k\\t%v' (kcat's fields) prints the key, timestamp, headers, …",
        "--formatter": "--format, --value-format, --key-format: no Java class is loaded",
        "--formatter-config": "--format, --value-format, --key-format: no Java class is loaded",
        "--key-deserializer": "--key-format (string, json, hex, avro, protobuf, …): no Java class is loaded",
        "--value-deserializer": "--value-format (string, json, hex, avro, protobuf, …): no Java class is loaded",
        "--consumer-property": "librdkafka settings come from --command-config; consume sets the rest itself",
        "--skip-message-on-error": "a record that cannot be decoded prints as it is, and is counted on stderr",
        "--enable-systest-events": "for Kafka's own system tests",
    }),
    Compared("produce", "kafka-console-producer.sh", ("kafka-console-producer.sh",), not_taken={
        "--version": VERSION,
        "--sync": "records are sent as they are read and every delivery is waited for at the end",
        "--line-reader": "lines, --key-delimiter, --json and the formats: no Java class is loaded",
        "--reader-config": "--property NAME=VALUE, on the command line",
        "--batch-size": "--producer-property batch.size=N (the tool sets batch.size with it)",
        "--max-partition-memory-bytes": "--producer-property batch.size=N",
        "--max-memory-bytes": "--producer-property queue.buffering.max.kbytes=N (librdkafka's name, in KiB)",
        "--max-block-ms": "librdkafka does not block a send: a full queue is waited out",
        "--message-send-max-retries": "--producer-property retries=N",
        "--metadata-expiry-ms": "--producer-property metadata.max.age.ms=N",
        "--request-timeout-ms": "--producer-property request.timeout.ms=N",
        "--retry-backoff-ms": "--producer-property retry.backoff.ms=N",
        "--socket-buffer-size": "--producer-property socket.send.buffer.bytes=N",
    }, other_meaning={
        "--timeout": "the tool's is linger.ms (--producer-property linger.ms=N); kafkatop's, in seconds, how long "
        "the end waits for deliveries",
    }),
    Compared("log-dirs", "kafka-log-dirs.sh", ("kafka-log-dirs.sh",), not_taken={"--version": VERSION}),
    Compared("get-offsets", "kafka-get-offsets.sh", ("kafka-get-offsets.sh",), not_taken={"--version": VERSION}),
    Compared("delete-records", "kafka-delete-records.sh", ("kafka-delete-records.sh",),
             not_taken={"--version": VERSION}),
    Compared("metadata-quorum", "kafka-metadata-quorum.sh",
             ("kafka-metadata-quorum.sh", "kafka-metadata-quorum.sh-describe")),
    Compared("api-versions", "kafka-broker-api-versions.sh", ("kafka-broker-api-versions.sh",),
             not_taken={"--version": VERSION}),
    Compared("streams-groups", "kafka-streams-groups.sh", ("kafka-streams-groups.sh",), not_taken={
        "--version": VERSION,
        "--delete-offsets": "not yet (DeleteOffsets of a streams group); `kafkatop streams-groups --delete` deletes "
        "the group with its internal topics",
        "--input-topic": "goes with --delete-offsets, not yet",
        "--all-input-topics": "goes with --delete-offsets, not yet",
    }, other_meaning={"--timeout": MS_NOT_SECONDS}),
    Compared("client-metrics", "kafka-client-metrics.sh", ("kafka-client-metrics.sh",), not_taken={
        "--version": VERSION,
    }, other_meaning={
        "--name": "every kafkatop command's --name is the lab's; the subscription's name is --resource",
    }),
)  # fmt: skip


def tool_options(compared: Compared) -> set[str]:
    options = {a or b for name in compared.helps for a, b in OPTION.findall(recording(name))}
    return options if compared.scope is None else options & compared.scope


def recording(name: str) -> str:
    return (HELP / f"{name}.txt").read_text()


@cache
def kafkatop_options(command: str) -> frozenset[str]:
    parser = build_parser().commands[command]
    return frozenset(flag for action in parser._actions for flag in action.option_strings)


def beside(compared: Compared) -> str:
    """The tool's options beside kafkatop's, one a line: what a failure shows."""
    ours = kafkatop_options(compared.command)

    def what(option: str) -> str:
        if option in ours:
            return f"{option}  ({compared.other_meaning[option]})" if option in compared.other_meaning else option
        if option in compared.renamed:
            return compared.renamed[option]
        return f"not taken: {compared.not_taken[option]}" if option in compared.not_taken else "MISSING"

    tool = tool_options(compared)
    own = sorted(ours - tool - set(compared.renamed.values()) - {"-h"}) if compared.scope is None else []
    return "\n".join([*(f"{o:40} {what(o)}" for o in sorted(tool)), *(f"{'':40} {o} (kafkatop's own)" for o in own)])


@pytest.mark.parametrize("compared", COMPARED, ids=lambda c: f"{c.command}~{c.tool}")
def test_every_option_of_the_tool_is_taken_or_its_difference_named(compared: Compared) -> None:
    tool = tool_options(compared)
    assert tool, f"no option read from {compared.helps}"
    missing = tool - kafkatop_options(compared.command) - set(compared.renamed) - set(compared.not_taken)
    assert not missing, f"`kafkatop {compared.command}` lacks {compared.tool}'s {sorted(missing)}:\n{beside(compared)}"


@pytest.mark.parametrize("compared", COMPARED, ids=lambda c: f"{c.command}~{c.tool}")
def test_the_named_differences_are_still_differences(compared: Compared) -> None:
    tool, ours = tool_options(compared), kafkatop_options(compared.command)
    named = set(compared.renamed) | set(compared.not_taken)
    assert named <= tool, f"not options of {compared.tool}: {sorted(named - tool)}"
    assert not named & ours, f"`kafkatop {compared.command}` takes these now, drop their rows: {sorted(named & ours)}"
    assert not set(compared.renamed) & set(compared.not_taken)
    assert set(compared.renamed.values()) <= ours, "a rename to an option kafkatop does not have"
    assert set(compared.other_meaning) <= tool & ours
    if compared.scope is not None:
        assert compared.scope <= tool_options(Compared(compared.command, compared.tool, compared.helps))


def test_every_command_said_to_be_as_a_tool_is_compared_with_it() -> None:
    compared = {(c.command, c.tool) for c in COMPARED}
    for command in command_table.COMMANDS:
        said = " ".join((command.texts["help"], command.note or ""))
        for tool in set(re.findall(r"kafka-[a-z-]+\.sh", said)):
            assert (command.name, tool) in compared, (
                f"`kafkatop {command.name}` says it is as {tool}: add a Compared row for them to COMPARED (the tool's "
                f"--help recorded by tests/fixtures/tool_help/record.sh)"
            )


def test_the_recordings_say_what_made_them() -> None:
    names = {name for c in COMPARED for name in c.helps} | {"bin"}
    for name in names:
        first = recording(name).splitlines()[0]
        assert first.startswith(RECORDED), f"{name}.txt: its first line names the Kafka and the command"
    assert "--help" in recording("kafka-topics.sh").splitlines()[0]


def test_an_option_is_read_at_the_start_of_its_line_only() -> None:
    text = "--alter  Alter the partitions (see --describe)\n  --status  A short summary\n     --no-option\n"
    assert [a or b for a, b in OPTION.findall(text)] == ["--alter", "--status"]


def bin_tools() -> list[str]:
    return [line for line in recording("bin").splitlines()[1:] if line]


def readme_tools() -> list[str]:
    """The first cell of each row of the README's table of Kafka's bin/."""
    section = README.read_text().split("### Kafka's bin/, tool by tool", 1)[1].split("\n#", 1)[0]
    return re.findall(r"^\| `([\w.-]+\.sh)`", section, re.MULTILINE)


def test_the_readme_says_what_replaces_each_tool_of_kafkas_bin_once() -> None:
    tools, listed = bin_tools(), readme_tools()
    assert len(tools) > 40 and "kafka-topics.sh" in tools
    assert sorted(set(tools) - set(listed)) == [], "tools of Kafka 4.1's bin/ missing from the README's table"
    assert sorted(set(listed) - set(tools)) == [], "the README's table lists tools Kafka 4.1's bin/ lacks"
    assert sorted(t for t in set(listed) if listed.count(t) > 1) == [], "listed twice"
    assert listed == sorted(listed), "the table is in bin/'s order"


@pytest.mark.parametrize(
    ("tools", "ours"),
    [
        (["--request-required-acks", "1", "--compression-codec", "lz4"], ["--acks", "1", "--compression", "lz4"]),
        (["--compression-codec", "zstd", "--acks", "-1"], ["--compression", "zstd", "--request-required-acks", "-1"]),
    ],
)
def test_the_console_producers_names_mean_kafkatops(tools: list[str], ours: list[str]) -> None:
    def parsed(argv: list[str]) -> tuple[object, object]:
        args = build_parser().parse_args(["produce", "--topic", "t", *argv])
        return args.acks, args.compression

    assert parsed(tools) == parsed(ours) != ("all", "none")


@pytest.mark.parametrize(
    ("command", "flag"),
    [
        (["elect-leaders", "--election-type", "preferred", "--all-topic-partitions"], "--admin.config"),
        (["consume", "--topic", "t"], "--consumer.config"),
        (["produce", "--topic", "t"], "--producer.config"),
    ],
)
def test_the_tools_names_of_the_client_properties_file_are_the_command_config(command: list[str], flag: str) -> None:
    assert build_parser().parse_args([*command, flag, "a.properties"]).command_config == "a.properties"
    assert build_parser().parse_args([*command, "--command-config", "a.properties"]).command_config == "a.properties"
    assert build_parser().parse_args(command).command_config is None


if __name__ == "__main__":  # the tables to read: python -m tests.unit.test_tool_options
    for each in COMPARED:
        print(f"== {each.tool:40} kafkatop {each.command}\n{beside(each)}\n")
