"""A lab with an authorizer against a real Apache Kafka 4.1 (`up --security sasl_ssl --authorizer`): Kafka's console
producer as `client` is refused (no ACL, no access), as `admin` (a super user) it writes; kafka-acls.sh --add
--producer then lets the client write, and --list shows what was added. kafkatop's own commands on the lab are admin.

Set KAFKA_HOME to run it. One broker and one controller on free ports, heap 256m, state in pytest's tmp
dir, shared by the module; every node is stopped at the end, by recorded pid if need be.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, TopicPartition

from kafkatop.backends.kraft.quorum import QuorumSource
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.tui.cli.common import client_settings
from kafkatop.tui.cli.main import main
from kafkatop.tui.cli.parser import build_parser
from tests.integration.authorizer_lab import AuthorizerLab, authorizer_lab

pytestmark = pytest.mark.kafka

TOPIC = "t"


@pytest.fixture(scope="module")
def lab(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AuthorizerLab]:
    with authorizer_lab(tmp_path_factory.mktemp("authorizer"), kafka_home) as lab:
        yield lab


def kafkatop_settings(lab: AuthorizerLab) -> dict[str, str]:
    """What kafkatop's commands use on the lab, named by --name/--state-dir alone."""
    return client_settings(build_parser().parse_args(["describe", *lab.flags]))


def written(lab: AuthorizerLab) -> int:
    """Records in partition 0 of TOPIC (its high watermark), read with kafkatop's own settings for the lab."""
    connection = KafkaConnection.parse(lab.bootstrap, kafkatop_settings(lab))
    consumer = Consumer({**connection.config("authorizer-test"), "group.id": "authorizer-test"})
    try:
        return int(consumer.get_watermark_offsets(TopicPartition(TOPIC, 0), timeout=30)[1])
    finally:
        consumer.close()


def test_the_lab_says_which_user_each_file_is(lab: AuthorizerLab, capsys: pytest.CaptureFixture[str]) -> None:
    snap = lab.snapshot
    assert snap.authorizer and snap.security == "sasl_ssl"
    for path, user in ((lab.client_properties, "client"), (lab.admin_properties, "admin")):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert f'username="{user}"' in path.read_text()
    assert kafkatop_settings(lab)["sasl.username"] == "admin"
    # The live view's quorum pane, as admin: DescribeQuorum forwarded to the controller, which lets admin describe.
    quorum = QuorumSource(KafkaConnection.parse(lab.bootstrap, kafkatop_settings(lab)), timeout_s=20).poll()
    assert quorum.leader_id == 101
    assert main(["status", *lab.flags, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["authorizer"], doc["admin_properties"]) == (True, str(lab.admin_properties))
    assert main(["status", *lab.flags]) == 0
    text = capsys.readouterr().out
    assert f"client settings {lab.client_properties} (user client)" in text
    assert f"admin: {lab.admin_properties} (user admin, a super user)" in text
    assert "authorizer StandardAuthorizer" in text


def test_client_is_refused_until_an_acl_lets_it_produce(lab: AuthorizerLab, capsys: pytest.CaptureFixture[str]) -> None:
    refused = lab.produce(lab.client_properties, TOPIC, "from client, refused")
    assert "TopicAuthorizationException: Not authorized to access topics: [t]" in refused.stderr + refused.stdout

    allowed = lab.produce(lab.admin_properties, TOPIC, "from admin")
    assert allowed.returncode == 0 and "ERROR" not in allowed.stderr + allowed.stdout, allowed.stderr
    assert written(lab) == 1
    code = main(["describe", "--topic", TOPIC, *lab.flags])  # kafkatop by the lab's name alone: admin
    assert code == 0 and "\tTopic: t\tPartition: 0\tLeader: 1\t" in capsys.readouterr().out

    added = lab.kafka_acls("--add", "--allow-principal", "User:client", "--producer", "--topic", TOPIC)
    assert added.returncode == 0, added.stderr
    listed = lab.kafka_acls("--list")
    assert listed.returncode == 0, listed.stderr
    assert "Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=t, patternType=LITERAL)`:" in (
        listed.stdout
    )
    for operation in ("WRITE", "DESCRIBE", "CREATE"):
        assert f"(principal=User:client, host=*, operation={operation}, permissionType=ALLOW)" in listed.stdout

    now = lab.produce(lab.client_properties, TOPIC, "from client, allowed")
    assert now.returncode == 0 and "ERROR" not in now.stderr + now.stdout, now.stderr
    assert written(lab) == 2
