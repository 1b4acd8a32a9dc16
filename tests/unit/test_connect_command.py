"""`kafkatop connect`'s command line: its actions and their options, which workers it asks (--connect-url, a
context's connect-url, the lab's), what it writes (read-only), and the credentials it never shows. What it does
against real workers: tests/integration/test_connect_kafka.py."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from kafkatop.backends.model.client_properties import translate_client_properties
from kafkatop.tui.cli.command_table import named
from kafkatop.tui.cli.connect import auth, check_options, typed_name, worker_urls
from kafkatop.tui.cli.contexts import apply_context
from kafkatop.tui.cli.exits import UsageError
from kafkatop.tui.cli.main import main
from kafkatop.tui.cli.main import parse as parse_command_line
from kafkatop.tui.cli.parser import build_parser

URL = "http://127.0.0.1:8083"


def parse(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["connect", *argv])


def test_actions_and_their_options() -> None:
    args = parse("restart", "c", "--include-tasks", "--only-failed", "--connect-url", "127.0.0.1:8083")
    assert (args.connect_command, args.target, args.include_tasks, args.only_failed) == ("restart", "c", True, True)
    assert args.connect_url == [URL]  # HOST:PORT is http
    check_options(args)
    before = build_parser().parse_args(["--connect-url", URL, "--timeout", "3", "connect", "list", "--json"])
    assert before.connect_url == [URL] and before.timeout == 3.0 and before.json  # options before the command too
    assert parse("plugins").target is None and parse("plugins", "FileStreamSink").target == "FileStreamSink"


@pytest.mark.parametrize(
    "argv, refusal",
    [
        (["list", "--reset"], "--reset is not an option of `connect list` (it is of offsets)"),
        (["pause", "c", "--json"], "--json is not an option of `connect pause`"),
        (["status", "c", "--include-tasks"], "--include-tasks is not an option of `connect status`"),
        (["status"], "`connect status` needs the connector's name: kafkatop connect status NAME"),
        (["create"], "`connect create` needs the connector's file"),
        (["list", "c"], "`connect list` takes no 'c'"),
    ],
)
def test_options_of_another_action_are_refused(argv: list[str], refusal: str) -> None:
    with pytest.raises(UsageError, match=refusal.replace("(", r"\(").replace(")", r"\)")):
        check_options(parse(*argv))


def test_a_bad_url_is_refused_by_the_parser_without_quoting_a_password(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        parse("list", "--connect-url", "http://admin:s3cret@127.0.0.1:8083")
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "s3cret" not in err and "connect.basic.auth.user.info" in err
    with pytest.raises(SystemExit):
        parse("list", "--connect-url", "ftp://127.0.0.1:8083")
    assert "expected http://HOST:PORT or https://HOST:PORT" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, writes",
    [
        (["list"], False), (["status", "c"], False), (["offsets", "c"], False), (["plugins"], False),
        (["validate", "f.json"], False), (["offsets", "c", "--reset"], True), (["create", "f.json"], True),
        (["pause", "c"], True), (["resume", "c"], True), (["stop", "c"], True), (["restart", "c"], True),
        (["delete", "c"], True),
    ],
)  # fmt: skip
def test_what_writes(argv: list[str], writes: bool) -> None:
    assert (named("connect").writes(parse(*argv, "--connect-url", URL)) is not None) is writes


# --- which workers ----------------------------------------------------------------------------------------------------
def test_the_flag_then_the_contexts_connect_url(isolated: Path) -> None:
    (isolated / "kafkatop.toml").write_text(
        '[contexts.prod]\nbootstrap-server = "kafka:9092"\nconnect-url = ["http://c1:8083", "http://c2:8083"]\n\n'
        '[contexts.bare]\nbootstrap-server = "kafka:9092"\n',
        encoding="utf-8",
    )
    args = parse("list", "--context", "prod")
    apply_context(args)
    assert worker_urls(args) == ("http://c1:8083", "http://c2:8083")
    assert typed_name(args, worker_urls(args)) == "prod"  # a delete on it asks for the context's name
    flagged = parse("list", "--context", "prod", "--connect-url", URL)
    apply_context(flagged)
    assert worker_urls(flagged) == (URL,)  # the flag wins
    bare = parse("list", "--context", "bare")
    apply_context(bare)
    with pytest.raises(UsageError, match=r"context 'bare' names no Connect workers: add connect-url = "):
        worker_urls(bare)


def test_no_workers_anywhere_says_how_to_give_them(isolated: Path) -> None:
    with pytest.raises(UsageError, match=r"no Connect workers to ask: give --connect-url http://HOST:8083"):
        worker_urls(parse("list", "--state-dir", str(isolated / "labs"), "--name", "none"))
    flagged = parse("delete", "c", "--connect-url", URL)
    assert typed_name(flagged, worker_urls(flagged)) == "127.0.0.1:8083"


def test_the_command_line_ends_in_one_line_when_no_worker_is_given(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["connect", "list", "--state-dir", str(isolated / "labs")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kafkatop: no Connect workers to ask: give --connect-url") and "Traceback" not in err
    assert err.count("\n") == 1


# --- credentials ------------------------------------------------------------------------------------------------------
def test_credentials_from_the_command_config_are_never_shown(tmp_path: Path) -> None:
    props = tmp_path / "client.properties"
    props.write_text("security.protocol=PLAINTEXT\nconnect.basic.auth.user.info=admin:s3cret\n", encoding="utf-8")
    args = parse("list", "--connect-url", URL, "--command-config", str(props))
    assert auth(args).user_info == "admin:s3cret"
    # The Kafka side of the same file takes no offence at the connect.* keys.
    assert translate_client_properties({"connect.basic.auth.user.info": "admin:s3cret"}).ignored == ()
    props.write_text("connect.basic.auth.user.info=s3cret\n", encoding="utf-8")
    with pytest.raises(UsageError) as refused:
        auth(args)
    assert "s3cret" not in str(refused.value) and str(refused.value).startswith(f"--command-config {props}")
    missing = parse("list", "--connect-url", URL, "--command-config", str(tmp_path / "none.properties"))
    with pytest.raises(UsageError, match="file not found"):
        auth(missing)


@pytest.mark.parametrize(
    "argv",
    [
        ["connect", "status", "--json", "lines-in"],
        ["connect", "status", "lines-in", "--json"],
        ["connect", "--json", "status", "lines-in"],
    ],
)
def test_the_connector_name_may_follow_the_actions_options(argv: list[str]) -> None:
    args = parse_command_line(argv)
    assert (args.connect_command, args.target, args.json) == ("status", "lines-in", True)


def test_a_second_name_is_still_unrecognized(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        parse_command_line(["connect", "status", "--json", "lines-in", "other"])
    assert exit_.value.code == 2
    assert "unrecognized arguments: lines-in other" in capsys.readouterr().err


class _Worker:
    """A Connect worker's answers for `connect offsets`: the connector's state, and what a change answers."""

    urls = (URL,)

    def __init__(self, state: str) -> None:
        self.state = state
        self.changed: list[str] = []

    def status_answer(self, name: str) -> object:
        return {"name": name, "type": "source", "connector": {"state": self.state, "worker_id": "w:1"}, "tasks": []}

    def reset_offsets(self, name: str) -> str:
        self.changed.append(f"reset {name}")
        return "The offsets for this connector have been reset successfully"

    def alter_offsets(self, name: str, offsets: object) -> str:
        self.changed.append(f"alter {name}")
        return "The offsets for this connector have been altered successfully"


@pytest.mark.parametrize("flag, verb, done", [("--reset", "resets", "reset"), ("--alter", "alters", "altered")])
def test_offsets_change_only_for_a_stopped_connector(
    flag: str, verb: str, done: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kafkatop.tui.cli.connect import _offsets

    offsets = tmp_path / "offsets.json"
    offsets.write_text('{"offsets": [{"partition": {"filename": "f"}, "offset": {"position": 1}}]}')
    extra = [flag] if flag == "--reset" else [flag, str(offsets)]
    args = parse("offsets", "c", *extra, "--yes", "--connect-url", URL)
    running = _Worker("RUNNING")
    with pytest.raises(UsageError) as refused:
        _offsets(running, args)  # type: ignore[arg-type]
    assert str(refused.value) == (
        f"connector 'c' is RUNNING: Connect {verb} the offsets of a STOPPED connector only; "
        f"`kafkatop connect stop c --connect-url {URL}` first (nothing was {done})"
    )
    assert running.changed == []
    stopped = _Worker("STOPPED")
    assert _offsets(stopped, args) == 0  # type: ignore[arg-type]
    assert stopped.changed == [f"{flag[2:]} c"]
    assert capsys.readouterr().out == f"connector 'c': The offsets for this connector have been {done} successfully\n"
    args.json = True
    assert _offsets(stopped, args) == 0  # type: ignore[arg-type]
    assert capsys.readouterr().out.replace(" ", "").replace("\n", "") == (
        f'{{"message":"Theoffsetsforthisconnectorhavebeen{done}successfully"}}'
    )
