"""The Brokers tab's bytes on disk against a real Kafka 4.1 KRaft node: each broker's bytes, as the live view's
`log_dirs` source reads them (LogDirsPoll) and the tab shows them, equal the sum of its partitions' sizes in
`kafka-log-dirs.sh --describe`'s JSON.

The node is one combined broker+controller (id 1) on ports 30400–30499 (KAFKATOP_TEST_PORTS moves the range), its data
in pytest's tmp dir; it is stopped at the end. Set KAFKA_HOME to run it."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.log_dirs import LogDirsPoll
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.tui.format import data_size
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Settings, Sources
from kafkatop.tui.live.tabs.brokers.pane import BrokerTable
from tests.conftest import pilot_until
from tests.integration import test_real_kafka
from tests.integration.test_kafka_tools_kafka import ports, produce, tool
from tests.integration.test_real_kafka import KraftNode, start_node, stop_node

pytestmark = pytest.mark.kafka


@pytest.fixture(scope="module")
def kafka(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[KraftNode]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KAFKATOP_TEST_PORTS", os.environ.get("KAFKATOP_TEST_PORTS", "30400-30499"))
        free = ports()
        patch.setattr(test_real_kafka, "free_port", lambda: next(free))
        node = start_node(kafka_home, tmp_path_factory.mktemp("disks"))
    try:
        admin = AdminClient({"bootstrap.servers": node.bootstrap})
        for future in admin.create_topics([NewTopic(t, n, 1) for t, n in {"orders": 3, "pay": 1}.items()]).values():
            future.result(30)
        produce(node)
        yield node
    finally:
        stop_node(node.proc)


def tool_bytes(node: KraftNode, tmp_path: Path) -> dict[int, int]:
    """Each broker's sum of its partitions' sizes in kafka-log-dirs.sh --describe's JSON line."""
    document = json.loads(tool(node, tmp_path, "kafka-log-dirs.sh", "--describe").splitlines()[2])
    return {
        b["broker"]: sum(p["size"] for d in b["logDirs"] if d["error"] is None for p in d["partitions"])
        for b in document["brokers"]
    }


async def test_the_brokers_tab_bytes_are_kafka_log_dirs_sum_per_broker(kafka: KraftNode, tmp_path: Path) -> None:
    expected = tool_bytes(kafka, tmp_path)
    connection = KafkaConnection.parse(kafka.bootstrap)
    cluster = AdminSource(connection, timeout_s=10.0)
    sources = Sources(cluster.poll, log_dirs=LogDirsPoll(connection, timeout_s=10.0))
    app = KafkatopApp(sources, Settings(poll_interval_s=86_400, log_dirs_interval_s=86_400))
    try:
        async with app.run_test(size=(120, 30)) as pilot:
            await pilot.press("2")
            table = app.query_one(BrokerTable)
            await pilot_until(pilot, lambda: app.view.log_dirs is not None and table.row_count == 1, "the disks", 60)
            assert app.view.log_dirs is not None
            print(f"kafka-log-dirs.sh: {expected}; kafkatop: {app.view.log_dirs.bytes_by_broker}")
            assert app.view.log_dirs.bytes_by_broker == expected and expected[1] > 0
            await pilot_until(pilot, lambda: str(table.get_cell("1", "on disk")) == data_size(expected[1]), "bytes")
    finally:
        cluster.close()
