"""Topic actions: create, delete and describe topics the way `kafka-topics.sh` does.

These back the headless commands `kafkatop create-topic` and `kafkatop describe` (and, later, a TUI dialog).
`format_describe` prints exactly the layout of `kafka-topics.sh --describe` (Kafka 4.1's TopicCommand), so lab
instructions carry over line by line; where it deliberately differs (Leader -1, no Elr columns) the code says why.
Kafka's own error texts are passed on unchanged, with the topic name and, where it helps, what to do.
"""

from __future__ import annotations

import base64
import re
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import replace
from types import TracebackType
from typing import Any

from confluent_kafka import KafkaError, KafkaException, TopicCollection
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource, NewTopic, ResourceType

from kafkatop.backends.admin import LIBRDKAFKA_LOGGER, redact
from kafkatop.backends.errors import KafkatopError, SourceUnavailable
from kafkatop.backends.model import ClusterSnapshot, Topic

MAX_TOPIC_NAME_LENGTH = 249  # org.apache.kafka.common.internals.Topic.MAX_NAME_LENGTH
MAX_REPLICATION_FACTOR = 32767  # replication factors travel as an int16
_LEGAL_NAME = re.compile(r"[a-zA-Z0-9._-]+")
_ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA"  # Uuid.ZERO_UUID: "no topic id" (topics created by ZooKeeper-era Kafka)
_CONFIG_EXAMPLE = "--config min.insync.replicas=2"


