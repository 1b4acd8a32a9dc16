"""A topic `kafkatop produce` names and the cluster does not have, asked for as Kafka's producer asks for it.

kafka-console-producer.sh (any Java producer) names its topic in a Metadata request that allows auto-creation: the
brokers create the topic when `auto.create.topics.enable=true` (a broker's default), with `num.partitions`
partitions, and answer UNKNOWN_TOPIC_OR_PARTITION when it is false. The setting is read first (DescribeConfigs of one
broker), so a refusal says why; where it cannot be read (the librdkafka mock has no DescribeConfigs, an authorizer
may refuse it) the request is sent all the same and what the brokers did is said.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from confluent_kafka import KafkaError, KafkaException

from kafkatop.backends.kafka import handles
from kafkatop.backends.kafka.cluster.configs import ConfigAdmin
from kafkatop.backends.kafka.errors import describe_error, error_text
from kafkatop.backends.kafka.refusal import refusal
from kafkatop.backends.model.configs import ConfigEntry, ConfigError, ConfigResource
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError

SETTING = "auto.create.topics.enable"
# With the setting unknown, how long the topic is waited for: a broker that creates it has it led well within this
# (the first answers while it is created are UNKNOWN_TOPIC_OR_PARTITION or LEADER_NOT_AVAILABLE, as when it never is).
UNKNOWN_WAIT_S = 5.0
_MAY_BE_CREATING = (KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError.LEADER_NOT_AVAILABLE)


@dataclass(frozen=True, slots=True)
class BrokerSetting:
    """auto.create.topics.enable as one broker says it (None: not read, `unread` says why), and the partitions and
    replicas it gives a topic it creates (num.partitions, default.replication.factor)."""

    broker: int | None
    enabled: bool | None
    num_partitions: int | None = None
    replication_factor: int | None = None
    unread: str = ""


@dataclass(frozen=True, slots=True)
class FirstUse:
    """What became of the topic: created with `partitions` (0: not created; `answer` is the brokers' reason)."""

    topic: str
    setting: BrokerSetting
    partitions: int = 0
    answer: str = ""
    invalid: bool = False  # the brokers refused the name itself (INVALID_TOPIC_EXCEPTION)

    @property
    def created(self) -> bool:
        return self.partitions > 0


def read_setting(connection: KafkaConnection, broker: int | None, timeout_s: float) -> BrokerSetting:
    """The broker's auto.create.topics.enable; never raises: what could not be read is said in `unread`."""
    if broker is None:
        return BrokerSetting(None, None, unread="no broker in the metadata to ask")
    try:
        configs = ConfigAdmin(connection, timeout_s).describe(ConfigResource.broker(broker))
    except KafkatopError as e:
        # The mock, or a Kafka too old: not the long advice ConfigAdmin gives `kafkatop configs`.
        unsupported = isinstance(e, ConfigError) and e.code == "UNSUPPORTED" and "DescribeConfigs" in str(e)
        return BrokerSetting(broker, None, unread=f"broker {broker} does not answer DescribeConfigs" if unsupported
                             else str(e))  # fmt: skip
    entry = configs.entry(SETTING)
    count, replicas = (_whole(configs.entry(name)) for name in ("num.partitions", "default.replication.factor"))
    if entry is None or entry.value is None or entry.value.lower() not in ("true", "false"):
        return BrokerSetting(broker, None, count, replicas, unread=f"broker {broker} does not describe {SETTING}")
    return BrokerSetting(broker, entry.value.lower() == "true", count, replicas)


def _whole(entry: ConfigEntry | None) -> int | None:
    value = entry.value if entry is not None else None
    return int(value) if value is not None and value.isdigit() and int(value) > 0 else None


def first_use(connection: KafkaConnection, topic: str, timeout_s: float) -> FirstUse:
    """The brokers' setting read, then, unless it is false, `topic` named in a Metadata request that allows
    auto-creation (as Kafka's producer does), waiting for its partitions to have leaders as Kafka's producer waits
    (max.block.ms): up to `timeout_s`, or UNKNOWN_WAIT_S when the setting is unknown. Refused when the authorizer
    refuses its creation."""
    config = connection.config("kafkatop-producer")
    config["allow.auto.create.topics"] = True  # the Java producer's Metadata requests allow it
    box: list[Any] = [handles.producer(config)]
    try:
        try:  # every topic (none named, so none created): the brokers' ids
            brokers = sorted(box[0].list_topics(timeout=timeout_s).brokers)
        except (KafkaException, RuntimeError):
            brokers = []
        setting = read_setting(connection, brokers[0] if brokers else None, timeout_s)
        if setting.enabled is False:
            return FirstUse(topic, setting, answer=f"{SETTING}=false")
        wait = timeout_s if setting.enabled else min(timeout_s, UNKNOWN_WAIT_S)
        return _wait_created(lambda t: box[0].list_topics(topic=topic, timeout=t), connection, topic, setting, wait)
    finally:
        handles.release(box)


def _wait_created(
    metadata: Callable[[float], Any], connection: KafkaConnection, topic: str, setting: BrokerSetting, timeout_s: float
) -> FirstUse:
    deadline = time.monotonic() + timeout_s
    answer = "no answer"
    while True:
        left = deadline - time.monotonic()
        try:
            found = metadata(max(left, 0.1)).topics.get(topic)
        except (KafkaException, RuntimeError) as e:
            found, answer = None, describe_error(e)
        if found is not None:
            error: KafkaError | None = found.error
            leaders = [p.leader for p in found.partitions.values()]
            if error is None and leaders and all(leader >= 0 for leader in leaders):
                return FirstUse(topic, setting, len(leaders))
            refused = refusal(error, "create topic", connection, f"cannot create topic '{topic}'", topics=[topic])
            if refused is not None:
                raise refused
            answer = error_text(error) if error is not None else "its partitions have no leader yet"
            if error is not None and error.code() not in _MAY_BE_CREATING:
                invalid = error.code() == KafkaError.TOPIC_EXCEPTION  # Kafka's INVALID_TOPIC_EXCEPTION
                return FirstUse(topic, setting, answer=answer, invalid=invalid)  # it never will be created
        if time.monotonic() >= deadline:
            return FirstUse(topic, setting, answer=f"still {answer} after {timeout_s:g} s")
        time.sleep(0.1)
