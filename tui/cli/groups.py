"""`kafkatop groups`: consumer groups as kafka-consumer-groups.sh lists, describes (--offsets, --members, --state) and
deletes them, line for line (rows in partition order). Read from one AdminSource poll — the live view's own reading
of groups, with their coordinators, members, committed offsets and lag."""

from __future__ import annotations

import argparse
import sys
import time

from kafkatop.backends.insight.group_lines import NO_ACTIVE, members_lines, offsets_lines, state_lines
from kafkatop.backends.kafka.admin import AdminSource
from kafkatop.backends.kafka.group_admin import GroupAdmin
from kafkatop.backends.model.cluster import ClusterSnapshot, GroupState
from kafkatop.backends.model.errors import SourceUnavailable
from kafkatop.tui.cli.common import connection
from kafkatop.tui.cli.exits import DONE, FAILED, UsageError, err


def _snapshot(args: argparse.Namespace, groups: list[str]) -> ClusterSnapshot:
    """A poll that has read the named groups (their description can come a poll later), within --timeout."""
    source = AdminSource(connection(args), timeout_s=args.timeout, include_internal=True, watch_groups=groups)
    deadline = time.monotonic() + args.timeout
    try:
        while True:
            snapshot = source.poll()
            known = {g.group_id: g for g in snapshot.groups}
            if all(g in known and known[g].state is not GroupState.UNKNOWN for g in groups) or (
                time.monotonic() >= deadline
            ):
                return snapshot
            time.sleep(0.2)
    finally:
        source.close()


def cmd_groups(args: argparse.Namespace) -> int:
    views = [f for f, v in (("--members", args.members), ("--state", args.state), ("--offsets", args.offsets)) if v]
    if len(views) > 1:
        raise UsageError(f"{' and '.join(views)} together: give one (kafka-consumer-groups.sh takes one too)")
    if args.delete:
        if not args.group:
            raise UsageError("--delete needs --group G (repeatable): which groups to delete")
        return _delete(args)
    if args.list or (not args.group and not args.all_groups):
        snapshot = _snapshot(args, [])
        for group in sorted(snapshot.groups, key=lambda g: g.group_id):
            print(group.group_id)
        return DONE
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
            lines = members_lines(group)
        elif args.state:
            lines = state_lines(group, snapshot.brokers)
        else:
            lines = offsets_lines(group)
        if lines:
            print("\n".join(lines))
    return DONE


def _delete(args: argparse.Namespace) -> int:
    try:
        with GroupAdmin(connection(args), timeout_s=args.timeout) as admin:
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
        print(f"* Group '{g}' could not be deleted due to: {why}")
    if deleted:
        print(f"\nThese consumer groups were deleted successfully: {', '.join(repr(g) for g in deleted)}")
    return FAILED