class TopicError(KafkatopError):
    """A topic action failed; the message is Kafka's own text (or kafka-topics' wording) naming the topic."""

    def __init__(self, message: str, *, topic: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.topic = topic
        self.code = code  # Kafka's error code name, e.g. "INVALID_REPLICATION_FACTOR"; None for local checks


# --- validation (shared by the CLI and the TUI) ---------------------------------------------------------------------
def validate_topic_name(name: str) -> str | None:
    """None when Kafka accepts `name` as a topic name, else Kafka's own message (Topic.validate).

    Names mixing '.' and '_' only draw a warning from kafka-topics (they collide in metric names): not an error.
    """
    if not name:
        reason = "the empty string is not allowed"
    elif name in (".", ".."):
        reason = f"'{name}' is not allowed"
    elif len(name) > MAX_TOPIC_NAME_LENGTH:
        reason = f"the length of '{name}' is longer than the max allowed length {MAX_TOPIC_NAME_LENGTH}"
    elif not _LEGAL_NAME.fullmatch(name):
        reason = f"'{name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
    else:
        return None
    return f"Topic name is invalid: {reason}"


def parse_config_assignments(items: Sequence[str]) -> dict[str, str]:
    """`--config` items ("name=value"; the value may itself contain '=') as a dict; the last of a name wins."""
    configs: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        # kafka-topics rejects an empty value too ("key=" splits into one part).
        if not sep or not name or not value:
            raise TopicError(f"Invalid topic config {item!r}: expected NAME=VALUE, for example {_CONFIG_EXAMPLE}")
        configs[name] = value
    return configs


def validate_new_topic(
    name: str, partitions: int, replication_factor: int, live_brokers: int | None = None
) -> list[str]:
    """Every problem with creating this topic that can be seen before asking Kafka; empty when none."""
    problems = []
    if (name_problem := validate_topic_name(name)) is not None:
        problems.append(name_problem)
    if partitions < 1:
        problems.append(f"partitions must be at least 1, not {partitions}")
    if not 1 <= replication_factor <= MAX_REPLICATION_FACTOR:
        problems.append(f"replication factor must be between 1 and {MAX_REPLICATION_FACTOR}, not {replication_factor}")
    elif live_brokers is not None and replication_factor > live_brokers:
        brokers = "broker" if live_brokers == 1 else "brokers"
        problems.append(
            f"replication factor {replication_factor} is larger than the {live_brokers} {brokers} available"
        )
    return problems


# --- kafka-topics.sh --describe --------------------------------------------------------------------------------------
def _shown_topics(snapshot: ClusterSnapshot, topic: str | None, sort_by_name: bool = False) -> list[Topic]:
    # kafka-topics treats an empty --topic like no --topic. It also reads --topic as a regular expression; kafkatop
    # takes the exact name.
    if topic:
        found = snapshot.topic(topic)
        if found is None:
            raise TopicError(f"Topic '{topic}' does not exist as expected", topic=topic)
        return [found]
    by_name = {t.name: t for t in snapshot.topics}
    order = sorted(by_name) if sort_by_name else kafka_topic_order(list(by_name))
    return [by_name[name] for name in order]


def _ids(broker_ids: Sequence[int]) -> str:
    return ",".join(str(b) for b in broker_ids)


def format_describe(
    snapshot: ClusterSnapshot,
    topic: str | None = None,
    configs: Mapping[str, Mapping[str, str]] | None = None,
    *,
    sort_by_name: bool = False,
) -> str:
    """The output of `kafka-topics.sh --describe [--topic T]` for this snapshot, without a trailing newline.

    `configs` maps topic names to what Kafka prints after "Configs:" (see `TopicAdmin.topic_configs`, which also
    puts them in Kafka's order); a topic missing from it prints an empty "Configs: ". Topics come in the order
    kafka-topics prints them (see `kafka_topic_order`; `sort_by_name` for plain name order), partitions by id.
    Internal topics appear when the snapshot holds them (kafka-topics shows them: poll with include_internal for
    the same lines). An unknown `topic` raises TopicError.
    """
    lines: list[str] = []
    for t in _shown_topics(snapshot, topic, sort_by_name):
        parts = sorted(t.partitions, key=lambda p: p.id)
        header = [f"Topic: {t.name}"]
        if t.topic_id and t.topic_id != _ZERO_UUID:
            header.append(f"TopicId: {t.topic_id}")
        topic_configs = (configs or {}).get(t.name, {})
        header += [
            f"PartitionCount: {len(parts)}",
            # Kafka prints the replica count of the first partition, not the largest.
            f"ReplicationFactor: {len(parts[0].replicas) if parts else 0}",
            "Configs: " + ",".join(f"{k}={v}" for k, v in topic_configs.items()),
        ]
        lines.append("\t".join(header))
        for p in parts:
            # A partition without a leader: Kafka 4.1 prints "none"; the ZooKeeper-era tool printed the -1 of the
            # partition's state znode, which is what the labs' instructions show.
            # Not printed, though Kafka 4.1 ends every line with "\tElr: …\tLastKnownElr: …" (KIP-966): librdkafka
            # does not report eligible leader replicas, and the labs' layout predates them. Kafka prints no
            # "Offline:" column in any version (checked in 2.x-4.1's TopicCommand), so neither does kafkatop.
            # "Adding/Removing Replicas" (during a reassignment) are not known to the snapshot either.
            lines.append(
                f"\tTopic: {t.name}\tPartition: {p.id}\tLeader: {p.leader}"
                f"\tReplicas: {_ids(p.replicas)}\tIsr: {_ids(p.isr)}"
            )
    return "\n".join(lines)


def _java_string_hash(s: str) -> int:
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + int.from_bytes(data[i : i + 2], "big")) & 0xFFFFFFFF
    return h


def _java_hashmap_capacity(entries: int, initial: int) -> int:
    """The table size of a java.util.HashMap created with `initial` buckets once it holds `entries`."""
    capacity = 1
    while capacity < initial:
        capacity *= 2
    while entries > capacity * 3 // 4:  # resized when more than 3/4 full
        capacity *= 2
    return capacity


def _java_hashmap_order(keys: Sequence[str], capacity: int) -> list[str]:
    """The iteration order of a java.util.HashMap of `capacity` buckets into which `keys` were put in this order.

    By bucket (String.hashCode, spread, masked by the table size), then by insertion within a bucket (resizes keep
    it). Buckets of 8 or more keys become trees with another order; the few dozen keys here never get there.
    """
    position = {key: i for i, key in enumerate(keys)}

    def bucket(key: str) -> int:
        h = _java_string_hash(key)
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(keys, key=lambda k: (bucket(k), position[k]))


