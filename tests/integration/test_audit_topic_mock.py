"""A context's `audit-topic` on librdkafka's mock cluster, over real sockets: a headless write's entry is also a record
of that topic (key the cluster's id, value the trail's JSON line), and so is a write of the live view; a topic that is
not there is one line after the command, which still did its write and kept its entry in the local trail; a
read-only context sends nothing there. (The mock takes no CreateTopics from a client: the writes here are produce.)"""

from __future__ import annotations

import asyncio
import io
import json
from contextlib import ExitStack
from pathlib import Path

import pytest
from confluent_kafka import Consumer

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.tui.cli.compose import compose_app
from kafkatop.tui.cli.contexts import apply_context
from kafkatop.tui.cli.main import main
from kafkatop.tui.cli.parser import build_parser
from tests.conftest import pilot_until

pytestmark = pytest.mark.timeout(90)


def _context(folder: Path, bootstrap: str, topic: str, extra: str = "") -> None:
    (folder / "kafkatop.toml").write_text(
        f'[contexts.ops]\nbootstrap-server = "{bootstrap}"\naudit-topic = "{topic}"\n{extra}', encoding="utf-8"
    )


def _records(bootstrap: str, topic: str) -> list[tuple[bytes | None, dict[str, object]]]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "reader", "auto.offset.reset": "earliest"})
    try:
        consumer.subscribe([topic])
        found = []
        for _ in range(10):
            for msg in consumer.consume(10, timeout=1.0):
                if msg.error() is None:
                    found.append((msg.key(), json.loads(msg.value())))
            if found:
                break
        return found
    finally:
        consumer.close()


def _trail(folder: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (folder / "state" / "kafkatop" / "audit.jsonl").read_text().splitlines()]


def test_a_command_s_entry_is_also_a_record_of_the_audit_topic(
    mock_cluster: MockCluster, isolated: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    mock_cluster.create_topic("audit", 1, 1)
    mock_cluster.create_topic("pay", 1, 1)
    _context(isolated, mock_cluster.bootstrap_servers, "audit")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"one\ntwo\n")))
    assert main(["produce", "--context", "ops", "--topic", "pay"]) == 0
    assert "audit-topic" not in capsys.readouterr().err
    ((key, value),) = _records(mock_cluster.bootstrap_servers, "audit")
    (kept,) = _trail(isolated)
    assert value == kept and (value["action"], value["target"], value["result"]) == ("produce", "pay", "ok")
    assert key == str(kept["cluster_id"]).encode() and kept["cluster_id"]


def test_a_missing_audit_topic_is_one_line_and_the_write_and_its_entry_stay(
    mock_cluster: MockCluster, isolated: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    mock_cluster.create_topic("pay", 1, 1)
    _context(isolated, mock_cluster.bootstrap_servers, "nope")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"one\n")))
    assert main(["produce", "--context", "ops", "--topic", "pay"]) == 0
    said = [line for line in capsys.readouterr().err.splitlines() if "audit-topic" in line]
    trail = isolated / "state" / "kafkatop" / "audit.jsonl"
    assert said == [
        "kafkatop: audit-topic 'nope': no such topic on this cluster: create it (kafkatop create-topic nope); "
        f"kafkatop never does: this write is in the local trail ({trail}) only"
    ]
    assert [e["action"] for e in _trail(isolated)] == ["produce"]


def test_a_read_only_context_sends_nothing_to_its_audit_topic(
    mock_cluster: MockCluster, isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mock_cluster.create_topic("audit", 1, 1)
    _context(isolated, mock_cluster.bootstrap_servers, "audit", "read-only = true\n")
    assert main(["create-topic", "t", "--context", "ops", "--partitions", "1", "--replication-factor", "1"]) != 0
    assert "read-only" in capsys.readouterr().err
    assert _records(mock_cluster.bootstrap_servers, "audit") == []


async def test_a_write_of_the_live_view_is_a_record_of_the_audit_topic(mock_cluster: MockCluster,
                                                                       isolated: Path) -> None:  # fmt: skip
    mock_cluster.create_topic("audit", 1, 1)
    _context(isolated, mock_cluster.bootstrap_servers, "audit")
    args = build_parser().parse_args(["--context", "ops", "--interval", "0.5"])
    apply_context(args)
    with ExitStack() as stack:
        app = compose_app(args, stack, terminal=False)
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot_until(pilot, lambda: app.view.cluster is not None, "the first poll")
            assert app.sources.topic_admin is not None
            with pytest.raises(KafkatopError):  # the mock refuses a client's CreateTopics: a failed write, audited
                await asyncio.to_thread(app.sources.topic_admin().create_topic, "t1", 1, 1)
    ((_key, value),) = _records(mock_cluster.bootstrap_servers, "audit")
    assert (value["source"], value["action"], value["target"], value["result"]) == ("live view", "create topic",
                                                                                   "t1", "failed")  # fmt: skip
    assert value == _trail(isolated)[0]
