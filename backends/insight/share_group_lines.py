"""kafka-share-groups.sh's layouts (Kafka 4.1), line for line (pure): --list (and --list --state), --describe's
offsets table (the default), --members and --state, each with its --verbose columns, and the lines of --delete and
--delete-offsets. Java's printf("%-Ns") is `ljust`: a column is as wide as its widest value, at least 15 (the
coordinator's 25), and each table starts with a blank line. What the tool prints on stderr (a group with no active
members) is returned apart: `empty_note`.

Rows are in (topic, partition) and member id order, as Kafka's tool sorts them; --list prints the groups sorted
(Kafka's tool: in the coordinators' order). Errors read "NAME: message", as `kafkatop groups` writes them, where
Kafka's tool writes a Java exception's class ("org.apache.kafka.common.errors.GroupNotEmptyException: …").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kafkatop.backends.model.columns import printf_line, widest
from kafkatop.backends.model.share_groups import ListedShareGroup, ShareGroup, ShareOffsetsDeleted

MISSING = "-"
# DeleteShareGroupOffsets' refusals Kafka's tool names as they are (INVALID_GROUP_ID, GROUP_AUTHORIZATION_FAILED,
# NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND), and those it leaves to each topic's row (TOPIC_AUTHORIZATION_FAILED,
# UNKNOWN_TOPIC_OR_PARTITION); any other is "some unknown error".
GROUP_ERRORS = frozenset({24, 30, 68, 69})
TOPIC_ERRORS = frozenset({3, 29})


def list_lines(groups: Sequence[ListedShareGroup], with_state: bool) -> list[str]:
    """--list: one id a line; --list --state: a GROUP STATE table (no blank line first)."""
    ordered = sorted(groups, key=lambda g: g.group_id)
    if not with_state:
        return [g.group_id for g in ordered]
    width = widest((g.group_id for g in ordered), 15)
    return [printf_line([width], ["GROUP", "STATE"]), *(printf_line([width], [g.group_id, g.state]) for g in ordered)]


def empty_note(group: ShareGroup) -> str | None:
    """What the tool writes on stderr before --members and --state of a group with no members (after a blank
    line)."""
    if group.state == "Empty":
        return f"Share group '{group.group_id}' has no active members."
    return None


def offsets_lines(group: ShareGroup, verbose: bool = False) -> list[str]:
    """--describe (--offsets): a blank line, the header, a row per partition the group has state for (START-OFFSET
    "-" where it has none yet; --verbose: LEADER-EPOCH too)."""
    widths = [widest([group.group_id], 15), widest((p.topic for p in group.partitions), 15), 10]
    header: list[str] = ["GROUP", "TOPIC", "PARTITION", "START-OFFSET"]
    if verbose:
        widths.append(13)
        header.insert(3, "LEADER-EPOCH")
    lines = ["", printf_line(widths, header)]
    for p in group.partitions:
        start = MISSING if p.start_offset is None else str(p.start_offset)
        row: list[object] = [group.group_id, p.topic, p.partition, start]
        if verbose:
            row.insert(3, MISSING if p.start_offset is None or p.leader_epoch is None else p.leader_epoch)
        lines.append(printf_line(widths, row))
    return lines


def members_lines(group: ShareGroup, verbose: bool = False) -> list[str]:
    """--members: a blank line, the header, a row per member; nothing for a group without members (the tool says
    so on stderr: `empty_note`)."""
    if not group.members or group.state == "Dead":
        return []
    members = sorted(group.members, key=lambda m: m.member_id)
    widths = [
        widest([group.group_id], 15), widest((m.member_id for m in members), 15), widest((m.host for m in members), 15),
        widest((m.client_id for m in members), 15), 12,
    ]  # fmt: skip
    header = ["GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS", "ASSIGNMENT"]
    if verbose:
        widths.append(13)
        header.insert(5, "MEMBER-EPOCH")
    lines = ["", printf_line(widths, header)]
    for m in members:
        row: list[object] = [group.group_id, m.member_id, m.host, m.client_id, len(set(m.assignment))]
        row += [m.member_epoch, m.assignment_text] if verbose else [m.assignment_text]
        lines.append(printf_line(widths, row))
    return lines


def state_lines(group: ShareGroup, verbose: bool = False) -> list[str]:
    """--state: a blank line, the header, the group's row (coordinator, state, members; --verbose: the epochs)."""
    coordinator = group.coordinator.text if group.coordinator is not None else MISSING
    widths = [widest([group.group_id], 15), widest([coordinator], 25), 15]
    header = ["GROUP", "COORDINATOR (ID)", "STATE", "#MEMBERS"]
    row: list[object] = [group.group_id, coordinator, group.state, len(group.members)]
    if verbose:
        widths += [12, 17]
        header[3:3] = ["GROUP-EPOCH", "ASSIGNMENT-EPOCH"]
        row[3:3] = [group.group_epoch, group.assignment_epoch]
    return ["", printf_line(widths, header), printf_line(widths, row)]


def delete_lines(outcome: Mapping[str, str | None]) -> list[str]:
    """--delete: Kafka's one line when every group went, else its error block (groups in the order asked)."""
    deleted = ", ".join(f"'{g}'" for g, why in outcome.items() if why is None)
    failed = {g: why for g, why in outcome.items() if why is not None}
    if not failed:
        return [f"Deletion of requested share groups ({deleted}) was successful."]
    lines = ["", "Error: Deletion of some share groups failed:"]
    lines += [f"* Group '{g}' could not be deleted due to: {why}" for g, why in failed.items()]
    if deleted:
        lines += ["", f"These share groups were deleted successfully: {deleted}"]
    return lines


def delete_offsets_lines(outcome: ShareOffsetsDeleted) -> list[str]:
    """--delete-offsets: the request's refusal (when it is one Kafka's tool prints), then a TOPIC STATUS table."""
    lines: list[str] = []
    if outcome.error is not None and outcome.error_code not in TOPIC_ERRORS:
        unknown = "" if outcome.error_code in GROUP_ERRORS else "Encounter some unknown error: "
        lines += ["", f"Error: {unknown}{outcome.error}"]
    if outcome.topics:
        width = widest(outcome.topics, 15)
        lines += ["", printf_line([width], ["TOPIC", "STATUS"])]
        for topic, why in sorted(outcome.topics.items()):
            lines.append(printf_line([width], [topic, "Successful" if why is None else f"Error: {why}"]))
    return lines
