"""SASL/OAUTHBEARER against a real Apache Kafka 4.1 broker that validates tokens with its own
OAuthBearerValidatorCallbackHandler (jose4j) against the labs' stand-in OIDC issuer (backends/lab/oidc_issuer.py, on
loopback): one client.properties, as Kafka's clients take it, serves kafka-topics.sh, the console producer and
consumer and kafkatop alike — `describe`, `groups --list`, `produce`/`consume` (librdkafka's oidc method) and
`metadata-quorum` (kafkatop's own SASL exchange, RFC 7628); a wrong client secret is one line naming the token
endpoint's refusal.

The broker is configured here by hand, as a user's own would be (one KRaft node, an OAUTHBEARER listener and a plain
one between its own roles); test_oauth_lab_kafka.py runs `kafkatop up --security sasl_oauthbearer`. Set KAFKA_HOME to
run; the broker is stopped by pid."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from kafkatop.backends.lab.oidc_issuer import serve, write_clients
from kafkatop.tui.cli.main import main
from tests.integration.test_supervisor import free_port_block

pytestmark = pytest.mark.kafka
MODULE = "org.apache.kafka.common.security.oauthbearer"


@dataclass(frozen=True)
class OAuthLab:
    bootstrap: str
    home: Path
    folder: Path
    env: dict[str, str]

    def properties(self, name: str, client: str, secret: str) -> Path:
        path = self.folder / name
        path.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n"
                        f"sasl.login.callback.handler.class={MODULE}.OAuthBearerLoginCallbackHandler\n"
                        f"sasl.oauthbearer.token.endpoint.url={self.env['ISSUER']}/token\n"
                        f"sasl.oauthbearer.client.credentials.client.id={client}\n"
                        f"sasl.oauthbearer.client.credentials.client.secret={secret}\nsasl.oauthbearer.scope=kafka\n"
                        f"sasl.jaas.config={MODULE}.OAuthBearerLoginModule required ;\n")  # fmt: skip
        path.chmod(0o600)
        return path

    def tool(self, script: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(self.home / "bin" / script), *args], input=stdin, capture_output=True, text=True,
                              env=self.env, timeout=90)  # fmt: skip


@pytest.fixture(scope="module")
def lab(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[OAuthLab, dict[str, str]]]:
    folder = tmp_path_factory.mktemp("oauth")
    secrets = write_clients(folder, ("admin", "client"))
    issuer = serve(0, folder)
    threading.Thread(target=issuer.serve_forever, daemon=True).start()
    url = issuer.issuer.url
    base = free_port_block(3)
    (folder / "server.properties").write_text(f"""process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:{base + 1}
listeners=SASL_PLAINTEXT://127.0.0.1:{base},CONTROLLER://127.0.0.1:{base + 1},INTERNAL://127.0.0.1:{base + 2}
advertised.listeners=SASL_PLAINTEXT://127.0.0.1:{base},INTERNAL://127.0.0.1:{base + 2}
listener.security.protocol.map=SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT,INTERNAL:PLAINTEXT
inter.broker.listener.name=INTERNAL
controller.listener.names=CONTROLLER
sasl.enabled.mechanisms=OAUTHBEARER
listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config={MODULE}.OAuthBearerLoginModule required ;
listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class={MODULE}.OAuthBearerValidatorCallbackHandler
sasl.oauthbearer.jwks.endpoint.url={url}/jwks
sasl.oauthbearer.expected.audience=kafka
sasl.oauthbearer.expected.issuer={url}
log.dirs={folder}/data
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
""")  # fmt: skip
    # Kafka 4 fetches only the URLs it is allowed to (a system property), the broker and its tools alike.
    env = {**os.environ, "KAFKA_OPTS": f"-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls={url}/jwks,{url}/token",
           "KAFKA_HEAP_OPTS": "-Xmx256m", "ISSUER": url, "LOG_DIR": str(folder / "logs")}  # fmt: skip
    oauth = OAuthLab(f"127.0.0.1:{base}", kafka_home, folder, env)
    cluster_id = oauth.tool("kafka-storage.sh", "random-uuid").stdout.strip()
    formatted = oauth.tool("kafka-storage.sh", "format", "-t", cluster_id, "-c", str(folder / "server.properties"))
    assert formatted.returncode == 0, formatted.stderr
    start = [str(kafka_home / "bin" / "kafka-server-start.sh"), str(folder / "server.properties")]
    broker = subprocess.Popen(start, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)  # fmt: skip
    try:
        admin = oauth.properties("admin.properties", "admin", secrets["admin"])
        deadline = time.monotonic() + 90
        while oauth.tool("kafka-topics.sh", "--bootstrap-server", oauth.bootstrap, "--command-config", str(admin),
                         "--list").returncode != 0:  # fmt: skip
            assert time.monotonic() < deadline and broker.poll() is None, "the OAUTHBEARER broker did not serve"
            time.sleep(1)
        yield oauth, secrets
    finally:
        os.killpg(broker.pid, signal.SIGKILL)
        broker.wait(10)
        issuer.shutdown()
        issuer.server_close()


def test_one_client_properties_for_kafka_s_tools_and_kafkatop(
    lab: tuple[OAuthLab, dict[str, str]], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    oauth, secrets = lab
    monkeypatch.setenv("KAFKA_OPTS", oauth.env["KAFKA_OPTS"])
    props = str(oauth.properties("client.properties", "admin", secrets["admin"]))
    given = ("--bootstrap-server", oauth.bootstrap, "--command-config", props)
    made = oauth.tool("kafka-topics.sh", *given, "--create", "--topic", "o", "--partitions", "2")
    assert made.returncode == 0, made.stderr
    sent = oauth.tool("kafka-console-producer.sh", "--bootstrap-server", oauth.bootstrap, "--producer.config", props,
                      "--topic", "o", stdin="from-kafka\n")  # fmt: skip
    assert sent.returncode == 0, sent.stderr
    capsys.readouterr()
    assert main(["describe", *given]) == 0
    assert "Topic: o\tTopicId:" in capsys.readouterr().out
    assert main(["metadata-quorum", *given, "describe", "--status"]) == 0  # kafkatop's own SASL OAUTHBEARER
    assert "LeaderId:               1" in capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"from-kafkatop\n")))
    assert main(["produce", "--topic", "o", *given]) == 0
    assert main(["groups", "--list", *given]) == 0
    capsys.readouterr()
    assert main(["consume", "--topic", "o", "--from-beginning", *given]) == 0
    assert sorted(capsys.readouterr().out.split()) == ["from-kafka", "from-kafkatop"]
    read = oauth.tool("kafka-console-consumer.sh", "--bootstrap-server", oauth.bootstrap, "--consumer.config", props,
                      "--topic", "o", "--from-beginning", "--timeout-ms", "8000")  # fmt: skip
    assert sorted(read.stdout.split()) == ["from-kafka", "from-kafkatop"], read.stderr


def test_a_wrong_secret_is_one_line_naming_the_endpoint_s_refusal(
    lab: tuple[OAuthLab, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    oauth, _ = lab
    props = str(oauth.properties("wrong.properties", "client", "not-the-secret"))
    assert main(["describe", "--bootstrap-server", oauth.bootstrap, "--command-config", props]) == 1
    out, err = capsys.readouterr()
    assert (
        err.splitlines()
        == [
            f"kafkatop: --command-config {props}: OAUTHBEARER: the token endpoint {oauth.env['ISSUER']}/token (client "
            "'client') refused: 401 invalid_client: unknown client or wrong secret"
        ]
        and not out
    )
