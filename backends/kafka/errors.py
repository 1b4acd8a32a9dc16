"""Kafka's failures in words, and the one deadline every request of a poll shares."""

from __future__ import annotations

import copy
import logging
import socket
import ssl
import time
from concurrent.futures import Future
from typing import Any

from confluent_kafka import KafkaError, KafkaException

from kafkatop.backends.model.connection import LIBRDKAFKA_LOGGER, KafkaConnection
from kafkatop.backends.model.refusals import security_reason

# librdkafka's codes for a record it purged unsent (a flush that timed out, a close, a fatal error): the record's why
# is the purge's, known to whoever purged.
PURGED = (KafkaError._PURGE_QUEUE, KafkaError._PURGE_INFLIGHT)


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


def of_unjoined_group(err: KafkaError) -> bool:
    """An assign()-only reader's error about the group it never joins. librdkafka wants a group.id (an empty one
    aborts confluent-kafka 2.16's Consumer) and looks up its coordinator even so; a principal who may Read the topic
    but not that group is refused the lookup (GROUP_AUTHORIZATION_FAILED), which the read does not need."""
    return bool(err.code() == KafkaError.GROUP_AUTHORIZATION_FAILED)


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
        """The future's result, or raise: a copy of its exception, or TimeoutError once the deadline passed."""
        return result_within(fut, self.left())


def result_within(fut: Future[Any], timeout_s: float) -> Any:
    """The future's result, or raise: a copy of its exception (detached), or TimeoutError after `timeout_s`."""
    failed = fut.exception(timeout=timeout_s)
    if failed is None:
        return fut.result()
    raise detached(failed)


def detached(exc: BaseException) -> BaseException:
    """A copy of a future's exception, to raise in its place. Raised, the future's own would take the traceback of
    the frames it passes (and through them the poll's frame, all its locals), while the future, kept by those frames,
    holds it: a cycle, freed only by a full garbage collection, which the live view puts off (collector.py). At
    10,000 partitions that kept each poll's 400,000 group offsets alive; the copy goes with the except block."""
    try:
        clone = copy.copy(exc)
    except Exception:  # noqa: BLE001 - an exception that cannot be made again from its args: raised as it is
        return exc
    clone.__cause__, clone.__context__ = exc.__cause__, exc.__context__
    return clone


# --- security failures: what librdkafka logged, in one line ----------------------------------------------------------
# librdkafka says why a secured connection failed only in its log (and error_cb), while the request that needed it
# fails as a bare _TRANSPORT or timeout. The latest such reason is kept here, worded (model/connection.py), and added
# to that failure.
class _SecurityFailures(logging.Handler):
    """Keeps the latest security failure librdkafka logged (its clients log through LIBRDKAFKA_LOGGER)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.latest: tuple[float, str] | None = None

    def emit(self, record: logging.LogRecord) -> None:
        reason = security_reason(record.getMessage())
        if reason is not None:
            self.latest = (time.monotonic(), reason)


_FAILURES = _SecurityFailures()
LIBRDKAFKA_LOGGER.addHandler(_FAILURES)


def speaks_tls(host: str, port: int, timeout_s: float = 1.0) -> bool:
    """Whether a TLS handshake succeeds at host:port (no certificate check: only the protocol is asked)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        with socket.create_connection((host, port), timeout=timeout_s) as raw:
            with context.wrap_socket(raw, server_hostname=host):
                return True
    except (OSError, ValueError):
        return False


def unreachable_reason(connection: KafkaConnection, since: float, client: Any = None) -> str | None:
    """Why `connection` could not talk to its brokers, when security is why: the latest TLS or SASL failure logged
    since `since` (time.monotonic()), else a TLS listener found where the client speaks PLAINTEXT."""
    if client is not None:
        try:
            client.poll(0)  # delivers the log lines librdkafka has queued
        except (KafkaException, RuntimeError):
            pass
    latest = _FAILURES.latest
    if latest is not None and latest[0] >= since:
        return latest[1]
    protocol = connection.client_settings.get("security.protocol", "PLAINTEXT").upper()
    if "SSL" not in protocol and connection.addresses:
        host, port = connection.addresses[0]
        if speaks_tls(host, port):
            return (
                f"the broker speaks TLS, and security.protocol is {protocol}: give --command-config with "
                "security.protocol=SSL or SASL_SSL and the broker's truststore"
            )
    return None
