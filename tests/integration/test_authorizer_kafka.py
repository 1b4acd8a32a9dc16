"""A lab with an authorizer against a real Apache Kafka 4.1 (`up --security sasl_ssl --authorizer`): Kafka's console
producer as `client` is refused (no ACL, no access), as `admin` (a super user) it writes; kafka-acls.sh --add
--producer then lets the client write, and --list shows what was added. kafkatop's own commands on the lab are admin.
Its doors are locked: the controller's listener refuses a process with no password (kafka-acls.sh
--bootstrap-controller, kafkatop's own DescribeQuorum) or a wrong one, and serves controller-admin.properties; the
Connect worker's REST API answers 401 without admin's credentials (connect.netrc), 200 with them.

Set KAFKA_HOME to run it. One broker, one controller and one Connect worker on free ports, heap 256m, state in
pytest's tmp dir, shared by the module; every node is stopped at the end, by recorded pid if need be.
"""

from __future__ import annotations

import base64
import json
import netrc
import re
import stat
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, TopicPartition

from kafkatop.backends.kraft.quorum import QuorumSource
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.tui.cli.common import client_settings
from kafkatop.tui.cli.main import main
from kafkatop.tui.cli.parser import build_parser
from tests.integration.authorizer_lab import AuthorizerLab, authorizer_lab

pytestmark = pytest.mark.kafka

TOPIC = "t"
NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


