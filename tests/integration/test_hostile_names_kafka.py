"""Names others choose are text, on a real Apache Kafka 4.1 (tests/fixtures/hostile.py): a lab with an authorizer
and a Connect worker, where Kafka's own clients name consumer groups (offsets committed under their ids), a
transactional id (its transaction left open), ACL principals and records with markup and escape sequences, and the
worker's REST API a connector. kafkatop's commands at a terminal show them escaped and write them byte for byte to a
pipe; the live view, driven headless through the composition root on the lab, survives `x`, `i`, `D` and `V` on them
(a `[/]` once quit it) and puts none of their control characters on the terminal. The same on the mock, with every
tab: test_hostile_names_pilot.py.

Set KAFKA_HOME to run it. One broker, one controller and one Connect worker on free ports, state in pytest's tmp dir,
stopped at the end (by recorded pid if need be)."""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition
from textual.widgets import TabbedContent

from kafkatop.backends.connect.auth import connect_auth
from kafkatop.backends.connect.client import ConnectClient
from kafkatop.backends.lab.properties import read_client_properties
from kafkatop.backends.model.text import printable
from kafkatop.tui.cli.common import client_settings
from kafkatop.tui.cli.compose import compose_app
from kafkatop.tui.cli.main import parse
from kafkatop.tui.cli.parser import build_parser
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.screens.confirm import ConfirmScreen
from kafkatop.tui.live.screens.transactions import TransactionsScreen
from kafkatop.tui.live.tabs.groups.pane import GroupsPane
from kafkatop.tui.live.widgets.line_table import LineTable
from tests.conftest import pilot_until
from tests.fixtures.hostile import NAMES, at_terminal, raw_controls, screen_text, seen, terminal_output
from tests.integration.authorizer_lab import AuthorizerLab, authorizer_lab

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(600)]

TOPIC = "orders"
GROUPS = ("[/]", NAMES["title"], NAMES["bidi"], NAMES["clear"], NAMES["long"])
TRANSACTIONAL_ID = "tx[/]open"
CONNECTOR = "[bold red]c[@click=app.quit]"  # markup, and an action if parsed; no "/" (Connect cannot address one)
PRINCIPALS = ("User:[/]", f"User:{NAMES['title']}")


@pytest.fixture(scope="module")
def lab(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AuthorizerLab]:
    with authorizer_lab(tmp_path_factory.mktemp("hostile"), kafka_home, connect=1, name="hostile") as lab:
        planted = plant(lab)
        try:
            yield lab
        finally:
            planted.close()


class Planted:
    """What stays open while the tests run: the transactional producer whose transaction is not ended."""

    def __init__(self, producer: Producer) -> None:
        self.producer = producer

    def close(self) -> None:
        self.producer.abort_transaction(30)


def admin_config(lab: AuthorizerLab) -> dict[str, str]:
    """librdkafka's settings of the lab's admin, as kafkatop's commands use them on the lab."""
    from kafkatop.backends.model.connection import KafkaConnection

    settings = client_settings(build_parser().parse_args(["describe", *lab.flags]))
    return KafkaConnection.parse(lab.bootstrap, settings).config("hostile-test")


def kafkatop(lab: AuthorizerLab, *argv: str, at_a_terminal: bool, cwd: Path) -> tuple[int, str]:
    """`kafkatop ARGV --name … --state-dir …`: at a terminal (its CR LF read as LF), or with its output to a pipe."""
    command = [sys.executable, "-m", "kafkatop.tui.cli", *argv, *lab.flags]
    env = {k: v for k, v in os.environ.items() if k != "XDG_STATE_HOME"} | {"COLUMNS": "250"}
    if at_a_terminal:
        code, out = at_terminal(command, str(cwd), env, timeout_s=120)
        return code, out.decode("utf-8", "replace").replace("\r\n", "\n")
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, timeout=120, check=False)
    return done.returncode, (done.stdout + done.stderr).decode("utf-8", "replace")


