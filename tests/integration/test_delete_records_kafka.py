"""`kafkatop delete-records` against a real Apache Kafka 4.1 (KAFKA_HOME), beside kafka-delete-records.sh on the same
node: the same offset file format, the same lines (kafkatop in the file's order; the tool's order changes from run to
run), the same error line for an offset past the end, and the log start offsets Kafka then reports
(kafka-get-offsets.sh --time -2).

One combined node on ports 30550-30559. Run: KAFKA_HOME=/opt/kafka_2.13-4.1.0 .venv/bin/python -m pytest -q -m kafka \
  tests/integration/test_delete_records_kafka.py
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafkatop.tui.cli.main import main
from tests.integration.test_real_kafka import (
    KraftNode,
    create_topic,
    kafka_tool,
    ports_in,
    produce,
    running_node,
)

pytestmark = pytest.mark.kafka

TOPICS = ("orders", "payments")


@pytest.fixture(scope="module")
def kafka(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[KraftNode]:
    with running_node(kafka_home, tmp_path_factory.mktemp("delete-records"), ports=ports_in(30550, 30560)) as node:
        for topic in TOPICS:
            create_topic(node, topic, 3)
            produce(node, topic, {0: 10, 1: 10, 2: 10})
        yield node


def offsets_file(path: Path, topic: str, offsets: dict[int, int]) -> Path:
    partitions = [{"topic": topic, "partition": p, "offset": o} for p, o in offsets.items()]
    path.write_text(json.dumps({"partitions": partitions, "version": 1}))
    return path


def log_starts(node: KraftNode, scratch: Path, topic: str) -> dict[int, int]:
    out = kafka_tool(node, scratch, "kafka-get-offsets.sh", "--topic", topic, "--time", "-2")
    return {int(p): int(o) for _, p, o in (line.split(":") for line in out.splitlines())}


def test_the_same_lines_as_kafka_delete_records(
    kafka: KraftNode, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The same deletion on two topics of the same shape: kafkatop on one, the tool on the other.
    asked = {0: 4, 1: -1, 2: 99}  # below 4; every record; past the end (OFFSET_OUT_OF_RANGE)
    ours_file = offsets_file(tmp_path / "ours.json", "orders", asked)
    code = main(
        ["delete-records", "--bootstrap-server", kafka.bootstrap, "--offset-json-file", str(ours_file), "--yes"]
    )
    ours = capsys.readouterr().out.splitlines()
    theirs_file = offsets_file(tmp_path / "theirs.json", "payments", asked)
    theirs = kafka_tool(kafka, tmp_path, "kafka-delete-records.sh", "--offset-json-file", str(theirs_file))
    assert code == 1  # a partition failed: said on its line, and in the exit status
    assert (
        ours[:2]
        == theirs.splitlines()[:2]
        == ["Executing records delete operation", "Records delete operation completed:"]
    )
    assert sorted(line.replace("orders", "payments") for line in ours[2:]) == sorted(theirs.splitlines()[2:])
    assert [line.split("\t")[0] for line in ours[2:]] == [f"partition: orders-{p}" for p in asked]  # the file's order
    assert log_starts(kafka, tmp_path, "orders") == log_starts(kafka, tmp_path, "payments") == {0: 4, 1: 10, 2: 0}


def test_bad_files_are_refused_before_anything_is_sent(
    kafka: KraftNode, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = log_starts(kafka, tmp_path, "orders")
    twice = tmp_path / "twice.json"
    twice.write_text('{"partitions": [{"topic": "orders", "partition": 2, "offset": 1}, '
                     '{"topic": "orders", "partition": 2, "offset": 2}], "version": 1}')  # fmt: skip
    for path, said in (
        (tmp_path / "missing.json", "file not found"),
        (twice, "Offset json file contains duplicate topic partitions: orders-2"),
    ):
        code = main(["delete-records", "--bootstrap-server", kafka.bootstrap, "--offset-json-file", str(path), "--yes"])
        assert code == 2
        assert said in capsys.readouterr().err
    # Without --yes and no terminal to ask on: nothing deleted, and said how to go ahead.
    plain = offsets_file(tmp_path / "plain.json", "orders", {2: 1})
    code = main(["delete-records", "--bootstrap-server", kafka.bootstrap, "--offset-json-file", str(plain)])
    assert code == 2 and "add --yes to delete without asking" in capsys.readouterr().err
    assert log_starts(kafka, tmp_path, "orders") == before
