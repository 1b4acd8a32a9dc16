"""Topic actions through one AdminClient: create, delete and describe topics the way `kafka-topics.sh` does.

Kafka's own error texts are passed on unchanged, with the topic name and, where it helps, what to do. The describe
layout itself is insight/describe.py; this adds what only Kafka knows (topic ids, configs).
"""

from __future__ import annotations

import base64
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import replace
from typing import Any

from confluent_kafka import TopicCollection
from confluent_kafka.admin import ConfigResource, ConfigSource, NewPartitions, NewTopic, ResourceType

from kafkatop.backends.insight.describe import ZERO_UUID, format_describe, kafka_config_order, shown_topics
from kafkatop.backends.insight.grants import Doing, Refused
from kafkatop.backends.insight.topic_health import HealthFilter
from kafkatop.backends.kafka.cluster.elr import read_elr
from kafkatop.backends.kafka.errors import failure, result_within, unreachable_reason
from kafkatop.backends.kafka.handles import AdminOwner
from kafkatop.backends.kafka.refusal import admin_naming_topics, refusal, topic_refusal
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError, SourceUnavailable
from kafkatop.backends.model.partitions import partition_count_problem
from kafkatop.backends.model.topics import TopicError, validate_new_topic, validate_topic_name


def kafka_uuid_text(uuid: Any) -> str:
    """A confluent-kafka Uuid as Kafka prints it: URL-safe base64 without padding (librdkafka's str() uses '+/')."""
    raw = b"".join(
        (bits & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "big")
        for bits in (uuid.get_most_significant_bits(), uuid.get_least_significant_bits())
    )
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else text + "."


