"""Where a poll finds consumer groups' coordinators down, from metadata alone: Kafka's coordinator of a group is the
leader of its __consumer_offsets partition (see offsets_partition), so metadata shows when there is none, and when
another broker took over. GroupPoll does not ask a group whose coordinator is down, and says why instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kafkatop.backends.model.group_placement import OFFSETS_TOPIC, offsets_partition


class CoordinatorPlacement:
    """Whether this cluster places groups as Kafka does, learnt from DescribeGroups answers; until then, no
    coordinator is taken for down: the librdkafka mock and Kafka-compatible brokers place groups their own way, and
    there every group is asked."""

    def __init__(self) -> None:
        self.confirmed = False

    def down(self, metadata: Any, group_ids: list[str]) -> dict[str, str]:
        """Groups whose coordinator is down in this poll's metadata, with the reason; they are not asked at all."""
        offsets = metadata.topics.get(OFFSETS_TOPIC)
        if not self.confirmed or offsets is None or not offsets.partitions:
            return {}
        down: dict[str, str] = {}
        for g in group_ids:
            pid = offsets_partition(g, len(offsets.partitions))
            pm = offsets.partitions.get(pid)
            if pm is None:
                continue
            if pm.leader < 0:
                down[g] = (
                    f"no coordinator: {OFFSETS_TOPIC}-{pid} has no leader: group state unknown until a broker takes "
                    "it over"
                )
            elif pm.leader not in metadata.brokers:
                down[g] = (
                    f"coordinator broker {pm.leader} is down: group state unknown until it returns or another "
                    "broker takes over"
                )
        return down

    def confirm(self, metadata: Any, descriptions: Mapping[str, Any]) -> None:
        """From librdkafka's descriptions (the per-group way): confirmed once one came from the coordinator Kafka's
        placement names."""
        offsets = metadata.topics.get(OFFSETS_TOPIC)
        if self.confirmed or offsets is None or not offsets.partitions:
            return
        for g, desc in descriptions.items():
            pm = offsets.partitions.get(offsets_partition(g, len(offsets.partitions)))
            coordinator = getattr(desc.coordinator, "id", None)
            if pm is not None and coordinator is not None and pm.leader == coordinator:
                self.confirmed = True
                return

    def confirm_group(self, metadata: Any, group_id: str, coordinator: int) -> None:
        """From a coordinator that answered for `group_id` (the batched way)."""
        self.confirmed = self.confirmed or self._placed(metadata, group_id, coordinator)

    @staticmethod
    def _placed(metadata: Any, group_id: str, coordinator: int) -> bool:
        offsets = metadata.topics.get(OFFSETS_TOPIC)
        if offsets is None or not offsets.partitions:
            return False
        pm = offsets.partitions.get(offsets_partition(group_id, len(offsets.partitions)))
        return pm is not None and pm.leader == coordinator
