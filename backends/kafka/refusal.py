"""Kafka's authorization errors as the adapters meet them (a KafkaException, a KafkaError, a Metadata topic's error),
turned into a Refused that names the principal, the operations and the resource, and the line that grants them
(backends/insight/grants.py). Every adapter that can be refused asks here, with what it was doing."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient

from kafkatop.backends.insight.grants import AUTHORIZATION_ERRORS, Doing, Refused, authorization_error, refused
from kafkatop.backends.kafka import handles
from kafkatop.backends.kafka.errors import describe_error
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError


def error_name(failure: BaseException | KafkaError | str | None) -> str | None:
    """Kafka's error name of a failure (a KafkaException's, a KafkaError's), or the authorization error a text
    names; None for anything else."""
    if isinstance(failure, KafkaException) and failure.args and isinstance(failure.args[0], KafkaError):
        return str(failure.args[0].name())
    if isinstance(failure, KafkaError):
        return str(failure.name())
    if isinstance(failure, str):
        return authorization_error(failure)
    return None


def is_refusal(failure: BaseException | KafkaError | str | None) -> bool:
    return error_name(failure) in AUTHORIZATION_ERRORS


def refusal(
    failure: BaseException | KafkaError | str | None,
    doing: Doing,
    connection: KafkaConnection,
    said: str = "",
    *,
    topics: Iterable[str] = (),
    group: str | None = None,
    transactional_id: str | None = None,
) -> Refused | None:
    """A Refused when `failure` is one of Kafka's authorization errors met doing `doing` on the resources named, as
    the principal `connection`'s settings make; None otherwise (the caller raises its own error then)."""
    return refused(error_name(failure), doing, connection.client_settings, said, topics=topics, group=group,
                   transactional_id=transactional_id)  # fmt: skip


def topic_refusal(
    list_topic: Callable[[str, float], Any],
    topic: str,
    timeout_s: float,
    doing: Doing,
    connection: KafkaConnection,
    said: str,
) -> Refused | None:
    """Why `topic` is in no listing, when the authorizer is why: a topic the principal may not Describe is left out
    of every listing, and only a Metadata request naming it says so (TOPIC_AUTHORIZATION_FAILED, whether it exists
    or not: Kafka tells nothing of a topic to those it refuses). `list_topic(topic, timeout_s)` is the
    list_topics of a handle that never creates a topic it is asked for (allow.auto.create.topics=false)."""
    try:
        found = list_topic(topic, timeout_s).topics.get(topic)
    except (KafkaException, RuntimeError, KafkatopError):
        return None
    return refusal(found.error if found is not None else None, doing, connection, said, topics=[topic])


def admin_naming_topics(connection: KafkaConnection, refuse: Callable[[str], Exception]) -> AdminClient:
    """An AdminClient whose Metadata requests never create a topic they name (an AdminClient's librdkafka handle is a
    producer's, which would), for topic_refusal; settings librdkafka refuses raise `refuse(reason)`."""
    try:
        return handles.admin_client(connection.config("kafkatop") | {"allow.auto.create.topics": False})
    except (KafkaException, ValueError, TypeError) as e:
        raise refuse(f"invalid client configuration: {connection.redact(describe_error(e))}") from None
