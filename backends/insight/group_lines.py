"""kafka-consumer-groups.sh --describe's layouts, line for line (pure): the offsets table (the default), --members and
--state, with Kafka's column widths (each as wide as its widest value, at least 15). Rows in the tool's order
(`tool_order`); LAG as it computes it, log end minus the committed offset, negative when the commit is past the log
end. What it prints on stderr — a group with no active members — is returned apart."""

from __future__ import annotations

from collections.abc import Iterable

from kafkatop.backends.model.cluster import Broker
from kafkatop.backends.model.columns import printf_line, widest
from kafkatop.backends.model.groups import ConsumerGroup, GroupPartitionOffset
from kafkatop.backends.model.java_order import hash_order, topic_partition_hash
from kafkatop.backends.model.topic_partition import TopicPartition

NO_ACTIVE = "Consumer group '{group}' has no active members."


def _host(host: str) -> str:
    """As Kafka's tool prints a member's host: Java's InetAddress.toString() of the connection, "/127.0.0.1" (the
    broker does no reverse lookup); the model keeps it without the slash."""
    return host if not host or "/" in host else f"/{host}"


def offsets_lines(group: ConsumerGroup, verbose: bool = False) -> list[str]:
    """--describe (--offsets): a blank line, the header, a row per partition the group has an offset for or is
    assigned; --verbose adds the leader epoch each offset was committed in."""
    members = {m.member_id: m for m in group.members}
    rows = []
    for o in tool_order(group):
        member = members.get(o.member_id or "")
        rows.append([
            group.group_id, o.topic, str(o.partition),
            *(["-" if o.leader_epoch is None else str(o.leader_epoch)] if verbose else []),
            "-" if o.committed is None else str(o.committed),
            "-" if o.high_watermark is None else str(o.high_watermark),
            "-" if o.committed is None or o.high_watermark is None else str(o.high_watermark - o.committed),
            member.member_id if member else "-", _host(member.host) if member else "-",
            member.client_id if member else "-",
        ])  # fmt: skip
    header = ["GROUP", "TOPIC", "PARTITION", *(["LEADER-EPOCH"] if verbose else []), "CURRENT-OFFSET",
              "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"]  # fmt: skip
    at = 7 if verbose else 6  # CONSUMER-ID's column
    widths = [widest([*(r[0] for r in rows), group.group_id], 15), widest((r[1] for r in rows), 15), 10,
              *([15] if verbose else []), 15, 15, 15, widest((r[at] for r in rows), 15),
              widest((r[at + 1] for r in rows), 15)]  # fmt: skip
    lines = ["", printf_line(widths, header)]
    lines += [printf_line(widths, r) for r in rows]
    return lines


def tool_order(group: ConsumerGroup) -> list[GroupPartitionOffset]:
    """The rows as kafka-consumer-groups.sh --describe orders them: the members with the most partitions first, each
    one's partitions, then those no member has; each block sorted by partition number, then read into the
    HashMap<TopicPartition> of its log ends (Collectors.toMap), whose order it prints (partition order where
    partitions share a bucket)."""
    blocks: dict[str, list[GroupPartitionOffset]] = {}
    assigned = {m.member_id for m in group.members}
    for o in group.offsets:
        blocks.setdefault(o.member_id if o.member_id in assigned else "", []).append(o)
    ranked = sorted(
        (m for m in group.members if m.assignment and m.member_id in blocks), key=lambda m: -len(m.assignment)
    )
    rows: list[GroupPartitionOffset] = []
    for block in [*(blocks[m.member_id] for m in ranked), blocks.get("", [])]:
        by_partition = sorted(hash_order(block, _hash), key=lambda o: o.partition)  # from a HashSet, then sorted
        rows += hash_order(by_partition, _hash)
    return rows


def _hash(o: GroupPartitionOffset) -> int:
    return topic_partition_hash(o.topic, o.partition)


def _assignment(tps: Iterable[TopicPartition] | None) -> str:
    """As the tool's --verbose: topic:0,1,2 per topic, topics joined by ';'; '-' for none."""
    by_topic: dict[str, list[int]] = {}
    for tp in tps or ():
        by_topic.setdefault(tp.topic, []).append(tp.partition)
    text = ";".join(f"{t}:{','.join(map(str, sorted(ps)))}" for t, ps in sorted(by_topic.items()))
    return text or "-"


