"""kafka-consumer-groups.sh --describe's layouts, line for line (pure): the offsets table (the default), --members and
--state, with Kafka's column widths (each as wide as its widest value, at least 15). Rows are in (topic, partition)
order; Kafka's tool prints them in its hash order. What it prints on stderr — a group with no active members — is
returned apart."""

from __future__ import annotations

from kafkatop.backends.model.cluster import Broker, ConsumerGroup

NO_ACTIVE = "Consumer group '{group}' has no active members."


def _host(host: str) -> str:
    """As Kafka's tool prints a member's host: Java's InetAddress.toString() of the connection, "/127.0.0.1" (the
    broker does no reverse lookup); the model keeps it without the slash."""
    return host if not host or "/" in host else f"/{host}"


def _w(values: list[str]) -> int:
    return max([15, *(len(v) for v in values)])


def _row(widths: list[int], values: list[str]) -> str:
    return " ".join(f"{v:<{w}}" for w, v in zip(widths, values, strict=True))


def offsets_lines(group: ConsumerGroup) -> list[str]:
    """--describe (--offsets): a blank line, the header, a row per partition the group has an offset for or is
    assigned."""
    members = {m.member_id: m for m in group.members}
    rows = []
    for o in sorted(group.offsets, key=lambda o: (o.topic, o.partition)):
        member = members.get(o.member_id or "")
        rows.append([
            group.group_id, o.topic, str(o.partition),
            "-" if o.committed is None else str(o.committed),
            "-" if o.high_watermark is None else str(o.high_watermark),
            "-" if o.lag is None else str(o.lag),
            member.member_id if member else "-", _host(member.host) if member else "-",
            member.client_id if member else "-",
        ])  # fmt: skip
    header = ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST",
              "CLIENT-ID"]  # fmt: skip
    widths = [_w([r[0] for r in rows] + [group.group_id]), _w([r[1] for r in rows]), 10, 15, 15, 15,
              _w([r[6] for r in rows]), _w([r[7] for r in rows])]  # fmt: skip
    lines = ["", " ".join([_row(widths, header[:-1]), header[-1]])]
    lines += [" ".join([_row(widths, r[:-1]), r[-1]]) for r in rows]
    return lines


def members_lines(group: ConsumerGroup) -> list[str]:
    """--members: a blank line, the header, a row per member (its partitions counted)."""
    rows = [
        [group.group_id, m.member_id, _host(m.host), m.client_id, str(len(m.assignment))]
        for m in sorted(group.members, key=lambda m: m.member_id)
    ]
    header = ["GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS"]
    widths = [_w([group.group_id]), _w([r[1] for r in rows]), _w([r[2] for r in rows]), _w([r[3] for r in rows]), 15]
    return ["", _row(widths, header) + " ", *(_row(widths, r) + " " for r in rows)]


def state_lines(group: ConsumerGroup, brokers: tuple[Broker, ...]) -> list[str]:
    """--state: a blank line, the header, the group's coordinator (host:port  (id)), assignor, state and size."""
    coordinator = next((b for b in brokers if b.id == group.coordinator), None)
    where = f"{coordinator.host}:{coordinator.port}  ({coordinator.id})" if coordinator else "-"
    widths = [_w([group.group_id]), 25, 20, 20]
    return [
        "",
        _row(widths, ["GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE"]) + " #MEMBERS",
        _row(widths, [group.group_id, where, group.assignor or "-", group.state.value]) + f" {len(group.members)}",
    ]
