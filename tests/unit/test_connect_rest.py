"""Kafka Connect's REST answers as the model's values, and its errors as kafkatop's: every answer here was recorded
from a real Kafka 4.1 worker (tests/fixtures/connect/: two workers, a FileStreamSource `lines-in`, a FileStreamSink
`lines-out` with 2 tasks, and `broken-sink`, whose task FAILED writing into a folder that does not exist)."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from kafkatop.backends.connect.answers import (
    connectors_of,
    offsets_of,
    plugins_of,
    status_of,
    validation_of,
    worker_of,
)
from kafkatop.backends.connect.auth import USER_INFO, connect_auth
from kafkatop.backends.connect.client import ConnectClient
from kafkatop.backends.connect.rest import Answer, NoAnswer, _decode, refusal, worker_name, worker_url
from kafkatop.backends.model.connect import ConnectError, ConnectRefused
from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.ports import ConnectCluster

FIXTURES = Path(__file__).parents[1] / "fixtures" / "connect"
WORKER = "http://127.0.0.1:24480"


def recorded(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def recorded_error(case: str) -> Answer:
    entry = recorded("errors.json")[case]
    return Answer(entry["status"], _decode(entry["status"], entry["body"].encode()), WORKER)


# --- answers ----------------------------------------------------------------------------------------------------------
def test_the_root_says_the_version_commit_and_kafka_cluster() -> None:
    worker = worker_of(WORKER, recorded("root.json"))
    assert (worker.version, worker.commit, worker.kafka_cluster_id) == ("4.1.0", "13f70256db3c994c",
                                                                         "fwTy585NRi6lUAEJvXPE0A")  # fmt: skip
    assert worker.reachable
    assert not worker_of(WORKER, {"status": "ok"}).reachable  # something else answering on the port


def test_connectors_expanded_become_connectors_with_their_tasks_and_workers() -> None:
    answer = recorded("connectors_expanded.json")
    connectors = connectors_of(answer)
    assert [c.name for c in connectors] == ["broken-sink", "lines-in", "lines-out"]  # sorted, not the answer's order
    broken, source, sink = connectors
    assert (source.type, source.class_name, source.state, source.worker_id) == (
        "source", "FileStreamSource", "RUNNING", "127.0.0.1:24480")  # fmt: skip
    assert source.topics == ("lines",) and (source.running, source.failed) == (1, 0)
    assert sink.class_name == "org.apache.kafka.connect.file.FileStreamSinkConnector"  # as configured
    assert [(t.task, t.state, t.worker_id) for t in sink.tasks] == [(0, "RUNNING", "127.0.0.1:24481"),
                                                                    (1, "RUNNING", "127.0.0.1:24481")]  # fmt: skip
    assert sink.worker_id == "127.0.0.1:24481" and dict(sink.config)["tasks.max"] == "2"
    assert (broken.running, broken.failed) == (0, 1) and broken.state == "RUNNING"
    trace = broken.tasks[0].trace
    assert trace is not None and trace.startswith("org.apache.kafka.connect.errors.ConnectException: Couldn't find")
    for c in connectors:
        assert c.raw is answer[c.name]  # what --json prints: the worker's own answer


def test_a_paused_and_a_stopped_connector() -> None:
    by_name = {c.name: c for c in connectors_of(recorded("connectors_paused_stopped.json"))}
    assert by_name["lines-in"].state == "STOPPED" and by_name["lines-in"].tasks == ()  # a stopped one has none
    assert by_name["lines-out"].state == "PAUSED"
    assert {t.state for t in by_name["lines-out"].tasks} == {"PAUSED"}


def test_a_connector_without_a_status_yet_is_unassigned() -> None:
    (c,) = connectors_of({"new": {"info": {"name": "new", "config": {"connector.class": "X"}, "tasks": [],
                                           "type": "sink"}}})  # fmt: skip
    assert (c.state, c.type, c.class_name, c.tasks) == ("UNASSIGNED", "sink", "X", ())


def test_status_and_restart_answers() -> None:
    failed = status_of(recorded("status_failed_task.json"))
    assert failed.name == "broken-sink" and failed.tasks[0].state == "FAILED" and failed.tasks[0].trace
    restarting = status_of(recorded("restart_failed_tasks.json"))  # POST …/restart?includeTasks=true&onlyFailed=true
    assert [t.state for t in restarting.tasks] == ["RESTARTING"] and restarting.state == "RUNNING"


def test_plugins_validation_and_offsets() -> None:
    plugins = plugins_of(recorded("plugins_all.json"))
    assert ("org.apache.kafka.connect.file.FileStreamSourceConnector", "source", "4.1.0") in {
        (p.class_name, p.type, p.version) for p in plugins
    }
    assert {"sink", "source", "transformation", "converter", "predicate"} <= {p.type for p in plugins}
    validation = validation_of(recorded("validate_sink_without_topics.json"))
    assert validation.error_count == 2 and validation.class_name == "FileStreamSink"
    assert [(p.name, p.errors) for p in validation.problems] == [
        ("topics", ("Must configure one of topics or topics.regex",)),
        ("topics.regex", ("Must configure one of topics or topics.regex",)),
    ]
    (source,) = offsets_of(recorded("offsets_source.json"))
    assert source.partition == {"filename": "/tmp/k27-rest-workers/in.txt"} and source.offset == {"position": 692}
    (sink,) = offsets_of(recorded("offsets_sink.json"))
    assert sink.partition == {"kafka_partition": 0, "kafka_topic": "lines"} and sink.offset == {"kafka_offset": 200}
    assert offsets_of({"offsets": []}) == ()


@pytest.mark.parametrize(
    "parse, body",
    [(connectors_of, []), (plugins_of, {}), (validation_of, []), (offsets_of, {"offset": 1}), (status_of, "x")],
)
def test_an_answer_not_shaped_as_connects_is_a_connect_error(parse: Any, body: object) -> None:
    with pytest.raises(ConnectError, match="not Kafka Connect's answer"):
        parse(body)


# --- errors -----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "case, message",
    [
        ("unknown_connector_status", "No status found for connector nope"),
        ("unknown_connector_pause", "Unknown connector nope"),
        ("already_exists", "Connector lines-in already exists"),
        ("unknown_plugin_config", "Unknown plugin Nope."),
    ],
)
def test_a_4xx_is_refused_with_the_workers_own_message(case: str, message: str) -> None:
    error = refusal(recorded_error(case))
    assert isinstance(error, ConnectRefused) and str(error) == message


def test_offsets_of_a_running_connector_are_refused_as_connect_says() -> None:
    error = refusal(recorded_error("offsets_not_stopped"))
    assert isinstance(error, ConnectRefused) and str(error).startswith("Connectors must be in the STOPPED state")


def test_an_unknown_connector_class_is_bad_input_though_connect_answers_500() -> None:
    error = refusal(recorded_error("unknown_class_validate"))
    assert isinstance(error, ConnectRefused)
    assert str(error).startswith("Failed to find any class that implements Connector and which name matches NoSuch")
    assert "PluginDesc" not in str(error) and "org.apache.kafka.connect.file.FileStreamSinkConnector" in str(error)


def test_a_5xx_is_a_connect_error_naming_the_worker() -> None:
    # Connect's answer when its herder does not finish in time (RestServer's request timeout): no recording of one.
    answer = Answer(500, {"error_code": 500, "message": "Request timed out"}, WORKER)
    error = refusal(answer)
    assert type(error) is ConnectError and str(error) == "127.0.0.1:24480 failed the request (500): Request timed out"


def test_a_401_says_where_the_credentials_go() -> None:
    # BasicAuthSecurityRestExtension's refusal is plain text (though labelled application/json), not Connect's JSON.
    answer = recorded_error("basic_auth_refused")
    error = refusal(answer)
    assert isinstance(error, ConnectRefused)
    assert str(error) == ("127.0.0.1:24480 refused the request (401: User cannot access the resource.): give "
                          f"{USER_INFO}=USER:PASSWORD in the --command-config file")  # fmt: skip
    wrong = refusal(answer, credentials=True)
    assert str(wrong).startswith("127.0.0.1:24480 refused the credentials (401: User cannot access the resource.)")


def test_a_worker_still_starting_has_not_answered() -> None:
    page = (FIXTURES / "starting_404.html").read_bytes()  # Jetty's page before Connect's resources are up
    with pytest.raises(NoAnswer, match="is starting"):
        _decode(404, page)
    with pytest.raises(NoAnswer, match="not in JSON"):
        _decode(200, b"<html>a web server</html>")
    assert _decode(204, b"") is None


# --- URLs and credentials ---------------------------------------------------------------------------------------------
def test_worker_urls() -> None:
    assert worker_url("127.0.0.1:8083") == "http://127.0.0.1:8083"
    assert worker_url(" https://connect.example:8443/ ") == "https://connect.example:8443"
    assert worker_name("http://127.0.0.1:8083") == "127.0.0.1:8083"
    assert worker_url("https://gw:443/connect/") == "https://gw:443/connect"  # behind a proxy
    for bad in ("ftp://h:1", "http://", "http://h:99999", "http://h:1?x=1"):
        with pytest.raises(BadInput, match="not a Connect worker's URL"):
            worker_url(bad)
    with pytest.raises(BadInput) as refused:
        worker_url("http://admin:s3cret@127.0.0.1:8083")
    assert "s3cret" not in str(refused.value) and "--command-config" in str(refused.value)


def test_basic_auth_and_tls_keys(tmp_path: Path) -> None:
    auth = connect_auth({USER_INFO: "admin:s3cret:with:colons", "connect.ssl.typo": "x", "ssl.truststore.type": "PEM"},
                        "f.properties")  # fmt: skip
    assert auth.user_info == "admin:s3cret:with:colons" and auth.ssl_context is None
    assert auth.ignored == ("connect.ssl.typo",) and "connect.ssl.typo" in (auth.warning() or "")
    with pytest.raises(BadInput) as bad:
        connect_auth({USER_INFO: "s3cret-without-user"}, "f.properties")
    assert "s3cret" not in str(bad.value) and "USER:PASSWORD" in str(bad.value)
    with pytest.raises(BadInput, match="not a file"):
        connect_auth({"connect.ssl.ca.location": str(tmp_path / "none.pem")}, "f.properties")
    key = tmp_path / "k.pem"
    key.write_text("x")
    with pytest.raises(BadInput, match="without connect.ssl.certificate.location"):
        connect_auth({"connect.ssl.key.location": str(key)}, "f.properties")
    no_check = connect_auth({"connect.ssl.endpoint.identification.algorithm": ""}, "f.properties")
    assert no_check.ssl_context is not None and not no_check.ssl_context.check_hostname


def test_the_client_is_the_connect_cluster_port() -> None:
    """Every member of the ConnectCluster Protocol, with the same parameters (the Connect tab holds it as the port)."""
    members = {n for n in vars(ConnectCluster) if not n.startswith("_")}
    assert members == {"urls", "poll", "plugins", "validate", "create", "pause", "resume", "stop", "restart",
                       "delete", "offsets", "reset_offsets", "close"}  # fmt: skip
    for name in members:
        port, ours = getattr(ConnectCluster, name), getattr(ConnectClient, name)
        if isinstance(port, property):
            assert isinstance(ours, property), name
            continue
        assert list(inspect.signature(ours).parameters) == list(inspect.signature(port).parameters), name


def test_a_connector_name_holding_a_slash_is_refused_before_any_request() -> None:
    """Jetty answers an encoded '/' in a path with its HTML 400 page (seen on Kafka 4.1): a name any client may
    choose (`x[/b]y`) is refused in one line, and not created either (issue 38). No worker listens at port 1: nothing
    is asked."""
    from kafkatop.backends.connect.client import ConnectClient
    from kafkatop.backends.model.connect import ConnectRefused

    client = ConnectClient(["http://127.0.0.1:1"], timeout_s=0.1)
    for act in (lambda: client.delete("x[/b]y"), lambda: client.create("a/b", {"connector.class": "FileStreamSink"})):
        with pytest.raises(ConnectRefused, match=r"holds '/', which Kafka Connect's REST API cannot address"):
            act()
