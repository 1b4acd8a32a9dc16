"""Topic validation, --config parsing and the kafka-topics.sh --describe layout, on hand-built snapshots."""

from __future__ import annotations

import pytest
from confluent_kafka import Uuid

from kafkatop.backends.insight.describe import format_describe, kafka_config_order, kafka_topic_order
from kafkatop.backends.kafka.cluster.topics import TopicAdmin, kafka_uuid_text
from kafkatop.backends.model.cluster import NO_LEADER, Broker, ClusterSnapshot, Partition, Topic
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.topics import TopicError, parse_config_assignments, validate_new_topic, validate_topic_name


# --- topic names ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["purchases", "a", "orders.v2", "orders_v2", "A-Z.a_z-0.9", "..a", "x" * 249])
def test_valid_topic_names(name: str) -> None:
    assert validate_topic_name(name) is None


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "Topic name is invalid: the empty string is not allowed"),
        (".", "Topic name is invalid: '.' is not allowed"),
        ("..", "Topic name is invalid: '..' is not allowed"),
        (
            "bad name",
            "Topic name is invalid: 'bad name' contains one or more characters other than ASCII alphanumerics, "
            "'.', '_' and '-'",
        ),
        (
            "orders/v2",
            "Topic name is invalid: 'orders/v2' contains one or more characters other than ASCII alphanumerics, "
            "'.', '_' and '-'",
        ),
        (
            "café",
            "Topic name is invalid: 'café' contains one or more characters other than ASCII alphanumerics, "
            "'.', '_' and '-'",
        ),
        (
            "trailing\n",
            "Topic name is invalid: 'trailing\n' contains one or more characters other than ASCII alphanumerics, "
            "'.', '_' and '-'",
        ),
        ("x" * 250, f"Topic name is invalid: the length of '{'x' * 250}' is longer than the max allowed length 249"),
    ],
)
def test_invalid_topic_names_get_kafkas_message(name: str, message: str) -> None:
    assert validate_topic_name(name) == message


def test_dot_and_underscore_together_is_only_a_kafka_warning() -> None:
    assert validate_topic_name("metrics.cpu_load") is None


# --- --config -------------------------------------------------------------------------------------------------------
def test_config_assignments() -> None:
    assert parse_config_assignments([]) == {}
    assert parse_config_assignments(
        ["min.insync.replicas=2", " retention.ms = 3600000 ", "x.filter=a=b==c", "min.insync.replicas=1"]
    ) == {"min.insync.replicas": "1", "retention.ms": "3600000", "x.filter": "a=b==c"}


@pytest.mark.parametrize("item", ["retention.ms", "=5", "retention.ms=", " = ", ""])
def test_malformed_config_assignment_names_the_item_and_the_form(item: str) -> None:
    with pytest.raises(TopicError) as raised:
        parse_config_assignments(["cleanup.policy=compact", item])
    assert str(raised.value) == (
        f"Invalid topic config {item!r}: expected NAME=VALUE, for example --config min.insync.replicas=2"
    )
    assert isinstance(raised.value, KafkatopError)


# --- a new topic ----------------------------------------------------------------------------------------------------
def test_new_topic_without_problems() -> None:
    assert validate_new_topic("purchases", 3, 3) == []
    assert validate_new_topic("purchases", 3, 3, live_brokers=3) == []
    assert validate_new_topic("purchases", 1, 1, live_brokers=1) == []


def test_new_topic_every_problem_is_listed() -> None:
    assert validate_new_topic("bad name", 0, 0, live_brokers=3) == [
        "Topic name is invalid: 'bad name' contains one or more characters other than ASCII alphanumerics, "
        "'.', '_' and '-'",
        "partitions must be at least 1, not 0",
        "replication factor must be between 1 and 32767, not 0",
    ]


