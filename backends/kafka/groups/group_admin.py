"""Deleting consumer groups (kafka-consumer-groups.sh --delete), through one AdminClient, and a group's committed
offsets of some partitions (--delete-offsets: OffsetDelete, spoken by kafkatop itself), each request bounded. Kafka
refuses a group with members (NON_EMPTY_GROUP), one it does not know (GROUP_ID_NOT_FOUND), and the offsets of a topic
the group still consumes (GROUP_SUBSCRIBED_TO_TOPIC); each answer comes back with Kafka's error name."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from kafkatop.backends.insight.grants import authorization_error
from kafkatop.backends.kafka.errors import failure, unreachable_reason
from kafkatop.backends.kafka.handles import AdminOwner
from kafkatop.backends.kafka.refusal import refusal
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.protocol.connection import BrokerConnection, Unsupported, first_answer, require_supported
from kafkatop.backends.protocol.offset_delete import (
    FIND_COORDINATOR,
    OFFSET_DELETE,
    OffsetDeleteResponse,
    decode_find_coordinator,
    decode_offset_delete,
    find_coordinator_body,
    offset_delete_body,
)
from kafkatop.backends.protocol.wire import error_name, response_reader


class GroupAdmin(AdminOwner):
    def __init__(self, connection: KafkaConnection, timeout_s: float = 15.0) -> None:
        super().__init__(connection, timeout_s, lambda: KafkatopError("the group admin client is closed"))

    def delete_groups(self, group_ids: Sequence[str]) -> dict[str, str | None]:
        """Each group's outcome: None when deleted, else Kafka's error name and message ("NON_EMPTY_GROUP: The
        group is not empty."). KafkatopError when Kafka could not be asked at all."""
        deadline = time.monotonic() + self.timeout_s + 1.0
        futures = self._client().delete_consumer_groups(list(group_ids), request_timeout=self.timeout_s)
        out: dict[str, str | None] = {}
        for group_id, fut in futures.items():
            try:
                fut.result(timeout=max(0.0, deadline - time.monotonic()))
                out[group_id] = None
            except Exception as e:  # noqa: BLE001 - each group's refusal is its answer
                code, text = failure(e)
                if code in ("_TIMED_OUT", "_TRANSPORT"):
                    reason = unreachable_reason(self.connection, self._created, self._admin)
                    raise KafkatopError(
                        f"cannot delete consumer groups: cannot talk to {self.connection}: {reason or text}"
                    ) from None
                # librdkafka's "Broker: The group is not empty" is Kafka's "The group is not empty."
                text = self.connection.redact(text).removeprefix("Broker: ").rstrip(".") + "."
                out[group_id] = f"{code}: {text}" if code and not text.startswith(code) else text
        return out


# OffsetDelete answers a partition with a code only: Kafka's tool prints its exception's message; these are its words.
_PARTITION_ERRORS = {
    3: "This server does not host this topic-partition.",
    86: "Deleting offsets of a topic is forbidden while the consumer group is actively subscribed to it.",
}


def _partition_error(code: int) -> str:
    message = _PARTITION_ERRORS.get(code)
    return f"{error_name(code)}: {message}" if message else error_name(code)


def delete_offsets(
    connection: KafkaConnection, group: str, partitions: Mapping[str, Sequence[int]], timeout_s: float = 15.0
) -> dict[tuple[str, int], str | None]:
    """Delete `group`'s committed offsets of these partitions (OffsetDelete, to the group's coordinator): each
    partition's outcome, None when deleted, else Kafka's error name (GROUP_SUBSCRIBED_TO_TOPIC: the group still
    consumes the topic). A refusal of the whole request (GROUP_ID_NOT_FOUND, …) is a KafkatopError."""
    require_supported(connection, "OffsetDelete", "kafka-consumer-groups.sh")
    deadline = time.monotonic() + timeout_s
    settings = connection.client_settings

    def ask(host: str, port: int) -> OffsetDeleteResponse:
        with BrokerConnection(host, port, deadline, settings) as conn:
            version, payload = conn.call(FIND_COORDINATOR, lambda v: find_coordinator_body([group], v))
            (found,) = decode_find_coordinator(response_reader(payload), version, [group])
        if found.error_code:
            said = error_name(found.error_code) + (f": {found.error_message}" if found.error_message else "")
            # FindCoordinator wants Describe on the group, which the Delete OffsetDelete needs implies.
            nothing = f"no coordinator for group {group!r}"
            raise refusal(
                error_name(found.error_code), "delete offsets", connection, nothing, group=group
            ) or KafkatopError(f"{nothing}: {said}")
        with BrokerConnection(found.host, found.port, deadline, settings) as conn:
            _, payload = conn.call(OFFSET_DELETE, offset_delete_body(group, partitions))
        return decode_offset_delete(response_reader(payload, flexible=False))

    reasons: list[str] = []
    try:
        response = first_answer(connection.addresses, ask, timeout_s, reasons)
    except Unsupported as e:
        raise KafkatopError(str(e)) from None
    if response is None:
        raise KafkatopError(f"cannot delete offsets of group {group!r}: " + "; ".join(reasons))
    if response.error_code:
        said = f"Kafka refused to delete offsets of group {group!r}"
        name = error_name(response.error_code)
        raise refusal(name, "delete offsets", connection, said, group=group, topics=partitions) or KafkatopError(
            f"{said}: {name}"
        )
    return {(t, p): (_partition_error(code) if code else None) for t, p, code in response.partitions}


class GroupTools:
    """The Groups tab's deletions, as the GroupTools port: each call opens what it needs and closes it."""

    def __init__(self, connection: KafkaConnection, timeout_s: float = 15.0) -> None:
        self.connection = connection
        self.timeout_s = timeout_s

    def delete_groups(self, group_ids: Sequence[str]) -> dict[str, str | None]:
        """As GroupAdmin's; the authorizer's refusal of a group raises, with what to grant (Delete on it)."""
        with GroupAdmin(self.connection, self.timeout_s) as admin:
            outcome = admin.delete_groups(group_ids)
        for group_id, why in outcome.items():
            refused = refusal(why, "delete group", self.connection, f"cannot delete group '{group_id}'", group=group_id)
            if refused is not None:
                raise refused
        return outcome

    def delete_offsets(self, group: str, partitions: Mapping[str, Sequence[int]]) -> dict[tuple[str, int], str | None]:
        """As delete_offsets; the authorizer's refusal of a topic raises, with what to grant (Read on it)."""
        outcome = delete_offsets(self.connection, group, partitions, self.timeout_s)
        refused_topics = [t for (t, _), why in outcome.items() if authorization_error(why) is not None]
        if refused_topics:
            said = f"cannot delete offsets of group '{group}'"
            found = next(why for why in outcome.values() if authorization_error(why) is not None)
            raise refusal(
                found, "delete offsets", self.connection, said, group=group, topics=refused_topics
            ) or KafkatopError(f"{said}: {found}")
        return outcome

    def close(self) -> None:
        """Nothing stays open between calls."""