def kafka_config_order(names: Sequence[str]) -> list[str]:
    """`names` (as the broker listed them) in the order kafka-topics prints them after "Configs:".

    Its Java client keeps a resource's config entries in a `new HashMap<>()` (admin.Config). Every entry the broker
    returned counts towards the table size, defaults included.
    """
    return _java_hashmap_order(names, _java_hashmap_capacity(len(names), 16))


def kafka_topic_order(names: Sequence[str]) -> list[str]:
    """Topic names in the order `kafka-topics.sh --describe` prints them: not sorted, though it sorts them first.

    TopicCommand passes the sorted names to Admin.describeTopics, which keeps them in a HashMap(n), copies that
    into a HashMap(map) and collects the results into another HashMap(n) (allTopicNames); the lines follow the last
    map's iteration order. Checked against Kafka 4.1 (the 2.x/3.x tools go through the same maps).
    """
    n = len(names)
    order = sorted(names)
    order = _java_hashmap_order(order, _java_hashmap_capacity(n, n))
    order = _java_hashmap_order(order, _java_hashmap_capacity(n, int(n / 0.75 + 1.0)))
    return _java_hashmap_order(order, _java_hashmap_capacity(n, n))


def kafka_uuid_text(uuid: Any) -> str:
    """A confluent-kafka Uuid as Kafka prints it: URL-safe base64 without padding (librdkafka's str() uses '+/')."""
    raw = b"".join(
        (bits & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "big")
        for bits in (uuid.get_most_significant_bits(), uuid.get_least_significant_bits())
    )
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


# --- the admin actions ----------------------------------------------------------------------------------------------
def _failure(exc: BaseException) -> tuple[str | None, str]:
    """(Kafka error code name, Kafka's text) of a failed request."""
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        err: KafkaError = exc.args[0]
        text = err.str().strip()
        # Some errors carry only the request's name ("CreateTopics: "): the code says more.
        return err.name(), err.name() if not text or text.endswith(":") else text
    if isinstance(exc, TimeoutError):
        return "_TIMED_OUT", "timed out"
    return None, str(exc) or type(exc).__name__


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else text + "."


