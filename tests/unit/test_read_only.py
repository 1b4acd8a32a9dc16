"""Read-only (`--read-only`, or a context's `read-only = true`): every command's row says what it writes, each one that
writes is refused with exit 2 before it connects, the ones that only read go on, and every key of the live view that
writes is refused too. Behind a counting proxy, tests/integration/test_read_only_proxy.py shows nothing is sent."""

from __future__ import annotations

from pathlib import Path

import pytest

# lab_only: up, down, status, add-broker, add-connect act on a lab, and take no --bootstrap-server
from kafkatop.tui.cli.command_table import COMMANDS, lab_only, named
from kafkatop.tui.cli.contexts import apply_context, refuse_writes
from kafkatop.tui.cli.exits import UsageError
from kafkatop.tui.cli.main import main
from kafkatop.tui.cli.parser import build_parser
from kafkatop.tui.live.keymap import ACTIONS, LiveAction

NOWHERE = "127.0.0.1:9"  # nothing is ever sent: the refusal comes first (the proxy test counts it)

# Every write the command line can make, as (id, argv without the cluster).
WRITE_INVOCATIONS: list[tuple[str, list[str]]] = [
    ("create-topic", ["create-topic", "t", "--partitions", "1", "--replication-factor", "1"]),
    ("topics-create", ["topics", "--create", "--topic", "t"]),
    ("topics-alter", ["topics", "--alter", "--topic", "t", "--partitions", "3"]),
    ("topics-delete", ["topics", "--delete", "--topic", "t", "--yes"]),
    ("delete-records", ["delete-records", "--offset-json-file", "offsets.json", "--yes"]),
    ("configs-alter", ["configs", "--topic", "t", "--alter", "retention.ms=1000"]),
    ("configs-delete-config", ["configs", "--broker", "1", "--delete-config", "log.retention.ms"]),
    ("groups-delete", ["groups", "--group", "g", "--delete"]),
    ("groups-delete-offsets", ["groups", "--group", "g", "--delete-offsets", "--topic", "t"]),
    ("groups-reset-offsets", ["groups", "--group", "g", "--reset-offsets", "--to-latest", "--all-topics", "--execute"]),
    ("share-groups-delete", ["share-groups", "--group", "g", "--delete", "--yes"]),
    ("share-groups-delete-offsets", ["share-groups", "--group", "g", "--delete-offsets", "--topic", "t", "--yes"]),
    ("streams-groups-delete", ["streams-groups", "--group", "g", "--delete", "--yes"]),
    ("client-metrics-alter", ["client-metrics", "--alter", "--resource", "r", "--interval", "1000"]),
    ("client-metrics-delete", ["client-metrics", "--delete", "--resource", "r", "--yes"]),
    ("reassign-execute", ["reassign", "--topic", "t", "--brokers", "1,2", "--execute"]),
    ("reassign-cancel", ["reassign", "--topic", "t", "--cancel"]),
    ("reassign-status", ["reassign", "--topic", "t", "--status"]),
    ("elect-preferred", ["elect-leaders", "--election-type", "preferred", "--all-topic-partitions"]),
    ("elect-unclean", ["elect-leaders", "--election-type", "unclean", "--topic", "t", "--partition", "0", "--yes"]),
    ("add-partitions", ["add-partitions", "--topic", "t", "--partitions", "6"]),
    ("kill", ["kill", "2", "--yes"]),
    ("stop", ["stop", "broker-2", "--yes"]),
    ("start", ["start", "2"]),
    ("restart", ["restart", "2"]),
    ("up", ["up", "--brokers", "1"]),
    ("down", ["down", "--delete"]),
    ("add-broker", ["add-broker"]),
    ("add-connect", ["add-connect"]),
    ("durability", ["durability", "--topic", "t", "--yes"]),
    ("chaos", ["chaos", "--topic", "t", "--steps", "1"]),
    ("scenario-run", ["scenario", "run", "seed-002"]),
    ("transactions-abort", ["transactions", "abort", "--topic", "t", "--partition", "0", "--start-offset", "5"]),
    ("connect-create", ["connect", "create", "connector.json"]),
    ("connect-pause", ["connect", "pause", "c"]),
    ("connect-resume", ["connect", "resume", "c"]),
    ("connect-stop", ["connect", "stop", "c"]),
    ("connect-restart", ["connect", "restart", "c", "--include-tasks", "--only-failed"]),
    ("connect-delete", ["connect", "delete", "c", "--yes"]),
    ("connect-offsets-reset", ["connect", "offsets", "c", "--reset", "--yes"]),
    ("connect-offsets-alter", ["connect", "offsets", "c", "--alter", "offsets.json"]),
    ("acls-add", ["acls", "--add", "--allow-principal", "User:client", "--producer", "--topic", "t"]),
    ("acls-remove", ["acls", "--remove", "--force", "--topic", "t"]),
    ("users-add", ["users", "--add", "alice", "--mechanism", "SCRAM-SHA-256", "--iterations", "8192"]),
    ("users-delete", ["users", "--delete", "alice", "--yes"]),
    ("produce", ["produce", "--topic", "t"]),
    ("produce-json", ["produce", "--topic", "t", "--json", "--file", "export.jsonl"]),
]

