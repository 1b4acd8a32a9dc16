"""What the Spark tab says, through a real Spark service (a real SparkSession, local[1]) reading the librdkafka mock
cluster: starting while the JVM launches (with the seconds it takes), ready with the session's master and version,
counting with Spark's job and stage from its status tracker, the last count, streaming, stopped; and failed, with
what to do, when the service dies while starting or cannot start at all."""

from __future__ import annotations

import os
import re
import signal
import socket
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from textual.widgets import Select

from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.spark import SparkStatus
from kafkatop.spark.client import SparkServiceClient
from kafkatop.tui.live.tabs.spark.status import status_text
from tests.conftest import pilot_until, wait_for
from tests.integration.test_spark_service import fill

pytestmark = pytest.mark.timeout(400)


@pytest.fixture(scope="module")
def mock() -> Iterator[MockCluster]:
    with MockCluster(3) as cluster:
        yield cluster


async def test_the_tab_says_starting_while_the_jvm_launches_then_ready_counting_and_the_last_count(
    mock: MockCluster, tmp_path: Path
) -> None:
    """Before: showing the tab launched Spark's JVM, and for the 10-20 s it took the tab said "Spark not started
    (local[1]); it starts when you count"."""
    from kafkatop.backends.kafka.admin.admin import AdminSource
    from kafkatop.spark.counter import SparkCounts
    from kafkatop.tui.live.app import KafkatopApp
    from kafkatop.tui.live.sources import Settings, Sources
    from kafkatop.tui.live.tabs.spark.pane import SparkPane

    mock.create_topic("states", 2, 1)
    fill(mock.bootstrap_servers, "states", 3000, 2)
    counter = SparkCounts(KafkaConnection.parse(mock.bootstrap_servers), master="local[1]",
                          log_path=tmp_path / "service.log")  # fmt: skip
    seen: list[SparkStatus] = []
    counter.watch(seen.append)
    admin = AdminSource(KafkaConnection.parse(mock.bootstrap_servers), timeout_s=2.0)
    app = KafkatopApp(Sources(admin.poll, spark=counter), Settings(poll_interval_s=0.5))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            panel = app.query_one(SparkPane)

            def line() -> str:
                return str(panel.query_one("#spark-state").render())

            await pilot.pause()
            assert counter.service.pid is None, "nothing launches Spark before the tab is shown"
            spark_key = str(
                [t.id for t in app.main_screen.visible_tabs()].index("tab-spark") + 1
            )  # 7 with no quorum tab
            await pilot.press(spark_key)
            await pilot_until(pilot, lambda: "Spark starting (local[1])" in line(), "starting", timeout_s=5)
            assert counter.service.state == "starting" and counter.service.pid is not None
            assert psutil.pid_exists(counter.service.pid), "the service is launching while the tab says so"
            await pilot_until(pilot, lambda: re.search(r"… [1-9]\d* s$", line()), "elapsed seconds", timeout_s=60)
            await pilot_until(pilot, lambda: "Spark ready · local[1] · Spark 4." in line(), "ready", timeout_s=240)
            assert [s.step for s in seen if s.phase == "starting"] == ["launching", "jvm", "warm-up"]
            assert "not started" not in {s.phase for s in seen[1:]}

            await pilot_until(pilot, lambda: "states" in panel._topics, "the topic listed", timeout_s=30)
            panel.query_one("#spark-topic", Select).value = "states"
            await pilot.press("g")
            await pilot_until(
                pilot, lambda: "3,000 records of states in" in line(), "the last count", timeout_s=120
            )  # fmt: skip
            assert re.search(r"· last count: \d\d:\d\d:\d\d UTC, 3,000 records of states in \d+\.\d s$", line())
            counting = [s for s in seen if s.phase == "counting"]
            assert counting and {s.topic for s in counting} == {"states"}
            tracked = [s.progress for s in counting if s.progress is not None]
            assert tracked, "the status tracker's progress reached the state"
            assert all(p.job_id is not None for p in tracked)
            assert any(p.stage_id is not None and p.stage for p in tracked), "an active stage was seen"
            assert any(p.total >= 2 for p in tracked)  # at least the two read tasks

            await pilot.press("l")
            await pilot_until(
                pilot, lambda: re.search(r"Spark streaming live counts of states · local\[1\] · batch \d+", line()),
                "streaming", timeout_s=120,
            )  # fmt: skip
            await pilot.press("l")
            await pilot_until(pilot, lambda: line().startswith("● Spark ready"), "ready again", timeout_s=60)
    finally:
        family = [psutil.Process(counter.service.pid)] if counter.service.pid else []
        family += [c for p in family for c in p.children(recursive=True)]
        counter.close()
        admin.close()
    assert seen[-1].phase == "stopped" and seen[-1].last_count is not None
    _, alive = psutil.wait_procs(family, timeout=15)
    assert not alive, "the service and its JVM are gone"


