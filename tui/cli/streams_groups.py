"""`kafkatop streams-groups`: streams groups (KIP-1071, Kafka 4.1 early access) as kafka-streams-groups.sh lists,
describes (offsets, --members, --state, each --verbose) and deletes them, line for line; --json for a script.
Deleting asks first on a terminal (--yes: without asking). A cluster that does not speak streams groups is said in
one line, with how to turn them on."""

from __future__ import annotations

import argparse
import json

from kafkatop.backends.insight.streams_group_lines import (
    delete_lines,
    internal_topics_lines,
    list_lines,
    members_lines,
    not_inferred_lines,
    offsets_lines,
    state_lines,
    tasks_text,
)
from kafkatop.backends.kafka.cluster.topics import TopicAdmin
from kafkatop.backends.kafka.streams_groups.streams_groups import (
    delete_streams_groups,
    describe_streams_groups,
    list_streams_groups,
)
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.streams_groups import StreamsGroup, inferred_internal
from kafkatop.tui.cli.common import confirmed, connection, typed_name
from kafkatop.tui.cli.exits import DONE, FAILED, UsageError, err
from kafkatop.tui.cli.parser_streams import STATES

ACTIONS = ("--list", "--describe", "--delete")


def _states(value: str) -> set[str]:
    """--list --state S1,S2: Kafka's state names, in any case, as the tool parses them."""
    by_lower = {s.lower(): s for s in STATES}
    asked = [s.strip() for s in value.split(",")]
    wrong = [s for s in asked if s.lower() not in by_lower]
    if wrong:
        raise UsageError(f"invalid state list {value!r}: valid states are {', '.join(STATES)}")
    return {by_lower[s.lower()] for s in asked}


def _check(args: argparse.Namespace) -> str:
    """The action asked (kafka-streams-groups.sh takes exactly one; here --list is the default, and --describe with
    --group), every option that does not go with it refused before anything is sent."""
    given = [a for a, v in zip(ACTIONS, (args.list, args.describe, args.delete), strict=True) if v]
    if len(given) > 1:
        raise UsageError(f"{' and '.join(given)} together: give one action (as kafka-streams-groups.sh)")
    action = given[0] if given else ("--describe" if args.group else "--list")
    views = [v for v, on in (("--offsets", args.offsets), ("--members", args.members),
                             ("--state", args.state is not None)) if on]  # fmt: skip
    if action == "--list":
        if args.group or args.all_groups or args.offsets or args.members or args.verbose:
            raise UsageError("--list lists every streams group (with --state: and its state): --describe --group G "
                             "describes one")  # fmt: skip
        if args.state:
            _states(args.state)
        return action
    if action == "--describe":
        if len(views) > 1:
            raise UsageError(f"{' and '.join(views)} together: give one")
        if args.state:
            raise UsageError("--describe --state takes no states: they filter --list")
        if args.all_groups or not args.group or len(args.group) != 1:
            raise UsageError("--describe needs one --group G (kafkatop streams-groups --list names them)")
        return action
    if views or args.verbose:
        raise UsageError(f"{(views or ['--verbose'])[0]} is an option of --describe, not of --delete")
    if bool(args.group) == bool(args.all_groups):
        raise UsageError("--delete needs --group G (repeatable) or --all-groups: which streams groups to delete")
    return action


def cmd_streams_groups(args: argparse.Namespace) -> int:
    action = _check(args)
    if action == "--list":
        return _list(args)
    if action == "--describe":
        return _describe(args)
    return _delete(args)


def _list(args: argparse.Namespace) -> int:
    groups = list_streams_groups(connection(args), args.timeout)
    if args.state:
        wanted = _states(args.state)
        groups = tuple(g for g in groups if g.state in wanted)
    if args.json:
        print(json.dumps([{"group": g.group_id, "state": g.state} for g in groups], indent=2))
    else:
        _print(list_lines(groups, with_state=args.state is not None))
    return DONE


