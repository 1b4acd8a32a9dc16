"""Authorization errors that say what to grant, against a real Apache Kafka 4.1 with StandardAuthorizer (a lab of
`up --security sasl_ssl --authorizer`): as the lab's `client`, kafkatop's producer console (the Consoles adapter) is
refused sending to t, and the refusal names `User:client may not Write on Topic:t` and the `kafkatop acls --add …`
line; that line, run as pasted (it carries the lab's admin.properties), lets the same send through. A delivery
refused after the topic became visible says the same; `kafkatop describe` and `kafkatop configs` as client print
their refusal's line on stderr, exit 1, and pasting it lets them read. A client with Read on a topic only reads it
(`consume`: no group joined); `describe` names configs it may not read, with the line; a refused DescribeQuorum is
not asked again for a minute, and Metadata's controller id is not taken for KRaft's controller.

Set KAFKA_HOME to run it. One broker and one controller on free ports, heap 256m, state in pytest's tmp
dir, shared by the module; every node is stopped at the end, by recorded pid if need be.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from kafkatop.backends.insight.grants import Refused
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.records.browser import MessageBrowser
from kafkatop.backends.kafka.records.consoles import Consoles
from kafkatop.backends.kraft.quorum import QuorumSource
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.consoles import Delivery
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.backends.model.messages import BrowsedRecord, Seek, SeekKind
from kafkatop.tui.cli.common import client_settings
from kafkatop.tui.cli.grant_lines import error_line
from kafkatop.tui.cli.main import main
from kafkatop.tui.cli.parser import build_parser
from tests.integration.authorizer_lab import AuthorizerLab, authorizer_lab

pytestmark = pytest.mark.kafka

T = TypeVar("T")
WRITE_LINE = "kafkatop acls --add --allow-principal User:client --operation Write --topic t"


@pytest.fixture(scope="module")
def lab(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AuthorizerLab]:
    with authorizer_lab(tmp_path_factory.mktemp("grants"), kafka_home, name="grants") as lab:
        for topic in ("t", "t2"):
            assert main(["create-topic", *lab.flags, topic, "--partitions", "1", "--replication-factor", "1"]) == 0
        yield lab


def as_client(lab: AuthorizerLab, *words: str) -> list[str]:
    """A command line of kafkatop's on the lab, as its `client` user."""
    return [*words, *lab.flags, "--command-config", str(lab.client_properties)]


def client_connection(lab: AuthorizerLab) -> KafkaConnection:
    return KafkaConnection.parse(lab.bootstrap, client_settings(build_parser().parse_args(as_client(lab, "describe"))))


def delivered(consoles: Consoles, timeout_s: float = 30.0) -> Delivery:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        activity = consoles.drain()
        if activity is not None and activity.deliveries:
            return activity.deliveries[-1]
        time.sleep(0.1)
    raise AssertionError(f"no delivery report within {timeout_s:g} s")


def pasted(line: str) -> int:
    """The line, run as a user pastes it into a shell."""
    words = shlex.split(line)
    assert words[:2] == ["kafkatop", "acls"]
    return main(words[1:])


def test_the_producer_console_says_what_to_grant_and_the_line_lets_it_send(lab: AuthorizerLab) -> None:
    consoles = Consoles(client_connection(lab))
    try:
        # No ACL: t is in no listing of the client's, and asked for by name Kafka refuses it.
        with pytest.raises(Refused) as refused:
            consoles.send("t", "m1")
        text = str(refused.value)
        assert "TOPIC_AUTHORIZATION_FAILED: User:client may not Write on Topic:t — grant it: " + WRITE_LINE in text
        line = error_line(refused.value, build_parser().parse_args(as_client(lab, "describe")))
        assert line.endswith(f"{WRITE_LINE} {shlex.join(lab.flags)} --command-config {lab.admin_properties}")
        # The line, pasted: as admin (its admin.properties), the client may now write; the same send goes through.
        pasted_line = line.split(" — grant it: ")[1]
        assert pasted(pasted_line) == 0
        consoles.send("t", "m2")
        report = delivered(consoles)
        assert report.error is None and report.offset is not None and report.grants == ()
    finally:
        consoles.close()


def test_a_refused_delivery_names_the_grant(lab: AuthorizerLab) -> None:
    # Describe only: t2 is listed, the send is queued, and the broker refuses the Produce itself.
    assert lab.kafka_acls("--add", "--allow-principal", "User:client", "--operation", "Describe", "--topic",
                          "t2").returncode == 0  # fmt: skip
    consoles = Consoles(client_connection(lab))
    try:
        deadline = time.monotonic() + 30
        while True:  # the new ACL reaches the broker's authorizer from the controller's metadata, soon after
            try:
                consoles.send("t2", "m1")
                break
            except Refused:
                assert time.monotonic() < deadline, "Describe on t2 never took effect"
                time.sleep(0.5)
        report = delivered(consoles)
        assert report.error == "TOPIC_AUTHORIZATION_FAILED: User:client may not Write on Topic:t2"
        (grant,) = report.grants
        assert grant.command_line() == WRITE_LINE + "2"
    finally:
        consoles.close()


