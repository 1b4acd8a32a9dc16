"""The Connect client hides a connector's secrets as it reads the workers' answers (backends/connect/client.py, over
real sockets, a scripted worker standing in: tests/doubles/connect_worker.py): the poll's snapshot and its REST
answers, a connector's info, a create's answer and its refusal, and `kafkatop connect list --json`, which says that
values are hidden. A plugin's definitions are asked once per class, never per connector or per poll; one that could
not be read is asked again only later. What a real worker's plugins declare: test_connect_secrets_kafka.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from kafkatop.backends.connect import client as client_module
from kafkatop.backends.connect.client import ConnectClient
from kafkatop.backends.connect.masking import HIDDEN_NOTE
from kafkatop.backends.model.connect import ConnectRefused
from kafkatop.tui.cli.main import main
from tests.doubles.connect_worker import ScriptedWorker, recorded

SINK = "com.example.Sink"
CONFIG = {"connector.class": SINK, "name": "c", "topics": "orders", "connection.password": "conn-secret-1",
          "upstream.login": "declared-secret-2"}  # fmt: skip
DEFINITIONS = [{"name": "upstream.login", "type": "PASSWORD"}, {"name": "topics", "type": "LIST"}]


TRACE = "java.sql.SQLException: login refused for declared-secret-2\n\tat com.example.Sink.start(Sink.java:1)"


def answer(config: dict[str, str], name: str = "c") -> dict[str, Any]:
    """An expanded entry: its status (a task FAILED, its trace quoting a secret) and its info."""
    task = {"id": 0, "state": "FAILED", "worker_id": "w:1", "trace": TRACE}
    return {"status": {"name": name, "type": "sink", "connector": {"state": "RUNNING", "worker_id": "w:1"},
                       "tasks": [task]},
            "info": {"name": name, "config": config, "tasks": [], "type": "sink"}}  # fmt: skip


def body(data: object) -> bytes:
    return json.dumps(data).encode()


@pytest.fixture
def worker() -> Iterator[ScriptedWorker]:
    other = dict(CONFIG, name="d")
    refused = {"error_code": 400, "message": "Invalid value conn-secret-1 for configuration connection.password"}
    w = ScriptedWorker({
        ("GET", "/"): [(200, recorded("root.json"))],
        ("GET", "/connectors?expand=status&expand=info"): [(200, body({"c": answer(CONFIG), "d": answer(other, "d")}))],
        ("GET", "/connectors/c"): [(200, body(answer(CONFIG)["info"]))],
        ("GET", "/connectors/c/status"): [(200, body(answer(CONFIG)["status"]))],
        ("POST", "/connectors/c/restart?includeTasks=true&onlyFailed=true"): [(202, body(answer(CONFIG)["status"]))],
        ("GET", f"/connector-plugins/{SINK}/config"): [(200, body(DEFINITIONS))],
        ("POST", "/connectors"): [(201, body(answer(CONFIG)["info"])), (400, body(refused))],
    })  # fmt: skip
    yield w
    w.close()


def asked(worker: ScriptedWorker, path: str) -> int:
    return sum(1 for s in worker.seen if s.path == path)


def test_the_poll_hides_every_secret_asking_each_plugin_once(worker: ScriptedWorker) -> None:
    client = ConnectClient([worker.url], timeout_s=5.0)
    try:
        for _ in range(3):
            snapshot = client.poll()
        assert snapshot.problem is None and [c.name for c in snapshot.connectors] == ["c", "d"]
        assert asked(worker, f"/connector-plugins/{SINK}/config") == 1  # two connectors, three polls: asked once
        for c in snapshot.connectors:
            shown = dict(c.config)
            assert shown["connection.password"] == shown["upstream.login"] == "[hidden]" and c.topics == ("orders",)
            assert "secret" not in json.dumps(c.raw) + repr(c)
        status = client.status("c")  # its status, and its info for the config
        assert dict(status.config)["connection.password"] == "[hidden]"
        assert status.tasks[0].trace == TRACE.replace("declared-secret-2", "[hidden]")
        assert snapshot.connectors[0].tasks[0].trace == status.tasks[0].trace
        restarted = client.restart_answer("c", include_tasks=True, only_failed=True)
        assert "secret" not in json.dumps(restarted) + json.dumps(client.status_answer("c"))
        assert "secret" not in json.dumps(client.info_answer("c")) + repr(status) + json.dumps(status.raw)
        created = client.create_answer("c", CONFIG)
        assert "secret" not in json.dumps(created) and created["config"]["upstream.login"] == "[hidden]"
        with pytest.raises(ConnectRefused) as refusal:
            client.create("c", CONFIG)
        assert str(refusal.value) == "Invalid value [hidden] for configuration connection.password"
    finally:
        client.close()


def test_a_plugin_whose_definitions_cannot_be_read_is_asked_again_later(
    worker: ScriptedWorker, monkeypatch: pytest.MonkeyPatch
) -> None:
    worker.answers[("GET", f"/connector-plugins/{SINK}/config")] = [(404, body({"error_code": 404, "message": "?"}))]
    worker.answers[("GET", "/connectors?expand=status&expand=info")] = [(200, body({"c": answer(CONFIG)}))]
    client = ConnectClient([worker.url], timeout_s=5.0)
    try:
        first = client.poll()
        client.poll()
        assert asked(worker, f"/connector-plugins/{SINK}/config") == 1  # not per poll
        assert dict(first.connectors[0].config) == {
            "connector.class": SINK,
            "name": "c",
            "topics": "orders",
            "connection.password": "[hidden]",
            "upstream.login": "[hidden]",
        }
        monkeypatch.setattr(client_module, "DEFINITIONS_RETRY_S", 0.0)
        client.poll()
        assert asked(worker, f"/connector-plugins/{SINK}/config") == 2
        assert first.problem is None and client.passed == ()
    finally:
        client.close()


def test_connect_list_json_prints_no_secret_and_says_values_are_hidden(
    worker: ScriptedWorker, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["connect", "list", "--json", "--connect-url", worker.url]) == 0
    out, err = capsys.readouterr()
    assert "secret" not in out and json.loads(out)["c"]["info"]["config"]["connection.password"] == "[hidden]"
    assert HIDDEN_NOTE in err
    assert main(["connect", "plugins", "--json", "--connect-url", worker.url, SINK]) == 0
    assert HIDDEN_NOTE not in capsys.readouterr().err  # nothing hidden there: nothing said
