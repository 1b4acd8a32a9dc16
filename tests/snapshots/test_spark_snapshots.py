"""The Spark tab at 80x24 and 120x36 in each state it says (starting with its elapsed seconds, counting with Spark's
job and stage, ready with the last count and the table, failed with what to do), from recorded data: a fixed
SparkStatus pushed by RecordedSparkCounts, the app's clock fixed at TAKEN_AT, no Spark, no network."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from kafkatop.backends.model.spark import JobProgress, LastCount, SparkStatus
from kafkatop.tui.live.app import KafkatopApp
from kafkatop.tui.live.sources import Sources
from tests.fixtures.snapshots import TAKEN_AT, RecordedControl, RecordedSparkCounts, kraft_lab
from tests.snapshots.test_app_snapshots import FROZEN, settled

SIZES = {"80x24": (80, 24), "120x36": (120, 36)}
LAST = LastCount(TAKEN_AT - 95, "purchases", 347, 2.3)
READY = SparkStatus("ready", "local[2]", TAKEN_AT - 60, spark_version="4.0.1", cores=2)
STATES = {
    "starting": SparkStatus("starting", "local[*]", TAKEN_AT - 7, step="jvm"),
    "counting": SparkStatus(
        "counting",
        "local[2]",
        TAKEN_AT - 3,
        spark_version="4.0.1",
        cores=2,
        topic="purchases",
        progress=JobProgress("2", 2, 4, 2, "reading Kafka", job_id=3, stage_id=5),
        last_count=LAST,
    ),
    "counted": READY,
    "failed": SparkStatus(
        "failed",
        "local[*]",
        TAKEN_AT - 1,
        reason="Java not found: Spark needs a Java runtime (17 or 21). Install a JDK and put java on PATH, or set "
        "JAVA_HOME",
    ),
}


def spark_tab(state: str) -> Callable[[Any], Awaitable[None]]:
    async def run(pilot: Any) -> None:
        await settled(pilot)
        await pilot.press("8")
        await pilot.pause()
        if state == "counted":
            await pilot.press("g")  # the double's count sets the last count, pushed like the real one
            await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    return run


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("state", list(STATES))
def test_spark_tab(snap_compare: Any, state: str, size: str) -> None:
    cluster, nodes, quorum = kraft_lab()
    spark = RecordedSparkCounts(STATES[state])
    app = KafkatopApp(Sources(lambda: cluster, RecordedControl(nodes), lambda: quorum, spark=spark), FROZEN,
                      clock=lambda: TAKEN_AT)  # fmt: skip
    assert snap_compare(app, terminal_size=SIZES[size], run_before=spark_tab(state))
