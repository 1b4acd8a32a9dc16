"""A recording holds no secret: the live view of a context with a secret in each place — a connector's config value
its plugin declares a PASSWORD, one whose key names a secret (`connection.password`), a --command-config whose JAAS
line holds a password, Connect's basic auth user info beside it, and a Schema Registry's basic auth — is recorded
with `--record` through the composition root and the real recording writer, and the whole file (decompressed) is
searched for each secret: none is there, while the connectors' other settings are.

Real components: the librdkafka mock cluster over real sockets, a scripted Connect worker that asks for basic auth
(tests/doubles/connect_worker.py: no real plugin declares a PASSWORD setting under a name that does not say so,
which is the case only the plugin's definitions catch; the real worker's: test_connect_secrets_kafka.py), and the
Schema Registry double asking for its own basic auth."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.tui.cli.compose import compose_app
from kafkatop.tui.cli.contexts import apply_context
from kafkatop.tui.cli.parser import build_parser
from tests.conftest import pilot_until
from tests.doubles.connect_worker import ScriptedWorker, plugin_configs, recorded
from tests.doubles.schema_registry import SchemaRegistryDouble

pytestmark = pytest.mark.timeout(120)

JAAS_PASSWORD = "jaas-Pw-7f3a9c"
CONNECT_PASSWORD = "connect-Pw-51be02"
REGISTRY_PASSWORD = "registry-Pw-c0ffee"
CONNECTION_PASSWORD = "conn-Pw-9d8e7f"  # connection.password: its name says it is a secret
DECLARED_SECRET = "declared-Pw-4a4a4a"  # upstream.login: only its plugin says it is a PASSWORD
SECRETS = (JAAS_PASSWORD, CONNECT_PASSWORD, REGISTRY_PASSWORD, CONNECTION_PASSWORD, DECLARED_SECRET)
SINK = "com.example.jdbc.JdbcSinkConnector"


def connectors() -> bytes:
    """`GET /connectors?expand=status&expand=info`: a sink whose config holds both connector secrets, one of them
    quoted by its failed task's trace, beside the recorded file connectors."""
    answer = json.loads(recorded("connectors_expanded.json"))
    config = {"connector.class": SINK, "name": "orders-to-db", "topics": "orders", "tasks.max": "1",
              "connection.url": "jdbc:postgresql://db:5432/shop", "connection.user": "shop",
              "connection.password": CONNECTION_PASSWORD, "upstream.login": DECLARED_SECRET,
              "upstream.password.file": "${file:/etc/kafka/secrets.properties:upstream}"}  # fmt: skip
    trace = f"java.sql.SQLException: login refused for {DECLARED_SECRET}\n\tat com.example.jdbc.Sink.start(Sink.java:1)"
    answer["orders-to-db"] = {
        "status": {"name": "orders-to-db", "type": "sink",
                   "connector": {"state": "RUNNING", "worker_id": "127.0.0.1:8083"},
                   "tasks": [{"id": 0, "state": "FAILED", "worker_id": "127.0.0.1:8083", "trace": trace}]},
        "info": {"name": "orders-to-db", "config": config, "tasks": [{"connector": "orders-to-db", "task": 0}],
                 "type": "sink"},
    }  # fmt: skip
    return json.dumps(answer).encode()


def definitions() -> bytes:
    """The sink plugin's config definitions: `upstream.login` is a PASSWORD."""
    return json.dumps([
        {"name": "connection.url", "type": "STRING"}, {"name": "connection.user", "type": "STRING"},
        {"name": "connection.password", "type": "PASSWORD"}, {"name": "upstream.login", "type": "PASSWORD"},
    ]).encode()  # fmt: skip


@pytest.fixture
def worker() -> Iterator[ScriptedWorker]:
    w = ScriptedWorker({("GET", "/"): [(200, recorded("root.json"))],
                        ("GET", "/connectors?expand=status&expand=info"): [(200, connectors())],
                        ("GET", f"/connector-plugins/{SINK}/config"): [(200, definitions())], **plugin_configs()},
                       user_info=f"connect:{CONNECT_PASSWORD}")  # fmt: skip
    yield w
    w.close()


def private(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o600)
    return path


async def test_a_recorded_session_holds_none_of_the_secrets(
    worker: ScriptedWorker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)
    client = private(tmp_path / "client.properties", (
        "security.protocol=PLAINTEXT\nsasl.mechanism=PLAIN\n"
        f'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" '
        f'password="{JAAS_PASSWORD}";\n'
        f"connect.basic.auth.user.info=connect:{CONNECT_PASSWORD}\n"
    ))  # fmt: skip
    registry_props = private(tmp_path / "registry.properties", f"basic.auth.user.info=reg:{REGISTRY_PASSWORD}\n")
    record = tmp_path / "session.jsonl.gz"
    with MockCluster(3) as cluster, SchemaRegistryDouble(user="reg", password=REGISTRY_PASSWORD) as registry:
        cluster.create_topic("orders", 3, 3)
        private(tmp_path / "kafkatop.toml", (
            f'[contexts.shop]\nbootstrap-server = "{cluster.bootstrap_servers}"\ncommand-config = "{client}"\n'
            f'connect-url = ["{worker.url}"]\nschema-registry = "{registry.url}"\n'
            f'schema-registry-config = "{registry_props}"\n'
        ))  # fmt: skip
        args = build_parser().parse_args(["--context", "shop", "--record", str(record), "--interval", "0.3",
                                          "--state-dir", str(tmp_path / "state")])  # fmt: skip
        apply_context(args)
        with ExitStack() as stack:
            app = compose_app(args, stack, terminal=False)
            async with app.run_test(size=(120, 36)) as pilot:
                await pilot_until(pilot, lambda: app.view.cluster is not None, "the cluster polled")
                await pilot_until(pilot, lambda: app.view.connect is not None and app.view.connect.connector(
                    "orders-to-db") is not None, "the connectors polled")  # fmt: skip
                assert app.sources.schemas is not None
                assert app.sources.schemas.poll().error is None  # the registry asked, with its credentials
                assert app.view.connect is not None
                shown = app.view.connect.connector("orders-to-db")
                assert shown is not None and CONNECTION_PASSWORD not in json.dumps(dict(shown.config))
        assert any(s.headers.get("Authorization") == worker.authorization for s in worker.seen)  # its auth was used
    text = gzip.decompress(record.read_bytes()).decode("utf-8")
    kinds = {json.loads(line).get("kind") for line in text.splitlines()[1:]}
    assert {"cluster", "connect"} <= kinds, kinds
    found = [secret for secret in SECRETS if secret in text]
    assert found == [], f"the recording holds {found}"
    assert "orders-to-db" in text and "jdbc:postgresql://db:5432/shop" in text and "[hidden]" in text
    assert "${file:/etc/kafka/secrets.properties:upstream}" in text  # a reference holds no secret: kept
