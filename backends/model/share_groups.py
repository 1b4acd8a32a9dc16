"""Share groups (KIP-932, Kafka 4.1+ "queues"): what a share group is, its members and the share-partition start
offset (SPSO) of each partition it has state for, as kafka-share-groups.sh describes them (standard library only).

A share group's members share the records of a partition; the group keeps no committed offset per member but one
start offset per partition: the first record not yet acknowledged (those before it are delivered and done). Lag here
is the partition's end (high watermark) minus that start offset: the records not yet acknowledged, in flight ones
included (Kafka 4.1's tool prints no lag; Kafka 4.2's asks the broker, which leaves acknowledged in-flight records
out, so its figure can be lower).
"""

from __future__ import annotations

from dataclasses import dataclass

from kafkatop.backends.model.errors import KafkatopError

ENABLE_HINT = (
    "turn them on with `kafka-features.sh --bootstrap-server HOST:PORT upgrade --feature share.version=1` (Kafka "
    "4.1+), or start a kafkatop lab with `kafkatop up --share-groups`"
)


class ShareGroupsUnavailable(KafkatopError):
    """The cluster does not speak share groups (the librdkafka mock, Kafka before 4.1, or share.version=0): which,
    and how to turn them on, in one line."""


@dataclass(frozen=True, slots=True)
class ShareMember:
    member_id: str  # kafka-share-groups.sh's CONSUMER-ID
    client_id: str
    host: str  # as the broker says it: "/127.0.0.1"
    rack: str | None
    member_epoch: int
    subscribed_topics: tuple[str, ...]
    assignment: tuple[tuple[str, int], ...]  # (topic, partition), sorted

    @property
    def assignment_text(self) -> str:
        """As Kafka's tool writes it: "orders:0,1,2;payments:3", topics in order."""
        by_topic: dict[str, list[int]] = {}
        for topic, partition in self.assignment:
            by_topic.setdefault(topic, []).append(partition)
        return ";".join(sorted(f"{t}:{','.join(map(str, sorted(ps)))}" for t, ps in by_topic.items()))


@dataclass(frozen=True, slots=True)
class SharePartition:
    topic: str
    partition: int
    start_offset: int | None  # the share-partition start offset; None: no state yet (Kafka's tool prints "-")
    leader_epoch: int | None
    end_offset: int | None = None  # the partition's high watermark; None: not read

    @property
    def lag(self) -> int | None:
        """Records from the start offset to the end: not yet acknowledged (in flight ones included)."""
        if self.start_offset is None or self.end_offset is None:
            return None
        return max(0, self.end_offset - self.start_offset)


@dataclass(frozen=True, slots=True)
class Coordinator:
    node_id: int
    host: str
    port: int

    @property
    def text(self) -> str:
        """kafka-share-groups.sh --state's COORDINATOR (ID): "host:port  (id)", two spaces."""
        return f"{self.host}:{self.port}  ({self.node_id})"


@dataclass(frozen=True, slots=True)
class ShareGroup:
    group_id: str
    state: str  # the coordinator's word: Empty, Stable, Dead, Unknown ("" when not read)
    coordinator: Coordinator | None
    group_epoch: int = 0
    assignment_epoch: int = 0
    assignor: str = ""
    members: tuple[ShareMember, ...] = ()
    partitions: tuple[SharePartition, ...] = ()  # in (topic, partition) order
    error: str | None = None  # why the group could not be read ("GROUP_ID_NOT_FOUND: Group g not found.")
    not_found: bool = False  # the coordinator knows no share group of that name
    offsets_error: str | None = None  # why its start offsets could not be read (the description could)

    @property
    def lag(self) -> int | None:
        """The sum of its partitions' lag; None when no partition's is known."""
        known = [p.lag for p in self.partitions if p.lag is not None]
        return sum(known) if known else None


@dataclass(frozen=True, slots=True)
class ListedShareGroup:
    group_id: str
    state: str


@dataclass(frozen=True, slots=True)
class ShareOffsetsDeleted:
    """DeleteShareGroupOffsets' answer: the request's own refusal (a group with members, unknown, …), and each
    topic's outcome (None: deleted)."""

    group_id: str
    error: str | None
    error_code: int
    topics: dict[str, str | None]


def share_group_json(group: ShareGroup) -> dict[str, object]:
    c = group.coordinator
    return {
        "group": group.group_id, "state": group.state, "error": group.error,
        "coordinator": None if c is None else {"id": c.node_id, "host": c.host, "port": c.port},
        "group_epoch": group.group_epoch, "assignment_epoch": group.assignment_epoch, "assignor": group.assignor,
        "members": [
            {"member_id": m.member_id, "client_id": m.client_id, "host": m.host, "rack": m.rack,
             "member_epoch": m.member_epoch, "subscribed_topics": list(m.subscribed_topics),
             "assignment": [{"topic": t, "partition": p} for t, p in m.assignment]}
            for m in group.members
        ],
        "offsets": [
            {"topic": p.topic, "partition": p.partition, "start_offset": p.start_offset,
             "leader_epoch": p.leader_epoch, "end_offset": p.end_offset, "lag": p.lag}
            for p in group.partitions
        ],
        "offsets_error": group.offsets_error,
        "lag": group.lag,
    }  # fmt: skip