def _describe(args: argparse.Namespace) -> int:
    (name,) = args.group
    group = describe_streams_groups(connection(args), [name], args.timeout)[name]
    if group.not_found:
        raise UsageError(f"no streams group {name!r} in the cluster ({group.error}): kafkatop streams-groups --list "
                         "names them")  # fmt: skip
    if group.error is not None:
        err(f"streams group {name!r} could not be described: {group.error}")
        return FAILED
    verbose = bool(args.verbose)
    if args.json:
        print(json.dumps(_json(group), indent=2))
    elif args.members:
        _print(members_lines(group, verbose))
    elif args.state is not None:
        _print(state_lines(group, verbose))
    else:
        _print(offsets_lines(group, verbose))
    return DONE


def _json(group: StreamsGroup) -> dict[str, object]:
    coordinator = None
    if group.coordinator is not None:
        node, host, port = group.coordinator
        coordinator = {"id": node, "host": host, "port": port}
    return {
        "group": group.group_id, "state": group.state, "coordinator": coordinator, "group_epoch": group.group_epoch,
        "target_assignment_epoch": group.assignment_epoch, "topology_epoch": group.topology_epoch,
        "subtopologies": [{"id": sid, "source_topics": list(topics)} for sid, topics in group.source_topics],
        "members": [{"member": m.member_id, "process": m.process_id, "client_id": m.client_id, "host": m.client_host,
                     "member_epoch": m.member_epoch, "protocol": "classic" if m.is_classic else "streams",
                     "assignment": tasks_text(m.assignment), "target_assignment": tasks_text(m.target_assignment)}
                    for m in group.members],
        "offsets": [{"topic": o.topic, "partition": o.partition, "committed": o.committed,
                     "leader_epoch": o.leader_epoch, "log_end": o.log_end, "lag": o.lag}
                    for o in sorted(group.offsets, key=lambda o: (o.topic, o.partition))],
    }  # fmt: skip


def _print(lines: list[str]) -> None:
    if lines:
        print("\n".join(lines))


def _delete(args: argparse.Namespace) -> int:
    """As the tool: the groups (empty ones only), then the internal topics of each deleted group that are named as its
    own (repartition, changelog); one named otherwise is said and kept."""
    cluster = connection(args)
    names = [g.group_id for g in list_streams_groups(cluster, args.timeout)] if args.all_groups else args.group
    names = list(dict.fromkeys(names))
    if not names:
        err("no streams group in the cluster: nothing to delete")
        return DONE
    listed = ", ".join(repr(g) for g in names)
    question = (f"delete streams group{'s' if len(names) > 1 else ''} {listed}, with their committed offsets and "
                "internal (repartition, changelog) topics?")  # fmt: skip
    unasked = "nothing was deleted: --delete asks first, on a terminal; add --yes to delete without asking"
    if not confirmed(question, yes=args.yes, unasked=unasked, typed=typed_name(args)):
        err("not confirmed: nothing was deleted")
        return FAILED
    internal: dict[str, list[str]] = {}
    lines: list[str] = []
    for group in describe_streams_groups(cluster, names, args.timeout).values():
        if group.error is None and group.state == "Empty":
            kept = [t for t in group.internal_topics if not inferred_internal(t, group.group_id)]
            lines += not_inferred_lines(group.group_id, kept)
            if mine := [t for t in group.internal_topics if inferred_internal(t, group.group_id)]:
                internal[group.group_id] = mine
    outcome = delete_streams_groups(cluster, names, args.timeout)
    deleted_with_topics = [g for g, why in outcome.items() if why is None and g in internal]
    failures: dict[str, str] = {}
    if deleted_with_topics:
        with TopicAdmin(cluster, timeout_s=args.timeout) as admin:
            for g in deleted_with_topics:
                for topic in internal[g]:
                    try:
                        admin.delete_topic(topic)
                    except KafkatopError as e:
                        lines.append(f"Failed to delete internal topic: {topic}")
                        failures[g] = str(e)
    if args.json:
        print(json.dumps({"deleted": [g for g, why in outcome.items() if why is None],
                          "failed": {g: why for g, why in outcome.items() if why is not None},
                          "internal_topics": {g: internal[g] for g in deleted_with_topics},
                          "internal_topics_failed": failures}, indent=2))  # fmt: skip
    else:
        _print([*lines, *delete_lines(outcome), *internal_topics_lines(deleted_with_topics, failures)])
    return FAILED if failures or any(why is not None for why in outcome.values()) else DONE