def test_describe_and_configs_as_client_print_the_line(lab: AuthorizerLab, capsys: pytest.CaptureFixture[str]) -> None:
    flags = f"{shlex.join(lab.flags)} --command-config {lab.admin_properties}"
    capsys.readouterr()
    assert main(as_client(lab, "configs", "--broker", "1")) == 1
    said = capsys.readouterr().err
    assert "CLUSTER_AUTHORIZATION_FAILED: User:client may not DescribeConfigs on Cluster — grant it: " in said
    assert said.strip().endswith("--operation DescribeConfigs --cluster " + flags)

    assert main(as_client(lab, "describe", "--topic", "t")) == 0  # Write (the first test's) implies Describe
    capsys.readouterr()
    assert main(as_client(lab, "configs", "--topic", "t")) == 1
    said = capsys.readouterr().err
    line = "kafkatop acls --add --allow-principal User:client --operation DescribeConfigs --topic t " + flags
    assert f"cannot read the configs of topic t: TOPIC_AUTHORIZATION_FAILED: User:client may not DescribeConfigs on " \
           f"Topic:t — grant it: {line}" in said  # fmt: skip
    assert pasted(line) == 0
    assert main(as_client(lab, "configs", "--topic", "t")) == 0

    capsys.readouterr()
    assert main(as_client(lab, "describe", "--topic", "hidden")) == 1  # no such topic: Kafka says refused all the same
    said = capsys.readouterr().err
    assert "Cannot describe topic 'hidden': TOPIC_AUTHORIZATION_FAILED: User:client may not Describe on " in said
    assert said.strip().endswith("--operation Describe --topic hidden " + flags)


def until_granted(attempt: Callable[[], T], timeout_s: float = 30.0) -> T:
    """`attempt()`, again while it is refused: an ACL reaches the broker's authorizer from the controller soon after."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return attempt()
        except Refused:
            assert time.monotonic() < deadline, f"the ACL never took effect within {timeout_s:g} s"
            time.sleep(0.5)


def test_consume_with_read_on_the_topic_only_reads_without_a_group(
    lab: AuthorizerLab, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["create-topic", *lab.flags, "secret", "--partitions", "1", "--replication-factor", "1"]) == 0
    assert lab.produce(lab.admin_properties, "secret", "a", "b").returncode == 0
    assert lab.kafka_acls("--add", "--allow-principal", "User:client", "--operation", "Read", "--topic",
                          "secret").returncode == 0  # fmt: skip
    # The browser's consumer has a group.id librdkafka looks up (GROUP_AUTHORIZATION_FAILED here) but never joins.
    browser = MessageBrowser(client_connection(lab), timeout_s=10)
    read: list[BrowsedRecord] = []
    try:
        assert until_granted(lambda: browser.read("secret", None, Seek(SeekKind.BEGINNING), read.append)) == 2
    finally:
        browser.close()
    assert [r.value for r in read] == [b"a", b"b"]
    capsys.readouterr()
    assert main(as_client(lab, "consume", "--topic", "secret")) == 0
    assert capsys.readouterr().out.split() == ["a", "b"]
    # A group's own request refused (FindCoordinator, for OffsetDelete) names the group and what to grant.
    assert main(as_client(lab, "groups", "--delete-offsets", "--group", "g", "--topic", "secret")) == 1
    said = capsys.readouterr().err
    assert "GROUP_AUTHORIZATION_FAILED: User:client may not Delete on Group:g — grant it: " in said
    assert "--operation Delete --group g" in said


def test_describe_as_client_names_the_refused_configs_and_goes_on(
    lab: AuthorizerLab, capsys: pytest.CaptureFixture[str]
) -> None:
    assert lab.kafka_acls("--add", "--allow-principal", "User:client", "--operation", "Describe", "--topic",
                          "t4").returncode == 0  # fmt: skip
    assert main(["create-topic", *lab.flags, "t4", "--partitions", "1", "--replication-factor", "1"]) == 0
    capsys.readouterr()
    deadline = time.monotonic() + 30
    while main(as_client(lab, "describe", "--topic", "t4")) != 0:
        assert time.monotonic() < deadline, "Describe on t4 never took effect"
        time.sleep(0.5)
    out, err = capsys.readouterr()
    assert out.startswith("Topic: t4\tTopicId: ")  # the rest is printed
    flags = f"{shlex.join(lab.flags)} --command-config {lab.admin_properties}"
    line = "kafkatop acls --add --allow-principal User:client --operation DescribeConfigs --topic t4 " + flags
    assert f"kafkatop: note: the configs of t4 were not read: TOPIC_AUTHORIZATION_FAILED: User:client may not " \
           f"DescribeConfigs on Topic:t4 — grant it: {line}" in err  # fmt: skip
    assert "--timeout" not in err


def test_a_refused_quorum_is_asked_again_rarely_and_no_controller_is_made_up(lab: AuthorizerLab) -> None:
    connection = client_connection(lab)
    quorum = QuorumSource(connection, timeout_s=5)
    with pytest.raises(SourceUnavailable) as first:
        quorum.poll()
    assert "CLUSTER_AUTHORIZATION_FAILED: User:client may not Describe on Cluster — grant it: " in str(first.value)
    assert "--operation Describe --cluster" in str(first.value)
    log = Path(lab.flags[3]) / "grants" / "logs" / "controller-101" / "server.log"
    refusals = log.read_text().count("DESCRIBE_QUORUM")
    for _ in range(5):  # within REFUSED_AGAIN_S: the same refusal, nothing sent
        with pytest.raises(SourceUnavailable) as again:
            quorum.poll()
        assert again.value is first.value
    assert log.read_text().count("DESCRIBE_QUORUM") == refusals
    # The broker's configs are refused too (mode unknown from them): Metadata's controller id is a random broker in
    # KRaft, not the controller; the finalized metadata.version says KRaft, and the controller is left unknown.
    source = AdminSource(connection, timeout_s=10)
    try:
        snapshot = source.poll()
    finally:
        source.close()
    assert (snapshot.mode, snapshot.controller_id) == ("kraft", None)