def members_lines(group: ConsumerGroup, verbose: bool = False) -> list[str]:
    """--members: a blank line, the header, a row per member (its partitions counted); a GROUP-INSTANCE-ID column
    when a member has one. --verbose adds each member's epoch and assignment, and the target (KIP-848; '-' for a
    classic group's members, which have neither epoch nor target). Members in the coordinator's order, as the tool."""
    members = group.members
    static = any(m.group_instance_id for m in members)
    rows = [
        [group.group_id, m.member_id, *([m.group_instance_id or ""] if static else []), _host(m.host), m.client_id,
         str(len(m.assignment))]
        for m in members
    ]  # fmt: skip
    header = ["GROUP", "CONSUMER-ID", *(["GROUP-INSTANCE-ID"] if static else []), "HOST", "CLIENT-ID", "#PARTITIONS"]
    columns = len(header) - 1
    widths = [widest([group.group_id, *(r[0] for r in rows)], 15), *(
        widest((r[i] for r in rows), 17 if static and i == 2 else 15) for i in range(1, columns)
    ), 15]  # fmt: skip
    lines = ["", printf_line(widths, header) + " "] + [printf_line(widths, r) + " " for r in rows]
    if not verbose:
        return lines
    epoch = "-" if group.assignment_epoch is None else str(group.assignment_epoch)
    extra = [
        ["-" if m.member_epoch is None else str(m.member_epoch), _assignment(m.assignment), epoch,
         _assignment(m.target_assignment)]
        for m in members
    ]  # fmt: skip
    more = [15, widest((e[1] for e in extra), 20), 15, widest((e[3] for e in extra), 20)]
    lines[1] += printf_line(more, ["CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT"])
    for i, e in enumerate(extra):
        lines[2 + i] += printf_line(more, e)
    return lines


def state_lines(group: ConsumerGroup, brokers: tuple[Broker, ...], verbose: bool = False) -> list[str]:
    """--state: a blank line, the header, the group's coordinator (host:port  (id)), assignor, state and size;
    --verbose adds the group epoch and the target assignment epoch (KIP-848; '-' for a classic group)."""
    coordinator = next((b for b in brokers if b.id == group.coordinator), None)
    where = f"{coordinator.host}:{coordinator.port}  ({coordinator.id})" if coordinator else "-"
    header, row = ["GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE"], [
        group.group_id, where, group.assignor or "-", group.state.value
    ]  # fmt: skip
    widths = [widest([group.group_id], 15), 25, 20, 20]
    if verbose:
        header += ["GROUP-EPOCH", "TARGET-ASSIGNMENT-EPOCH"]
        row += [str(e) if e is not None else "-" for e in (group.group_epoch, group.assignment_epoch)]
        widths += [15, 25]
    return ["", printf_line(widths, [*header, "#MEMBERS"]), printf_line(widths, [*row, len(group.members)])]


GROUP_TYPES = ("classic", "consumer", "share", "streams")  # kafka-groups.sh --group-type's values


def groups_list_lines(groups: Iterable[tuple[str, str | None, str]]) -> list[str]:
    """kafka-groups.sh --list, byte for byte: (group id, group type or None when the broker did not say, protocol
    type) as Java's printf("%-Ns ") pads them — columns of at least 20, every cell (the header's last too) padded,
    and every row ending in a space after its last cell."""
    rows = [(gid, kind.capitalize() if kind else "", protocol) for gid, kind, protocol in groups]
    widths = [widest((cell for row in rows for cell in row), 20)] * 3
    lines = [printf_line(widths, ("GROUP", "TYPE", "PROTOCOL"))]
    lines += [printf_line(widths, row) + " " for row in rows]
    return lines


def listed_as(kind: str | None, protocol: str, *, group_type: str | None, protocol_filter: str | None,
              consumer: bool, share: bool, streams: bool) -> bool:  # fmt: skip
    """kafka-groups.sh --list's filters (GroupsCommand.combinedFilter): --group-type (with --protocol), --protocol,
    --consumer (type consumer, or a classic group of protocol type consumer or none), --share, --streams."""
    if group_type is not None:
        return kind == group_type and (protocol_filter is None or protocol == protocol_filter)
    if protocol_filter is not None:
        return protocol == protocol_filter
    if consumer:
        return protocol in ("consumer", "") or kind == "consumer"
    if share:
        return kind == "share"
    if streams:
        return kind == "streams"
    return True


def epochs_text(group: ConsumerGroup) -> str | None:
    """A KIP-848 group's epochs and each reconciling member's way to its target, in a line; None for a classic group.

    The coordinator bumps the group epoch at each change of members or subscriptions, computes a target assignment
    for it (the assignment epoch catches up), and each member converges to its target: a partition is revoked from
    its owner before another member is given it."""
    if group.group_epoch is None:
        return None
    text = f"KIP-848 group: group epoch {group.group_epoch}, assignment epoch {group.assignment_epoch}"
    if group.assignment_epoch is not None and group.assignment_epoch < group.group_epoch:
        text += " (the coordinator is computing the new target assignment)"
    for m in group.members:
        if not m.reconciling or m.target_assignment is None:
            continue
        owned, target = set(m.assignment), set(m.target_assignment)
        steps = [f"revoking {', '.join(map(str, sorted(owned - target)))}" if owned - target else "",
                 f"awaiting {', '.join(map(str, sorted(target - owned)))}" if target - owned else ""]  # fmt: skip
        text += f"; {m.client_id} (member epoch {m.member_epoch}): {' and '.join(s for s in steps if s)}"
    return text
