"""What an operator does to the cluster beyond starting and stopping nodes — a leader election, a reassignment, new
partitions, a config change, a consumer group's offsets — told as steps, so the timeline can show each one beside
what the cluster did about it, and a recording can keep it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class OperationKind(StrEnum):
    LEADER_ELECTION = "leader election"
    REASSIGNMENT = "reassignment"
    ADD_PARTITIONS = "add partitions"
    CONFIG_CHANGE = "config change"
    GROUP_CHANGE = "group change"  # a group deleted, its offsets deleted or reset
    CONNECTOR_CHANGE = "connector change"  # a Kafka Connect connector created, paused, resumed, stopped, …
    ACL_CHANGE = "acl change"  # ACL bindings added or removed
    SCENARIO = "scenario"  # a scenario's step begun, an expectation of it met or not (the live view's pane)
    WRITE = "write"  # a write the audit trail kept that no other kind tells (a topic created, offsets reset, …)


class OperationPhase(StrEnum):
    STARTED = "started"  # sent to the cluster
    PROGRESS = "progress"  # a step of a long one: replicas added, in the ISR, old replicas removed
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def final(self) -> bool:
        return self in (OperationPhase.DONE, OperationPhase.FAILED, OperationPhase.CANCELLED)


@dataclass(frozen=True, slots=True)
class OperationStep:
    kind: OperationKind
    phase: OperationPhase
    text: str  # one human line: "preferred leader election on orders: partitions 0, 3 move back to 1, 2"
    topic: str | None = None  # the topic concerned, if one
