"""`kafkatop acls` on the command line (tui/cli/acls.py, parser_acls.py): every bad input is one line and exit 2 with
nothing sent — a listening socket stands where the cluster would be, and counts that no one connected — the demo
says it has no authorizer, and --remove without a terminal to ask on wants --force."""

from __future__ import annotations

import io
import socket
from collections.abc import Iterator

import pytest

from kafkatop.tui.cli.acls import DEMO, NOT_ASKED, command_of
from kafkatop.tui.cli.main import main
from kafkatop.tui.cli.parser import build_parser


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """Where the cluster would be: after the test, nothing may have connected."""
    sock = socket.create_server(("127.0.0.1", 0))
    sock.setblocking(False)
    yield sock
    with pytest.raises(BlockingIOError):
        sock.accept()  # no connection is waiting: nothing was sent
    sock.close()


def run(capsys: pytest.CaptureFixture[str], listener: socket.socket, *argv: str) -> tuple[int, str, str]:
    port = listener.getsockname()[1]
    try:
        code = main(["acls", "--bootstrap-server", f"127.0.0.1:{port}", *argv])
    except SystemExit as e:  # argparse's refusal of a value
        code = int(str(e.code))
    out, err = capsys.readouterr()
    return code, out, err


BAD = [
    (["--add", "--allow-principal", "User:a", "--operation", "Fly", "--topic", "t"], "unknown operation 'Fly'"),
    (["--add", "--allow-principal", "client", "--producer", "--topic", "t"], "principal 'client' is not TYPE:NAME"),
    (["--add", "--allow-principal", "User:a", "--topic", "t", "--resource-pattern-type", "match"], "is a filter"),
    (["--add", "--allow-principal", "User:a", "--topic", "t", "--resource-pattern-type", "ANY"], "is a filter"),
    (["--add", "--allow-principal", "User:a", "--producer"], "with --producer you must give a --topic"),
    (["--add", "--allow-principal", "User:a", "--consumer", "--topic", "t"], "you must give a --topic and a --group"),
    (["--add", "--allow-principal", "User:a", "--operation", "IdempotentWrite", "--topic", "t"],
     "--operation IdempotentWrite does not apply to a Topic"),
    (["--add", "--operation", "Read", "--topic", "t"], "--add needs a principal"),
    (["--add", "--allow-principal", "User:a", "--topic", "*", "--resource-pattern-type", "prefixed"],
     "is the prefix `*`"),
    (["--add", "--list", "--topic", "t"], "give exactly one action"),
    (["--topic", "t"], "give exactly one action"),
    (["--add", "--allow-principal", "User:a", "--topic", "t", "--json"], "--json goes with --list"),
    (["--list", "--allow-principal", "User:a"], "--list does not go with --allow-principal"),
    (["--add", "--allow-principal", "User:a", "--topic", "t", "--resource-pattern-type", "wild"],
     "expected one of literal, prefixed, match, any"),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "said"), BAD, ids=[said for _, said in BAD])
def test_bad_input_is_one_line_and_exit_2_with_nothing_sent(
    capsys: pytest.CaptureFixture[str], listener: socket.socket, argv: list[str], said: str
) -> None:
    code, out, err = run(capsys, listener, *argv)
    assert (code, out) == (2, "")
    assert said in err and err.count("\n") == 1, err


def test_remove_without_a_terminal_wants_force(
    capsys: pytest.CaptureFixture[str], listener: socket.socket, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    assert run(capsys, listener, "--remove", "--topic", "t") == (2, "", f"kafkatop: {NOT_ASKED}\n")


def test_the_demo_has_no_authorizer(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["acls", "--demo"]) == 1
    assert capsys.readouterr() == ("", f"kafkatop: {DEMO}\n")
    assert "kafkatop up --security sasl_ssl --authorizer" in DEMO


def test_options_as_kafka_acls_takes_them() -> None:
    args = build_parser().parse_args(["acls", "--add", "--allow-principal", "User:a", "--allow-principal", "User:b",
                                      "--topic", "t", "--topic", "u", "--operation", "read", "--operation", "WRITE",
                                      "--resource-pattern-type", "PREFIXED", "--allow-host", "10.0.0.1"])  # fmt: skip
    cmd = command_of(args)
    assert (cmd.action, cmd.topics, cmd.pattern_type) == ("add", ("t", "u"), "PREFIXED")
    assert (cmd.allow_principals, cmd.operations, cmd.allow_hosts) == (("User:a", "User:b"), ("read", "WRITE"),
                                                                       ("10.0.0.1",))  # fmt: skip
    defaults = build_parser().parse_args(["acls", "--list"])
    assert (defaults.resource_pattern_type, defaults.operation, bool(defaults.force)) == ("literal", None, False)


def test_help_says_each_default() -> None:
    text = "".join(build_parser().commands["acls"].format_help().split())  # argparse wraps lines at hyphens too
    for said in ("(default: All)", "(default: literal)", "(default: * with --allow-principal)", "--force"):
        assert "".join(said.split()) in text, said
