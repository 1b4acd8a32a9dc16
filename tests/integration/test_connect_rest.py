"""The Connect client over real sockets: a real closed port and a real port that accepts but never answers are
passed over for the next worker; a POST whose answer was lost is not sent twice; a 409 of a rebalance is asked once
more; basic auth travels in its header; TLS checks the workers' CA and presents a client certificate.

Where a behaviour of Connect cannot be had on demand from a real worker (a 409 mid-rebalance, a worker behind basic
auth or TLS), `ScriptedWorker` stands in: a double, an http.server answering recorded 4.1 answers
(tests/fixtures/connect/) or the one under test (tests/doubles/connect_worker.py). Real workers:
test_connect_kafka.py."""

from __future__ import annotations

import json
import socket
import ssl
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafkatop.backends.connect import rest
from kafkatop.backends.connect.auth import connect_auth
from kafkatop.backends.connect.client import ConnectClient
from kafkatop.backends.lab.certs import cert_pem, key_pem, new_ca, new_server_cert
from kafkatop.backends.model.connect import ConnectError, ConnectRefused
from kafkatop.backends.zookeeper.server import free_port
from kafkatop.tui.cli.main import main
from tests.doubles.connect_worker import ScriptedWorker, plugin_configs, recorded

REBALANCE = "Cannot complete request because of a conflicting operation (e.g. worker rebalance)"  # connect-runtime 4.1


@pytest.fixture
def worker() -> Iterator[ScriptedWorker]:
    created = b'{"name":"c","config":{},"tasks":[],"type":"source"}'
    w = ScriptedWorker({("GET", "/"): [(200, recorded("root.json"))],
                        ("GET", "/connectors?expand=status&expand=info"): [(200, recorded("connectors_expanded.json"))],
                        ("POST", "/connectors"): [(201, created)], **plugin_configs()})  # fmt: skip
    yield w
    w.close()


@pytest.fixture
def silent() -> Iterator[str]:
    """A real port that accepts connections (the kernel's backlog) and never answers."""
    s = socket.create_server(("127.0.0.1", 0), backlog=8)
    yield f"http://127.0.0.1:{s.getsockname()[1]}"
    s.close()


def closed_port() -> str:
    return f"http://127.0.0.1:{free_port()}"


def test_a_closed_port_is_passed_over_and_the_answering_worker_remembered(worker: ScriptedWorker) -> None:
    dead = closed_port()
    client = ConnectClient([dead, worker.url], timeout_s=2.0)
    answer = client.connectors_answer()
    assert answer == json.loads(recorded("connectors_expanded.json"))
    assert client.passed == (f"{dead.removeprefix('http://')} did not answer (connection refused: is the worker "
                             "down?)",)  # fmt: skip
    client.connectors_answer()
    assert client.passed == ()  # the worker that answered is asked first now
    snapshot = client.poll()
    assert [w.reachable for w in snapshot.workers] == [False, True] and snapshot.problem is None
    assert snapshot.workers[1].version == "4.1.0" and len(snapshot.connectors) == 3
    client.close()


def test_no_worker_answering_names_each_and_why(silent: str) -> None:
    dead = closed_port()
    client = ConnectClient([dead, silent], timeout_s=0.3)
    t0 = time.monotonic()
    with pytest.raises(ConnectError) as failed:
        client.plugins()
    assert time.monotonic() - t0 < 2.0  # bounded: a timeout per worker
    host = silent.removeprefix("http://")
    assert str(failed.value) == (f"no Connect worker answered: {dead.removeprefix('http://')} did not answer "
                                 f"(connection refused: is the worker down?); {host} did not answer (no answer within "
                                 "0.3 s)")  # fmt: skip
    snapshot = client.poll()  # a poll does not raise: it says why
    assert snapshot.connectors == () and snapshot.problem is not None and "no answer within 0.3 s" in snapshot.problem
    client.close()


