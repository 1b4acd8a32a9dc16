"""`kafkatop topics`'s options: kafka-topics.sh's own (Kafka 4.1), one action of --list, --describe, --create,
--alter, --delete — standard library only, so `kafkatop --help` answers at once."""

from __future__ import annotations

import argparse

from kafkatop.backends.model.topic_filter import regex_problem
from kafkatop.tui.cli.options import Fail, Parser
from kafkatop.tui.cli.parser_common import timeout_option
from kafkatop.tui.cli.values import COUNT, key_value, text

TOPICS: dict[str, str] = {
    "help": "list, describe, create, alter and delete topics, as kafka-topics.sh",
    "description": "kafka-topics.sh's actions with its option names and its lines, line for line: --list (sorted, "
    "--topic REGEX as the tool's filter), --describe (with --under-replicated-partitions, --under-min-isr-partitions, "
    "--at-min-isr-partitions, --unavailable-partitions, --topics-with-overrides), --create (--if-not-exists, "
    "--partitions, --replication-factor or --replica-assignment, --config), --alter --partitions N (the new total; "
    "keyed records move to other partitions), --delete (--if-exists; asks first, naming the topics: --yes, or "
    '"yes" typed; on an attached cluster its name typed). --topic is a regular expression matched against the whole '
    "name, as the tool's (a '.' in a name matches any character; escape it: 'my\\.topic').",
    "epilog": 'Exit codes: 0 done; 1 Kafka refused or could not be asked ("Error while executing topic command : '
    "…\", the tool's words), or a --delete not confirmed; 2 bad input (options, a regular expression), nothing sent.",
}

ACTIONS = ("list", "describe", "create", "alter", "delete")
HEALTH = ("under_replicated_partitions", "under_min_isr_partitions", "at_min_isr_partitions",
          "unavailable_partitions", "topics_with_overrides")  # fmt: skip


def add_topics(t: Parser) -> None:
    t.option("--list", action="store_true", help="the topics' names, one a line, sorted")
    t.option("--describe", action="store_true", help="partitions, leaders, replicas, ISR, configs")
    t.option("--create", action="store_true", help="create --topic")
    t.option("--alter", action="store_true", help="raise --topic's partition count to --partitions")
    t.option("--delete", action="store_true", help="delete the topics --topic matches (asks first)")
    t.option("--topic", metavar="REGEX", type=text("a topic name or regular expression"),
             help="the topic: with --create its name, else a regular expression (the whole name; ',' is '|')",
             shown="all, for --list and --describe")  # fmt: skip
    t.option("--exclude-internal", action="store_true", help="leave out internal topics (__consumer_offsets, …)")
    t.option("--if-exists", action="store_true", help="--describe, --alter, --delete: no error when none matches")
    t.option("--if-not-exists", action="store_true", help="--create: no error when the topic exists")
    t.option("--partitions", type=COUNT, metavar="N",
             help="--create: partitions; --alter: the new total", shown="the broker's num.partitions")  # fmt: skip
    t.option("--replication-factor", type=COUNT, metavar="R", help="--create: replicas of each partition",
             shown="the broker's default.replication.factor")  # fmt: skip
    t.option("--replica-assignment", metavar="B:B,B:B,…", type=text("broker ids, e.g. 0:1,1:2"),
             help="--create: each partition's replicas, partitions separated by ',' (the first replica leads)",
             shown="Kafka places them")  # fmt: skip
    t.option("--config", dest="config_item", action="append", type=key_value, metavar="KEY=VALUE",
             help="--create: a topic config, repeatable", shown="the broker's")  # fmt: skip
    t.option("--under-replicated-partitions", action="store_true",
             help="--describe: only partitions whose ISR is smaller than their replicas")  # fmt: skip
    t.option("--under-min-isr-partitions", action="store_true",
             help="--describe: only partitions whose ISR is below min.insync.replicas")  # fmt: skip
    t.option("--at-min-isr-partitions", action="store_true",
             help="--describe: only partitions whose ISR is exactly min.insync.replicas")  # fmt: skip
    t.option("--unavailable-partitions", action="store_true",
             help="--describe: only partitions without a leader, or led by a broker not alive")  # fmt: skip
    t.option("--topics-with-overrides", action="store_true",
             help="--describe: only the topic lines of topics with configs not at their defaults")  # fmt: skip
    t.option("--yes", action="store_true", help="--delete without asking")
    timeout_option(t, 30.0, "per request")


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def replica_assignment(value: str) -> list[list[int]]:
    """`0:1,1:2` as kafka-topics.sh reads it: partitions by ',', each one's broker ids by ':'. ValueError says why."""
    partitions: list[list[int]] = []
    for i, part in enumerate(value.split(",")):
        ids = [b.strip() for b in part.split(":")]
        if not all(b.isdigit() for b in ids):
            raise ValueError(f"partition {i}'s replicas {part.strip()!r} are not broker ids separated by ':'")
        brokers = [int(b) for b in ids]
        if len(set(brokers)) != len(brokers):
            raise ValueError(f"partition {i} lists a broker twice: {part.strip()!r}")
        if partitions and len(brokers) != len(partitions[0]):
            raise ValueError(f"partition {i} has {len(brokers)} replica(s), partition 0 has {len(partitions[0])}: "
                             "every partition needs as many")  # fmt: skip
        partitions.append(brokers)
    return partitions


def settle_topics(args: argparse.Namespace, extras: list[str], fail: Fail) -> None:
    """Exactly one action, and only the options it takes (the tool's checks, said as what to do)."""
    given = [a for a in ACTIONS if getattr(args, a)]
    if len(given) != 1:
        fail("give exactly one action: --list, --describe, --create, --alter or --delete")
    action = args.action = given[0]
    if action in ("create", "alter", "delete") and args.topic is None:
        fail(f"--{action} needs --topic")
    if action == "alter" and args.partitions is None:
        fail("--alter needs --partitions N (the new total; kafkatop changes configs with `kafkatop configs`)")
    only = {
        "if_exists": ("describe", "alter", "delete"),
        "if_not_exists": ("create",),
        "partitions": ("create", "alter"),
        "replication_factor": ("create",),
        "replica_assignment": ("create",),
        "config_item": ("create",),
        "exclude_internal": ("list", "describe", "alter", "delete"),
        "yes": ("delete",),
        **{h: ("describe",) for h in HEALTH},
    }
    for dest, actions in only.items():
        if getattr(args, dest) and action not in actions:
            fail(f"{_flag(dest)} does not go with --{action} (it goes with " + ", ".join(f"--{a}" for a in actions)
                 + ")")  # fmt: skip
    if args.replica_assignment is not None:
        if args.partitions is not None or args.replication_factor is not None:
            fail("--replica-assignment gives the partitions and their replicas: leave out --partitions and "
                 "--replication-factor")  # fmt: skip
        try:
            args.replica_assignment = replica_assignment(args.replica_assignment)
        except ValueError as e:
            fail(f"--replica-assignment: {e}; e.g. 0:1,1:2 (partition 0 on brokers 0 and 1, partition 1 on 1 and 2)")
    if args.topic is not None and action != "create" and (problem := regex_problem(args.topic)) is not None:
        fail(f"--topic {args.topic!r} is not a regular expression ({problem}); escape what is special in a name: "
             r"'my\.topic', 'a\+b'")  # fmt: skip


def topics_writes(args: argparse.Namespace) -> str | None:
    action = next((a for a in ACTIONS if getattr(args, a, False)), None)
    return {"create": "--create creates a topic", "alter": "--alter adds partitions",
            "delete": "--delete deletes topics"}.get(action or "")  # fmt: skip
