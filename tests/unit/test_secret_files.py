"""A properties file of secrets that others may read is said once per run, as ssh says of a private key: a
--command-config (for Kafka, and for Connect's basic auth beside it) or a schema-registry-config that gives a
password, a JAAS line or basic auth's user info and whose group or others may read it — on stderr with
`chmod 600 FILE`, and kept for the live view's screen (tui/cli/startup_warnings.py); never a value; nothing for a
private file, or one that only names where its secrets are."""

from __future__ import annotations

import argparse
import stat
from pathlib import Path

import pytest

from kafkatop.backends.model.secrets import open_secrets_warning, readable_by_others
from kafkatop.tui.cli.common import client_settings
from kafkatop.tui.cli.compose_schemas import say_open_secrets
from kafkatop.tui.cli.connect_workers import auth
from kafkatop.tui.cli.parser import build_parser
from kafkatop.tui.cli.startup_warnings import kept

PASSWORD = "jaas-Pw-2b9f"
JAAS = f'org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="{PASSWORD}";'


def properties(tmp_path: Path, text: str, mode: int, name: str = "client.properties") -> Path:
    path = tmp_path / name
    path.write_text(text)
    path.chmod(mode)
    return path


def said(path: Path, keys: str, who: str, mode: int) -> str:
    return f"kafkatop: {path} holds {keys} and is readable by {who} (mode {mode:04o}): `chmod 600 {path}`"


def test_who_may_read_and_what_is_said() -> None:
    assert readable_by_others(0o100600) is None and readable_by_others(0o100640) == "group"
    assert readable_by_others(0o100604) == "others" and readable_by_others(0o100644) == "group and others"
    assert open_secrets_warning("/f", ["sasl.jaas.config"], 0o100600) is None
    assert open_secrets_warning("/f", [], 0o100644) is None
    assert open_secrets_warning("/f", ["sasl.password", "basic.auth.user.info"], stat.S_IFREG | 0o640) == (
        "/f holds basic.auth.user.info, sasl.password and is readable by group (mode 0640): `chmod 600 /f`"
    )


def args_of(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(list(argv))


@pytest.mark.parametrize(("mode", "who"), [(0o644, "group and others"), (0o640, "group"), (0o604, "others")])
def test_a_command_config_others_may_read_is_said_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: int, who: str
) -> None:
    path = properties(tmp_path, f"security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config={JAAS}\n"
                      "connect.basic.auth.user.info=connect:connect-Pw-77\n", mode)  # fmt: skip
    args = args_of("--command-config", str(path))
    settings = client_settings(args)
    assert settings["sasl.password"] == PASSWORD  # read all the same
    client_settings(args)
    auth(args_of("connect", "list", "--command-config", str(path), "--connect-url", "http://127.0.0.1:8083"))
    err = capsys.readouterr().err
    assert err.splitlines() == [said(path, "connect.basic.auth.user.info, sasl.jaas.config", who, mode)]  # once
    assert PASSWORD not in err and "connect-Pw-77" not in err
    assert kept(args) == (err.strip().removeprefix("kafkatop: "),)  # for the live view to show on its screen


@pytest.mark.parametrize(
    "text",
    [
        f"sasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config={JAAS}\n",  # private: the mode below
        "security.protocol=PLAINTEXT\nclient.id=reports\n",  # no secret
        "security.protocol=PLAINTEXT\nssl.key.password=\n",  # an empty one
    ],
    ids=["private", "no-secret", "empty"],
)
def test_nothing_is_said_of_a_private_file_or_one_without_a_secret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    path = properties(tmp_path, text, 0o600 if "jaas.config=org" in text else 0o644)
    args = args_of("--command-config", str(path))
    client_settings(args)
    assert capsys.readouterr().err == "" and kept(args) == ()


def test_a_schema_registry_config_others_may_read_is_said_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = properties(tmp_path, "basic.auth.user.info=reg:registry-Pw-31\nssl.key.password=key-Pw-32\n", 0o644,
                      "registry.properties")  # fmt: skip
    args = args_of("--schema-registry", "http://127.0.0.1:8081", "--schema-registry-config", str(path))
    args.context_name = None
    say_open_secrets(args)
    say_open_secrets(args)
    err = capsys.readouterr().err
    assert err.splitlines() == [said(path, "basic.auth.user.info, ssl.key.password", "group and others", 0o644)]
    assert "Pw-3" not in err
