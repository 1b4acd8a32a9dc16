"""Leader elections as Kafka's ElectLeaders takes and answers them: the two kinds, what one would do to each partition
before it is sent (a plan), and what the controller answered for each partition (standard library only).

The plan is insight/elections.py's work; the adapters (backends/kafka/cluster/elections.py, the demo's) send it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from kafkatop.backends.model.cluster import NO_LEADER
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.topic_partition import TopicPartition

# Kafka's answers for one partition of an ElectLeaders request (org.apache.kafka.common.protocol.Errors).
ELECTION_NOT_NEEDED = "ELECTION_NOT_NEEDED"
PREFERRED_LEADER_NOT_AVAILABLE = "PREFERRED_LEADER_NOT_AVAILABLE"
ELIGIBLE_LEADERS_NOT_AVAILABLE = "ELIGIBLE_LEADERS_NOT_AVAILABLE"
UNKNOWN_TOPIC_OR_PARTITION = "UNKNOWN_TOPIC_OR_PARTITION"


class ElectionType(StrEnum):
    """As kafka-leader-election.sh prints it: "(PREFERRED)", "(UNCLEAN)"."""

    PREFERRED = "PREFERRED"
    UNCLEAN = "UNCLEAN"

    @property
    def word(self) -> str:
        return self.value.lower()


class ElectionError(KafkatopError):
    """An election could not be asked for or was refused as a whole (not authorized, timed out, no controller)."""


@dataclass(frozen=True, slots=True)
class ElectionCandidate:
    """One partition an election would act on: who leads it now and who would after, or why Kafka would refuse.

    `log_end` and `high_watermark` matter to an unclean election only: the new leader's log end offset and the last
    high watermark known. What lies between them was acknowledged by replicas the new leader never caught up with.
    """

    partition: TopicPartition
    leader: int  # NO_LEADER when it has none
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    new_leader: int | None  # None: Kafka finds no replica to elect, and answers `error`
    error: str | None  # the error Kafka would answer: PREFERRED_LEADER_NOT_AVAILABLE, ELIGIBLE_LEADERS_NOT_AVAILABLE
    reason: str  # why, in words
    unclean: bool = False  # the new leader is not in the ISR: acknowledged records may be lost
    high_watermark: int | None = None
    log_end: int | None = None

    @property
    def moves(self) -> bool:
        return self.error is None and self.new_leader is not None and self.new_leader != self.leader

    @property
    def records_lost(self) -> int | None:
        """Records between the new leader's log end and the last high watermark known; None when either is not."""
        if not self.unclean:
            return 0
        if self.log_end is None or self.high_watermark is None:
            return None
        return max(0, self.high_watermark - self.log_end)

    @property
    def leader_text(self) -> str:
        return "none" if self.leader == NO_LEADER else str(self.leader)


@dataclass(frozen=True, slots=True)
class ElectionPlan:
    """What an election of `election_type` would do to the partitions asked for, from one view of the cluster."""

    election_type: ElectionType
    candidates: tuple[ElectionCandidate, ...]  # would move, or would be refused
    not_needed: tuple[TopicPartition, ...]  # already led as this election wants: ELECTION_NOT_NEEDED
    unknown: tuple[TopicPartition, ...] = ()  # asked for, and not in the cluster: UNKNOWN_TOPIC_OR_PARTITION
    whole_cluster: bool = False  # every partition of the cluster (kafka-leader-election --all-topic-partitions)

    @property
    def moving(self) -> tuple[ElectionCandidate, ...]:
        return tuple(c for c in self.candidates if c.moves)

    @property
    def refused(self) -> tuple[ElectionCandidate, ...]:
        return tuple(c for c in self.candidates if not c.moves)

    @property
    def unclean_moves(self) -> tuple[ElectionCandidate, ...]:
        """The moves that can lose acknowledged records: the ones to confirm."""
        return tuple(c for c in self.moving if c.unclean)

    @property
    def partitions(self) -> tuple[TopicPartition, ...]:
        """What to send: every partition asked for that the cluster has (Kafka answers each)."""
        return tuple(sorted({c.partition for c in self.candidates} | set(self.not_needed)))


@dataclass(frozen=True, slots=True)
class ElectionResult:
    """The controller's answer for one partition: elected (error None), or Kafka's error name and message."""

    partition: TopicPartition
    error: str | None = None
    message: str | None = None

    @property
    def elected(self) -> bool:
        return self.error is None

    @property
    def not_needed(self) -> bool:
        return self.error == ELECTION_NOT_NEEDED


@dataclass(frozen=True, slots=True)
class ElectionResults:
    election_type: ElectionType
    results: tuple[ElectionResult, ...]
    note: str | None = None  # who did it when not Kafka's controller (the demo's)

    @property
    def elected(self) -> tuple[TopicPartition, ...]:
        return tuple(sorted(r.partition for r in self.results if r.elected))

    @property
    def not_needed(self) -> tuple[TopicPartition, ...]:
        return tuple(sorted(r.partition for r in self.results if r.not_needed))

    @property
    def failed(self) -> tuple[ElectionResult, ...]:
        return tuple(sorted((r for r in self.results if not r.elected and not r.not_needed), key=lambda r: r.partition))
