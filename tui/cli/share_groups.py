"""`kafkatop share-groups`: share groups (KIP-932, Kafka 4.1+) as kafka-share-groups.sh lists, describes (offsets,
--members, --state, each --verbose) and deletes them (--delete, --delete-offsets), line for line; --json for a
script. Deleting asks first on a terminal (--yes: without asking). A cluster that does not speak share groups is
said in one line, with how to turn them on."""

from __future__ import annotations

import argparse
import json
import sys

from kafkatop.backends.insight.share_group_lines import (
    delete_lines,
    delete_offsets_lines,
    empty_note,
    list_lines,
    members_lines,
    offsets_lines,
    state_lines,
)
from kafkatop.backends.kafka.share_groups.share_group_admin import delete_share_group_offsets, delete_share_groups
from kafkatop.backends.kafka.share_groups.share_groups import describe_share_groups, list_share_groups
from kafkatop.backends.model.share_groups import ShareGroup, share_group_json
from kafkatop.tui.cli.common import confirmed, connection, typed_name
from kafkatop.tui.cli.exits import DONE, FAILED, UsageError, err

ACTIONS = ("--list", "--describe", "--delete", "--delete-offsets")
VIEWS = ("--offsets", "--members", "--state")


def _check(args: argparse.Namespace) -> str:
    """The action asked (kafka-share-groups.sh takes exactly one; here --list is the default, and --describe with
    --group), every option that does not go with it refused before anything is sent."""
    given = [a for a, v in zip(ACTIONS, (args.list, args.describe, args.delete, args.delete_offsets), strict=True) if v]
    if len(given) > 1:
        raise UsageError(f"{' and '.join(given)} together: give one action (as kafka-share-groups.sh)")
    action = given[0] if given else ("--describe" if args.group or args.all_groups else "--list")
    views = [v for v, on in zip(VIEWS, (args.offsets, args.members, args.state), strict=True) if on]
    if len(views) > 1:
        raise UsageError(f"{' and '.join(views)} together: give one")
    if action == "--list" and (args.offsets or args.members or args.group or args.all_groups):
        raise UsageError("--list lists every share group (with --state: and its state): --describe --group G "
                         "describes one")  # fmt: skip
    if action != "--delete-offsets" and args.topic:
        raise UsageError("--topic names what --delete-offsets deletes: give --delete-offsets with it")
    if action in ("--delete", "--delete-offsets") and views:
        raise UsageError(f"{views[0]} is a view of --describe, not of {action}")
    if action == "--describe" and not (args.group or args.all_groups):
        raise UsageError("--describe needs --group G (repeatable) or --all-groups")
    if action == "--delete" and not args.group:
        raise UsageError("--delete needs --group G (repeatable): which share groups to delete")
    if action == "--delete-offsets" and (not args.group or len(args.group) != 1 or not args.topic):
        raise UsageError("--delete-offsets needs one --group G and --topic T (repeatable)")
    if args.all_groups and args.group:
        raise UsageError("--group and --all-groups together: give one")
    return action


def cmd_share_groups(args: argparse.Namespace) -> int:
    action = _check(args)
    if action == "--list":
        return _list(args)
    if action == "--describe":
        return _describe(args)
    if action == "--delete":
        return _delete(args)
    return _delete_offsets(args)


def _list(args: argparse.Namespace) -> int:
    groups = list_share_groups(connection(args), args.timeout)
    if args.json:
        print(json.dumps([{"group": g.group_id, "state": g.state} for g in groups], indent=2))
    else:
        _print(list_lines(groups, with_state=args.state))
    return DONE


def _describe(args: argparse.Namespace) -> int:
    cluster = connection(args)
    names = [g.group_id for g in list_share_groups(cluster, args.timeout)] if args.all_groups else list(args.group)
    described = describe_share_groups(cluster, names, args.timeout) if names else {}
    missing = [g for g in names if described[g].not_found and not args.all_groups]  # --all-groups: one just gone
    if missing:
        said = "; ".join(str(described[g].error) for g in missing)
        raise UsageError(f"no share group {', '.join(repr(g) for g in missing)} in the cluster ({said}): "
                         "kafkatop share-groups --list names them")  # fmt: skip
    failed = {g: d.error for g, d in described.items() if d.error is not None and not d.not_found}
    groups = [described[g] for g in sorted(dict.fromkeys(names)) if described[g].error is None]
    if args.json:
        print(json.dumps([share_group_json(g) for g in groups], indent=2))
    else:
        for group in groups:
            _print_view(args, group)
    for g, why in failed.items():
        err(f"share group {g!r} could not be described: {why}")
    for group in groups:
        if group.offsets_error is not None and not (args.members or args.state):
            err(f"share group {group.group_id!r}: its start offsets could not be read: {group.offsets_error}")
    return FAILED if failed else DONE


def _print_view(args: argparse.Namespace, group: ShareGroup) -> None:
    """One group's view, as the tool prints it: its stderr note (no active members) before --members and
    --state, and its error line for a group that is gone (Dead)."""
    verbose = bool(args.verbose)
    if not (args.members or args.state):
        _print(offsets_lines(group, verbose))
        return
    note = empty_note(group)
    if note is not None:
        print(f"\n{note}", file=sys.stderr)
    if group.state == "Dead":
        print(f"\nError: Share group '{group.group_id}' does not exist.")
    if args.members:
        _print(members_lines(group, verbose))
    else:
        _print(state_lines(group, verbose))


def _print(lines: list[str]) -> None:
    if lines:
        print("\n".join(lines))


def _confirmed(args: argparse.Namespace, flag: str, question: str) -> bool:
    """--yes, or the question answered at a terminal; else says that nothing was deleted."""
    unasked = f"nothing was deleted: {flag} asks first, on a terminal; add --yes to delete without asking"
    if confirmed(question, yes=args.yes, unasked=unasked, typed=typed_name(args)):
        return True
    err("not confirmed: nothing was deleted")
    return False


def _delete(args: argparse.Namespace) -> int:
    names = list(dict.fromkeys(args.group))
    listed = ", ".join(repr(g) for g in names)
    question = f"delete share group{'s' if len(names) > 1 else ''} {listed}, with their start offsets?"
    if not _confirmed(args, "--delete", question):
        return FAILED
    outcome = delete_share_groups(connection(args), names, args.timeout)
    if args.json:
        print(json.dumps({"deleted": [g for g, why in outcome.items() if why is None],
                          "failed": {g: why for g, why in outcome.items() if why is not None}}, indent=2))  # fmt: skip
    else:
        _print(delete_lines(outcome))
    return FAILED if any(why is not None for why in outcome.values()) else DONE


def _delete_offsets(args: argparse.Namespace) -> int:
    (group,) = args.group
    topics = list(dict.fromkeys(args.topic))
    question = f"delete share group {group!r}'s start offsets of {', '.join(topics)} (its state of those topics)?"
    if not _confirmed(args, "--delete-offsets", question):
        return FAILED
    outcome = delete_share_group_offsets(connection(args), group, topics, args.timeout)
    if args.json:
        print(json.dumps({"group": group, "error": outcome.error, "topics": outcome.topics}, indent=2))
    else:
        _print(delete_offsets_lines(outcome))
    return FAILED if outcome.error is not None or any(outcome.topics.values()) else DONE
