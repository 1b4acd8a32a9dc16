"""The audit trail against a real Apache Kafka 4.1 with StandardAuthorizer (`up --security sasl_ssl --authorizer`,
tests/integration/authorizer_lab.py): `create-topic`, `configs --alter`, `acls --add` from the command line and a kill
from the live view (through the node control its K key calls) are listed by `kafkatop audit --json` with the
principal kafkatop authenticated as (the lab's admin), the cluster's id and the result; a create Kafka refuses is there
with Kafka's error; the file is 0600 and holds no password of the lab.

Set KAFKA_HOME to run. One broker and one controller on free ports; every node is stopped at the end."""

from __future__ import annotations

import asyncio
import json
import stat
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from kafkatop.tui.cli.compose import compose_app
from kafkatop.tui.cli.main import main
from kafkatop.tui.cli.parser import build_parser
from tests.conftest import pilot_until
from tests.integration.authorizer_lab import AuthorizerLab, authorizer_lab

pytestmark = pytest.mark.kafka


@pytest.fixture(scope="module")
def lab(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AuthorizerLab]:
    with authorizer_lab(tmp_path_factory.mktemp("audit"), kafka_home, name="audit") as lab:
        yield lab


async def test_four_writes_with_principal_and_result_and_no_secret(
    lab: AuthorizerLab, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert main(["create-topic", "au", "--partitions", "1", "--replication-factor", "1", *lab.flags]) == 0
    assert main(["create-topic", "au", "--partitions", "1", "--replication-factor", "1", *lab.flags]) == 1
    assert main(["configs", "--alter", "--entity-type", "topics", "--entity-name", "au", "--add-config",
                 "retention.ms=60000", *lab.flags]) == 0  # fmt: skip
    assert main(["acls", "--add", "--allow-principal", "User:client", "--operation", "Read", "--topic", "au",
                 *lab.flags]) == 0  # fmt: skip
    args = build_parser().parse_args([*lab.flags, "--interval", "1"])
    with ExitStack() as stack:
        app = compose_app(args, stack, terminal=False)
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot_until(pilot, lambda: app.view.cluster is not None and bool(app.view.cluster.cluster_id),
                              "the first poll")  # fmt: skip
            control = app.sources.control
            assert control is not None
            await asyncio.to_thread(control.kill, "broker-1")  # what K on broker-1 calls
    capsys.readouterr()
    assert main(["audit", "--json"]) == 0
    entries = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    said = [(e["source"], e["action"], e["target"], e["result"], e["principal"]) for e in entries]
    assert said == [
        ("command", "create-topic", "au", "ok", "User:admin"),
        ("command", "create-topic", "au", "failed", "User:admin"),
        ("command", "configs --alter", "au", "ok", "User:admin"),
        ("command", "acls --add", "au", "ok", "User:admin"),
        ("live view", "kill", "broker-1", "ok", "User:admin"),
    ], said
    assert "already exists" in entries[1]["error"]
    assert {e["cluster_id"] for e in entries} == {lab.snapshot.cluster_id}
    assert entries[2]["arguments"]["alter"] == "retention.ms=60000"
    trail = tmp_path / "kafkatop" / "audit.jsonl"
    assert stat.S_IMODE(trail.stat().st_mode) == 0o600
    text = trail.read_text()
    secrets = [line.split("=", 1)[1] for line in lab.admin_properties.read_text().splitlines()
               if "password" in line.lower() and "=" in line]  # fmt: skip
    passwords = [p for s in secrets for p in s.replace('"', " ").split() if len(p) >= 12]
    assert passwords and not [p for p in passwords if p in text]
