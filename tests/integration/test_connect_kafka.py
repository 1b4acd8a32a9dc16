"""`kafkatop connect` against a real Kafka Connect 4.1 worker: a lab of one KRaft node and one worker (`up --connect
1`), found by `--name`/`--state-dir` as a user finds it. A FileStreamSource reading a temp file is created from
connect-standalone's .properties; `list --json` equals the REST answer fetched with urllib (also through a closed
port first); pause, resume, restart, stop, offsets shown and reset once stopped, delete; a FileStreamSink without
`topics` is refused with the worker's own per-field message and nothing is created; a FAILED task's trace is shown
and only it restarted.

Set KAFKA_HOME to run it (skipped without); KAFKATOP_TEST_BASE_PORT picks the first of the ports it binds (base, +4
the controller port, +10 the worker's REST port), else a free block. Every process is stopped by its recorded pid.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kafkatop.backends.zookeeper.server import free_port
from kafkatop.tui.cli.main import main
from tests.conftest import wait_for
from tests.integration.test_supervisor import Clusters, free_port_block

pytestmark = pytest.mark.kafka

_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))
SETTLE_S = 60.0  # a connector's state after a request: a second or two; a worker's first assignment up to ~10 s


@dataclass(frozen=True)
class ConnectLab:
    lab: list[str]  # the flags naming the lab: --name, --state-dir
    url: str  # its worker's REST API
    folder: Path  # files for the connectors


@pytest.fixture(scope="module")
def connect_lab(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConnectLab]:
    root = tmp_path_factory.mktemp("connect-lab")
    clusters = Clusters(root)
    base = int(os.environ.get("KAFKATOP_TEST_BASE_PORT", "0")) or free_port_block(12)
    try:
        cluster = clusters.make(kafka_home, name="connect", mode="kraft", brokers=1, controllers=0, connect=1,
                                heap="256m", base_port=base, controller_port=base + 4, zookeeper_port=base + 8,
                                connect_port=base + 10)  # fmt: skip
        cluster.up(timeout_s=150)
        (url,) = cluster.connect_urls
        yield ConnectLab(["--name", "connect", "--state-dir", str(root / "state")], url, root)
    finally:
        clusters.cleanup()


def rest(url: str, method: str = "GET") -> Any:
    with _NO_PROXY.open(urllib.request.Request(url, method=method), timeout=10) as answer:
        text = answer.read()
    return json.loads(text) if text else None


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["connect", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def state_of(lab: ConnectLab, name: str) -> tuple[str, tuple[str, ...]] | None:
    try:
        status = rest(f"{lab.url}/connectors/{name}/status")
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return None  # just created: no status written yet
        raise
    return status["connector"]["state"], tuple(t["state"] for t in status["tasks"])


def wait_state(lab: ConnectLab, name: str, connector: str, tasks: tuple[str, ...]) -> None:
    wait_for(lambda: state_of(lab, name) == (connector, tasks), SETTLE_S, 0.2, f"{name}: {connector}, tasks {tasks}")


def test_a_source_connector_driven_from_the_command_line(
    connect_lab: ConnectLab, capsys: pytest.CaptureFixture[str]
) -> None:
    lab, flags = connect_lab, connect_lab.lab
    lines = lab.folder / "in.txt"
    lines.write_text("".join(f"line {i}\n" for i in range(100)), encoding="utf-8")
    config = lab.folder / "lines-in.properties"  # as connect-standalone.sh takes it
    config.write_text(f"name=lines-in\nconnector.class=FileStreamSource\nfile={lines}\ntopic=lines\ntasks.max=1\n",
                      encoding="utf-8")  # fmt: skip
    code, out, _ = run(capsys, "create", str(config), *flags)
    assert code == 0 and out.startswith("created connector 'lines-in' (FileStreamSource, source)")
    wait_state(lab, "lines-in", "RUNNING", ("RUNNING",))

    # list --json is the REST answer, key for key; also when a closed port is asked first.
    expected = rest(f"{lab.url}/connectors?expand=status&expand=info")
    code, out, _ = run(capsys, "list", "--json", *flags)
    assert code == 0 and json.loads(out) == expected
    closed = f"http://127.0.0.1:{free_port()}"
    code, out, err = run(capsys, "list", "--json", "--connect-url", closed, "--connect-url", lab.url)
    assert code == 0 and json.loads(out) == expected
    assert err == (f"kafkatop: {closed.removeprefix('http://')} did not answer (connection refused: is the worker "
                   f"down?); {lab.url.removeprefix('http://')} answered\n")  # fmt: skip
    worker = lab.url.removeprefix("http://")
    code, out, _ = run(capsys, "list", *flags)
    assert out.splitlines()[0].split() == ["NAME", "TYPE", "STATE", "TASKS", "WORKER", "CLASS", "TOPICS"]
    assert out.splitlines()[1].split() == ["lines-in", "source", "RUNNING", "1/1", worker, "FileStreamSource", "lines"]
    code, out, _ = run(capsys, "status", "lines-in", *flags)
    assert out.splitlines()[0] == f"connector lines-in (source, FileStreamSource): RUNNING on {worker}"
    assert ["0", "RUNNING", worker] in [line.split() for line in out.splitlines()]
    code, out, _ = run(capsys, "status", "lines-in", "--json", *flags)
    assert json.loads(out)["connector"]["state"] == "RUNNING"

    # Its offset: the file's position once all 100 lines are read (and flushed: offset.flush.interval.ms).
    position = len(lines.read_bytes())
    wait_for(lambda: rest(f"{lab.url}/connectors/lines-in/offsets")["offsets"], SETTLE_S, 0.5, "an offset committed")
    code, out, _ = run(capsys, "offsets", "lines-in", "--json", *flags)
    assert json.loads(out) == rest(f"{lab.url}/connectors/lines-in/offsets")
    code, out, _ = run(capsys, "offsets", "lines-in", *flags)
    assert out.splitlines()[0].split() == ["PARTITION", "OFFSET"] and f'{{"filename":"{lines}"}}' in out
    code, _, err = run(capsys, "offsets", "lines-in", "--reset", "--yes", *flags)
    assert code == 2 and "'lines-in' is RUNNING: Connect resets the offsets of a STOPPED connector only" in err

    assert run(capsys, "pause", "lines-in", *flags)[0] == 0
    wait_state(lab, "lines-in", "PAUSED", ("PAUSED",))
    assert run(capsys, "resume", "lines-in", *flags)[0] == 0
    wait_state(lab, "lines-in", "RUNNING", ("RUNNING",))
    code, out, _ = run(capsys, "restart", "lines-in", "--include-tasks", *flags)
    assert code == 0 and out.startswith("connector 'lines-in': restarting the connector, task 0")
    wait_state(lab, "lines-in", "RUNNING", ("RUNNING",))
    code, out, _ = run(capsys, "stop", "lines-in", *flags)
    assert code == 0 and out.startswith("connector 'lines-in' stopped")
    wait_state(lab, "lines-in", "STOPPED", ())
    offsets = rest(f"{lab.url}/connectors/lines-in/offsets")["offsets"]
    assert offsets == [{"partition": {"filename": str(lines)}, "offset": {"position": position}}]
    # --alter: the offsets as `offsets --json` printed them, one changed (KIP-875's PATCH).
    altered = lines.parent / "offsets.json"
    altered.write_text(json.dumps({"offsets": [{"partition": {"filename": str(lines)}, "offset": {"position": 7}}]}))
    code, out, _ = run(capsys, "offsets", "lines-in", "--alter", str(altered), *flags)
    assert code == 0 and out == "connector 'lines-in': The offsets for this connector have been altered successfully\n"
    assert rest(f"{lab.url}/connectors/lines-in/offsets")["offsets"][0]["offset"] == {"position": 7}
    code, out, _ = run(capsys, "offsets", "lines-in", "--reset", "--yes", *flags)
    assert code == 0 and out == "connector 'lines-in': The offsets for this connector have been reset successfully\n"
    assert rest(f"{lab.url}/connectors/lines-in/offsets") == {"offsets": []}

    code, _, err = run(capsys, "delete", "lines-in", *flags)  # no terminal to ask on: nothing deleted
    assert code == 2 and "nothing was deleted" in err and rest(f"{lab.url}/connectors") == ["lines-in"]
    code, out, _ = run(capsys, "delete", "lines-in", "--yes", *flags)
    assert code == 0 and out.startswith("deleted connector 'lines-in'")
    assert rest(f"{lab.url}/connectors") == []
    code, _, err = run(capsys, "status", "lines-in", *flags)
    assert code == 2 and err == "kafkatop: No status found for connector lines-in\n"


def test_a_broken_config_is_refused_field_by_field_and_nothing_created(
    connect_lab: ConnectLab, capsys: pytest.CaptureFixture[str]
) -> None:
    lab, flags = connect_lab, connect_lab.lab
    broken = lab.folder / "no-topics.json"
    broken.write_text(json.dumps({"name": "no-topics", "config": {"connector.class": "FileStreamSink",
                                                                  "file": str(lab.folder / "out.txt")}}))  # fmt: skip
    for action in ("validate", "create"):
        code, out, err = run(capsys, action, str(broken), *flags)
        assert code == 2 and out == ""
        done = "nothing was created" if action == "create" else "as it is"
        assert err == (f"kafkatop: the worker refused the config of connector 'no-topics' (FileStreamSink: 2 errors), "
                       f"{done}:\n  topics: Must configure one of topics or topics.regex\n"
                       "  topics.regex: Must configure one of topics or topics.regex\n")  # fmt: skip
    code, out, _ = run(capsys, "validate", str(broken), "--json", *flags)
    assert code == 2 and json.loads(out)["error_count"] == 2
    assert "no-topics" not in rest(f"{lab.url}/connectors")
    unknown = lab.folder / "unknown.json"
    unknown.write_text('{"name": "x", "connector.class": "NoSuchConnector"}')
    code, _, err = run(capsys, "create", str(unknown), *flags)
    assert code == 2 and "Failed to find any class that implements Connector and which name matches NoSuch" in err


def test_a_failed_task_shows_its_trace_and_only_it_restarts(
    connect_lab: ConnectLab, capsys: pytest.CaptureFixture[str]
) -> None:
    lab, flags = connect_lab, connect_lab.lab
    sink = lab.folder / "broken-sink.json"  # a file in a folder that does not exist: the task fails as it starts
    sink.write_text(json.dumps({"name": "broken-sink", "connector.class": "FileStreamSink", "topics": "lines",
                                "file": str(lab.folder / "missing" / "out.txt")}))  # fmt: skip
    assert run(capsys, "create", str(sink), *flags)[0] == 0
    try:
        wait_state(lab, "broken-sink", "RUNNING", ("FAILED",))
        code, out, _ = run(capsys, "list", *flags)
        assert "0/1, 1 failed" in out
        code, out, _ = run(capsys, "status", "broken-sink", *flags)
        assert "task 0 FAILED:\n  org.apache.kafka.connect.errors.ConnectException: Couldn't find or create file" in out
        code, out, _ = run(capsys, "restart", "broken-sink", "--include-tasks", "--only-failed", *flags)
        assert code == 0 and out == "connector 'broken-sink': restarting task 0\n"
    finally:
        rest(f"{lab.url}/connectors/broken-sink", "DELETE")


def test_plugins_and_their_settings(connect_lab: ConnectLab, capsys: pytest.CaptureFixture[str]) -> None:
    flags = connect_lab.lab
    code, out, _ = run(capsys, "plugins", *flags)
    rows = [line.split() for line in out.splitlines()]
    assert code == 0 and rows[0] == ["CLASS", "TYPE", "VERSION"]
    assert ["org.apache.kafka.connect.file.FileStreamSourceConnector", "source", "4.1.0"] in rows
    code, out, _ = run(capsys, "plugins", "FileStreamSink", "--json", *flags)
    assert code == 0 and {"file", "topics", "name", "connector.class"} <= {d["name"] for d in json.loads(out)}