def test_new_topic_replication_factor_against_live_brokers() -> None:
    assert validate_new_topic("t", 3, 4, live_brokers=3) == [
        "replication factor 4 is larger than the 3 brokers available"
    ]
    assert validate_new_topic("t", 3, 2, live_brokers=1) == [
        "replication factor 2 is larger than the 1 broker available"
    ]
    assert validate_new_topic("t", 3, 4) == []  # broker count unknown: Kafka decides
    assert validate_new_topic("t", -1, 40000) == [
        "partitions must be at least 1, not -1",
        "replication factor must be between 1 and 32767, not 40000",
    ]


# --- kafka-topics.sh --describe -------------------------------------------------------------------------------------
def snapshot(*topics: Topic, brokers: tuple[Broker, ...] = ()) -> ClusterSnapshot:
    return ClusterSnapshot("admin", 0.0, "cluster-1", "kraft", None, brokers, topics)


def part(topic: str, pid: int, leader: int, replicas: tuple[int, ...], isr: tuple[int, ...]) -> Partition:
    return Partition(topic, pid, leader, replicas, isr)


PURCHASES = Topic(
    "purchases",
    (
        # out of order on purpose: Kafka sorts partitions by id
        part("purchases", 2, 0, (0, 1, 2), (0, 1, 2)),
        part("purchases", 0, 1, (1, 2, 0), (1, 2, 0)),
        part("purchases", 1, 2, (2, 0, 1), (2, 0, 1)),
    ),
    topic_id="8fvlV2diTU6xkha0SoHVsA",
)


def test_describe_one_topic_with_id_and_configs() -> None:
    configs = {"purchases": {"min.insync.replicas": "2", "segment.bytes": "1073741824"}}
    assert format_describe(snapshot(PURCHASES), "purchases", configs) == (
        "Topic: purchases\tTopicId: 8fvlV2diTU6xkha0SoHVsA\tPartitionCount: 3\tReplicationFactor: 3\t"
        "Configs: min.insync.replicas=2,segment.bytes=1073741824\n"
        "\tTopic: purchases\tPartition: 0\tLeader: 1\tReplicas: 1,2,0\tIsr: 1,2,0\n"
        "\tTopic: purchases\tPartition: 1\tLeader: 2\tReplicas: 2,0,1\tIsr: 2,0,1\n"
        "\tTopic: purchases\tPartition: 2\tLeader: 0\tReplicas: 0,1,2\tIsr: 0,1,2"
    )


def test_describe_keeps_the_config_order_it_is_given() -> None:
    configs = {"purchases": {"segment.bytes": "1073741824", "cleanup.policy": "compact"}}
    first = format_describe(snapshot(PURCHASES), "purchases", configs).splitlines()[0]
    assert first.endswith("\tConfigs: segment.bytes=1073741824,cleanup.policy=compact")


def test_describe_without_id_or_configs() -> None:
    t = Topic("audit", (part("audit", 0, 3, (3, 1), (3, 1)),))
    assert format_describe(snapshot(t)) == (
        "Topic: audit\tPartitionCount: 1\tReplicationFactor: 2\tConfigs: \n"
        "\tTopic: audit\tPartition: 0\tLeader: 3\tReplicas: 3,1\tIsr: 3,1"
    )
    # Uuid.ZERO_UUID is Kafka's "no id": not printed either.
    zero = Topic("audit", t.partitions, topic_id="AAAAAAAAAAAAAAAAAAAAAA")
    assert format_describe(snapshot(zero)).startswith("Topic: audit\tPartitionCount: 1\t")


def test_describe_offline_partition_shows_leader_minus_one_and_the_shrunk_isr() -> None:
    dead = (Broker(1, "h", 9092), Broker(2, "h", 9093), Broker(3, "h", 9094, alive=False))
    t = Topic(
        "orders",
        (
            Partition("orders", 0, NO_LEADER, (3,), (3,), offline_replicas=(3,)),
            Partition("orders", 1, 1, (1, 3), (1,), offline_replicas=(3,)),
        ),
        topic_id="XAU49cniRCmXNXd5ULcr8g",
    )
    # No "Offline:" column: no version of kafka-topics prints one.
    assert format_describe(snapshot(t, brokers=dead), "orders", {"orders": {}}) == (
        "Topic: orders\tTopicId: XAU49cniRCmXNXd5ULcr8g\tPartitionCount: 2\tReplicationFactor: 1\tConfigs: \n"
        "\tTopic: orders\tPartition: 0\tLeader: -1\tReplicas: 3\tIsr: 3\n"
        "\tTopic: orders\tPartition: 1\tLeader: 1\tReplicas: 1,3\tIsr: 1"
    )


