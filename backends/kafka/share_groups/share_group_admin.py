"""Deleting share groups as kafka-share-groups.sh does: --delete (DeleteGroups, per coordinator), refused before any
request for a group that is not an empty share group, as the tool refuses it; --delete-offsets
(DeleteShareGroupOffsets, to the group's coordinator), which Kafka refuses while the group has members. Each answer
comes back in Kafka's words ("NAME: message"); the requests and retries are ShareGroupReader's."""

from __future__ import annotations

from collections.abc import Sequence

from kafkatop.backends.kafka.share_groups.share_group_support import RETRIABLE, group_error, refused_as_unsupported
from kafkatop.backends.kafka.share_groups.share_groups import ShareGroupReader
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.share_groups import Coordinator, ShareOffsetsDeleted
from kafkatop.backends.protocol import share_groups as wire


class ShareGroupAdmin(ShareGroupReader):
    """A ShareGroupReader that deletes too."""

    def delete(self, group_ids: Sequence[str], deadline: float) -> dict[str, str | None]:
        """Each group's outcome, in the order asked: None when deleted, else why."""
        return delete_empty_groups(self, group_ids, deadline, wire.SHARE_TYPE)

    def delete_offsets(self, group_id: str, topics: Sequence[str], deadline: float) -> ShareOffsetsDeleted:
        """The group's state of whole topics deleted (DeleteShareGroupOffsets): Kafka refuses it while the group
        has members (NON_EMPTY_GROUP), and says so for each topic as for the request."""
        asked = list(dict.fromkeys(topics))

        def ask(coordinator: Coordinator, groups: list[str]) -> dict[str, ShareOffsetsDeleted | int]:
            where = (coordinator.node_id, coordinator.host, coordinator.port)
            body = wire.delete_share_group_offsets_body(group_id, asked)
            _, payload = self._ask(*where, wire.DELETE_SHARE_GROUP_OFFSETS, body, deadline)
            answer = wire.decode_delete_share_group_offsets(payload)
            refused_as_unsupported(answer.error_code, coordinator)
            if answer.error_code in RETRIABLE:
                return {group_id: answer.error_code}
            if answer.error_code:
                why = group_error(answer.error_code, answer.error_message)
                return {group_id: ShareOffsetsDeleted(group_id, why, answer.error_code, dict.fromkeys(asked, why))}
            said = {t.topic: group_error(t.error_code, t.error_message) if t.error_code else None
                    for t in answer.topics}  # fmt: skip
            return {group_id: ShareOffsetsDeleted(group_id, None, 0, {t: said.get(t) for t in asked})}

        result = self._each_coordinator([group_id], deadline, ask)[group_id]
        if isinstance(result, str):
            raise KafkatopError(f"cannot delete the start offsets of share group {group_id!r}: {result}")
        return result


# Kafka's tools' words for a group they will not delete, by group type (kafka-share-groups.sh, kafka-streams-groups.sh)
_NOT_OF_TYPE = {
    "share": "Group '{}' is not a share group.",
    "streams": "Group '{}' does not exist or is not a streams group.",
}


def delete_empty_groups(
    requests: ShareGroupReader, group_ids: Sequence[str], deadline: float, group_type: str
) -> dict[str, str | None]:
    """Each group's outcome, in the order asked: None when deleted, else why. As Kafka's tools, a group that is not
    an empty group of `group_type` is refused before anything is sent; the rest go to their coordinators in one
    DeleteGroups each."""
    states = {g.group_id: g.state for g in requests.list(deadline, group_type)}
    title = group_type.capitalize()
    out: dict[str, str | None] = {}
    todo = []
    for g in dict.fromkeys(group_ids):
        state = states.get(g)
        if state is None:
            out[g] = _NOT_OF_TYPE[group_type].format(g)
        elif state == "Dead":
            out[g] = f"{title} group '{g}' group state is DEAD."
        elif state != "Empty":
            out[g] = f"NON_EMPTY_GROUP: {title} group '{g}' is not EMPTY."
        else:
            out[g] = None
            todo.append(g)

    def ask(coordinator: Coordinator, groups: list[str]) -> dict[str, str | None | int]:
        where = (coordinator.node_id, coordinator.host, coordinator.port)
        _, payload = requests._ask(*where, wire.DELETE_GROUPS, wire.delete_groups_body(groups), deadline)
        answered: dict[str, str | None | int] = {}
        for g, code in wire.decode_delete_groups(payload):
            answered[g] = code if code in RETRIABLE else (group_error(code) if code else None)
        return answered

    if todo:
        out |= requests._each_coordinator(todo, deadline, ask)
    return out


def delete_share_groups(connection: KafkaConnection, group_ids: Sequence[str], timeout_s: float) -> (
    dict[str, str | None]
):  # fmt: skip
    with ShareGroupAdmin(connection, timeout_s) as admin:
        return admin.delete(group_ids, admin.deadline())


def delete_share_group_offsets(
    connection: KafkaConnection, group_id: str, topics: Sequence[str], timeout_s: float
) -> ShareOffsetsDeleted:
    with ShareGroupAdmin(connection, timeout_s) as admin:
        return admin.delete_offsets(group_id, topics, admin.deadline())
