"""What the app is shown of the demo: the mock's metadata answers ISR = replicas and its own replicas and leaders, so
each snapshot read from it gets what the demo's controller decided instead, and the table, the status bar and the
timeline tell that (DemoSource, source.py, applies it to every poll)."""

from __future__ import annotations

from dataclasses import replace

from kafkatop.backends.demo.controller import DemoController
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.nodes import NodeState
from kafkatop.backends.model.topic_partition import TopicPartition


class ControllerOverlay(DemoController):
    """The controller's state laid over what the mock's metadata says."""

    def overlay(self, snapshot: ClusterSnapshot) -> ClusterSnapshot:
        """`snapshot`, read from the mock, with what only this controller knows: replicas as placed, leaders and
        ISRs as elected, replicas on brokers that are down as offline, and the mode: demo."""
        with self._lock:
            if self._closed:
                return replace(snapshot, mode="demo")
            self._learn({t.name: {p.id: p.leader for p in t.partitions} for t in snapshot.topics})
            down = {b.id for b in self._brokers.values() if b.state is not NodeState.UP}
            topics = []
            for topic in snapshot.topics:
                parts = []
                for p in topic.partitions:
                    part = self._partitions.get(TopicPartition(p.topic, p.id))
                    if part is None:
                        parts.append(p)
                        continue
                    parts.append(
                        replace(
                            p,
                            leader=part.leader,
                            replicas=part.replicas,
                            isr=tuple(part.isr),
                            offline_replicas=tuple(r for r in part.replicas if r in down),
                        )
                    )
                topics.append(replace(topic, partitions=tuple(parts)))
            return replace(snapshot, mode="demo", topics=tuple(topics))