def plant(lab: AuthorizerLab) -> Planted:
    config = admin_config(lab)
    created = subprocess.run([sys.executable, "-m", "kafkatop.tui.cli", "create-topic", TOPIC, "--partitions", "1",
                              "--replication-factor", "1", *lab.flags], capture_output=True, text=True, timeout=120,
                             check=False)  # fmt: skip
    assert created.returncode == 0, created.stderr
    producer = Producer(config)
    for name in (*GROUPS[:-1], CONNECTOR):
        producer.produce(TOPIC, value=name.encode(), key=name.encode(), headers=[(name, name.encode())])
    assert producer.flush(60) == 0
    for group in GROUPS:
        consumer = Consumer({**config, "group.id": group})
        consumer.commit(offsets=[KafkaTopicPartition(TOPIC, 0, 1)], asynchronous=False)
        consumer.close()
    open_tx = Producer({**config, "transactional.id": TRANSACTIONAL_ID, "transaction.timeout.ms": "300000"})
    open_tx.init_transactions(60)
    open_tx.begin_transaction()
    open_tx.produce(TOPIC, value=b"in a transaction")
    assert open_tx.flush(60) == 0
    for principal in PRINCIPALS:
        added = lab.kafka_acls("--add", "--allow-principal", principal, "--operation", "Read", "--topic", TOPIC)
        assert added.returncode == 0, added.stderr
    assert lab.snapshot.connect_admin_properties is not None
    auth = connect_auth(read_client_properties(str(lab.snapshot.connect_admin_properties)), "connect-admin")
    workers = ConnectClient(lab.snapshot.connect_urls, user_info=auth.user_info, ssl_context=auth.ssl_context)
    workers.create(CONNECTOR, {"connector.class": "FileStreamSink", "topics": TOPIC, "file": "/dev/null"})
    workers.close()
    return Planted(open_tx)


def test_the_commands_escape_at_a_terminal_and_keep_bytes_to_a_pipe(lab: AuthorizerLab, tmp_path: Path) -> None:
    code, listed = kafkatop(lab, "groups", "--list", at_a_terminal=True, cwd=tmp_path)
    assert code == 0, listed
    assert raw_controls(listed) == []
    assert all(seen(g) in listed for g in GROUPS), listed
    code, piped = kafkatop(lab, "groups", "--list", at_a_terminal=False, cwd=tmp_path)
    assert code == 0 and all(g in piped for g in GROUPS), piped  # as kafka-consumer-groups.sh --list: as they are
    code, described = kafkatop(lab, "groups", "--describe", "--group", NAMES["title"], at_a_terminal=True, cwd=tmp_path)
    assert code == 0 and raw_controls(described) == [] and seen(NAMES["title"]) in described, described
    code, transactions = kafkatop(lab, "transactions", "list", at_a_terminal=True, cwd=tmp_path)
    assert code == 0 and TRANSACTIONAL_ID in transactions, transactions
    code, acls = kafkatop(lab, "acls", "--list", at_a_terminal=True, cwd=tmp_path)
    assert code == 0 and raw_controls(acls) == [] and seen(PRINCIPALS[1]) in acls, acls
    code, records = kafkatop(lab, "consume", "--topic", TOPIC, at_a_terminal=True, cwd=tmp_path)
    assert code == 0 and raw_controls(records) == [] and seen(NAMES["clear"]) in records, records
    code, connectors = kafkatop(lab, "connect", "list", at_a_terminal=True, cwd=tmp_path)
    assert code == 0 and CONNECTOR in connectors, connectors


def live_view(lab: AuthorizerLab, stack: ExitStack) -> KafkatopApp:
    """The live view as `kafkatop --name … --state-dir …` composes it, headless (Textual's pilot is the terminal)."""
    args: argparse.Namespace = parse([*lab.flags, "--interval", "1", "--timeout", "5"])
    from kafkatop.tui.cli.contexts import apply_context

    apply_context(args)
    return compose_app(args, stack, terminal=False)


