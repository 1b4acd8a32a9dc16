"""The commands print names and records others chose as text a terminal shows (tests/fixtures/hostile.py): at a
terminal (a pseudo-terminal here, as a person runs them) every control character is escaped, `\\x1b`, `\\u202e`; to a
pipe, byte for byte, as Kafka's tools and kcat print them; `--control-chars raw|escape` says otherwise. On the
librdkafka mock: its topics may be named anything, its records hold anything. A command's output is escaped as a
whole, so a newline in a name still ends its line (`lines`); a record's, consume escapes as its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Producer

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.text import printable
from tests.fixtures.hostile import NAMES, SHORT, at_terminal, raw_controls, seen

TOPIC = "orders"


@pytest.fixture(scope="module")
def mock() -> Iterator[MockCluster]:
    with MockCluster(1) as cluster:
        for name in SHORT.values():
            cluster.create_topic(name, 1, 1)
        cluster.create_topic(TOPIC, 1, 1)
        producer = Producer({"bootstrap.servers": cluster.bootstrap_servers})
        for name in SHORT.values():
            producer.produce(TOPIC, value=name.encode(), key=name.encode())
        assert producer.flush(10) == 0
        yield cluster


def command(*argv: str) -> list[str]:
    return [sys.executable, "-m", "kafkatop.tui.cli", *argv]


def piped(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[bytes]:
    """`kafkatop ARGV` with its output to a pipe, as bytes."""
    return subprocess.run(command(*argv), cwd=tmp_path, env=env_for(tmp_path), stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=60, check=False)  # fmt: skip


def env_for(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("KAFKA_HOME", "XDG_STATE_HOME")}
    return env | {"XDG_STATE_HOME": str(tmp_path / "xdg"), "COLUMNS": "200"}


def test_describe_at_a_terminal_escapes_names_and_to_a_pipe_keeps_them(mock: MockCluster, tmp_path: Path) -> None:
    argv = ["describe", "--bootstrap-server", mock.bootstrap_servers, "--timeout", "5"]
    code, shown = at_terminal(command(*argv), str(tmp_path), env_for(tmp_path))
    text = shown.decode().replace("\r\n", "\n")  # the terminal's own CR LF
    assert code == 0, text
    assert raw_controls(text) == []
    for name in SHORT.values():
        assert printable(name, lines=True) in text, name
    done = piped(tmp_path, *argv)
    assert done.returncode == 0, done.stderr
    for name in SHORT.values():
        assert f"Topic: {name}\t".encode() in done.stdout, name  # as kafka-topics.sh prints it: as it is
    escaped = piped(tmp_path, *argv, "--control-chars", "escape").stdout.decode()
    assert raw_controls(escaped.replace("\r\n", "")) == [] and seen(NAMES["title"]) in escaped


def test_consume_at_a_terminal_escapes_records_and_to_a_pipe_keeps_their_bytes(mock: MockCluster,
                                                                                tmp_path: Path) -> None:  # fmt: skip
    argv = ["consume", "--topic", TOPIC, "--bootstrap-server", mock.bootstrap_servers, "--timeout", "5"]
    code, shown = at_terminal(command(*argv, "--format", "%k %s\\n"), str(tmp_path), env_for(tmp_path))
    lines = shown.decode().replace("\r\n", "\n").splitlines()  # the terminal's own CR LF
    assert code == 0, lines
    assert raw_controls("\n".join(lines)) == []
    assert [f"{seen(n)} {seen(n)}" for n in SHORT.values()] == lines[: len(SHORT)]
    done = piped(tmp_path, *argv, "--format", "%k %s\\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == b"".join(f"{n} {n}\n".encode() for n in SHORT.values())  # as kcat: byte for byte
    code, shown = at_terminal(command(*argv, "--json"), str(tmp_path), env_for(tmp_path))
    text = shown.decode().replace("\r\n", "\n")
    records = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    assert code == 0 and len(records) == len(SHORT)
    assert raw_controls(text) == []
    code, shown = at_terminal(command(*argv, "--control-chars", "raw"), str(tmp_path), env_for(tmp_path))
    assert code == 0 and NAMES["title"].encode() in shown  # asked for raw: as it is, even at a terminal
