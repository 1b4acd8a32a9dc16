"""Kafka's failures in words, and the one deadline every request of a poll shares."""

from __future__ import annotations

import time
from concurrent.futures import Future
from typing import Any

from confluent_kafka import KafkaError, KafkaException


def describe_error(exc: BaseException) -> str:
    """A KafkaException as one readable line: `LEADER_NOT_AVAILABLE: Broker: Leader not available`."""
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        err: KafkaError = exc.args[0]
        text = err.str().strip()
        # Some errors come with only the request's name ("ConsumerGroupDescribe: "): the code says more.
        return err.name() if not text or text.endswith(":") else f"{err.name()}: {text}"
    if isinstance(exc, TimeoutError):
        return "timed out"
    return str(exc) or type(exc).__name__


def error_text(err: KafkaError) -> str:
    """A KafkaError (a delivery report's, a message's, error_cb's) as describe_error words it."""
    return describe_error(KafkaException(err))


def error_code(exc: BaseException) -> int | None:
    """The KafkaError code of a KafkaException; None for anything else."""
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        return int(exc.args[0].code())
    return None


def is_unsupported(exc: BaseException) -> bool:
    """The cluster does not offer the request (the librdkafka mock, old brokers)."""
    return error_code(exc) == KafkaError._UNSUPPORTED_FEATURE


def failure(exc: BaseException) -> tuple[str | None, str]:
    """(Kafka error code name, Kafka's own text) of a failed request: what kafka-topics would print."""
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        err: KafkaError = exc.args[0]
        text = err.str().strip()
        # Some errors carry only the request's name ("CreateTopics: "): the code says more.
        return err.name(), err.name() if not text or text.endswith(":") else text
    if isinstance(exc, TimeoutError):
        return "_TIMED_OUT", "timed out"
    return None, str(exc) or type(exc).__name__


class Deadline:
    """One deadline shared by every request of a poll or an action."""

    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        return max(0.0, self.end - time.monotonic())

    def result(self, fut: Future[Any]) -> Any:
        """The future's result, or raise: its own exception, or TimeoutError once the deadline passed."""
        return fut.result(timeout=self.left())
