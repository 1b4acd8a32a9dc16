"""The demo's consumer groups, where the librdkafka mock has no group APIs.

The mock answers ListGroups and DescribeGroups with _UNSUPPORTED_FEATURE, so a group's members, their assignment and
its state come from kafkatop's own consumers (the consumer console), and say so in the group's `note`; committed
offsets are Kafka's own answer (OffsetFetch, which the mock supports), and lag is computed from them as for any
cluster.

The mock also refuses an offset commit from outside a group that ever had a member, even once it is empty
(UNKNOWN_MEMBER_ID: it never forgets a group). So a reset of a group whose consumers are gone commits as Kafka's own
tool would be allowed to, but from inside the group: a short-lived member joins, finds itself alone (every partition
of the topic assigned to it; otherwise someone else is in the group, and the reset is refused), commits the planned
offsets and leaves.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import replace

from confluent_kafka import KafkaException
from confluent_kafka import TopicPartition as KafkaTopicPartition

from kafkatop.backends.kafka import handles
from kafkatop.backends.kafka.errors import describe_error
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.consoles import ClientError, ConsumerView
from kafkatop.backends.model.groups import ConsumerGroup, GroupMember, GroupPartitionOffset, GroupState
from kafkatop.backends.model.topic_partition import TopicPartition

GROUP_NOTE = "members and state from kafkatop's own consumers: the mock has no group APIs (ListGroups, DescribeGroups)"


# Consumers of the console that are (still) members of their group.
_IN_GROUP = frozenset({"joining", "consuming", "paused", "stopping"})


# Where Kafka ends a rebalance as soon as every member has rejoined, the mock waits for session.timeout.ms less a
# second whenever a member joins or leaves a group that has had members: 44 s with librdkafka's default of 45 s, the
# consumers "joining" all that time. The demo's group members use Kafka's shortest allowed session timeout
# (group.min.session.timeout.ms, 6 s), so a rebalance of the demo takes seconds, as it would on Kafka.
DEMO_GROUP_SETTINGS = {"session.timeout.ms": 6000, "heartbeat.interval.ms": 2000}


# A member's join: the coordinator's group.initial.rebalance.delay.ms (3 s, Kafka's default and the mock's) or the
# mock's wait above.
JOIN_TIMEOUT_S = 20.0


def members_of(group_id: str, consumers: Iterable[ConsumerView]) -> tuple[ConsumerView, ...]:
    return tuple(c for c in consumers if c.group == group_id and c.state in _IN_GROUP)


def own_group(
    group_id: str,
    polled: ConsumerGroup | None,
    consumers: Iterable[ConsumerView],
    coordinator: int | None,
    high_watermarks: Mapping[TopicPartition, int | None],
) -> ConsumerGroup:
    """A group as kafkatop's own consumers know it, with the committed offsets `polled` read from Kafka.

    State: Stable when every member has its assignment, PreparingRebalance while one is still joining, Empty when no
    consumer of kafkatop's is in it and it has committed offsets, Dead when it has neither.
    """
    members = members_of(group_id, consumers)
    owner = {tp: c.name for c in members for tp in c.assignment}
    offsets = {TopicPartition(o.topic, o.partition): o for o in (polled.offsets if polled is not None else ())}
    for tp in owner:
        offsets.setdefault(tp, GroupPartitionOffset(tp.topic, tp.partition, None, high_watermarks.get(tp)))
    rows = tuple(replace(offsets[tp], member_id=owner.get(tp)) for tp in sorted(offsets))
    if not members:
        state = GroupState.EMPTY if any(o.committed is not None for o in rows) else GroupState.DEAD
    elif any(c.state == "joining" for c in members):
        state = GroupState.PREPARING_REBALANCE
    else:
        state = GroupState.STABLE
    return ConsumerGroup(
        group_id=group_id,
        state=state,
        protocol_type="consumer",
        group_type="classic",
        coordinator=coordinator,
        members=tuple(
            GroupMember(c.name, f"kafkatop-{c.name}", "/127.0.0.1", tuple(sorted(c.assignment))) for c in members
        ),
        offsets=rows,
        note=GROUP_NOTE,
    )


def commit_as_member(
    connection: KafkaConnection,
    group: str,
    topic: str,
    offsets: Mapping[int, int],
    partitions: int,
    timeout_s: float = JOIN_TIMEOUT_S,
) -> None:
    """Commits `offsets` (partition -> offset of `topic`) for `group` from a member of it that joins alone and leaves
    at once; refused (ClientError) when another member is in the group."""
    consumer = handles.consumer(
        {
            **connection.config("kafkatop-offset-reset"),
            **DEMO_GROUP_SETTINGS,
            "group.id": group,
            "enable.auto.commit": False,  # only the planned offsets are committed, never this member's position
            "auto.offset.reset": "latest",
        }
    )
    what = f"cannot reset the offsets of group '{group}'"
    try:
        consumer.subscribe([topic])
        deadline = time.monotonic() + timeout_s
        assigned: list[KafkaTopicPartition] = []
        while time.monotonic() < deadline:
            consumer.poll(0.1)  # joins the group; a record read meanwhile is neither kept nor committed
            assigned = consumer.assignment()
            if assigned:
                break
        if not assigned:
            raise ClientError(f"{what}: no answer from the group's coordinator within {timeout_s:g} s")
        if len(assigned) < partitions:
            raise ClientError(
                f"group '{group}' is active (a member outside this kafkatop holds partitions of {topic}): stop its "
                "consumers first — Kafka only resets an inactive group"
            )
        consumer.commit(offsets=[KafkaTopicPartition(topic, p, o) for p, o in offsets.items()], asynchronous=False)
    except KafkaException as e:
        raise ClientError(f"{what}: {describe_error(e)}") from None
    finally:
        try:
            consumer.close()  # leaves the group
        except (KafkaException, RuntimeError):
            pass
        handles.release([consumer])
