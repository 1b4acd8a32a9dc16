"""Whether a cluster speaks share groups (KIP-932), said in one line when it does not — which cluster it is and how to
turn them on — and Kafka's words for the errors of the share-group requests.

Kafka 4.1 offers the share-group requests whatever share.version is, and answers them with UNSUPPORTED_VERSION
while share.version is 0: the finalized level (ApiVersions' tagged fields) says it before any group is asked. Kafka
4.0 offered them only with unstable APIs enabled (an early-access preview, ShareGroupDescribe v0); Kafka before 4.0
and the librdkafka mock do not offer them at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from kafkatop.backends.model.share_groups import (
    ENABLE_HINT,
    Coordinator,
    ShareGroup,
    ShareGroupsUnavailable,
    ShareMember,
    SharePartition,
)
from kafkatop.backends.protocol.connection import BrokerConnection
from kafkatop.backends.protocol.identity import mode_of
from kafkatop.backends.protocol.share_groups import (
    SHARE_GROUP_DESCRIBE,
    DescribedShareGroup,
    GroupShareOffsets,
)
from kafkatop.backends.protocol.wire import error_name

SHARE_VERSION = "share.version"
UNSUPPORTED_VERSION = 35
GROUP_ID_NOT_FOUND = 69
RETRIABLE = frozenset({14, 15, 16})  # COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR

# Kafka's own message for an error the broker sends without one (org.apache.kafka.common.protocol.Errors), as its
# tool prints it; and the names wire.ERROR_NAMES does not hold.
MESSAGES = {
    3: "This server does not host this topic-partition.",
    14: "The coordinator is loading and hence can't process requests.",
    15: "The coordinator is not available.",
    16: "This is not the correct coordinator.",
    24: "The configured groupId is invalid.",
    29: "Topic authorization failed.",
    30: "Group authorization failed.",
    35: "The version of API is not supported.",
    68: "The group is not empty.",
    69: "The group id does not exist.",
}
NAMES = {24: "INVALID_GROUP_ID"}


def group_error(code: int, message: str | None = None) -> str:
    """ "NAME: message", Kafka's message when the broker sent none."""
    name = NAMES.get(code) or error_name(code)
    said = message or MESSAGES.get(code)
    return f"{name}: {said}" if said else name


def check_support(conn: BrokerConnection) -> None:
    """ShareGroupsUnavailable, saying why, when the broker at `conn` cannot describe share groups."""
    answer = conn.api_versions()
    offered = answer.versions.get(SHARE_GROUP_DESCRIBE.key)
    if offered is None:
        if mode_of(answer.versions) == "unknown":
            who = "the librdkafka mock (or a Kafka-compatible broker) offers no share-group requests"
        else:
            who = "a Kafka before 4.1 offers no share-group requests (4.0 only as an early-access preview)"
        raise ShareGroupsUnavailable(
            f"{conn.address} does not speak share groups: {who}; share groups (KIP-932) need Kafka 4.1+ with "
            "share.version=1"
        )
    if offered[1] < SHARE_GROUP_DESCRIBE.versions[0]:
        raise ShareGroupsUnavailable(
            f"{conn.address} offers ShareGroupDescribe v{offered[1]} only: Kafka 4.0's early-access share groups, "
            "which Kafka 4.1's tools (and kafkatop) do not speak; share groups need Kafka 4.1+"
        )
    level = answer.finalized_features.get(SHARE_VERSION, (0, 0))[1]
    if level < 1:
        raise ShareGroupsUnavailable(
            f"share groups are off on the cluster of {conn.address} (share.version={level}): {ENABLE_HINT}"
        )


def refused_as_unsupported(code: int, coordinator: Coordinator) -> None:
    """A coordinator that answers UNSUPPORTED_VERSION: share groups were turned off (or never on) for it."""
    if code == UNSUPPORTED_VERSION:
        raise ShareGroupsUnavailable(
            f"share groups are off on this cluster: coordinator {coordinator.host}:{coordinator.port} answered "
            f"UNSUPPORTED_VERSION (share.version=0?): {ENABLE_HINT}"
        )


def share_group_from(d: DescribedShareGroup, o: GroupShareOffsets | None, coordinator: Coordinator) -> ShareGroup:
    if d.error_code:
        return ShareGroup(d.group_id, d.state, coordinator, error=group_error(d.error_code, d.error_message),
                          not_found=d.error_code == GROUP_ID_NOT_FOUND)  # fmt: skip
    members = tuple(
        ShareMember(
            m.member_id, m.client_id, m.client_host, m.rack_id, m.member_epoch, m.subscribed_topics, m.assignment
        )  # fmt: skip
        for m in d.members
    )
    partitions: list[SharePartition] = []
    offsets_error = None
    if o is None:
        offsets_error = "the coordinator did not answer for its offsets"
    elif o.error_code:
        offsets_error = group_error(o.error_code, o.error_message)
    else:
        for p in o.offsets:
            if p.error_code:  # as Kafka's admin client: a partition that cannot be read is left out
                continue
            known = p.start_offset >= 0
            epoch = p.leader_epoch if known and p.leader_epoch >= 0 else None
            partitions.append(SharePartition(p.topic, p.partition, p.start_offset if known else None, epoch))
    return ShareGroup(
        d.group_id, d.state, coordinator, d.group_epoch, d.assignment_epoch, d.assignor, members,
        tuple(sorted(partitions, key=lambda p: (p.topic, p.partition))), offsets_error=offsets_error,
    )  # fmt: skip


def with_end_offsets(group: ShareGroup, ends: Mapping[tuple[str, int], int | None]) -> ShareGroup:
    if not group.partitions:
        return group
    partitions = tuple(replace(p, end_offset=ends.get((p.topic, p.partition))) for p in group.partitions)
    return replace(group, partitions=partitions)
