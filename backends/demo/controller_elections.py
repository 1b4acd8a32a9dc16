"""The demo controller's leader elections asked from kafkatop: the librdkafka mock has no ElectLeaders, so the
controller answers it with the KRaft controller's rules (see insight/elections.py). The LeaderElections port over it
is elections.py."""

from __future__ import annotations

from collections.abc import Sequence

from kafkatop.backends.demo.controller import DemoController, PartitionRegistration, joined_ids
from kafkatop.backends.model.cluster import NO_LEADER
from kafkatop.backends.model.elections import (
    ELECTION_NOT_NEEDED,
    ELIGIBLE_LEADERS_NOT_AVAILABLE,
    PREFERRED_LEADER_NOT_AVAILABLE,
    UNKNOWN_TOPIC_OR_PARTITION,
    ElectionError,
    ElectionResult,
    ElectionType,
)
from kafkatop.backends.model.topic_partition import TopicPartition


class ControllerElections(DemoController):
    """Preferred and unclean leader elections, asked for by kafkatop and decided by the demo's controller."""

    def elect_leaders(
        self, election_type: ElectionType, partitions: Sequence[TopicPartition] | None
    ) -> list[ElectionResult]:
        """Kafka's ElectLeaders, answered by this controller with the KRaft controller's rules (see
        insight/elections.py); `partitions` None: every partition, leaving out those that need no election."""
        metadata = self._fresh_metadata()
        with self._lock:
            if self._closed:
                raise ElectionError("the demo cluster is closed")
            if metadata is not None:
                self._learn_topics(metadata)
            wanted = sorted(self._partitions) if partitions is None else list(dict.fromkeys(partitions))
            results = []
            for tp in wanted:
                part = self._partitions.get(tp)
                if part is None:
                    results.append(ElectionResult(tp, UNKNOWN_TOPIC_OR_PARTITION, f"No such partition as {tp}"))
                    continue
                result = self._elect_asked(tp, part, election_type)
                if partitions is None and result.not_needed:
                    continue
                results.append(result)
            return results

    def _elect_asked(
        self, tp: TopicPartition, part: PartitionRegistration, election_type: ElectionType
    ) -> ElectionResult:
        live = self._live()

        def valid(r: int) -> bool:
            return r in live and r in part.isr

        old = part.leader
        who = f"{election_type.word} leader election (asked from kafkatop)"
        if election_type is ElectionType.PREFERRED:
            preferred = part.replicas[0]
            if old == preferred:
                return ElectionResult(tp, ELECTION_NOT_NEEDED, "Leader election not needed for topic partition.")
            new = preferred if valid(preferred) else None
            if new is None and not (old != NO_LEADER and valid(old)):
                new = next((r for r in part.replicas[1:] if valid(r)), None)
            if new is None:
                return ElectionResult(tp, PREFERRED_LEADER_NOT_AVAILABLE, "The preferred leader was not available.")
        else:
            if old != NO_LEADER:
                return ElectionResult(tp, ELECTION_NOT_NEEDED, "Leader election not needed for topic partition.")
            new = next((r for r in part.replicas if valid(r)), None)
            if new is None:
                new = next((r for r in part.replicas if r in live), None)
                if new is None:
                    return ElectionResult(
                        tp, ELIGIBLE_LEADERS_NOT_AVAILABLE, "Eligible topic partition leaders are not available."
                    )
                # Out of sync: on Kafka what it lacks is lost. The mock keeps one log per partition, so here it
                # lacks nothing, and the live replicas are in sync with it at once.
                self._event(f"{who}: {tp} led by {new}, an out-of-sync replica (ISR was {joined_ids(part.isr)})", new)
                part.isr = [r for r in part.replicas if r in live]
        self._set_leader(tp, part, new)
        shown = "none" if old == NO_LEADER else str(old)
        self._event(f"{who}: leader of {tp} {shown} → {new}", *(b for b in (old, new) if b != NO_LEADER))
        return ElectionResult(tp)