def test_a_service_killed_while_its_jvm_starts_says_failed_with_what_to_do(tmp_path: Path) -> None:
    client = SparkServiceClient("local[1]", log_path=tmp_path / "service.log")
    seen: list[SparkStatus] = []
    client.watch(seen.append)
    client.start()
    try:
        wait_for(lambda: client.status.step == "jvm", timeout_s=60, what="the JVM launching")
        assert client.pid is not None
        os.killpg(client.pid, signal.SIGKILL)  # the service's own group: the service and the JVM it launched
        wait_for(lambda: client.status.phase == "failed", timeout_s=30, what="failed")
    finally:
        client.close()
    status = client.status
    assert status.phase == "failed", "closing a failed service keeps its reason on screen"
    assert status.reason == f"the Spark service exited (code -9); see {tmp_path / 'service.log'}"
    assert str(status_text(status, status.since)).endswith("· g starts it again")
    assert [s.phase for s in seen] == ["not started", "starting", "starting", "failed"]


def test_a_master_that_does_not_answer_says_failed_and_how_to_start_one() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = SparkServiceClient(f"spark://127.0.0.1:{port}")
    try:
        client.start()
        wait_for(lambda: client.status.phase == "failed", timeout_s=60, what="failed")
    finally:
        client.close()
    assert client.status.reason.startswith(f"Spark master spark://127.0.0.1:{port} is not reachable")
    assert "Start one with $SPARK_HOME/sbin/start-master.sh" in client.status.reason
    assert "\n" not in client.status.reason


async def test_showing_the_tab_warms_up_once_and_the_seconds_move() -> None:
    """The panel's part alone, with a test double of the port that pushes "starting" from another thread when warmed
    up, as the service client does; the app's clock is moved by hand."""
    from dataclasses import replace

    from kafkatop.tui.live.app import KafkatopApp
    from kafkatop.tui.live.sources import Sources
    from kafkatop.tui.live.tabs.spark.pane import SparkPane
    from tests.fixtures.snapshots import TAKEN_AT, RecordedControl, RecordedSparkCounts, kraft_lab
    from tests.snapshots.test_app_snapshots import FROZEN

    class WarmsUp(RecordedSparkCounts):
        warm_ups = 0

        def warm_up(self) -> None:
            self.warm_ups += 1
            self.push(SparkStatus("starting", "local[*]", TAKEN_AT, step="jvm"))

    now = [TAKEN_AT]
    cluster, nodes, quorum = kraft_lab()
    spark = WarmsUp(SparkStatus("not started", "local[*]", TAKEN_AT, reason="it starts when the Spark tab is shown"))
    app = KafkatopApp(Sources(lambda: cluster, RecordedControl(nodes), lambda: quorum, spark=spark), FROZEN,
                      clock=lambda: now[0])  # fmt: skip
    async with app.run_test(size=(80, 24)) as pilot:
        panel = app.query_one(SparkPane)

        def line() -> str:
            return str(panel.query_one("#spark-state").render())

        await pilot.pause()
        assert spark.warm_ups == 0 and "not started (local[*]): it starts when the Spark tab is shown" in line()
        await pilot.press("8")
        await pilot_until(pilot, lambda: "Spark starting (local[*]): launching Spark's JVM… 0 s" in line(), timeout_s=5)
        now[0] += 5
        await pilot_until(pilot, lambda: line().endswith("… 5 s"), "the next second's redraw", timeout_s=5)
        await pilot.press("1")
        await pilot.press("8")
        await pilot.pause()
        assert spark.warm_ups == 1, "shown again: Spark is not launched twice"
        spark.push(replace(spark.status, phase="ready", master="local[2]", spark_version="4.0.1", cores=2))
        await pilot_until(pilot, lambda: line() == "● Spark ready · local[2] · Spark 4.0.1 · 2 cores", timeout_s=5)
