"""Partition reassignment (KIP-455): a plan — each partition's new replicas, the first its preferred leader — in
kafka-reassign-partitions.sh's JSON, and each partition's progress as the cluster shows it: replicas being added,
caught up into the ISR, old replicas removed (standard library only)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.errors import BadInput, KafkatopError
from kafkatop.backends.model.json_text import loads

TopicPartitionKey = tuple[str, int]


class ReassignmentRefused(BadInput):
    """A plan that cannot run as asked (a dead or unknown broker, a replication factor above the brokers, a JSON file
    that does not parse): nothing was sent. Exit 2."""


class ReassignmentError(KafkatopError):
    """Kafka refused, or could not be asked; the message has Kafka's error name and message."""


@dataclass(frozen=True, slots=True)
class PartitionMove:
    topic: str
    partition: int
    current: tuple[int, ...]
    target: tuple[int, ...]

    @property
    def key(self) -> TopicPartitionKey:
        return (self.topic, self.partition)

    @property
    def changed(self) -> bool:
        return self.current != self.target

    @property
    def adding(self) -> tuple[int, ...]:
        return tuple(b for b in self.target if b not in self.current)

    @property
    def removing(self) -> tuple[int, ...]:
        return tuple(b for b in self.current if b not in self.target)

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"


@dataclass(frozen=True, slots=True)
class ReassignmentPlan:
    moves: tuple[PartitionMove, ...]  # every partition asked about, in (topic, partition) order

    @property
    def changes(self) -> tuple[PartitionMove, ...]:
        return tuple(m for m in self.moves if m.changed)

    @property
    def replicas_moved(self) -> int:
        """Replicas to copy to a new broker (what costs time and network)."""
        return sum(len(m.adding) for m in self.moves)

    def targets(self, *, every: bool = False) -> dict[TopicPartitionKey, tuple[int, ...]]:
        return {m.key: m.target for m in (self.moves if every else self.changes)}

    def with_target(self, topic: str, partition: int, target: tuple[int, ...]) -> ReassignmentPlan:
        """The same plan with one partition's replicas edited (by the user)."""
        return ReassignmentPlan(
            tuple(
                PartitionMove(m.topic, m.partition, m.current, target) if m.key == (topic, partition) else m
                for m in self.moves
            )
        )


def plan_json(assignment: Iterable[tuple[TopicPartitionKey, tuple[int, ...]]]) -> str:
    """kafka-reassign-partitions.sh's JSON, on one line as that tool prints it."""
    partitions = [
        {"topic": t, "partition": p, "replicas": list(replicas), "log_dirs": ["any"] * len(replicas)}
        for (t, p), replicas in assignment
    ]
    return json.dumps({"version": 1, "partitions": partitions}, separators=(",", ":"))


def current_json(plan: ReassignmentPlan) -> str:
    return plan_json((m.key, m.current) for m in plan.moves)


def proposed_json(plan: ReassignmentPlan) -> str:
    return plan_json((m.key, m.target) for m in plan.moves)