async def drive(app: KafkatopApp) -> list[str]:
    """Groups `x` and `X` on every hostile group, `i`, Connect `D`, ACLs `V`: each dialog's text, once drawn."""
    seen_texts: list[str] = []

    async def check(pilot: Any) -> None:
        await pilot.pause()
        assert raw_controls(terminal_output(app)) == []
        seen_texts.append(screen_text(app))

    async with app.run_test(size=(160, 45)) as pilot:
        await pilot_until(pilot, lambda: app.snapshot is not None and len(app.snapshot.groups) >= len(GROUPS),
                          "the hostile groups polled", timeout_s=60)  # fmt: skip
        await pilot.press("5")
        table = app.query_one(GroupsPane).query_one("#groups", LineTable)
        await pilot_until(pilot, lambda: table.row_count >= len(GROUPS), "the groups listed")
        for group in GROUPS:  # not the Connect sink's group, which may have no offsets yet (X then says so)
            table.move_to(group)
            for key in ("x", "X"):
                await pilot.press(key)
                await pilot_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), f"{key} asks first")
                await check(pilot)
                await pilot.press("n")
        await pilot.press("i")
        await pilot_until(pilot, lambda: isinstance(app.screen, TransactionsScreen), "i")
        await pilot_until(pilot, lambda: printable(TRANSACTIONAL_ID) in screen_text(app), "the open transaction",
                          timeout_s=30)  # fmt: skip
        await check(pilot)
        await pilot.press("escape", "N")
        await pilot_until(pilot, lambda: app.query_one(TabbedContent).active == "tab-connect", "N")
        await pilot_until(pilot, lambda: CONNECTOR in screen_text(app), "the connector", timeout_s=30)
        await pilot.press("D")
        await pilot_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "D asks first")
        await check(pilot)
        await pilot.press("n", "W")
        await pilot_until(pilot, lambda: seen(PRINCIPALS[1]) in screen_text(app), "the ACLs", timeout_s=30)
        for _ in range(4):
            await pilot.press("V")
            await pilot_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "V asks first")
            await check(pilot)
            await pilot.press("n", "j")
        assert app.is_running
        await pilot.press("q")
    return seen_texts


def test_the_live_view_survives_every_dialog_on_hostile_names(lab: AuthorizerLab) -> None:
    with ExitStack() as stack:
        texts = asyncio.run(drive(live_view(lab, stack)))
    shown = "\n".join(texts)
    for name in (*GROUPS[:-1], TRANSACTIONAL_ID, CONNECTOR):
        assert seen(name) in shown, name
    assert seen(NAMES["long"])[:60] in shown  # a 10 KB name: its start, in the dialog's title


def run_line(line: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """A `kafkatop …` line as a user pastes it into a shell."""
    words = shlex.split(line)
    assert words[0] == "kafkatop", line
    return subprocess.run([sys.executable, "-m", "kafkatop.tui.cli", *words[1:]], cwd=cwd, capture_output=True,
                          text=True, timeout=120, check=False)  # fmt: skip


def test_the_printed_grant_works_as_printed_and_never_grants_a_wildcard(lab: AuthorizerLab, tmp_path: Path) -> None:
    """As `client`, given the lab's address and its client.properties (as `kafkatop status` prints them): refused,
    with a line naming the lab's admin.properties — which, run as printed, grants it. A topic named `*` is refused
    with no line that grants `*` by itself."""
    client = ["--bootstrap-server", lab.bootstrap, "--command-config", str(lab.client_properties)]
    described = run_line(f"kafkatop groups --describe --group {shlex.quote(GROUPS[0])} {shlex.join(client)}", tmp_path)
    assert described.returncode == 1, described.stderr
    assert "GROUP_AUTHORIZATION_FAILED: User:client may not Describe on Group:[/]" in described.stderr
    line = described.stderr.split("grant it: ", 1)[1].strip()
    assert f"--command-config {lab.admin_properties}" in line and str(lab.client_properties) not in line, line
    granted = run_line(line, tmp_path)
    assert granted.returncode == 0, granted.stderr
    again = run_line(f"kafkatop groups --describe --group {shlex.quote(GROUPS[0])} {shlex.join(client)}", tmp_path)
    assert "GROUP_AUTHORIZATION_FAILED" not in again.stderr, again.stderr
    produce = [sys.executable, "-m", "kafkatop.tui.cli", "produce", "--topic", "*", *client]
    wild = subprocess.run(produce, input="x\n", cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert wild.returncode != 0
    assert "grant it:" not in wild.stderr and "Topic:* is Kafka's wildcard" in wild.stderr, wild.stderr
    listed = lab.kafka_acls("--list", "--topic", "*")
    assert "User:client" not in listed.stdout, listed.stdout  # nothing granted on every topic
