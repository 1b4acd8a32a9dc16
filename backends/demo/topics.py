"""Creating and deleting the demo's topics: the librdkafka mock has no CreateTopics or DeleteTopics, so the demo's
controller does it through the mock's own calls and places the replicas as Kafka would (see controller_topics.py)."""

from __future__ import annotations

from collections.abc import Mapping

from kafkatop.backends.demo.node_control import DemoControl
from kafkatop.backends.model.topics import TopicError


class DemoTopicAdmin:
    """The TopicAdmin port for the demo."""

    def __init__(self, control: DemoControl) -> None:
        self._control = control

    def create_topic(
        self, name: str, partitions: int, replication_factor: int, configs: Mapping[str, str] | None = None
    ) -> None:
        if configs:
            raise TopicError(
                f"Cannot create topic '{name}' with {', '.join(f'{k}={v}' for k, v in configs.items())}: the demo's "
                "mock cluster keeps no topic configs and would not enforce them. Create it without configs, or run "
                "a lab cluster (kafkatop up) for a real Kafka.",
                topic=name,
            )
        self._control.create_topic(name, partitions, replication_factor)

    def delete_topic(self, name: str) -> None:
        self._control.delete_topic(name)

    def add_partitions(self, name: str, total: int, *, validate_only: bool = False) -> None:
        raise TopicError(
            f"Cannot add partitions to topic '{name}' in the demo: the librdkafka mock makes a topic's partitions "
            "once, when it creates the topic, and has no CreatePartitions. Run a lab cluster (kafkatop up) for a real "
            "Kafka.",
            topic=name,
        )

    def close(self) -> None:
        """Nothing to close: the controller belongs to the demo."""