class TopicAdmin:
    """Creates, deletes and describes topics through one AdminClient; every request has an explicit timeout."""

    def __init__(self, bootstrap: str, client_config: Mapping[str, str] | None = None, timeout_s: float = 15.0) -> None:
        self.bootstrap = bootstrap
        self.timeout_s = timeout_s
        config: dict[str, Any] = dict(client_config or {})
        config["bootstrap.servers"] = bootstrap
        config.setdefault("client.id", "kafkatop")
        config["logger"] = LIBRDKAFKA_LOGGER  # never onto the terminal
        self._config = config
        try:
            self._admin: AdminClient | None = AdminClient(config)
        except (KafkaException, ValueError, TypeError) as e:
            raise SourceUnavailable(
                "kafka", f"invalid client configuration: {redact(_failure(e)[1], config)}"
            ) from None

    # --- lifecycle --------------------------------------------------------------------------------------------------
    def close(self) -> None:
        # AdminClient has no close(); dropping the last reference destroys the handle and its connections.
        self._admin = None

    def __enter__(self) -> TopicAdmin:
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def _client(self) -> AdminClient:
        if self._admin is None:
            raise KafkatopError("the topic admin client is closed")
        return self._admin

    def _result(self, fut: Future[Any], deadline: float) -> Any:
        # librdkafka fails the future itself once request_timeout passes; this wait is only a backstop.
        return fut.result(timeout=max(0.0, deadline - time.monotonic()))

    def _deadline(self) -> float:
        return time.monotonic() + self.timeout_s + 1.0

    def _error(self, action: str, name: str, exc: BaseException) -> TopicError:
        code, text = _failure(exc)
        text = redact(text, self._config)
        if code == "_TIMED_OUT":
            message = (
                f"Cannot {action} topic '{name}': no answer from Kafka at {self.bootstrap} within "
                f"{self.timeout_s:g} s ({text}). Check that a broker listens there and that the address is right."
            )
        elif code == "INVALID_REPLICATION_FACTOR":
            message = (
                f"Cannot {action} topic '{name}': {_sentence(text)} Use a replication factor no larger than the "
                "number of brokers, or start more brokers."
            )
        else:
            message = f"Cannot {action} topic '{name}': {text}"
        return TopicError(message, topic=name, code=code)

    # --- create / delete --------------------------------------------------------------------------------------------
    def create_topic(
        self, name: str, partitions: int, replication_factor: int, configs: Mapping[str, str] | None = None
    ) -> None:
        """Create a topic; Kafka's refusal (already exists, too few brokers, bad config, …) becomes TopicError."""
        if (name_problem := validate_topic_name(name)) is not None:
            raise TopicError(name_problem, topic=name)
        if problems := validate_new_topic(name, partitions, replication_factor):
            raise TopicError(f"Cannot create topic '{name}': " + "; ".join(problems), topic=name)
        new_topic = NewTopic(name, num_partitions=partitions, replication_factor=replication_factor,
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
            if _failure(e)[0] == "TOPIC_ALREADY_EXISTS":
                raise TopicError(f"Topic '{name}' already exists.", topic=name, code="TOPIC_ALREADY_EXISTS") from None
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
            code = _failure(e)[0]
            if code in ("UNKNOWN_TOPIC_OR_PART", "UNKNOWN_TOPIC_ID"):
                raise TopicError(f"Topic '{name}' does not exist as expected", topic=name, code=code) from None
            raise self._error("delete", name, e) from None

    # --- describe ---------------------------------------------------------------------------------------------------
    def _start_configs(self, names: Sequence[str]) -> dict[ConfigResource, Future[Any]]:
        if not names:
            return {}
        resources = [ConfigResource(ResourceType.TOPIC, n) for n in names]
        return self._client().describe_configs(resources, request_timeout=self.timeout_s)

    def _collect_configs(
        self, names: Sequence[str], futures: Mapping[ConfigResource, Future[Any]], deadline: float
    ) -> dict[str, dict[str, str]]:
        out: dict[str, dict[str, str]] = {n: {} for n in names}
        default = ConfigSource.DEFAULT_CONFIG.value
        for res, fut in futures.items():
            try:
                entries: Mapping[str, Any] = self._result(fut, deadline)
            except Exception:  # noqa: BLE001 - a topic whose configs cannot be read prints "Configs: " bare
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

    def _collect_topic_ids(self, futures: Mapping[str, Future[Any]], deadline: float) -> dict[str, str]:
        ids = {}
        for name, fut in futures.items():
            try:
                topic_id = self._result(fut, deadline).topic_id
            except Exception:  # noqa: BLE001 - without an id the line simply has no "TopicId:"
                continue
            if topic_id is not None and (text := kafka_uuid_text(topic_id)) != _ZERO_UUID:
                ids[name] = text
        return ids

    def topic_ids(self, names: Sequence[str]) -> dict[str, str]:
        """Topic ids (as Kafka prints them) of the topics that have one and could be described."""
        deadline = self._deadline()
        return self._collect_topic_ids(self._start_topic_ids(names), deadline)

    def describe(self, snapshot: ClusterSnapshot, topic: str | None = None, *, sort_by_name: bool = False) -> str:
        """`format_describe` of the snapshot, with the topic ids and configs kafka-topics shows read from Kafka.

        The configs and ids are read in two concurrent requests; whatever cannot be read is left out of the lines.
        """
        shown = _shown_topics(snapshot, topic)
        names = [t.name for t in shown]
        deadline = self._deadline()
        config_fs = self._start_configs(names)
        id_fs = self._start_topic_ids([t.name for t in shown if not t.topic_id])
        configs = self._collect_configs(names, config_fs, deadline)
        ids = self._collect_topic_ids(id_fs, deadline)
        if ids:
            topics = tuple(replace(t, topic_id=ids[t.name]) if t.name in ids else t for t in snapshot.topics)
            snapshot = replace(snapshot, topics=topics)
        return format_describe(snapshot, topic, configs, sort_by_name=sort_by_name)


__all__ = [
    "TopicAdmin",
    "TopicError",
    "format_describe",
    "kafka_config_order",
    "kafka_topic_order",
    "kafka_uuid_text",
    "parse_config_assignments",
    "validate_new_topic",
    "validate_topic_name",
]
