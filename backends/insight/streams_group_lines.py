"""kafka-streams-groups.sh's layouts (Kafka 4.1), line for line (pure): --list (and --list --state), --describe's
offsets table (the default), --members and --state, each with its --verbose columns, and the lines of --delete.
Java's printf("%-Ns") is `ljust`: a column is as wide as its widest value, at least 15 (the coordinator's and the
state's 25). The tool's "Error: …" lines (a group with no members, a dead group) are on stdout after a blank line,
as it prints them.

Rows are in (topic, partition) and member order (Kafka's tool: a HashMap's order, the same rows); --list prints the
groups sorted (Kafka's tool: in the coordinators' order). Errors read "NAME: message", as `kafkatop groups` writes
them, where Kafka's tool writes a Java exception's class.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kafkatop.backends.model.columns import printf_line, widest
from kafkatop.backends.model.streams_groups import ListedStreamsGroup, StreamsGroup, StreamsTasks, Tasks

MISSING = "-"


def list_lines(groups: Sequence[ListedStreamsGroup], with_state: bool) -> list[str]:
    """--list: one id a line; --list --state: a GROUP STATE table."""
    ordered = sorted(groups, key=lambda g: g.group_id)
    if not with_state:
        return [g.group_id for g in ordered]
    width = widest((g.group_id for g in ordered), 15)
    return [printf_line([width], ["GROUP", "STATE"]), *(printf_line([width], [g.group_id, g.state]) for g in ordered)]


def _error(message: str) -> list[str]:
    return ["", f"Error: {message}"]


def state_note(group: StreamsGroup) -> list[str]:
    """The tool's lines before a table of a dead group or one with no members."""
    if group.state == "Dead":
        return _error(f"Streams group '{group.group_id}' does not exist.")
    if group.state == "Empty":
        return _error(f"Streams group '{group.group_id}' has no active members.")
    return []


def _shown(group: StreamsGroup) -> bool:
    """The tool prints offsets and members only of a group that is not dead and has members."""
    return group.state != "Dead" and bool(group.members)


def offsets_lines(group: StreamsGroup, verbose: bool) -> list[str]:
    """--describe [--offsets]: each source-topic partition of the members' active tasks, with its lag; --verbose
    adds the committed offset, its leader epoch and the log end."""
    if not _shown(group):
        return []
    rows = sorted(group.offsets, key=lambda o: (o.topic, o.partition))
    g, t = widest([group.group_id], 15), widest((o.topic for o in rows), 15)

    def text(value: int | None) -> str:
        return MISSING if value is None else str(value)

    if not verbose:
        widths = [g, t, 10]
        head = printf_line(widths, ["GROUP", "TOPIC", "PARTITION", "OFFSET-LAG"])
        return [*state_note(group), head,
                *(printf_line(widths, [group.group_id, o.topic, o.partition, text(o.lag)]) for o in rows)]  # fmt: skip
    widths = [g, t, 10, 15, 15, 15, 15]
    head = printf_line(widths, ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LEADER-EPOCH", "LOG-END-OFFSET",
                                "OFFSET-LAG", ""])[:-1]  # fmt: skip
    lines = [*state_note(group), head]
    for o in rows:
        cells = [group.group_id, o.topic, o.partition, text(o.committed), text(o.leader_epoch), text(o.log_end),
                 text(o.lag), ""]  # fmt: skip
        lines.append(printf_line(widths, cells)[:-1])
    return lines


def _tasks(tasks: Tasks, kind: str) -> str:
    if not tasks:
        return ""
    return f"{kind}: " + "".join(f"{sid}:[{','.join(map(str, partitions))}]; " for sid, partitions in tasks)


def tasks_text(
    assignment: StreamsTasks,
    target: StreamsTasks | None = None,
) -> str:
    """As the tool writes a member's tasks: "ACTIVE: 0:[0,1]; STANDBY: 1:[2]; ", the target's after with --verbose
    ("TARGET-ACTIVE: …")."""
    text = _tasks(assignment.active, "ACTIVE") + _tasks(assignment.standby, "STANDBY")
    text += _tasks(assignment.warmup, "WARMUP")
    if target is not None:
        text += _tasks(target.active, "TARGET-ACTIVE") + _tasks(target.standby, "TARGET-STANDBY")
        text += _tasks(target.warmup, "TARGET-WARMUP")
    return text


