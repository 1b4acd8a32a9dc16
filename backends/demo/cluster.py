"""kafkatop's demo cluster: the librdkafka mock with the labs' layout, for a first run without any Kafka install."""

from __future__ import annotations

from dataclasses import dataclass

from confluent_kafka import TopicPartition as KafkaTopicPartition

from kafkatop.backends.demo.assignment import assign_replicas, placement
from kafkatop.backends.kafka import handles
from kafkatop.backends.kafka.mock import MockCluster
from kafkatop.backends.model.connection import KafkaConnection

# As lab 002: `purchases`, 3 partitions × RF 3; and a wider topic with a consumer group behind on it.
DEMO_TOPICS = {"purchases": 3, "orders": 6}


DEMO_GROUP = "billing"


@dataclass
class DemoCluster:
    cluster: MockCluster
    groups: tuple[str, ...]

    @property
    def bootstrap_servers(self) -> str:
        return self.cluster.bootstrap_servers

    @property
    def connection(self) -> KafkaConnection:
        return KafkaConnection.parse(self.cluster.bootstrap_servers)

    def close(self) -> None:
        self.cluster.close()


def start_demo_cluster(messages_per_partition: int = 20) -> DemoCluster:
    cluster = MockCluster(3)
    try:
        for name, partitions in DEMO_TOPICS.items():
            cluster.create_topic(name, partitions, 3)
            # Led by their preferred leaders from the start, as Kafka's controller elects them at creation (the mock
            # picks at random), before any record: DemoControl then finds them so and changes nothing.
            replicas = assign_replicas(partitions, 3, cluster.broker_ids, *placement(name, cluster.broker_ids))
            for p, placed in enumerate(replicas):
                cluster.set_partition_leader(name, p, placed[0])
        connection = KafkaConnection.parse(cluster.bootstrap_servers)
        producer = handles.producer(connection.config("kafkatop-demo"))
        for name, partitions in DEMO_TOPICS.items():
            for p in range(partitions):
                for i in range(messages_per_partition + 5 * p):
                    producer.produce(name, key=f"k{i}".encode(), value=f"{name} #{i}".encode(), partition=p)
        producer.flush(10)
        handles.release([producer])
        del producer
        # A group that has read half of `orders`: committed offsets and lag to look at.
        consumer = handles.consumer({**connection.config("kafkatop-demo"), "group.id": DEMO_GROUP})
        half = messages_per_partition // 2
        consumer.commit(
            offsets=[KafkaTopicPartition("orders", p, half) for p in range(DEMO_TOPICS["orders"])],
            asynchronous=False,
        )
        handles.release([consumer])  # closed there
        del consumer
    except Exception:
        cluster.close()
        raise
    return DemoCluster(cluster, (DEMO_GROUP,))
