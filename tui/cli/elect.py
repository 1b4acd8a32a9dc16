"""`kafkatop elect-leaders` (as kafka-leader-election.sh, line for line) and `kafkatop add-partitions` (as
kafka-topics.sh --alter --partitions N): the same backends as the live view's `e`, `E` and `P`.

Both read the cluster first (one Metadata request) and refuse, changing nothing, what Kafka would refuse as a whole:
an unknown topic or partition, a partition count that is no increase. An unclean election says what it can lose
and asks first (`--yes`, or "yes" typed on a terminal)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from kafkatop.backends.insight.elections import (
    log_end_wanted,
    loss_summary,
    loss_text,
    plan_election,
    plan_lines,
    result_lines,
    with_log_ends,
)
from kafkatop.backends.insight.grants import Doing
from kafkatop.backends.kafka.admin.admin import AdminSource
from kafkatop.backends.kafka.cluster.elections import LeaderElector
from kafkatop.backends.kafka.cluster.topics import TopicAdmin
from kafkatop.backends.model.cluster import ClusterSnapshot
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.elections import ElectionPlan, ElectionType
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.json_text import loads
from kafkatop.backends.model.partitions import KEY_WARNING, partition_count_problem
from kafkatop.backends.model.topic_partition import TopicPartition
from kafkatop.tui.cli.common import confirmed, connection, typed_name
from kafkatop.tui.cli.exits import BAD_INPUT, DONE, FAILED, UsageError, err

SCOPES = ("--topic", "--all-topic-partitions", "--path-to-json-file")


def _metadata(cluster: KafkaConnection, timeout_s: float) -> ClusterSnapshot:
    """Brokers, leaders, replicas and ISRs from one Metadata request (internal topics too, as Kafka's tools see
    them): answered at once even while a dead broker is not fenced yet."""
    source = AdminSource(cluster, timeout_s=timeout_s, include_internal=True)
    try:
        return source.poll(topics_only=True)
    finally:
        source.close()


# --- elect-leaders --------------------------------------------------------------------------------------------------
def read_election_file(path: str) -> list[TopicPartition]:
    """kafka-leader-election.sh's --path-to-json-file: {"partitions": [{"topic": "t", "partition": 0}, …]}."""
    flag = f"--path-to-json-file {path}"
    try:
        data = loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise UsageError(f"{flag}: cannot read it ({e.strerror or e})") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise UsageError(f"{flag}: not JSON ({e})") from None
    if not isinstance(data, dict) or "partitions" not in data:
        raise UsageError(f'{flag}: Replica election data is missing "partitions" field')
    entries = data["partitions"]
    if not isinstance(entries, list) or not entries:
        raise UsageError(f'{flag}: "partitions" must be a list of {{"topic": "t", "partition": 0}} entries')
    out: list[TopicPartition] = []
    for entry in entries:
        topic = entry.get("topic") if isinstance(entry, dict) else None
        partition = entry.get("partition") if isinstance(entry, dict) else None
        if not isinstance(topic, str) or not topic or type(partition) is not int or partition < 0:
            raise UsageError(f'{flag}: {json.dumps(entry)} is not {{"topic": NAME, "partition": NUMBER}}')
        out.append(TopicPartition(topic, partition))
    duplicates = sorted({tp for tp in out if out.count(tp) > 1})
    if duplicates:
        raise UsageError(
            f"{flag}: Replica election data contains duplicate partitions: {', '.join(map(str, duplicates))}"
        )
    return out


def _asked(args: argparse.Namespace) -> list[TopicPartition] | None:
    """The partitions asked for, by one of --topic (and --partition), --all-topic-partitions (None: every one),
    --path-to-json-file; refused as kafka-leader-election.sh refuses it."""
    given = [flag for flag, value in zip(SCOPES, (args.topic, args.all_topic_partitions, args.path_to_json_file),
                                         strict=True) if value]  # fmt: skip
    if len(given) != 1:
        raise UsageError(f"One and only one of the following options is required: {', '.join(SCOPES)}")
    if args.partition is not None and not args.topic:
        raise UsageError("Option --partition is only allowed if --topic is used")
    if args.all_topic_partitions:
        return None
    if args.path_to_json_file:
        return read_election_file(args.path_to_json_file)
    return []  # the topic's partitions, once the metadata is read


def _missing(cluster: KafkaConnection, args: argparse.Namespace, doing: Doing, words: str) -> KafkatopError:
    """--topic not in the metadata: the authorizer's refusal where it hides the topic (no Describe), else `words`."""
    with TopicAdmin(cluster, timeout_s=args.timeout) as admin:
        return admin.hidden(args.topic, doing) or UsageError(words)