class TopicAdmin(AdminOwner):
    """Creates, deletes and describes topics through one AdminClient; every request has an explicit timeout."""

    def __init__(self, connection: KafkaConnection, timeout_s: float = 15.0) -> None:
        super().__init__(
            connection,
            timeout_s,
            lambda: KafkatopError("the topic admin client is closed"),
            # Its Metadata requests never create a topic they name (describe asks for one the listing left out).
            lambda: admin_naming_topics(connection, lambda r: SourceUnavailable("kafka", r)),
        )

    def _result(self, fut: Future[Any], deadline: float) -> Any:
        # librdkafka fails the future itself once request_timeout passes; this wait is only a backstop.
        return result_within(fut, max(0.0, deadline - time.monotonic()))

    def _deadline(self) -> float:
        return time.monotonic() + self.timeout_s + 1.0

    def _error(self, action: str, name: str, exc: BaseException) -> KafkatopError:
        doing: Doing = (
            "create topic" if action == "create" else "delete topic" if action == "delete" else "add partitions"
        )
        refused = refusal(exc, doing, self.connection, f"Cannot {action} topic '{name}'", topics=[name])
        if refused is not None:
            return refused
        code, text = failure(exc)
        text = self.connection.redact(text)
        reason = (
            unreachable_reason(self.connection, self._created, self._admin)
            if code in ("_TIMED_OUT", "_TRANSPORT")
            else None
        )
        if reason is not None:
            message = f"Cannot {action} topic '{name}': cannot talk to {self.connection}: {reason}"
        elif code == "_TIMED_OUT":
            message = (
                f"Cannot {action} topic '{name}': no answer from Kafka at {self.connection} within "
                f"{self.timeout_s:g} s ({text}). {self.connection.check_address}"
            )
        elif code == "INVALID_REPLICATION_FACTOR":
            message = (
                f"Cannot {action} topic '{name}': {_sentence(text)} Use a replication factor no larger than the "
                "number of brokers, or start more brokers."
            )
        else:
            message = f"Cannot {action} topic '{name}': {text}"
        return TopicError(message, topic=name, code=code, reason=text)

    # --- create / delete --------------------------------------------------------------------------------------------
    def create_topic(
        self,
        name: str,
        partitions: int | None,
        replication_factor: int | None,
        configs: Mapping[str, str] | None = None,
        *,
        replica_assignment: Sequence[Sequence[int]] | None = None,
    ) -> None:
        """Create a topic; Kafka's refusal (already exists, too few brokers, bad config, …) becomes TopicError.
        None for `partitions` or `replication_factor`: the broker's default (num.partitions, default.replication.
        factor); `replica_assignment`: each partition's replicas instead of both."""
        if (name_problem := validate_topic_name(name)) is not None:
            raise TopicError(name_problem, topic=name)
        if problems := validate_new_topic(
            name, 1 if partitions is None else partitions, 1 if replication_factor is None else replication_factor
        ):
            raise TopicError(f"Cannot create topic '{name}': " + "; ".join(problems), topic=name)
        if replica_assignment is not None:
            # librdkafka takes the count with the assignment (-1 there means "the broker's default", refused).
            new_topic = NewTopic(name, num_partitions=len(replica_assignment),
                                 replica_assignment=[list(r) for r in replica_assignment],
                                 config=dict(configs or {}))  # fmt: skip
        else:
            new_topic = NewTopic(name, num_partitions=-1 if partitions is None else partitions,
                                 replication_factor=-1 if replication_factor is None else replication_factor,
                                 config=dict(configs or {}))  # fmt: skip
        deadline = self._deadline()
        # The broker's own wait must end before the request's, or a slow creation reads as a client timeout
        # instead of Kafka's answer.
        futures = self._client().create_topics(
            [new_topic], operation_timeout=self.timeout_s * 0.8, request_timeout=self.timeout_s
        )
        try:
            self._result(futures[name], deadline)
        except Exception as e:  # noqa: BLE001 - every failure becomes a TopicError naming the topic
            if failure(e)[0] == "TOPIC_ALREADY_EXISTS":
                raise TopicError(f"Topic '{name}' already exists.", topic=name, code="TOPIC_ALREADY_EXISTS",
                                 reason=f"Topic '{name}' already exists.") from None  # fmt: skip
            raise self._error("create", name, e) from None

    def delete_topic(self, name: str) -> None:
        """Delete a topic (Kafka removes its data in the background); an unknown topic raises TopicError."""
        if (name_problem := validate_topic_name(name)) is not None:
            raise TopicError(name_problem, topic=name)
        deadline = self._deadline()
        futures = self._client().delete_topics(
            [name], operation_timeout=self.timeout_s * 0.8, request_timeout=self.timeout_s
        )
        try:
            self._result(futures[name], deadline)
        except Exception as e:  # noqa: BLE001
            code = failure(e)[0]
            if code in ("UNKNOWN_TOPIC_OR_PART", "UNKNOWN_TOPIC_ID"):
                raise TopicError(f"Topic '{name}' does not exist as expected", topic=name, code=code,
                                 reason=f"Topic '{name}' does not exist as expected") from None  # fmt: skip
            raise self._error("delete", name, e) from None

    # --- add partitions ---------------------------------------------------------------------------------------------
    def add_partitions(self, name: str, total: int, *, validate_only: bool = False) -> None:
        """CreatePartitions: `name` to `total` partitions (the new total, as kafka-topics --alter --partitions). Asked
        with validate_only first, so a refusal (Kafka's words: fewer partitions, an unknown topic, a policy) changes
        nothing; then for real, unless `validate_only`."""
        if (name_problem := validate_topic_name(name)) is not None:
            raise TopicError(name_problem, topic=name)
        if (problem := partition_count_problem(name, None, total)) is not None:
            raise TopicError(f"Cannot add partitions to topic '{name}': {problem}", topic=name)
        for only in (True,) if validate_only else (True, False):
            deadline = self._deadline()
            futures = self._client().create_partitions(
                [NewPartitions(name, total)],
                validate_only=only,
                operation_timeout=self.timeout_s * 0.8,
                request_timeout=self.timeout_s,
            )
            try:
                self._result(futures[name], deadline)
            except Exception as e:  # noqa: BLE001 - every failure becomes a TopicError naming the topic
                code = failure(e)[0]
                if code in ("UNKNOWN_TOPIC_OR_PART", "UNKNOWN_TOPIC_ID"):
                    raise TopicError(f"Topic '{name}' does not exist as expected", topic=name, code=code,
                                 reason=f"Topic '{name}' does not exist as expected") from None  # fmt: skip
                raise self._error("add partitions to", name, e) from None

    # --- describe ---------------------------------------------------------------------------------------------------
    def hidden(self, name: str, doing: Doing) -> Refused | None:
        """Why a topic is in no listing, when the authorizer is why (a topic the principal may not Describe): its
        refusal, with what `doing` it needs; None when it simply does not exist."""
        said = (
            f"Cannot add partitions to topic '{name}'"
            if doing == "add partitions"
            else f"Cannot {doing.removesuffix(' topic')} topic '{name}'"
        )
        return topic_refusal(self._client().list_topics, name, self.timeout_s, doing, self.connection, said)

    def _start_configs(self, names: Sequence[str]) -> dict[ConfigResource, Future[Any]]:
        if not names:
            return {}
        resources = [ConfigResource(ResourceType.TOPIC, n) for n in names]
        return self._client().describe_configs(resources, request_timeout=self.timeout_s)

    def _collect_configs(
        self,
        names: Sequence[str],
        futures: Mapping[ConfigResource, Future[Any]],
        deadline: float,
        unread: list[str | Refused] | None = None,
    ) -> dict[str, dict[str, str]]:
        out: dict[str, dict[str, str]] = {n: {} for n in names}
        default = ConfigSource.DEFAULT_CONFIG.value
        for res, fut in futures.items():
            try:
                entries: Mapping[str, Any] = self._result(fut, deadline)
            except Exception as e:  # noqa: BLE001 - a topic whose configs cannot be read prints "Configs: " bare
                if unread is not None:
                    said = f"the configs of {res.name} were not read"
                    unread.append(
                        refusal(e, "describe configs", self.connection, said, topics=[res.name])
                        or f"the configs of {res.name} ({self.connection.redact(failure(e)[1])})"
                    )
                continue
            # TopicCommand prints every entry that is not a default (ConfigEntry.isDefault): set on the topic, but
            # also broker-wide settings such as a cluster-level min.insync.replicas. A sensitive value comes as null.
            shown = {}
            for name in kafka_config_order(list(entries)):
                entry = entries[name]
                if int(getattr(entry.source, "value", entry.source)) != default:
                    shown[name] = "null" if entry.value is None else str(entry.value)
            out[res.name] = shown
        return out

    def topic_configs(self, names: Sequence[str]) -> dict[str, dict[str, str]]:
        """Per topic, what kafka-topics --describe prints after "Configs:", in its order; {} where unreadable."""
        deadline = self._deadline()
        return self._collect_configs(names, self._start_configs(names), deadline)

    def _start_topic_ids(self, names: Sequence[str]) -> dict[str, Future[Any]]:
        if not names:
            return {}
        return self._client().describe_topics(TopicCollection(list(names)), request_timeout=self.timeout_s)

    def _collect_topic_ids(
        self, futures: Mapping[str, Future[Any]], deadline: float, unread: list[str | Refused] | None = None
    ) -> dict[str, str]:
        ids = {}
        for name, fut in futures.items():
            try:
                topic_id = self._result(fut, deadline).topic_id
            except Exception as e:  # noqa: BLE001 - without an id the line simply has no "TopicId:"
                if unread is not None:
                    said = f"the topic id of {name} was not read"
                    unread.append(
                        refusal(e, "describe topic", self.connection, said, topics=[name])
                        or f"the topic id of {name} ({self.connection.redact(failure(e)[1])})"
                    )
                continue
            if topic_id is not None and (text := kafka_uuid_text(topic_id)) != ZERO_UUID:
                ids[name] = text
        return ids

    def topic_ids(self, names: Sequence[str]) -> dict[str, str]:
        """Topic ids (as Kafka prints them) of the topics that have one and could be described."""
        deadline = self._deadline()
        return self._collect_topic_ids(self._start_topic_ids(names), deadline)

    def describe(
        self,
        snapshot: ClusterSnapshot,
        topic: str | None = None,
        *,
        sort_by_name: bool = False,
        unread: list[str | Refused] | None = None,
        only: Sequence[str] | None = None,
        health: HealthFilter | None = None,
    ) -> str:
        """`format_describe` of the snapshot, with the topic ids and configs kafka-topics shows read from Kafka.

        The configs and ids are read in two concurrent requests; whatever cannot be read is left out of the lines
        (and named in `unread`, when given: the authorizer's refusal as a Refused, with what to grant). `only`: these
        topics (kafka-topics' --topic REGEX matched them); `health`: only the lines its filters print.
        """
        if topic and snapshot.topic(topic) is None and (refused := self.hidden(topic, "describe topic")) is not None:
            raise refused
        shown = shown_topics(snapshot, topic, names=only)
        names = [t.name for t in shown]
        deadline = self._deadline()
        config_fs = self._start_configs(names)
        id_fs = self._start_topic_ids([t.name for t in shown if not t.topic_id])
        elr = read_elr(self.connection, snapshot, names, max(0.5, deadline - time.monotonic() - 1.0))
        configs = self._collect_configs(names, config_fs, deadline, unread)
        ids = self._collect_topic_ids(id_fs, deadline, unread)
        if ids:
            topics = tuple(replace(t, topic_id=ids[t.name]) if t.name in ids else t for t in snapshot.topics)
            snapshot = replace(snapshot, topics=topics)
        return format_describe(snapshot, topic, configs, sort_by_name=sort_by_name, elr=elr, names=only,
                               health=health)  # fmt: skip
