"""The Spark service process and its JSON-lines protocol: a real service (real SparkSession, local[2]) reading the
librdkafka mock cluster over real sockets; the failures that stop a session from starting; `kafkatop counts`."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from confluent_kafka import Producer

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.spark import JobProgress, SparkJobError, SparkServiceError
from kafkatop.spark.client import SparkServiceClient
from tests.conftest import pilot_until

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def mock() -> Iterator[MockCluster]:
    with MockCluster(3) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkServiceClient]:
    log = tmp_path_factory.mktemp("spark-service") / "service.log"
    client = SparkServiceClient("local[2]", log_path=log)
    client.start()
    try:
        yield client
    finally:
        client.close()


def fill(bootstrap: str, topic: str, count: int, partitions: int, value: bytes = b"x") -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "batch.num.messages": 10000})
    for i in range(count):
        while True:
            try:
                producer.produce(topic, value=value, partition=i % partitions)
                break
            except BufferError:  # librdkafka's queue is full (a slow mock on a busy machine): let it drain
                producer.poll(0.1)
        if i % 10000 == 0:
            producer.poll(0)
    assert producer.flush(60) == 0


def test_counts_with_progress_then_errors_without_losing_the_service(
    mock: MockCluster, service: SparkServiceClient
) -> None:
    info = service.wait_ready()
    assert info.master == "local[2]" and info.default_parallelism == 2 and info.warm
    assert psutil.pid_exists(info.pid)

    mock.create_topic("clicks", 3, 1)
    fill(mock.bootstrap_servers, "clicks", 3000, 3)
    progress: list[JobProgress] = []
    counts = service.counts(mock.bootstrap_servers, "clicks", on_progress=progress.append)
    assert counts.records == 3000 and [p.records for p in counts.partitions] == [1000, 1000, 1000]
    assert counts.master == "local[2]"
    assert progress and progress[-1].done <= progress[-1].total
    assert any(p.total >= 3 for p in progress)  # at least the three read tasks

    with pytest.raises(SparkJobError, match="topic 'nowhere' does not exist"):
        service.counts(mock.bootstrap_servers, "nowhere")
    assert service.counts(mock.bootstrap_servers, "clicks").records == 3000  # still serving


def test_a_broker_dying_during_a_read_is_an_error_not_a_crash(mock: MockCluster, service: SparkServiceClient) -> None:
    """The leader of the only replica goes down while Spark's tasks read: the job fails with the task's reason, and
    the service goes on serving."""
    mock.create_topic("long", 1, 1)
    fill(mock.bootstrap_servers, "long", 200_000, 1)
    leader = 1  # the mock puts a 1-replica partition 0 on broker 1

    def on_progress(p: JobProgress) -> None:
        if p.total and not mock.is_down(leader):
            mock.set_broker_down(leader)  # the read has begun: planning is done, tasks are running

    try:
        with pytest.raises(SparkJobError) as failure:
            # 100 ranges of 2,000 records, two tasks at a time: most start after the broker went down.
            service.counts(
                mock.bootstrap_servers,
                "long",
                max_records_per_partition=2000,
                poll_timeout_ms=1500,
                on_progress=on_progress,
            )
    finally:
        mock.set_broker_up(leader)
    assert "long-0: no records for 1.5 s at offset" in str(failure.value)
    assert "Traceback" not in str(failure.value)
    assert service.counts(mock.bootstrap_servers, "long").partitions[0].records > 0


def test_close_stops_the_service_and_its_jvm(tmp_path: Path) -> None:
    client = SparkServiceClient("local[1]", log_path=tmp_path / "service.log")
    client.start()
    info = client.wait_ready()
    family = [psutil.Process(info.pid), *psutil.Process(info.pid).children(recursive=True)]
    assert any("java" in p.name() for p in family), "Spark's JVM is a child of the service"
    client.close()
    assert client.state == "stopped"
    gone, alive = psutil.wait_procs(family, timeout=10)
    assert not alive


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("java", "Java not found: Spark needs a Java runtime"),
        ("pyarrow", "pyarrow is not installed"),
        ("master", "is not reachable"),
        ("bad-master", "is not a Spark master"),
    ],
)
def test_what_stops_a_session_from_starting_is_said_plainly(case: str, expected: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    master = "local[1]"
    if case == "java":
        env["PATH"] = str(tmp_path)  # no java here; the service's python is started by path
    elif case == "pyarrow":
        # A test double for an environment without pyarrow: a package of that name that fails to import.
        (tmp_path / "pyarrow").mkdir()
        (tmp_path / "pyarrow" / "__init__.py").write_text("raise ImportError('No module named pyarrow')\n")
        env["PYTHONPATH"] = str(tmp_path)
    elif case == "master":
        master = f"spark://127.0.0.1:{_free_port()}"
    else:
        master = "yarn"
    client = SparkServiceClient(master, env=env)
    try:
        with pytest.raises(SparkServiceError, match=expected):
            client.wait_ready(timeout_s=60)
    finally:
        client.close()
    assert client.state == "failed"


def test_kafkatop_counts_command(mock: MockCluster) -> None:
    mock.create_topic("cli", 2, 1)
    fill(mock.bootstrap_servers, "cli", 50, 2, value=b"hello")
    run = subprocess.run(
        [sys.executable, "-m", "kafkatop.tui.cli", "counts", "--topic", "cli", "--master", "local[1]", "--json",
         "--bootstrap-server", mock.bootstrap_servers],
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    report: dict[str, Any] = json.loads(run.stdout)
    assert report["records"] == 50 and report["bytes"] == 250
    assert [(p["partition"], p["records"], p["check"]) for p in report["partitions"]] == [(0, 25, None), (1, 25, None)]

    missing = subprocess.run(
        [sys.executable, "-m", "kafkatop.tui.cli", "counts", "--topic", "cli", "--master", "spark://127.0.0.1:1",
         "--bootstrap-server", mock.bootstrap_servers],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert missing.returncode == 1
    assert "Spark master spark://127.0.0.1:1 is not reachable" in missing.stderr
    assert "Traceback" not in missing.stderr


async def test_the_spark_panel_counts_through_the_service(mock: MockCluster, service: SparkServiceClient) -> None:
    """The app's Spark tab with a real service: pick the topic, `g`, the table fills; a missing topic is a message."""
    from textual.widgets import DataTable, Select, Static

    from kafkatop.backends.kafka.admin.admin import AdminSource
    from kafkatop.spark.counter import SparkCounts
    from kafkatop.tui.live.app import KafkatopApp
    from kafkatop.tui.live.sources import Settings, Sources
    from kafkatop.tui.live.tabs.spark.pane import SparkPane

    mock.create_topic("panel", 2, 1)
    fill(mock.bootstrap_servers, "panel", 40, 2)
    counter = SparkCounts(KafkaConnection.parse(mock.bootstrap_servers))
    counter.service = service  # the module's warm service: one JVM for the whole module
    admin = AdminSource(KafkaConnection.parse(mock.bootstrap_servers), timeout_s=2.0)
    app = KafkatopApp(Sources(admin.poll, spark=counter), Settings(poll_interval_s=0.5))
    async with app.run_test(size=(120, 34)) as pilot:
        await pilot.press(
            str([t.id for t in app.main_screen.visible_tabs()].index("tab-spark") + 1)
        )  # no Log or Quorum tab here
        panel = app.query_one(SparkPane)
        await pilot_until(pilot, lambda: "panel" in panel._topics, timeout_s=30.0)
        panel.query_one("#spark-topic", Select).value = "panel"
        await pilot.press("g")
        table = panel.query_one("#spark-table", DataTable)
        await pilot_until(pilot, lambda: table.row_count == 2, timeout_s=120)
        assert [str(table.get_row_at(i)[1]) for i in range(2)] == ["20", "20"]
        summary = panel.query_one("#spark-summary", Static)
        assert "panel: 40 records" in str(summary.render())
        # Live counts: a streaming query's micro-batches replace the table; `l` again stops it.
        await pilot.press("l")
        await pilot_until(pilot, lambda: "live, batch" in str(summary.render()), timeout_s=120)
        assert panel.stream_id is not None
        fill(mock.bootstrap_servers, "panel", 10, 2)
        await pilot_until(pilot, lambda: "panel: 50 records" in str(summary.render()), timeout_s=60)
        await pilot.press("l")
        assert panel.stream_id is None
    admin.close()
