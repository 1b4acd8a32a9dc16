"""`kafkatop topics`: kafka-topics.sh (Kafka 4.1) with its option names and its lines — --list, --describe (the
lines of `kafkatop describe`, with the tool's health filters), --create (create-topic's backend), --alter
--partitions (add-partitions'), --delete (asks first). Where Kafka refuses, the tool's own line: "Error while
executing topic command : …" on stdout, exit 1; where kafkatop cannot reach Kafka, its clearer words on stderr."""

from __future__ import annotations

import argparse

from kafkatop.backends.insight.topic_health import HealthFilter
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.topics import TopicAdmin
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.partitions import KEY_WARNING
from kafkatop.backends.model.text import printable
from kafkatop.backends.model.topic_filter import matching_topics
from kafkatop.backends.model.topics import TopicError, parse_config_assignments, validate_new_topic
from kafkatop.tui.cli.common import confirmed, connection, typed_name
from kafkatop.tui.cli.exits import BAD_INPUT, DONE, FAILED, err
from kafkatop.tui.cli.topics import describe_lines, show_describe

# kafka-topics' warning for a name with '.' or '_' (Topic.hasCollisionChars), on stdout as the tool prints it.
COLLISION_WARNING = (
    "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. "
    "To avoid issues it is best to use either, but not both."
)
# Kafka's refusals worth the tool's line; the rest (no answer, no route) are kafkatop's own words on stderr.
_NOT_KAFKAS = (None, "_TIMED_OUT", "_TRANSPORT")


class _Missing(Exception):  # noqa: N818 - the tool's ensureTopicExists, as its line
    def __init__(self, topic: str) -> None:
        super().__init__(f"Topic '{printable(topic)}' does not exist as expected")


def cmd_topics(args: argparse.Namespace) -> int:
    actions = {"list": _list, "describe": _describe, "create": _create, "alter": _alter, "delete": _delete}
    try:
        return actions[args.action](args)
    except _Missing as e:
        return _error_line(str(e))
    except TopicError as e:
        if e.reason is None or e.code in _NOT_KAFKAS:
            raise
        return _error_line(printable(e.reason))


def _error_line(said: str) -> int:
    print(f"Error while executing topic command : {said}")
    return FAILED


def _metadata(args: argparse.Namespace) -> ClusterSnapshot:
    source = AdminSource(connection(args), timeout_s=args.timeout, include_internal=True)
    try:
        return source.poll(topics_only=True)
    finally:
        source.close()


def _matching(args: argparse.Namespace, snapshot: ClusterSnapshot, required: bool) -> list[str]:
    """The topics --topic and --exclude-internal pick, sorted; none where --topic named some: an error unless
    --if-exists (`required` false for --list, which never errs)."""
    names = matching_topics((t.name for t in snapshot.topics), args.topic, args.exclude_internal,
                            internal=(t.name for t in snapshot.topics if t.internal))  # fmt: skip
    if not names and required and args.topic and not args.if_exists:
        raise _Missing(args.topic)
    return names


def _list(args: argparse.Namespace) -> int:
    names = _matching(args, _metadata(args), required=False)
    print("\n".join(names))  # the tool's println: an empty line when there are none
    return DONE


def _describe(args: argparse.Namespace) -> int:
    health = HealthFilter(
        under_replicated=args.under_replicated_partitions,
        under_min_isr=args.under_min_isr_partitions,
        at_min_isr=args.at_min_isr_partitions,
        unavailable=args.unavailable_partitions,
        with_overrides=args.topics_with_overrides,
    )
    text, notes = describe_lines(args, lambda snapshot: _matching(args, snapshot, required=True), health)
    show_describe(text, notes)
    return DONE


def _create(args: argparse.Namespace) -> int:
    name = args.topic
    problems = validate_new_topic(name, args.partitions or 1, args.replication_factor or 1)
    if problems:
        for problem in problems:
            err(printable(problem))
        return BAD_INPUT
    try:
        configs = parse_config_assignments(args.config_item or ())
    except TopicError as e:
        err(printable(str(e)))
        return BAD_INPUT
    if "." in name or "_" in name:
        print(COLLISION_WARNING)
    with TopicAdmin(connection(args), timeout_s=args.timeout) as admin:
        try:
            admin.create_topic(name, args.partitions, args.replication_factor, configs,
                               replica_assignment=args.replica_assignment)  # fmt: skip
        except TopicError as e:
            if e.code == "TOPIC_ALREADY_EXISTS" and args.if_not_exists:
                return DONE  # the tool says nothing
            raise
    print(f"Created topic {name}.")
    return DONE


def _alter(args: argparse.Namespace) -> int:
    names = _matching(args, _metadata(args), required=True)
    failed: TopicError | None = None
    with TopicAdmin(connection(args), timeout_s=args.timeout) as admin:
        for name in names:  # the tool sends them in one request: each is asked, the first refusal said
            try:
                admin.add_partitions(name, args.partitions)
            except TopicError as e:
                failed = failed or e
    if failed is not None:
        raise failed
    if names:
        err(f"warning: {KEY_WARNING}")
    return DONE


def _delete(args: argparse.Namespace) -> int:
    names = _matching(args, _metadata(args), required=True)
    if not names:
        return DONE  # --if-exists, and none matched: the tool says nothing
    listed = ", ".join(map(printable, names))  # names from the cluster: text
    question = f"delete {len(names)} topic(s) and all their records: {listed}?"
    unasked = "nothing was deleted: --delete asks first, on a terminal; add --yes to delete without asking"
    if not confirmed(question, yes=args.yes, unasked=unasked, typed=typed_name(args)):
        err("not confirmed: nothing was deleted")
        return FAILED
    failed: TopicError | None = None
    with TopicAdmin(connection(args), timeout_s=args.timeout) as admin:
        for name in names:
            try:
                admin.delete_topic(name)
            except TopicError as e:
                failed = failed or e
    if failed is not None:
        raise failed
    return DONE  # the tool prints nothing; Kafka removes the data in the background