def _resolve(
    args: argparse.Namespace, snapshot: ClusterSnapshot, asked: list[TopicPartition], cluster: KafkaConnection
) -> list[TopicPartition]:
    """--topic (and --partition) as partitions; anything the cluster does not have refused, naming it."""
    if args.topic:
        topic = snapshot.topic(args.topic)
        if topic is None:
            words = f"Topic '{args.topic}' does not exist: nothing to elect (`kafkatop describe` lists them)"
            raise _missing(cluster, args, "describe topic", words)
        if args.partition is None:
            return [TopicPartition(topic.name, p.id) for p in topic.partitions]
        if all(p.id != args.partition for p in topic.partitions):
            last = len(topic.partitions) - 1
            has = "its only partition is 0" if last == 0 else f"its partitions are 0–{last}"
            raise UsageError(f"Topic '{topic.name}' has no partition {args.partition}: {has}")
        return [TopicPartition(topic.name, args.partition)]
    known = {TopicPartition(p.topic, p.id) for p in snapshot.partitions}
    missing = [tp for tp in asked if tp not in known]
    if missing:
        raise UsageError(
            f"not in the cluster: {', '.join(map(str, missing))} (UNKNOWN_TOPIC_OR_PARTITION): fix "
            f"--path-to-json-file {args.path_to_json_file}; nothing was sent"
        )
    return asked


def _confirmed(plan: ElectionPlan, yes: bool, typed: str | None) -> bool:
    """An unclean election's moves, said on stderr with what they lose, then confirmed: --yes, or "yes" typed."""
    for c in plan.unclean_moves:
        err(f"unclean: {loss_text(c)}")
    err(f"an unclean election can lose acknowledged records: {loss_summary(plan)}")
    return confirmed(
        "elect these out-of-sync leaders?",
        yes=yes,
        unasked="nothing was sent: an unclean election needs a confirmation (above: what it loses); add --yes to go "
        "ahead, or --dry-run to only look",
        typed=typed,
    )


def cmd_elect_leaders(args: argparse.Namespace) -> int:
    election_type = ElectionType(args.election_type.upper())
    asked = _asked(args)  # every bad combination refused before any connection
    cluster = connection(args)
    snapshot = _metadata(cluster, args.timeout)
    partitions = None if asked is None else _resolve(args, snapshot, asked, cluster)
    plan = plan_election(snapshot, election_type, partitions)
    with LeaderElector(cluster, timeout_s=args.timeout) as elector:
        notes: list[str] = []
        if plan.unclean_moves:
            log_ends, notes = elector.log_ends(snapshot, log_end_wanted(plan))
            plan = with_log_ends(plan, log_ends)
        for note in notes:
            err(f"note: log end offset not read: {note}")
        if args.dry_run:
            for line in plan_lines(plan):
                print(line)
            for c in plan.unclean_moves:
                print(f"  unclean: {loss_text(c)}")
            err("nothing was sent (--dry-run)")
            return DONE
        if plan.unclean_moves and not _confirmed(plan, args.yes, typed_name(args)):
            err("not confirmed: nothing was sent")
            return FAILED
        if election_type is ElectionType.PREFERRED and plan.whole_cluster:
            sent: list[TopicPartition] | None = None  # as Kafka's tool asks: the controller finds them
        elif plan.whole_cluster:
            # Unclean, every partition: only those shown, and confirmed, above (none: nothing to send).
            sent = [c.partition for c in plan.candidates]
            if not sent:
                err("no partition is without a leader: nothing to elect")
                return DONE
        else:
            sent = list(plan.partitions)
        results = elector.elect(election_type, sent)
    for line in result_lines(results):
        print(line)
    if results.failed:
        err(f"{len(results.failed)} replica(s) could not be elected")  # kafka-leader-election.sh's words
        return FAILED
    return DONE


# --- add-partitions -------------------------------------------------------------------------------------------------
def cmd_add_partitions(args: argparse.Namespace) -> int:
    cluster = connection(args)
    snapshot = _metadata(cluster, args.timeout)
    topic = snapshot.topic(args.topic)
    if topic is None:
        raise _missing(cluster, args, "add partitions", f"Topic '{args.topic}' does not exist as expected")
    current = len(topic.partitions)
    problem = partition_count_problem(topic.name, current, args.partitions)
    if problem is not None:
        err(f"Cannot add partitions to topic '{topic.name}': {problem}")
        return BAD_INPUT
    with TopicAdmin(cluster, timeout_s=args.timeout) as admin:
        admin.add_partitions(topic.name, args.partitions, validate_only=args.dry_run)
    added = args.partitions - current
    if args.dry_run:
        print(f"Kafka accepts {added} more partition(s) for topic {topic.name}: {current} → {args.partitions} "
              "(validated; nothing changed: --dry-run)")  # fmt: skip
    else:
        print(f"Added {added} partition(s) to topic {topic.name}: {current} → {args.partitions}.")
    err(f"warning: {KEY_WARNING}")
    return DONE
