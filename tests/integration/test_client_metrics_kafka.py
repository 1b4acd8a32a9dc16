"""`kafkatop client-metrics` against a real Apache Kafka 4.1 (KAFKA_HOME), compared with kafka-client-metrics.sh on
the same node line for line: --list and --describe (every resource, one, one that does not exist) of resources the
tool made and of one kafkatop made; --alter with an empty value resetting a config; a pattern Kafka refuses said in
Kafka's words (exit 1, nothing changed); --delete, the tool then listing the resource gone.

Ports 30520-30521. Run: KAFKA_HOME=/opt/kafka_2.13-4.1.0 .venv/bin/python -m pytest -q -m kafka \
  tests/integration/test_client_metrics_kafka.py
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafkatop.tui.cli.main import main
from tests.integration.test_real_kafka import KraftNode, node_env, start_node, stop_node

pytestmark = pytest.mark.kafka

PORTS = (30520, 30521)


@pytest.fixture(scope="module")
def node(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[KraftNode]:
    started = start_node(kafka_home, tmp_path_factory.mktemp("client-metrics"), ports=PORTS)
    try:
        yield started
    finally:
        stop_node(started.proc)


def tool(node: KraftNode, *argv: str) -> list[str]:
    done = subprocess.run(
        [str(node.home / "bin" / "kafka-client-metrics.sh"), "--bootstrap-server", node.bootstrap, *argv],
        env=node_env(node.log_dir), capture_output=True, text=True, timeout=120, check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


def ours(node: KraftNode, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = main(["client-metrics", *argv, "--bootstrap-server", node.bootstrap])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def same(node: KraftNode, capsys: pytest.CaptureFixture[str], *argv: str) -> list[str]:
    """Our lines, asserted equal to the tool's (whose --name is our --resource)."""
    code, out, err = ours(node, capsys, *argv)
    assert code == 0, err
    assert out == tool(node, *("--name" if a == "--resource" else a for a in argv)), argv
    return out


def test_client_metrics_as_the_tool(node: KraftNode, capsys: pytest.CaptureFixture[str]) -> None:
    assert same(node, capsys, "--list") == [""]  # none: the tool prints one empty line
    assert same(node, capsys, "--describe") == []
    assert tool(node, "--alter", "--name", "cm-tool", "--metrics", "org.apache.kafka.producer.,org.apache.kafka.",
                "--interval", "5000", "--match", "client_id=app-1,client_software_name=apache-kafka-java") == [
        "Altered client metrics config for cm-tool."
    ]  # fmt: skip
    code, out, _ = ours(node, capsys, "--alter", "--resource", "cm-ours", "--interval", "1000")
    assert (code, out) == (0, ["Altered client metrics config for cm-ours."])
    assert sorted(same(node, capsys, "--list")) == ["cm-ours", "cm-tool"]  # in the broker's order, as the tool
    described = same(node, capsys, "--describe")
    assert "  interval.ms=1000" in described and "  match=client_id=app-1,client_software_name=apache-kafka-java" in (
        described
    )  # fmt: skip
    same(node, capsys, "--describe", "--resource", "cm-tool")
    assert same(node, capsys, "--describe", "--resource", "nope") == [
        "The client metric resource nope doesn't exist and doesn't have dynamic config."
    ]

    # an empty value resets the config (interval.ms back to its default)
    assert ours(node, capsys, "--alter", "--resource", "cm-tool", "--interval", "")[0] == 0
    assert "  interval.ms=300000" in tool(node, "--describe", "--name", "cm-tool")

    # a pattern Kafka refuses: its words, exit 1, nothing changed
    before = tool(node, "--describe", "--name", "cm-ours")
    code, out, err = ours(node, capsys, "--alter", "--resource", "cm-ours", "--match", "client_id=[")
    assert (code, out) == (1, [])
    assert "INVALID_CONFIG: Illegal client matching pattern: client_id=[" in err
    assert tool(node, "--describe", "--name", "cm-ours") == before

    code, out, _ = ours(node, capsys, "--delete", "--resource", "cm-ours", "--yes")
    assert (code, out) == (0, ["Deleted client metrics config for cm-ours."])
    assert tool(node, "--list") == ["cm-tool"]
