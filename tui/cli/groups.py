"""`kafkatop groups`: consumer groups as kafka-consumer-groups.sh lists, describes (--offsets, --members, --state) and
deletes them, line for line (rows in partition order). Read from one AdminSource poll — the live view's own reading
of groups, with their coordinators, members, committed offsets and lag."""

from __future__ import annotations

import argparse
import json
import sys
import time

from kafkatop.backends.insight.grants import Refused, authorization_error, refused
from kafkatop.backends.insight.group_lines import (
    NO_ACTIVE,
    groups_list_lines,
    listed_as,
    members_lines,
    offsets_lines,
    state_lines,
)
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.broker_versions import cluster_nodes
from kafkatop.backends.kafka.groups.group_admin import GroupAdmin, delete_offsets
from kafkatop.backends.kafka.groups.group_listing import list_groups
from kafkatop.backends.model.cluster import Broker, ClusterSnapshot
from kafkatop.backends.model.columns import printf_line, widest
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.backends.model.groups import ConsumerGroup, GroupState
from kafkatop.backends.protocol.connection import Unsupported
from kafkatop.tui.cli.common import connection
from kafkatop.tui.cli.exits import DONE, FAILED, UsageError, err
from kafkatop.tui.cli.grant_lines import explained
from kafkatop.tui.cli.groups_reset import reset_options_without


def _snapshot(args: argparse.Namespace, groups: list[str]) -> ClusterSnapshot:
    """A poll that has read the named groups (their description can come a poll later), within --timeout; the
    authorizer's refusal of one raises, with what to grant."""
    cluster = connection(args)
    source = AdminSource(cluster, timeout_s=args.timeout, include_internal=True, watch_groups=groups)
    deadline = time.monotonic() + args.timeout
    try:
        while True:
            snapshot = source.poll()
            if (refusal := _refused(snapshot, groups, cluster)) is not None:
                raise refusal
            known = {g.group_id: g for g in snapshot.groups}
            if all(g in known and _read(known[g], source) for g in groups) or time.monotonic() >= deadline:
                return snapshot
            time.sleep(0.2)
    finally:
        source.close()


def _refused(snapshot: ClusterSnapshot, groups: list[str], cluster: KafkaConnection) -> Refused | None:
    """A named group the authorizer would not let the poll describe (its problem says GROUP_AUTHORIZATION_FAILED)."""
    for group in groups:
        for problem in snapshot.problems:
            if problem.what.endswith(f" {group}") and (error := authorization_error(problem.reason)) is not None:
                said = f"cannot describe group '{group}'"
                return refused(error, "describe group", cluster.client_settings, said, group=group)
    return None


def _read(group: ConsumerGroup, source: AdminSource) -> bool:
    """Described: its state known and, for a KIP-848 group read the batched way, its ConsumerGroupDescribe answered
    (the first poll finds out a group's type only from its ListGroups answer)."""
    kip848_pending = group.group_type == "consumer" and group.group_epoch is None and source.group_reads == "batched"
    return group.state is not GroupState.UNKNOWN and not kip848_pending


def cmd_groups(args: argparse.Namespace) -> int:
    views = [f for f, v in (("--members", args.members), ("--state", args.state), ("--offsets", args.offsets)) if v]
    if len(views) > 1:
        raise UsageError(f"{' and '.join(views)} together: give one (kafka-consumer-groups.sh takes one too)")
    if args.reset_offsets:
        actions = (("--delete", args.delete), ("--delete-offsets", args.delete_offsets), ("--list", args.list),
                   ("--describe", args.describe))  # fmt: skip
        others = [f for f, v in actions if v] + views
        if others:
            raise UsageError(f"--reset-offsets and {' and '.join(others)} together: give one action")
        from kafkatop.tui.cli.groups_reset import cmd_reset

        return cmd_reset(args)
    if misplaced := reset_options_without(args):
        raise UsageError(f"{' and '.join(misplaced)} go{'es' if len(misplaced) == 1 else ''} with --reset-offsets: "
                         "add it, or drop them")  # fmt: skip
    if args.delete_offsets:
        return _delete_offsets(args)
    if args.topic:
        raise UsageError("--topic names what --delete-offsets deletes: give --delete-offsets with it")
    if args.delete:
        if not args.group:
            raise UsageError("--delete needs --group G (repeatable): which groups to delete")
        return _delete(args)
    given = (("--group-type", args.group_type), ("--protocol", args.protocol), ("--consumer", args.consumer),
             ("--share", args.share), ("--streams", args.streams))  # fmt: skip
    filters = [f for f, v in given if v]
    if args.list or (not args.group and not args.all_groups):
        if sum(map(bool, (args.consumer, args.share, args.streams))) > 1 or (
            (args.consumer or args.share or args.streams) and (args.group_type or args.protocol)
        ):
            raise UsageError(f"{' and '.join(filters)} together: --consumer, --share and --streams each stand alone "
                             "(as in kafka-groups.sh); --group-type takes --protocol")  # fmt: skip
        return _list(args)
    if filters or args.json:
        given_flags = " and ".join(filters) or "--json"
        raise UsageError(f"{given_flags} goes with --list (the list of groups), not with --group: give --list, or drop "
                         "it")  # fmt: skip
    snapshot = _snapshot(args, list(args.group or ()))
    known = {g.group_id: g for g in snapshot.groups}
    names = sorted(known) if args.all_groups else list(args.group)
    missing = [g for g in names if g not in known or known[g].state is GroupState.DEAD]
    if missing:
        raise UsageError(f"no consumer group {', '.join(repr(g) for g in missing)} in the cluster (kafkatop groups "
                         "--list names them)")  # fmt: skip
    for name in names:
        group = known[name]
        if not group.members:
            print(f"\n{NO_ACTIVE.format(group=name)}", file=sys.stderr)  # Kafka's own line, on stderr as there
        if args.members:
            lines = members_lines(group, args.verbose)
        elif args.state:
            lines = state_lines(group, snapshot.brokers, args.verbose)
        else:
            lines = offsets_lines(group, args.verbose)
        if lines:
            print("\n".join(lines))
    return DONE


