"""An OAuth lab on a real Apache Kafka 4.1 (`kafkatop up --security sasl_oauthbearer --authorizer`): its issuer a node
started first, its brokers validating tokens with Kafka's OAuthBearerValidatorCallbackHandler and logging in to each
other with tokens of their own. kafkatop's describe, groups --list, acls --add/--list, produce and consume work with the
lab's files, and so do kafka-topics.sh and the console producer and consumer with the same files (and the KAFKA_OPTS
`up` prints); describe says what kafka-topics.sh --describe says, line for line. A wrong client secret is one line
naming the issuer's refusal; acls refused to client names User:client (its token's sub); with the issuer stopped a new
login is one line naming the unreachable endpoint and the node to start, a broker
is not restarted (it could not start again), and the sessions already open go on; `down` stops the issuer last.

Set KAFKA_HOME to run. One broker, one controller and the issuer on free loopback ports; every process is stopped at
the end, by recorded pid if a clean stop fails."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from kafkatop.backends.protocol import oidc
from kafkatop.tui.cli.main import main
from tests.integration.authorizer_lab import AuthorizerLab, authorizer_lab
from tests.integration.test_acls_kafka import blocks

pytestmark = pytest.mark.kafka


@pytest.fixture(scope="module")
def lab(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AuthorizerLab]:
    with authorizer_lab(tmp_path_factory.mktemp("oauth"), kafka_home, name="oauth",
                        security="sasl_oauthbearer") as lab:  # fmt: skip
        yield lab


def _alive(pid: int) -> bool:
    """Running: the fixture's cluster started the nodes, so one `down` stopped is this process's zombie until reaped."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _pids(lab: AuthorizerLab) -> dict[str, int]:
    return {n.name: n.pid for n in lab.snapshot.nodes if n.pid is not None}


def test_the_issuer_is_a_node_and_the_lab_s_files_name_it(lab: AuthorizerLab) -> None:
    assert [(n.name, n.node.role.value) for n in lab.snapshot.nodes][0] == ("issuer", "oidc-issuer")
    assert lab.snapshot.issuer_url is not None
    assert f"sasl.oauthbearer.token.endpoint.url={lab.snapshot.issuer_url}/token" in lab.client_properties.read_text()


def test_kafkatop_and_kafka_s_tools_with_the_lab_s_files(
    lab: AuthorizerLab, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["create-topic", "orders", "--partitions", "2", "--replication-factor", "1", *lab.flags]) == 0
    assert main(["acls", "--add", "--allow-principal", "User:client", "--operation", "All", "--topic", "orders",
                 "--group", "g", *lab.flags]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["acls", "--list", *lab.flags]) == 0
    listed = capsys.readouterr().out
    assert "principal=User:client, host=*, operation=ALL, permissionType=ALLOW" in listed
    assert blocks(listed) == blocks(lab.kafka_acls("--list").stdout)  # the tool's block order is a HashMap's
    # as user client, with no ACL on the cluster: the refusal names the OIDC client, the token's sub
    assert main(["acls", "--list", "--bootstrap-server", lab.bootstrap, "--command-config",
                 str(lab.client_properties)]) == 1  # fmt: skip
    assert capsys.readouterr().err.startswith("kafkatop: User:client may not Describe the Cluster")
    # kafka-topics.sh and kafkatop describe, with admin.properties: the same lines
    assert main(["describe", *lab.flags]) == 0
    ours = capsys.readouterr().out
    theirs = lab.tool("kafka-topics", "--bootstrap-server", lab.bootstrap, "--command-config",
                      str(lab.admin_properties), "--describe", "--exclude-internal")  # fmt: skip
    assert theirs.returncode == 0, theirs.stderr
    assert ours.splitlines() == theirs.stdout.splitlines() and "Topic: orders\t" in ours
    # user client: Kafka's console producer, then kafkatop's, then both consumers
    client = ("--bootstrap-server", lab.bootstrap, "--command-config", str(lab.client_properties))
    sent = lab.produce(lab.client_properties, "orders", "from-kafka")
    assert sent.returncode == 0, sent.stderr
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"from-kafkatop\n")))
    assert main(["produce", "--topic", "orders", *client]) == 0
    capsys.readouterr()
    assert main(["consume", "--topic", "orders", "--from-beginning", "--max-messages", "2", *client]) == 0
    assert sorted(capsys.readouterr().out.split()) == ["from-kafka", "from-kafkatop"]
    read = lab.tool("kafka-console-consumer", "--bootstrap-server", lab.bootstrap, "--consumer.config",
                    str(lab.client_properties), "--topic", "orders", "--group", "g", "--from-beginning",
                    "--max-messages", "2", "--timeout-ms", "30000")  # fmt: skip
    assert sorted(read.stdout.split()) == ["from-kafka", "from-kafkatop"], read.stderr
    assert main(["groups", "--list", *lab.flags]) == 0
    assert "g " in capsys.readouterr().out


def test_a_wrong_client_secret_is_one_line_naming_the_issuer_s_refusal(
    lab: AuthorizerLab, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = lab.client_properties.read_text()
    secret = next(line for line in text.splitlines() if line.startswith("sasl.oauthbearer.client.credentials.client.s"))
    wrong = tmp_path / "wrong.properties"
    wrong.write_text(text.replace(secret, secret.split("=")[0] + "=not-the-secret"))
    wrong.chmod(0o600)
    capsys.readouterr()
    assert main(["describe", "--bootstrap-server", lab.bootstrap, "--command-config", str(wrong)]) == 1
    out, err = capsys.readouterr()
    assert (
        err.splitlines()
        == [
            f"kafkatop: --command-config {wrong}: OAUTHBEARER: the token endpoint {lab.snapshot.issuer_url}/token "
            "(client 'client') refused: 401 invalid_client: unknown client or wrong secret"
        ]
        and not out
    )


def test_without_the_issuer_no_new_login_and_no_broker_restart(
    lab: AuthorizerLab, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    broker = _pids(lab)["broker-1"]
    monkeypatch.setattr(oidc, "_cache", {})  # as a new process: no token kept from the tests before
    assert main(["stop", "issuer", *lab.flags]) == 0
    try:
        capsys.readouterr()
        assert main(["describe", *lab.flags]) == 1
        out, err = capsys.readouterr()
        assert len(err.splitlines()) == 1 and f"{lab.snapshot.issuer_url}/token" in err and not out, err
        assert err.rstrip().endswith("did not answer: [Errno 111] Connection refused; the lab's issuer is not "
                                     "running: `kafkatop start issuer`"), err  # fmt: skip
        assert main(["restart", "broker-1", *lab.flags]) != 0
        err = capsys.readouterr().err
        assert "broker-1 logs in with a token from the lab's OIDC issuer, which is not running" in err, err
        assert _alive(broker)  # refused before it was stopped
    finally:
        assert main(["start", "issuer", *lab.flags]) == 0
    capsys.readouterr()
    assert main(["describe", *lab.flags]) == 0


def test_down_stops_every_node_the_issuer_last(lab: AuthorizerLab, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["status", "--json", *lab.flags]) == 0
    running = {n["node"]: n["pid"] for n in json.loads(capsys.readouterr().out)["nodes"] if n["pid"]}
    assert set(running) == {"issuer", "broker-1", "controller-101"}
    assert main(["down", *lab.flags]) == 0
    assert not [name for name, pid in running.items() if _alive(pid)]
    log = Path(lab.snapshot.state_dir) / "logs" / "issuer.log"
    assert log.read_text().rstrip().endswith("stopped")  # SIGTERM: a clean stop