def test_describe_replication_factor_is_the_first_partitions() -> None:
    # Mid-reassignment partitions can differ; kafka-topics prints partition 0's replica count.
    t = Topic("mixed", (part("mixed", 1, 1, (1, 2, 3), (1, 2, 3)), part("mixed", 0, 1, (1, 2), (1, 2))))
    assert format_describe(snapshot(t)).splitlines()[0] == (
        "Topic: mixed\tPartitionCount: 2\tReplicationFactor: 2\tConfigs: "
    )


def test_describe_all_topics_in_kafka_topics_order_internal_ones_included_when_present() -> None:
    offsets = Topic("__consumer_offsets", (part("__consumer_offsets", 0, 1, (1,), (1,)),), internal=True)
    audit = Topic("audit", (part("audit", 0, 2, (2,), (2,)),))
    zeta = Topic("Zeta", (part("Zeta", 0, 1, (1,), (1,)),))
    configs = {"audit": {"cleanup.policy": "compact"}, "unrelated": {"x": "y"}}
    snap = snapshot(audit, PURCHASES, offsets, zeta)
    zeta_lines = (
        "Topic: Zeta\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n"
        "\tTopic: Zeta\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\n"
    )
    purchases_lines = (
        "Topic: purchases\tTopicId: 8fvlV2diTU6xkha0SoHVsA\tPartitionCount: 3\tReplicationFactor: 3\tConfigs: \n"
        "\tTopic: purchases\tPartition: 0\tLeader: 1\tReplicas: 1,2,0\tIsr: 1,2,0\n"
        "\tTopic: purchases\tPartition: 1\tLeader: 2\tReplicas: 2,0,1\tIsr: 2,0,1\n"
        "\tTopic: purchases\tPartition: 2\tLeader: 0\tReplicas: 0,1,2\tIsr: 0,1,2\n"
    )
    offsets_lines = (
        "Topic: __consumer_offsets\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n"
        "\tTopic: __consumer_offsets\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\n"
    )
    audit_lines = (
        "Topic: audit\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: cleanup.policy=compact\n"
        "\tTopic: audit\tPartition: 0\tLeader: 2\tReplicas: 2\tIsr: 2\n"
    )
    # kafka-topics' own order (Java HashMap iteration), not the names' order.
    assert format_describe(snap, configs=configs) + "\n" == zeta_lines + purchases_lines + offsets_lines + audit_lines
    assert format_describe(snap, configs=configs, sort_by_name=True) + "\n" == (
        zeta_lines + offsets_lines + audit_lines + purchases_lines
    )
    # An empty --topic means all topics, as in kafka-topics.
    assert format_describe(snap, "") == format_describe(snap)


def test_describe_nothing() -> None:
    assert format_describe(snapshot()) == ""


def test_describe_unknown_topic_is_kafka_topics_error() -> None:
    with pytest.raises(TopicError) as raised:
        format_describe(snapshot(PURCHASES), "purchase")
    assert str(raised.value) == "Topic 'purchase' does not exist as expected"
    assert raised.value.topic == "purchase"


# --- the order of "Configs:" ----------------------------------------------------------------------------------------
def broker_listing(non_defaults: list[str], total: int = 33) -> list[str]:
    """A topic's entries as a Kafka 4.1 broker lists them: 33 in all, the defaults among them."""
    return non_defaults + [f"default.{i}" for i in range(total - len(non_defaults))]