def _list(args: argparse.Namespace) -> int:
    """kafka-groups.sh --list: every live broker asked for the groups it coordinates (ListGroups), filtered alike.
    The brokers from a Metadata request naming no topic: at 9,000 topics a whole poll took 3 s more than the list."""
    cluster = connection(args)
    try:
        nodes = cluster_nodes(cluster, args.timeout, controllers=False)
        brokers = [Broker(n.node_id, n.host, n.port, n.rack) for n in nodes if not n.fenced]
        listing = list_groups(cluster, brokers, args.timeout)
    except Unsupported as e:
        err(
            f"cannot list the groups with their types: {e}. Listing them takes ListGroups v3+ (Kafka 2.4+; the "
            "librdkafka mock has none); `kafkatop groups --group G` still describes a group you name"
        )
        return FAILED
    for failure in listing.failures:
        err(f"not listed: the groups of {failure}")
    chosen = [
        g for g in listing.groups
        if listed_as(g.group_type, g.protocol_type, group_type=args.group_type, protocol_filter=args.protocol,
                     consumer=args.consumer, share=args.share, streams=args.streams)
    ]  # fmt: skip
    if args.json:
        print(json.dumps([{"group": g.group_id, "type": g.group_type, "protocol": g.protocol_type} for g in chosen],
                         indent=2))  # fmt: skip
    else:
        print("\n".join(groups_list_lines((g.group_id, g.group_type, g.protocol_type) for g in chosen)))
    return FAILED if listing.failures and not listing.groups else DONE


def _partitions(args: argparse.Namespace) -> dict[str, list[int]]:
    """--topic t (every partition, from the metadata) or t:0,2, as kafka-consumer-groups.sh takes them."""
    wanted: dict[str, list[int] | None] = {}
    for item in args.topic:
        name, _, listed = item.partition(":")
        try:
            wanted[name] = [int(p) for p in listed.split(",")] if listed else None
        except ValueError:
            raise UsageError(f"--topic {item!r}: TOPIC or TOPIC:0,1,2 (partition numbers)") from None
    snapshot = _snapshot(args, [])
    out: dict[str, list[int]] = {}
    for name, listed in wanted.items():
        topic = snapshot.topic(name)
        if topic is None:
            raise UsageError(f"no topic {name!r} in the cluster: give a topic the group committed offsets for")
        ids = [p.id for p in topic.partitions]
        unknown = [p for p in listed or () if p not in ids]
        if unknown:
            raise UsageError(f"{name} has no partition {', '.join(map(str, unknown))} (it has 0-{len(ids) - 1})")
        out[name] = listed or ids
    return out


def _delete_offsets(args: argparse.Namespace) -> int:
    """As --delete-offsets: Kafka's first line, then a row per partition (STATUS: Successful or Kafka's error)."""
    if not args.group or len(args.group) != 1 or not args.topic:
        raise UsageError("--delete-offsets needs one --group G and --topic T (or T:0,1)")
    group = args.group[0]
    cluster = connection(args)
    outcome = delete_offsets(cluster, group, _partitions(args), timeout_s=args.timeout)
    failed = any(v is not None for v in outcome.values())
    if failed:
        print("\nError: Encountered some partition-level error, see the follow-up details.")
    else:
        print(f"Request succeeded for deleting offsets from group {group}.")
    print()
    widths = [widest((t for t, _ in outcome), 15), 10, 15]
    print(printf_line(widths, ("TOPIC", "PARTITION", "STATUS")))
    for (topic, partition), error in sorted(outcome.items()):
        print(printf_line(widths, (topic, partition, "Successful" if error is None else f"Error: {error}")))
    refused = next((e for e in outcome.values() if e is not None and "AUTHORIZATION_FAILED" in e), None)
    if refused is not None:  # the authorizer's refusal: who may not, and the line that grants it
        err(explained(refused, "delete offsets", cluster, args, group=group, topics=[t for t, _ in outcome]))
    return FAILED if failed else DONE


def _delete(args: argparse.Namespace) -> int:
    cluster = connection(args)
    try:
        with GroupAdmin(cluster, timeout_s=args.timeout) as admin:
            outcome = admin.delete_groups(list(args.group))
    except SourceUnavailable as e:
        err(str(e))
        return FAILED
    deleted = [g for g in args.group if outcome.get(g) is None]
    failed = {g: why for g, why in outcome.items() if why is not None}
    if not failed:
        print(f"Deletion of requested consumer groups ({', '.join(repr(g) for g in deleted)}) was successful.")
        return DONE
    print("Error: Deletion of some consumer groups failed:")
    for g, why in failed.items():
        print(f"* Group '{g}' could not be deleted due to: {explained(why, 'delete group', cluster, args, group=g)}")
    if deleted:
        print(f"\nThese consumer groups were deleted successfully: {', '.join(repr(g) for g in deleted)}")
    return FAILED
