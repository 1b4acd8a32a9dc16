"""`kafkatop users`' refusals, before anything is sent: a password on the command line (refused without being shown:
argparse's own error for an unknown option would echo it), options that do not go together, iterations out of
Kafka's range, an unknown mechanism, an empty password; and the prompt on a real terminal (a pseudo-terminal): not
echoed, asked twice, two different answers refused. The cluster named is 127.0.0.1:9, where nothing answers: every
refusal here comes before a connection."""

from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys
import time

import pytest

from kafkatop.tui.cli.main import main
from kafkatop.tui.cli.parser import build_parser

NOWHERE = ["--bootstrap-server", "127.0.0.1:9"]
SECRET = "Hunter2-Canary-5521"


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as e:  # argparse's refusals
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out + err


@pytest.mark.parametrize(
    "argv",
    [
        ["users", "--add", "alice", "--password", SECRET],
        ["users", "--add", "alice", f"--password={SECRET}"],
        ["users", "--add", "alice", "--pass", SECRET],  # argparse's abbreviation of --password
        ["--password", SECRET, "users", "--add", "alice"],  # before the command
        ["users", "--add", "alice", "--password"],
    ],
    ids=["after", "equals", "abbreviated", "before", "no-value"],
)
def test_a_password_on_the_command_line_is_refused_and_never_shown(
    isolated: object, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    code, said = run(capsys, [*argv, *NOWHERE])
    assert code == 2
    assert "passwords are never taken from the command line (any local user reads it in ps)" in said
    assert SECRET not in said and said.count("\n") == 1, said


def test_words_after_the_options_are_refused_without_being_shown(
    isolated: object, capsys: pytest.CaptureFixture[str]
) -> None:
    code, said = run(capsys, ["users", "--add", "alice", SECRET, *NOWHERE])
    assert code == 2 and SECRET not in said and "not shown (one may be a password)" in said, said


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--add", "a", "--delete", "b"], "--add and --delete together: give one"),
        (["--add", "a", "--json"], "--json goes with the listing, not with --add"),
        (["--delete", "a", "--list", "--user", "a"], "--list and --user go with the listing, not with --delete"),
        (["--iterations", "8192"], "--iterations goes with --add"),
        (["--delete", "a", "--iterations", "8192"], "--iterations goes with --add"),
        (["--mechanism", "SCRAM-SHA-256"], "--mechanism goes with --add or --delete"),
        (["--yes"], "--yes/--force goes with --delete"),
        (["--add", "a", "--iterations", "4095"], "expected a number of iterations, from 4096 to 16384; not 4095"),
        (["--add", "a", "--iterations", "16385"], "expected a number of iterations, from 4096 to 16384; not 16385"),
        (["--add", "a", "--mechanism", "SCRAM-SHA-1"], "invalid choice: 'SCRAM-SHA-1'"),
        (["--add", "a", "--mechanism", "PLAIN"], "invalid choice: 'PLAIN'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    isolated: object, capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    code, text = run(capsys, ["users", *argv, *NOWHERE])
    assert code == 2 and said in text and text.count("\n") == 1 and "Traceback" not in text, text


def test_a_mechanism_is_taken_in_any_case_and_the_defaults_are_kafkas() -> None:
    args = build_parser().parse_args(["users", "--add", "a", "--mechanism", "scram-sha-256", *NOWHERE])
    assert (args.mechanism, args.iterations, bool(args.yes)) == ("SCRAM-SHA-256", None, False)
    assert build_parser().parse_args(["users", "--delete", "a", "--force"]).yes
    helped = " ".join(build_parser().commands["users"].format_help().split())
    assert "(default: the prompt, or stdin)" in helped and "(default: 4096)" in helped


@pytest.mark.parametrize("piped", ["", "\n", "\r\n"], ids=["nothing", "empty-line", "crlf"])
def test_an_empty_password_on_stdin_is_refused_before_any_connection(
    isolated: object, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, piped: str
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(piped))  # a pipe, not a terminal: one line is read
    started = time.monotonic()
    code, said = run(capsys, ["users", "--add", "alice", *NOWHERE])
    assert code == 2 and said == "kafkatop: empty password: type one at the prompt (or pipe one line on stdin); " \
        "nothing changed\n"  # fmt: skip
    assert time.monotonic() - started < 2  # no connection was tried (it would wait for its timeout)


# --- the prompt, on a real terminal ---------------------------------------------------------------------------------
class Terminal:
    """`kafkatop ARGS` on a pseudo-terminal (its stdin, stdout and stderr): what it shows, and what is typed."""

    def __init__(self, args: list[str]) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kafkatop.tui.cli", *args],
            stdin=slave, stdout=slave, stderr=slave, start_new_session=True, close_fds=True,
        )  # fmt: skip
        os.close(slave)
        self.shown = b""

    def wait_for(self, text: str, timeout_s: float = 20.0) -> None:
        deadline = time.monotonic() + timeout_s
        while text.encode() not in self.shown:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {text!r} in {self.shown!r}")
            if select.select([self.master], [], [], left)[0]:
                try:
                    self.shown += os.read(self.master, 4096)
                except OSError:  # the child closed the terminal
                    break

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\r")

    def finish(self, timeout_s: float = 20.0) -> int:
        code = self.proc.wait(timeout_s)
        while select.select([self.master], [], [], 0.2)[0]:
            try:
                chunk = os.read(self.master, 4096)
            except OSError:
                break
            if not chunk:
                break
            self.shown += chunk
        os.close(self.master)
        return code


def test_the_prompt_does_not_echo_and_refuses_two_different_passwords(isolated: object) -> None:
    term = Terminal(["users", "--add", "alice", *NOWHERE])
    try:
        term.wait_for("Password for user alice (SCRAM-SHA-512): ")
        term.type(SECRET)
        term.wait_for("The same password again: ")
        term.type(SECRET + "-other")
        term.wait_for("nothing changed")
        assert term.finish() == 2
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
            term.proc.wait(10)
    assert b"kafkatop: the two passwords typed differ; nothing changed" in term.shown
    assert SECRET.encode() not in term.shown  # the terminal never showed what was typed
