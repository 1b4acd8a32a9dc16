"""Deadline.result (backends/kafka/errors.py): a future's failure raised to the poll without tying the poll's frames to
the future in a cycle (which the live view's collector puts off: the poll's data would stay in memory)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from concurrent.futures import Future

import pytest
from confluent_kafka import KafkaError, KafkaException

from kafkatop.backends.kafka.errors import Deadline, describe_error


class Offsets:
    """Stands for what a poll's frame holds (its group offsets)."""


@pytest.fixture
def no_automatic_collection() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def a_poll(said: list[str]) -> weakref.ref[Offsets]:
    offsets = Offsets()
    futures: dict[str, Future[object]] = {"min.insync.replicas": Future()}
    futures["min.insync.replicas"].set_exception(KafkaException(KafkaError(KafkaError.INVALID_REQUEST)))
    deadline = Deadline(5.0)
    for fut in futures.values():
        try:
            deadline.result(fut)
        except KafkaException as e:
            said.append(describe_error(e))
    return weakref.ref(offsets)


def test_a_future_that_failed_is_raised_as_its_error_and_the_polls_frame_is_freed_on_return(
    no_automatic_collection: None,
) -> None:
    said: list[str] = []
    offsets = a_poll(said)
    assert said == ["INVALID_REQUEST: Broker: Invalid request"]
    assert offsets() is None  # freed as the poll returned, by reference counting alone: no cycle held it


def test_a_future_still_running_at_the_deadline_is_a_timeout() -> None:
    with pytest.raises(TimeoutError):
        Deadline(0.01).result(Future())


def test_a_future_that_succeeded_gives_its_result() -> None:
    fut: Future[int] = Future()
    fut.set_result(42)
    assert Deadline(1.0).result(fut) == 42
