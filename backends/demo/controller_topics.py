"""The demo controller's topics: the librdkafka mock has no CreateTopics or DeleteTopics, so the controller answers
them as Kafka's does, makes the change through the mock's own calls, and places the new replicas as Kafka would
(assignment.py). The TopicAdmin port over it is topics.py."""

from __future__ import annotations

import time

from kafkatop.backends.demo.controller import DemoController
from kafkatop.backends.model.errors import MockClusterError
from kafkatop.backends.model.topics import TopicError, validate_new_topic, validate_topic_name


class ControllerTopics(DemoController):
    """Topics created and deleted by the demo's controller, and their replicas as it placed them."""

    def topics(self) -> dict[str, tuple[tuple[int, ...], ...]]:
        """Each topic's replicas per partition, as placed here."""
        with self._lock:
            out: dict[str, list[tuple[int, ...]]] = {}
            for tp, part in sorted(self._partitions.items()):
                out.setdefault(tp.topic, []).append(part.replicas)
            return {name: tuple(replicas) for name, replicas in out.items()}

    def create_topic(self, name: str, partitions: int, replication_factor: int) -> None:
        """Kafka's CreateTopics, as its controller answers it: refused for a name taken or too few live brokers;
        else created in the mock, its replicas placed here."""
        if (problem := validate_topic_name(name)) is not None:
            raise TopicError(problem, topic=name)
        if problems := validate_new_topic(name, partitions, replication_factor):
            raise TopicError(f"Cannot create topic '{name}': " + "; ".join(problems), topic=name)
        metadata = self._fresh_metadata()
        with self._lock:
            if self._closed:
                raise TopicError(f"Cannot create topic '{name}': the demo cluster is closed", topic=name)
            if metadata is not None:
                self._learn_topics(metadata)
            if any(tp.topic == name for tp in self._partitions):
                raise TopicError(f"Topic '{name}' already exists.", topic=name, code="TOPIC_ALREADY_EXISTS")
            live = len(self._live())
            if replication_factor > live:
                raise TopicError(
                    f"Cannot create topic '{name}': Replication factor: {replication_factor} larger than available "
                    f"brokers: {live}. Use a replication factor no larger than the number of brokers, or start more "
                    "brokers.",
                    topic=name,
                    code="INVALID_REPLICATION_FACTOR",
                )
            try:
                self.mock.create_topic(name, partitions, replication_factor)
                self._deleted.pop(name, None)
            except MockClusterError as e:
                raise TopicError(f"Cannot create topic '{name}': {e}", topic=name) from None
            self._place(name, partitions, replication_factor)
            self._event(f"topic {name} created: {partitions} partition(s), replication factor {replication_factor}")

    def delete_topic(self, name: str) -> None:
        metadata = self._fresh_metadata()
        with self._lock:
            if metadata is not None:
                self._learn_topics(metadata)
            known = [tp for tp in self._partitions if tp.topic == name]
            if not known:
                raise TopicError(f"Topic '{name}' does not exist as expected", topic=name, code="UNKNOWN_TOPIC_OR_PART")
            try:
                self.mock.delete_topic(name)
            except MockClusterError as e:
                raise TopicError(f"Cannot delete topic '{name}': {e}", topic=name) from None
            for tp in known:
                del self._partitions[tp]
            self._deleted[name] = time.monotonic()
            self._event(f"topic {name} deleted")