def members_lines(group: StreamsGroup, verbose: bool) -> list[str]:
    """--describe --members: each member with its process, client id and tasks; --verbose adds the epochs and the
    member's protocol (classic during a migration) and its target tasks."""
    if not _shown(group):
        return []
    members = sorted(group.members, key=lambda m: m.member_id)
    g = widest([group.group_id], 15)
    m = widest((x.member_id for x in members), 15)
    p = widest((x.process_id for x in members), 15)
    c = widest((x.client_id for x in members), 15)
    if not verbose:
        widths = [g, m, p, c]
        return [*state_note(group), printf_line(widths, ["GROUP", "MEMBER", "PROCESS", "CLIENT-ID", "ASSIGNMENTS"]),
                *(printf_line(widths, [group.group_id, x.member_id, x.process_id, x.client_id,
                                       tasks_text(x.assignment)]) for x in members)]  # fmt: skip

    def row(cells: Sequence[object]) -> str:
        # "%-G %-25s %-15s%-M %-15s %-15s %-P %-C %s": no space between the topology epoch and the member
        head = printf_line([g, 25, 15], cells[:3])
        return head + printf_line([m, 15, 15, p, c], cells[3:])

    lines = [*state_note(group), row(["GROUP", "TARGET-ASSIGNMENT-EPOCH", "TOPOLOGY-EPOCH", "MEMBER", "MEMBER-PROTOCOL",
                                      "MEMBER-EPOCH", "PROCESS", "CLIENT-ID", "ASSIGNMENTS"])]  # fmt: skip
    topology_epoch = group.topology_epoch if group.topology_epoch is not None else -1
    for x in members:
        lines.append(row([group.group_id, group.assignment_epoch, topology_epoch, x.member_id,
                          "classic" if x.is_classic else "streams", x.member_epoch, x.process_id, x.client_id,
                          tasks_text(x.assignment, x.target_assignment)]))  # fmt: skip
    return lines


def state_lines(group: StreamsGroup, verbose: bool) -> list[str]:
    """--describe --state: the coordinator, state and member count; --verbose adds the group and assignment
    epochs."""
    node, host, port = group.coordinator if group.coordinator is not None else (-1, "", -1)
    coordinator = f"{host}:{port} ({node})"
    widths = [widest([group.group_id], 15), widest([coordinator], 25), 25]
    if not verbose:
        return [*state_note(group), printf_line(widths, ["GROUP", "COORDINATOR (ID)", "STATE", "#MEMBERS"]),
                printf_line(widths, [group.group_id, coordinator, group.state, len(group.members)])]  # fmt: skip
    widths += [15, 25]
    return [*state_note(group),
            printf_line(widths, ["GROUP", "COORDINATOR (ID)", "STATE", "GROUP-EPOCH", "TARGET-ASSIGNMENT-EPOCH",
                                 "#MEMBERS"]),
            printf_line(widths, [group.group_id, coordinator, group.state, group.group_epoch, group.assignment_epoch,
                                 len(group.members)])]  # fmt: skip


def delete_lines(outcome: Mapping[str, str | None]) -> list[str]:
    """--delete: the tool's lines for the groups deleted and those not."""
    done = [g for g, why in outcome.items() if why is None]
    failed = {g: why for g, why in outcome.items() if why is not None}
    joined = "', '".join(done)
    if not failed:
        return [f"Deletion of requested streams groups ('{joined}') was successful."]
    lines = [*_error("Deletion of some streams groups failed:")]
    lines += [f"* Group '{g}' could not be deleted due to: {why}" for g, why in failed.items()]
    if done:
        lines += ["", f"These streams groups were deleted successfully: '{joined}'."]
    return lines


def not_inferred_lines(group_id: str, topics: Sequence[str]) -> list[str]:
    """The tool's lines, before deleting, for the group's internal topics not named as its own (kept)."""
    lines: list[str] = []
    for topic in topics:
        lines += _error(f"The internal topic '{topic}' is not inferred as internal and thus will not be deleted with "
                        f"the group '{group_id}'.")  # fmt: skip
    return lines


def internal_topics_lines(deleted_with_topics: Sequence[str], failures: Mapping[str, str]) -> list[str]:
    """After the groups' lines: how deleting the deleted groups' internal topics went (`failures`: why, by group)."""
    if not deleted_with_topics:
        return []
    if not failures:
        joined = "', '".join(deleted_with_topics)
        return [f"Deletion of associated internal topics of the streams groups ('{joined}') was successful."]
    return ["Deletion of some associated internal topics failed:",
            *(f"* Internal topics of the streams group '{g}' could not be deleted due to: {why}"
              for g, why in failures.items())]  # fmt: skip