def test_a_post_whose_answer_was_lost_is_not_sent_again(silent: str, worker: ScriptedWorker) -> None:
    client = ConnectClient([silent, worker.url], timeout_s=0.3)
    with pytest.raises(ConnectError, match=r"it may have done it \(a POST is not sent twice\)"):
        client.create("c", {"connector.class": "FileStreamSource"})
    assert [s for s in worker.seen if s.method == "POST"] == []
    assert client.connectors_answer()  # a GET goes on to the next worker
    client.create("c", {"connector.class": "FileStreamSource"})  # now asked first: it answers
    (posted,) = [s for s in worker.seen if s.method == "POST"]
    assert json.loads(posted.body) == {"name": "c", "config": {"connector.class": "FileStreamSource"}}


def test_a_409_of_a_rebalance_is_asked_once_more(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rest, "REBALANCE_RETRY_S", 0.05)
    conflict = json.dumps({"error_code": 409, "message": REBALANCE}).encode()
    double = ScriptedWorker({("PUT", "/connectors/c/pause"): [(409, conflict), (202, b"")],
                             ("PUT", "/connectors/d/pause"): [(409, conflict)],
                             ("POST", "/connectors"): [(409, b'{"error_code":409,"message":"Connector c already '
                                                              b'exists"}')]})  # fmt: skip
    try:
        client = ConnectClient([double.url])
        client.pause("c")
        assert [s.path for s in double.seen] == ["/connectors/c/pause"] * 2
        with pytest.raises(ConnectError, match=r"rebalance\) \(asked twice; try again in a moment\)"):
            client.pause("d")  # still rebalancing: said, after one more try
        assert len(double.seen) == 4
        with pytest.raises(ConnectRefused, match="Connector c already exists"):
            client.create("c", {"connector.class": "X"})
        assert len(double.seen) == 5  # a 409 that is not a rebalance is not asked again
    finally:
        double.close()


def test_basic_auth_travels_in_its_header(worker: ScriptedWorker) -> None:
    client = ConnectClient([worker.url], user_info="admin:s3cret")
    client.connectors_answer()
    assert worker.seen[-1].headers["Authorization"] == "Basic YWRtaW46czNjcmV0"  # base64("admin:s3cret")


def test_workers_refusing_the_credentials_fail_the_poll_as_bad_input() -> None:
    refused = json.loads(recorded("errors.json"))["basic_auth_refused"]  # a real 4.1 worker's, BasicAuth extension
    double = ScriptedWorker({("GET", "/"): [(refused["status"], refused["body"].encode())]})
    try:
        with pytest.raises(
            ConnectRefused, match=r"refused the credentials \(401: User cannot access the resource"
        ) as e:
            ConnectClient([double.url], user_info="admin:pa55word").poll()
        assert "pa55word" not in str(e.value) and double.seen[0].headers["Authorization"].startswith("Basic ")
        with pytest.raises(ConnectRefused, match="give connect.basic.auth.user.info=USER:PASSWORD"):
            ConnectClient([double.url]).poll()
    finally:
        double.close()


def test_tls_checks_the_ca_and_presents_a_client_certificate(tmp_path: Path) -> None:
    ca_key, ca = new_ca("connect-test")
    server_key, server_cert = new_server_cert(ca_key, ca, "worker")
    client_key, client_cert = new_server_cert(ca_key, ca, "kafkatop")
    files = {"ca.pem": cert_pem(ca), "server.pem": cert_pem(server_cert) + key_pem(server_key),
             "client.pem": cert_pem(client_cert), "client.key": key_pem(client_key, "keypass")}  # fmt: skip
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(tmp_path / "server.pem")
    server.load_verify_locations(tmp_path / "ca.pem")
    server.verify_mode = ssl.CERT_REQUIRED  # the workers ask for a client certificate
    double = ScriptedWorker({("GET", "/connector-plugins?connectorsOnly=false"): [(200, recorded("plugins_all.json"))]},
                            tls=server)  # fmt: skip
    props = {"connect.ssl.ca.location": str(tmp_path / "ca.pem"),
             "connect.ssl.certificate.location": str(tmp_path / "client.pem"),
             "connect.ssl.key.location": str(tmp_path / "client.key"),
             "connect.ssl.key.password": "keypass"}  # fmt: skip
    try:
        settings = connect_auth(props, "client.properties")
        plugins = ConnectClient([double.url], ssl_context=settings.ssl_context, timeout_s=3.0).plugins()
        assert plugins[0].class_name == "org.apache.kafka.connect.file.FileStreamSinkConnector"
        untrusted = ConnectClient([double.url], timeout_s=3.0)  # the system's CAs do not know this one
        with pytest.raises(ConnectError, match=r"did not pass the TLS check .*connect\.ssl\.ca\.location"):
            untrusted.plugins()
        plain = ConnectClient([double.url.replace("https:", "http:")], timeout_s=3.0)
        with pytest.raises(ConnectError, match="an https worker asked over http"):
            plain.plugins()
    finally:
        double.close()


