"""What the Spark tab says, from the service client's lifecycle (kafkatop.spark.status) to the state line's words
(kafkatop.tui.live.tabs.spark.status): every phase, pushed only on change, with a fixed clock."""

from __future__ import annotations

from kafkatop.backends.model.spark import (
    JobProgress,
    KeyCount,
    PartitionCounts,
    ServiceInfo,
    SparkStatus,
    TopicCounts,
)
from kafkatop.spark.status import Lifecycle
from kafkatop.tui.live.tabs.spark.status import status_text

T0 = 1_700_000_000.0  # 22:13:20 UTC


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


def counts(topic: str, records: int, elapsed_s: float) -> TopicCounts:
    part = PartitionCounts(0, records, records, 0, records - 1, None, None, 0, records, 0, 0, (KeyCount("k", 1),))
    return TopicCounts(topic, (part,), elapsed_s=elapsed_s, master="local[2]")


def lifecycle() -> tuple[Lifecycle, Clock, list[SparkStatus]]:
    clock = Clock()
    life = Lifecycle("local[*]", "it starts when the Spark tab is shown", clock)
    seen: list[SparkStatus] = []
    life.watch(seen.append)
    return life, clock, seen


def test_a_watcher_gets_the_status_at_once_then_each_change_once() -> None:
    life, clock, seen = lifecycle()
    assert [s.phase for s in seen] == ["not started"]
    assert seen[0].reason == "it starts when the Spark tab is shown"
    assert str(status_text(seen[0], T0)) == "● Spark not started (local[*]): it starts when the Spark tab is shown"

    life.starting("launching")
    clock.now += 3
    life.starting("jvm")
    life.starting("jvm")  # the same again: no new status
    clock.now += 9
    life.starting("warm-up")
    assert [(s.phase, s.step) for s in seen[1:]] == [("starting", "launching"), ("starting", "jvm"),
                                                     ("starting", "warm-up")]  # fmt: skip
    assert {s.since for s in seen[1:]} == {T0}, "starting counts from the launch, through every step"
    assert str(status_text(seen[-1], clock.now)) == ("● Spark starting (local[*]): warm-up job (Python workers)… 12 s")
    assert str(status_text(seen[2], T0 + 3)) == "● Spark starting (local[*]): launching Spark's JVM… 3 s"


def test_ready_counting_with_the_job_then_the_last_count() -> None:
    life, clock, seen = lifecycle()
    life.starting("launching")
    clock.now += 15
    life.ready(ServiceInfo("local[2]", "4.0.1", 2, 15.0, 4242, warm=True))
    assert str(status_text(life.status, clock.now)) == "● Spark ready · local[2] · Spark 4.0.1 · 2 cores"

    life.count_started("1", "purchases")
    assert life.status.phase == "counting" and life.status.progress is None
    assert str(status_text(life.status, clock.now + 1)) == "● Spark counting purchases · local[2] · planning · 1 s"
    life.progressed("1", JobProgress("1", 1, 4, 2, "reading Kafka", job_id=3, stage_id=5))
    clock.now += 2
    assert str(status_text(life.status, clock.now)) == (
        "● Spark counting purchases · local[2] · job 3, stage 5 (reading Kafka): 1/4 tasks · 2 s"
    )
    life.progressed("9", JobProgress("9", 1, 1))  # not a request of ours: ignored
    assert life.status.progress == JobProgress("1", 1, 4, 2, "reading Kafka", 3, 5)

    life.count_ended("1", counts("purchases", 347, 2.3))
    assert life.status.phase == "ready"
    assert str(status_text(life.status, clock.now)) == (
        "● Spark ready · local[2] · Spark 4.0.1 · 2 cores · last count: 22:13:37 UTC, 347 records of purchases in 2.3 s"
    )
    life.count_started("2", "nowhere")
    life.count_ended("2", None)  # a failed count leaves the last good one
    assert life.status.phase == "ready" and life.status.last_count is not None
    assert life.status.last_count.topic == "purchases"


def test_streaming_and_a_count_beside_it() -> None:
    life, clock, _ = lifecycle()
    life.ready(ServiceInfo("local[2]", "4.0.1", 2, 15.0, 4242))
    life.stream_started("1", "clicks")
    assert str(status_text(life.status, clock.now)) == (
        "● Spark streaming live counts of clicks · local[2] · waiting for the first batch"
    )
    life.stream_updated("1", 4)
    assert life.status.batch_id == 4 and life.status.streams == 1
    life.count_started("2", "orders")
    assert life.status.phase == "counting"
    assert str(status_text(life.status, clock.now)).endswith("· 1 live count running")
    life.count_ended("2", counts("orders", 10, 0.5))
    assert life.status.phase == "streaming" and life.status.batch_id == 4
    life.stream_ended("1")
    assert life.status.phase == "ready" and life.status.streams == 0


def test_failed_says_one_line_and_what_to_do_and_stays_until_the_next_start() -> None:
    life, clock, _ = lifecycle()
    life.starting("launching")
    life.count_started("1", "orders")  # waiting for the service
    life.failed("the Spark service exited (code -9); see /state/spark/service.log\n  ERROR SparkContext: boom")
    status = life.status
    assert status.phase == "failed"
    assert status.reason == "the Spark service exited (code -9); see /state/spark/service.log"
    assert str(status_text(status, clock.now)) == (
        "● Spark failed: the Spark service exited (code -9); see /state/spark/service.log · g starts it again"
    )
    life.stopped()  # closing a failed service keeps the reason on screen
    assert life.status.phase == "failed"
    clock.now += 30
    life.starting("launching")
    assert life.status.phase == "starting" and life.status.since == clock.now and life.status.reason == ""


def test_stopped_after_a_close() -> None:
    life, clock, _ = lifecycle()
    life.ready(ServiceInfo("spark://10.0.0.5:7077", "4.0.1", 8, 20.0, 4242))
    life.count_ended("0", counts("orders", 5, 0.1))
    life.stopped()
    assert life.status.phase == "stopped" and life.status.master == "spark://10.0.0.5:7077"
    assert str(status_text(life.status, clock.now)).startswith("● Spark stopped · last count: 22:13:20 UTC, 5 records")
