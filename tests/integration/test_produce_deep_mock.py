"""`kafkatop produce --json` given a line nested too deeply, against the librdkafka mock cluster: a one-line error
naming the line, exit 2, no traceback — and the lines before it as for any bad line: from a --file (read whole first)
nothing is sent, from stdin the lines before it are sent and nothing after it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from confluent_kafka import Consumer, TopicPartition

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.json_text import MAX_DEPTH

pytestmark = pytest.mark.timeout(60)

DEEP = b'{"payload": ' + b"[" * 1000 + b"]" * 1000 + b"}"
LINES = b'{"payload": "a"}\n{"payload": "b"}\n' + DEEP + b'\n{"payload": "c"}\n'
SAID = f"kafkatop: line 3: nested too deeply (more than {MAX_DEPTH} levels)"


def produce(bootstrap: str, tmp_path: Path, *argv: str, stdin: bytes = b"") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path)}
    return subprocess.run(
        [sys.executable, "-m", "kafkatop.tui.cli", "produce", "--topic", "t", "--json", "--bootstrap-server", bootstrap,
         *argv], input=stdin.decode(), capture_output=True, text=True, cwd=tmp_path, env=env, timeout=50, check=False,
    )  # fmt: skip


def end_offset(bootstrap: str) -> int:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "kafkatop-test"})
    try:
        return int(consumer.get_watermark_offsets(TopicPartition("t", 0), 10)[1])
    finally:
        consumer.close()


def test_a_line_nested_too_deeply_is_a_one_line_error_with_its_number(
    mock_cluster: MockCluster, tmp_path: Path
) -> None:
    mock_cluster.create_topic("t", 1, 1)
    bootstrap = mock_cluster.bootstrap_servers
    records = tmp_path / "records.jsonl"
    records.write_bytes(LINES)

    from_file = produce(bootstrap, tmp_path, "--file", str(records))
    assert (from_file.returncode, from_file.stdout) == (2, "")
    assert from_file.stderr.splitlines() == ["kafkatop: nothing was sent: --file is read whole before anything is sent",
                                             SAID]  # fmt: skip
    assert end_offset(bootstrap) == 0

    from_stdin = produce(bootstrap, tmp_path, stdin=LINES)
    assert from_stdin.returncode == 2 and "Traceback" not in from_stdin.stderr
    assert from_stdin.stderr.splitlines() == [
        "kafkatop: 2 records produced; stopped at line 3: nothing after it was sent", SAID,
    ]  # fmt: skip
    assert end_offset(bootstrap) == 2  # the two lines before it, and not the one after