# Commands that only read, as given: refuse_writes lets them through in read-only.
READ_INVOCATIONS: list[tuple[str, list[str]]] = [
    ("features", ["features"]),
    ("describe", ["describe", "--topic", "t"]),
    ("topics-list", ["topics", "--list"]),
    ("topics-describe", ["topics", "--describe", "--under-replicated-partitions"]),
    ("configs", ["configs", "--topic", "t", "--all"]),
    ("groups-list", ["groups", "--list"]),
    ("groups-describe", ["groups", "--group", "g", "--members"]),
    ("groups-reset-dry-run", ["groups", "--group", "g", "--reset-offsets", "--to-earliest", "--topic", "t"]),
    ("share-groups-list", ["share-groups", "--list"]),
    ("share-groups-describe", ["share-groups", "--group", "g", "--state", "--verbose"]),
    ("streams-groups-list", ["streams-groups", "--list", "--state"]),
    ("lag", ["lag", "--group", "g", "--window", "1"]),
    ("client-metrics-describe", ["client-metrics", "--describe"]),
    ("streams-groups-describe", ["streams-groups", "--group", "g", "--members", "--verbose"]),
    ("consume", ["consume", "--topic", "t", "--max-messages", "1"]),
    ("elect-dry-run", ["elect-leaders", "--election-type", "unclean", "--all-topic-partitions", "--dry-run"]),
    ("add-partitions-dry-run", ["add-partitions", "--topic", "t", "--partitions", "6", "--dry-run"]),
    ("reassign-list", ["reassign", "--list"]),
    ("reassign-plan", ["reassign", "--topic", "t", "--brokers", "1,2"]),
    ("status", ["status"]),
    ("counts", ["counts", "--topic", "t"]),
    ("transactions-list", ["transactions", "list"]),
    ("transactions-describe", ["transactions", "describe", "--transactional-id", "tx"]),
    ("transactions-describe-producers", ["transactions", "describe-producers", "--topic", "t", "--partition", "0"]),
    ("transactions-find-hanging", ["transactions", "find-hanging", "--topic", "t"]),
    ("connect-list", ["connect", "list", "--json"]),
    ("connect-status", ["connect", "status", "c"]),
    ("connect-offsets", ["connect", "offsets", "c"]),
    ("connect-plugins", ["connect", "plugins", "FileStreamSource"]),
    ("connect-validate", ["connect", "validate", "connector.json"]),
    ("acls-list", ["acls", "--list", "--principal", "User:client"]),
    ("users-list", ["users", "--list", "--user", "alice", "--json"]),
    ("log-dirs", ["log-dirs", "--describe", "--json"]),
    ("get-offsets", ["get-offsets", "--topic", "t", "--time", "-2"]),
    ("metadata-quorum", ["metadata-quorum", "describe", "--status"]),
    ("api-versions", ["api-versions"]),
    ("scenario-list", ["scenario", "list"]),
]


def cluster_flags(argv: list[str], address: str = NOWHERE) -> list[str]:
    """The flags that point a write at an attached cluster (Kafka Connect's workers for `connect`); a lab's own
    commands name no address."""
    if argv[0] == "connect":
        return ["--connect-url", f"http://{address}"]
    return [] if lab_only(argv[0]) else ["--bootstrap-server", address]


def read_only_contexts_file(path: Path, address: str = NOWHERE) -> Path:
    """A kafkatop.toml with two read-only contexts: `ro` (attached, at `address`) and `ro-lab` (a lab)."""
    path.write_text(
        f'[contexts.ro]\nbootstrap-server = "{address}"\nread-only = true\n\n'
        '[contexts.ro-lab]\nlab = "ro"\nstate-dir = "lab-state"\nread-only = true\n',
        encoding="utf-8",
    )
    return path