@pytest.fixture(scope="module")
def lab(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AuthorizerLab]:
    with authorizer_lab(tmp_path_factory.mktemp("authorizer"), kafka_home, connect=1) as lab:
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
    for path in (lab.controller_admin_properties, snap.connect_admin_properties, snap.connect_netrc):
        assert path is not None and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert kafkatop_settings(lab)["sasl.username"] == "admin"
    # The live view's quorum pane, as admin: DescribeQuorum forwarded to the controller, which lets admin describe.
    quorum = QuorumSource(KafkaConnection.parse(lab.bootstrap, kafkatop_settings(lab)), timeout_s=20).poll()
    assert quorum.leader_id == 101
    assert main(["status", *lab.flags, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["authorizer"], doc["admin_properties"]) == (True, str(lab.admin_properties))
    assert doc["controller_admin_properties"] == str(lab.controller_admin_properties)
    assert (doc["connect_admin_properties"], doc["connect_netrc"]) == (str(snap.connect_admin_properties),
                                                                      str(snap.connect_netrc))  # fmt: skip
    assert main(["status", *lab.flags]) == 0
    text = capsys.readouterr().out
    assert f"client settings {lab.client_properties} (user client)" in text
    assert f"admin: {lab.admin_properties} (user admin, a super user)" in text
    assert "authorizer StandardAuthorizer" in text
    assert "controllers SASL_PLAINTEXT (PLAIN, user admin) on 127.0.0.1" in text
    assert f"controllers: {lab.controller_admin_properties} (user admin, for --bootstrap-controller)" in text
    assert f"curl --netrc-file {snap.connect_netrc} {snap.connect_urls[0]}/connectors" in text
    assert "note:" not in text  # no door left open


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


def controller_settings(lab: AuthorizerLab, properties: Path) -> dict[str, str]:
    """kafkatop's settings from a file, for the controller's listener."""
    return client_settings(
        build_parser().parse_args(
            ["describe", "--bootstrap-server", lab.controller, "--command-config", str(properties)]
        )
    )


def test_the_controller_refuses_a_process_without_the_admin_password(lab: AuthorizerLab, tmp_path: Path) -> None:
    """The issue's `kafka-acls.sh --bootstrap-controller … --add --allow-principal User:eve --operation All --topic
    '*'`, with no credentials: the controller closes each connection that asks before it authenticates (its log says
    so), so the tool gives up (in seconds: small timeouts) and eve gets nothing. A wrong password is refused as such;
    controller-admin.properties adds and lists ACLs there, and kafkatop's own DescribeQuorum reads the quorum."""
    fast = "request.timeout.ms=3000\ndefault.api.timeout.ms=6000\n"
    unauthenticated = tmp_path / "none.properties"
    unauthenticated.write_text(fast)
    eve = ("--add", "--allow-principal", "User:eve", "--operation", "All", "--topic", "*")
    refused = lab.tool("kafka-acls", "--bootstrap-controller", lab.controller, "--command-config", str(unauthenticated),
                       *eve)  # fmt: skip
    assert refused.returncode != 0
    assert (
        "TimeoutException: Timed out waiting for a node assignment. Call: createAcls" in refused.stdout + refused.stderr
    )
    log = (lab.snapshot.state_dir / "logs" / "controller-101" / "server.log").read_text()
    assert "Unexpected Kafka request of type DESCRIBE_CLUSTER during SASL handshake" in log
    with pytest.raises(SourceUnavailable) as no_password:  # kafkatop's own client, no SASL: closed on the spot
        QuorumSource(KafkaConnection.parse(lab.controller, {}), timeout_s=10).poll()
    assert f"{lab.controller}: connection closed by the node (a TLS or SASL listener?" in str(no_password.value)

    text = lab.controller_admin_properties.read_text()
    wrong = tmp_path / "wrong.properties"
    wrong.write_text(re.sub(r'password="[^"]*"', 'password="not-it"', text) + fast)
    said = lab.tool("kafka-acls", "--bootstrap-controller", lab.controller, "--command-config", str(wrong), *eve)
    assert said.returncode != 0
    assert (
        "SaslAuthenticationException: Authentication failed: Invalid username or password" in said.stdout + said.stderr
    )
    with pytest.raises(SourceUnavailable) as wrong_password:
        QuorumSource(KafkaConnection.parse(lab.controller, controller_settings(lab, wrong)), timeout_s=10).poll()
    assert "SASL PLAIN authentication failed (SASL_AUTHENTICATION_FAILED)" in str(wrong_password.value)
    assert "User:eve" not in lab.kafka_acls("--list").stdout  # nothing of eve's got in

    admin = ("--bootstrap-controller", lab.controller, "--command-config", str(lab.controller_admin_properties))
    added = lab.tool("kafka-acls", *admin, "--add", "--allow-principal", "User:client", "--operation", "Describe",
                     "--topic", "by-controller")  # fmt: skip
    assert added.returncode == 0, added.stderr
    for listed in (lab.tool("kafka-acls", *admin, "--list"), lab.kafka_acls("--list")):  # the controller, the broker
        assert listed.returncode == 0, listed.stderr
        assert "ResourcePattern(resourceType=TOPIC, name=by-controller, patternType=LITERAL)" in listed.stdout
    quorum = QuorumSource(
        KafkaConnection.parse(lab.controller, controller_settings(lab, lab.controller_admin_properties)), timeout_s=20
    ).poll()
    assert (quorum.leader_id, quorum.via) == (101, "controller")


def rest(url: str, user_info: str | None = None, body: dict[str, object] | None = None) -> tuple[int, bytes]:
    """A request to a Connect worker: its status and body (an error's too)."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data, {"Content-Type": "application/json"})
    if user_info is not None:
        request.add_header("Authorization", "Basic " + base64.b64encode(user_info.encode()).decode())
    try:
        with NO_PROXY.open(request, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def test_the_connect_workers_rest_api_asks_for_admin(lab: AuthorizerLab, capsys: pytest.CaptureFixture[str]) -> None:
    """No credentials, 401 (the issue's FileStreamSource on the lab's passwords is never made); connect.netrc's (what
    curl --netrc-file reads), 200; kafkatop's own commands use connect-admin.properties by themselves."""
    snap = lab.snapshot
    (url,) = snap.connect_urls
    assert snap.connect_netrc is not None
    login, _, password = netrc.netrc(snap.connect_netrc).authenticators("127.0.0.1") or ("", "", "")
    assert login == "admin" and password
    secrets = str(snap.state_dir / "security" / "passwords.properties")
    steal = {"name": "steal", "config": {"connector.class": "FileStreamSource", "topic": "loot", "file": secrets}}
    for path, body in (("/", None), ("/connectors", None), ("/connectors", steal)):
        status, said = rest(f"{url}{path}", body=body)
        assert (status, said) == (401, b"User cannot access the resource."), path
        assert rest(f"{url}{path}", f"admin:{password}x", body)[0] == 401  # a wrong password too
    status, said = rest(f"{url}/", f"{login}:{password}")
    assert status == 200 and json.loads(said)["kafka_cluster_id"] == snap.cluster_id
    assert rest(f"{url}/connectors", f"{login}:{password}") == (200, b"[]")  # steal was never made
    assert main(["connect", "plugins", *lab.flags]) == 0
    assert "org.apache.kafka.connect.file.FileStreamSourceConnector" in capsys.readouterr().out