def test_config_order_follows_javas_hashmap() -> None:
    # Observed with kafka-topics.sh 4.1 for a topic created with these configs (min.insync.replicas is the
    # cluster-wide default KRaft sets), listed by the broker in this order among 33 entries: 64 HashMap buckets.
    shown = [
        "compression.type", "min.insync.replicas", "flush.ms", "segment.bytes", "file.delete.delay.ms",
        "max.message.bytes", "min.compaction.lag.ms", "message.timestamp.type", "preallocate",
        "index.interval.bytes", "unclean.leader.election.enable", "retention.bytes", "delete.retention.ms",
        "segment.ms",
    ]  # fmt: skip
    assert [n for n in kafka_config_order(broker_listing(sorted(shown))) if n in shown] == [
        *shown[:11],
        # retention.bytes and delete.retention.ms share a bucket: there the broker's order decides.
        "delete.retention.ms",
        "retention.bytes",
        "segment.ms",
    ]
    assert [n for n in kafka_config_order(broker_listing(shown)) if n in shown] == shown
    three = ["retention.ms", "cleanup.policy", "min.insync.replicas"]
    assert [n for n in kafka_config_order(broker_listing(three)) if n in three] == [
        "min.insync.replicas",
        "cleanup.policy",
        "retention.ms",
    ]


def test_config_order_keeps_insertion_order_within_a_bucket() -> None:
    # "Aa" and "BB" have the same Java hashCode (2112): same bucket, so the broker's order decides.
    assert kafka_config_order(["Aa", "BB"]) == ["Aa", "BB"]
    assert kafka_config_order(["BB", "Aa"]) == ["BB", "Aa"]


def test_topic_order_is_kafka_topics_order() -> None:
    # Orders kafka-topics.sh 4.1 printed for `--describe` and `--describe --topic 'name|name|…'`.
    observed = [
        ["many", "purchases", "plain"],
        "aQGD tIBb a_Awf t-BPq a-jF2WL t_97wnom t-ihBe orders.RKJ lab-b6GjH a_McR a-K events-DS".split(),
        (
            "tIBb a-jF2WL orders.EvBLe orders_kPnR t_97wnom xhySm3A orders.RKJ a.HZd orders.a orders-dmt orders_v "
            "orderslc events-DS orders-kvda xUi9m2 a_Awf orders.so x_ygNd labT events.Ty orders-zHJ orders.cWq "
            "events_rzw27 a_Uj"
        ).split(),
    ]
    for printed in observed:
        assert kafka_topic_order(sorted(printed)) == printed
        assert kafka_topic_order(list(reversed(printed))) == printed  # the input's order does not matter
    assert kafka_topic_order([]) == []
    assert kafka_topic_order(["only"]) == ["only"]


# --- what TopicAdmin checks before asking Kafka ---------------------------------------------------------------------
def test_topic_ids_print_as_kafka_does() -> None:
    assert kafka_uuid_text(Uuid(-1, 5)) == "__________8AAAAAAAAABQ"  # librdkafka's str(): "//////////8AAAAAAAAABQ"
    assert kafka_uuid_text(Uuid(0, 0)) == "AAAAAAAAAAAAAAAAAAAAAA"


def test_create_topic_checks_locally_first() -> None:
    # Nothing listens on port 9 of the loopback: these must fail before any request is sent.
    with TopicAdmin(KafkaConnection.parse("127.0.0.1:9"), timeout_s=0.5) as admin:
        with pytest.raises(TopicError) as raised:
            admin.create_topic("bad name", 1, 1)
        assert str(raised.value) == (
            "Topic name is invalid: 'bad name' contains one or more characters other than ASCII alphanumerics, "
            "'.', '_' and '-'"
        )
        assert (raised.value.topic, raised.value.code) == ("bad name", None)
        with pytest.raises(TopicError) as raised:
            admin.create_topic("t", 0, 0)
        assert str(raised.value) == (
            "Cannot create topic 't': partitions must be at least 1, not 0; "
            "replication factor must be between 1 and 32767, not 0"
        )
        with pytest.raises(TopicError, match=r"^Topic name is invalid: '\.\.' is not allowed$"):
            admin.delete_topic("..")
    with pytest.raises(KafkatopError, match="closed"):
        admin.topic_configs(["t"])