def parse_plan_json(text: str, where: str) -> dict[TopicPartitionKey, tuple[int, ...]]:
    """kafka-reassign-partitions.sh's --reassignment-json-file (log_dirs other than "any" are refused: kafkatop
    moves replicas between brokers, not between a broker's log directories)."""

    def refuse(what: str) -> ReassignmentRefused:
        return ReassignmentRefused(
            f"{where}: {what}: expected kafka-reassign-partitions.sh's JSON, "
            '{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2]}]}'
        )

    try:
        data = loads(text)
    except json.JSONDecodeError as e:
        raise refuse(f"not JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    if not isinstance(data, dict) or not isinstance(data.get("partitions"), list):
        raise refuse('no "partitions" list')
    if data.get("version", 1) != 1:
        raise refuse(f"version {data.get('version')!r}, not 1")
    out: dict[TopicPartitionKey, tuple[int, ...]] = {}
    for i, entry in enumerate(data["partitions"]):
        if not isinstance(entry, dict):
            raise refuse(f"partitions[{i}] is not an object")
        topic, partition, replicas = entry.get("topic"), entry.get("partition"), entry.get("replicas")
        if not isinstance(topic, str) or not topic:
            raise refuse(f'partitions[{i}] has no "topic"')
        if not isinstance(partition, int) or isinstance(partition, bool) or partition < 0:
            raise refuse(f'partitions[{i}] ({topic}) has no "partition" number')
        if (
            not isinstance(replicas, list)
            or not replicas
            or not all(isinstance(b, int) and not isinstance(b, bool) for b in replicas)
        ):
            raise refuse(f'{topic}-{partition} has no "replicas" list of broker ids')
        dirs = entry.get("log_dirs", ["any"] * len(replicas))
        if not isinstance(dirs, list) or any(d != "any" for d in dirs):
            raise refuse(f"{topic}-{partition} names log_dirs: kafkatop moves replicas between brokers only")
        if (topic, partition) in out:
            raise refuse(f"{topic}-{partition} is listed twice")
        out[(topic, partition)] = tuple(replicas)
    if not out:
        raise refuse("no partitions")
    return out


# Right after AlterPartitionReassignments is answered, a partition can be neither listed as moving nor seen at its
# target yet (the metadata a poll reads lags the controller): until this long after the start, that is not an end.
SETTLE_S = 10.0


class Stage(StrEnum):
    """Where one partition's reassignment is (KIP-455: the replica set grows, the new ones catch up, then shrinks)."""

    ADDING = "adding replicas"  # the new replicas are being created and copy the log
    CATCHING_UP = "catching up"  # some new replicas are not in the ISR yet
    REMOVING = "removing old replicas"  # all new replicas in the ISR; the old ones are being dropped
    DONE = "done"
    NOT_STARTED = "not reassigned"  # neither in progress nor at the target: cancelled, refused, or never sent


@dataclass(frozen=True, slots=True)
class PartitionProgress:
    move: PartitionMove
    stage: Stage
    replicas: tuple[int, ...]  # as the cluster shows them now
    isr: tuple[int, ...]
    waiting_for: tuple[int, ...] = ()  # new replicas not in the ISR yet

    @property
    def text(self) -> str:
        if self.stage is Stage.CATCHING_UP:
            return f"{self.stage.value}: {','.join(map(str, self.waiting_for))} not in the ISR yet"
        if self.stage is Stage.NOT_STARTED:
            return f"{self.stage.value}: replicas are {','.join(map(str, self.replicas)) or 'none'}"
        return self.stage.value


@dataclass(frozen=True, slots=True)
class ReassignmentStatus:
    partitions: tuple[PartitionProgress, ...]

    @property
    def done(self) -> bool:
        return all(p.stage is Stage.DONE for p in self.partitions)

    @property
    def running(self) -> tuple[PartitionProgress, ...]:
        return tuple(p for p in self.partitions if p.stage not in (Stage.DONE, Stage.NOT_STARTED))

    def ended(self, since_start_s: float) -> bool:
        """Nothing moves any more: all done, or (once the metadata has had SETTLE_S to catch up) some partitions
        neither moving nor at their target — a cancel, or another tool's change."""
        return self.done or (not self.running and since_start_s >= SETTLE_S)


@dataclass(frozen=True, slots=True)
class Ongoing:
    """One reassignment in progress, as ListPartitionReassignments tells it."""

    replicas: tuple[int, ...]
    adding: tuple[int, ...]
    removing: tuple[int, ...]


def progress(
    plan: ReassignmentPlan, cluster: ClusterSnapshot, ongoing: Mapping[TopicPartitionKey, Ongoing]
) -> ReassignmentStatus:
    """Each changed partition's stage, from the metadata (replicas, ISR) and the reassignments in progress."""
    out = []
    for move in plan.changes:
        topic = cluster.topic(move.topic)
        partition = next((p for p in topic.partitions if p.id == move.partition), None) if topic else None
        replicas = partition.replicas if partition else ()
        isr = partition.isr if partition else ()
        running = ongoing.get(move.key)
        if running is None:
            stage = Stage.DONE if replicas == move.target else Stage.NOT_STARTED
            out.append(PartitionProgress(move, stage, replicas, isr))
            continue
        waiting = tuple(b for b in running.adding if b not in isr)
        missing = tuple(b for b in running.adding if b not in replicas)
        if missing:
            stage = Stage.ADDING
        elif waiting:
            stage = Stage.CATCHING_UP
        else:
            stage = Stage.REMOVING
        out.append(PartitionProgress(move, stage, running.replicas or replicas, isr, waiting))
    return ReassignmentStatus(tuple(out))