def test_the_command_names_the_worker_that_did_not_answer(
    worker: ScriptedWorker, capsys: pytest.CaptureFixture[str]
) -> None:
    dead = closed_port()
    assert main(["connect", "list", "--json", "--connect-url", dead, "--connect-url", worker.url]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == json.loads(recorded("connectors_expanded.json"))
    assert err == (f"kafkatop: {dead.removeprefix('http://')} did not answer (connection refused: is the worker "
                   f"down?); {worker.url.removeprefix('http://')} answered\n")  # fmt: skip
    assert main(["connect", "list", "--connect-url", dead]) == 1
    assert capsys.readouterr().err.startswith("kafkatop: no Connect worker answered: ")


def test_a_connect_of_another_kafka_cluster_on_a_labs_port_is_refused_before_anything_is_asked(
    worker: ScriptedWorker,
) -> None:
    """A lab's workers must answer `GET /` with the lab's own cluster id: a stranger's Connect on its port (the
    double answers with a real 4.1 worker's root of another cluster) is refused, and no connector request is sent."""
    ours = json.loads(recorded("root.json"))["kafka_cluster_id"]
    client = ConnectClient([closed_port(), worker.url], timeout_s=2.0)
    client.check_cluster(ours, "lab 'lab'")  # its own: passes; a worker not answering is left to the call
    with pytest.raises(ConnectRefused, match=r"answers as Kafka Connect of cluster .*, not of lab 'lab' \(someone"):
        client.check_cluster("someone-else", "lab 'lab'")
    assert [(s.method, s.path) for s in worker.seen] == [("GET", "/"), ("GET", "/")]
    client.close()


def test_a_lab_file_source_whose_file_is_missing_is_said_to_wait_for_it(tmp_path: Path) -> None:
    """FileStreamSourceTask logs a warning and tries again while its file is missing, RUNNING all along: a client of
    workers on this host (a lab's) says what it waits for, until the file is there; one of workers elsewhere never
    looks (their files are not ours)."""
    path = tmp_path / "in \x1b[31m.txt"  # a path is text: its control characters are shown escaped, never acted on
    body = json.loads(recorded("connectors_expanded.json"))
    body["lines-in"]["info"]["config"]["file"] = str(path)
    entry = body["lines-in"]
    w = ScriptedWorker({("GET", "/"): [(200, recorded("root.json"))],
                        ("GET", "/connectors?expand=status&expand=info"): [(200, json.dumps(body).encode())],
                        ("GET", "/connectors/lines-in/status"): [(200, json.dumps(entry["status"]).encode())],
                        ("GET", "/connectors/lines-in"): [(200, json.dumps(entry["info"]).encode())],
                        **plugin_configs()})  # fmt: skip
    try:
        local = ConnectClient([w.url], local=True)
        elsewhere = ConnectClient([w.url])
        lines_in = local.poll().connector("lines-in")
        assert lines_in is not None and lines_in.state == "RUNNING" and lines_in.waiting_for == str(path)
        assert lines_in.waiting == f"waiting for {path}: it does not exist yet"
        assert local.status("lines-in").waiting_for == str(path)
        assert all(c.waiting_for is None for c in local.poll().connectors if c.name != "lines-in")  # sinks: never
        assert all(c.waiting_for is None for c in elsewhere.poll().connectors)
        path.write_text("a line\n")
        assert all(c.waiting_for is None for c in local.poll().connectors)
        local.close()
        elsewhere.close()
    finally:
        w.close()