def context_flags(argv: list[str]) -> list[str]:
    return ["--context", "ro-lab" if lab_only(argv[0]) else "ro"]


# --- (a) every command is classified ----------------------------------------------------------------------------------
def test_every_command_is_classified_as_writing_or_not() -> None:
    commands = set(build_parser().commands)
    assert commands == {c.name for c in COMMANDS}  # each from its row (tui/cli/command_table.py), with its writes


def test_the_lists_here_name_every_command() -> None:
    """A new command is added to WRITE_INVOCATIONS or READ_INVOCATIONS below, and so is tested both ways."""
    listed = {argv[0] for _, argv in WRITE_INVOCATIONS + READ_INVOCATIONS}
    assert set(build_parser().commands) - listed == {"install", "contexts", "audit"}  # no cluster: nothing to refuse


# --- (b) writes refused, reads let through --------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [argv for _, argv in WRITE_INVOCATIONS], ids=[i for i, _ in WRITE_INVOCATIONS])
def test_read_only_refuses_a_write_before_anything_is_sent(
    isolated: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    assert main([*argv, "--read-only", *cluster_flags(argv)]) == 2
    err = capsys.readouterr().err
    assert f"--read-only: `{argv[0]}` writes to the cluster (" in err and "nothing was sent" in err, err
    assert "Traceback" not in err
    assert list(isolated.iterdir()) == [], "nothing written either: no lab state, no contexts file"


@pytest.mark.parametrize("argv", [argv for _, argv in WRITE_INVOCATIONS], ids=[i for i, _ in WRITE_INVOCATIONS])
def test_a_read_only_context_refuses_a_write(
    isolated: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    read_only_contexts_file(isolated / "kafkatop.toml")
    flags = context_flags(argv)
    assert main([*argv, *flags]) == 2
    err = capsys.readouterr().err
    assert f"context {flags[1]!r} is read-only: `{argv[0]}` writes to the cluster (" in err, err
    assert "read-only" in err and "nothing was sent" in err and "Traceback" not in err
    assert sorted(p.name for p in isolated.iterdir()) == ["kafkatop.toml"]


def test_a_read_only_default_context_refuses_a_write(isolated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (isolated / "xdg" / "kafkatop").mkdir(parents=True)
    read_only_contexts_file(isolated / "xdg" / "kafkatop" / "config.toml")
    with (isolated / "xdg" / "kafkatop" / "config.toml").open("a", encoding="utf-8") as f:
        f.write('\n[contexts.rw]\nbootstrap-server = "127.0.0.1:9"\n')
    (isolated / "kafkatop.toml").write_text('default-context = "ro"\n', encoding="utf-8")
    assert main(["create-topic", "t", "--partitions", "1", "--replication-factor", "1"]) == 2
    assert "context 'ro' is read-only: `create-topic`" in capsys.readouterr().err
    # A flag naming the cluster leaves the default context (and its read-only) out; --read-only still refuses.
    assert main(["create-topic", "t", "--partitions", "1", "--replication-factor", "1", "--bootstrap-server",
                 "127.0.0.1:9", "--read-only"]) == 2  # fmt: skip
    assert "--read-only: `create-topic`" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [argv for _, argv in READ_INVOCATIONS], ids=[i for i, _ in READ_INVOCATIONS])
def test_read_only_lets_a_read_through(isolated: Path, argv: list[str]) -> None:
    args = build_parser().parse_args([*argv, "--read-only", *cluster_flags(argv)])
    assert args.read_only
    assert named(args.command).writes(args) is None
    refuse_writes(args)  # no refusal: the command would run, reading


@pytest.mark.parametrize("argv", [argv for _, argv in READ_INVOCATIONS], ids=[i for i, _ in READ_INVOCATIONS])
def test_a_read_only_context_lets_a_read_through(isolated: Path, argv: list[str]) -> None:
    read_only_contexts_file(isolated / "kafkatop.toml")
    args = build_parser().parse_args([*argv, *context_flags(argv)])
    assert apply_context(args) is not None and args.read_only
    refuse_writes(args)


@pytest.mark.parametrize("argv", [argv for _, argv in WRITE_INVOCATIONS], ids=[i for i, _ in WRITE_INVOCATIONS])
def test_without_read_only_nothing_is_refused(isolated: Path, argv: list[str]) -> None:
    args = build_parser().parse_args([*argv, *cluster_flags(argv)])
    assert named(args.command).writes(args) is not None  # classified as a write…
    refuse_writes(args)  # …and let through when not read-only


def test_the_live_view_and_kafkatop_contexts_are_not_refused(isolated: Path) -> None:
    for argv in (["--read-only", "--bootstrap-server", NOWHERE], ["contexts"]):
        args = build_parser().parse_args(argv)
        refuse_writes(args)
    args = build_parser().parse_args(["create-topic", "t", "--partitions", "1", "--replication-factor", "1",
                                      "--read-only"])  # fmt: skip
    with pytest.raises(UsageError, match="nothing was sent"):
        refuse_writes(args)


# --- the live view's keys -------------------------------------------------------------------------------------------
# Every action that changes the cluster, by id, written out: a new one is a conscious addition here.
WRITE_IDS = frozenset({
    "kill", "stop", "start", "restart", "add-broker", "create-topic", "delete-topic", "durability",
    "elect-preferred", "elect-unclean", "add-partitions", "reassign", "delete-group", "delete-offsets",
    "connect-create", "connect-pause", "connect-resume", "connect-stop", "connect-restart", "connect-delete",
    "grant",  # M: adds the ACLs a refusal asked for
    "acl-add", "acl-remove",  # Y, V in the ACLs tab
    "schema-register",  # I in the Schemas tab: a schema registered in the Schema Registry
    "scenario-next", "scenario-all",  # space, A: a scenario's steps kill and start nodes, produce records
})  # fmt: skip
# Ids that sound like a write but only read or move the view, each with why.
SOUND_LIKE_WRITES = {
    "log-start": "a seek in the Messages tab: the partition's log start, read",
}
WRITE_WORDS = ("kill", "stop", "start", "restart", "create", "delete", "elect", "reassign", "add", "durability")


def where(a: LiveAction) -> tuple[str, str | None, frozenset[str]]:
    """A mode, tab and sources in which `a` applies when the cluster is writable."""
    mode = sorted(a.launches)[0]
    tab = sorted(a.tabs)[0] if a.tabs else None
    return mode, tab, frozenset({a.needs}) if a.needs else frozenset()


def test_the_actions_that_write_are_exactly_those_listed() -> None:
    assert {a.id for a in ACTIONS if a.writes} == WRITE_IDS


def test_every_action_whose_name_says_write_is_marked_writes() -> None:
    for a in ACTIONS:
        if any(word in a.id for word in WRITE_WORDS) and a.id not in SOUND_LIKE_WRITES:
            assert a.writes, f"{a.id} sounds like a write: set writes=True, or say why not in SOUND_LIKE_WRITES"
    ids = {a.id for a in ACTIONS}
    assert set(SOUND_LIKE_WRITES) <= ids and WRITE_IDS <= ids  # no stale names


@pytest.mark.parametrize("action", [a for a in ACTIONS if a.writes], ids=lambda a: a.id)
def test_a_key_that_writes_is_refused_in_read_only(action: LiveAction) -> None:
    mode, tab, sources = where(action)
    assert action.applies(mode, tab, sources)  # it does apply, writable…
    for m in action.launches:
        for t in action.tabs or {None, "tab-partitions", "tab-groups"}:
            assert not action.applies(m, t, sources, read_only=True)  # …and nowhere read-only


@pytest.mark.parametrize("action", [a for a in ACTIONS if not a.writes], ids=lambda a: a.id)
def test_a_key_that_only_reads_still_applies_in_read_only(action: LiveAction) -> None:
    mode, tab, sources = where(action)
    assert action.applies(mode, tab, sources) and action.applies(mode, tab, sources, read_only=True)


def test_no_key_that_reads_shares_a_textual_action_with_one_that_writes() -> None:
    """The main screen refuses by Textual action name, parameters dropped (`node('kill')` is `node`): a reading key
    under a writing key's name would be refused too, or let a write through."""
    name = {a.id: a.action.split("(")[0] for a in ACTIONS if a.action}
    writing = {name[a.id] for a in ACTIONS if a.writes}
    assert {a.id for a in ACTIONS if a.action and not a.writes and name[a.id] in writing} == set()
