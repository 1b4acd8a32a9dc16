"""The options of streams-groups (Kafka Streams applications' groups, KIP-1071) — standard library only, so
`kafkatop --help` answers at once."""

from __future__ import annotations

from kafkatop.tui.cli.options import Parser
from kafkatop.tui.cli.parser_common import json_option, timeout_option
from kafkatop.tui.cli.values import text

STREAMS_GROUPS: dict[str, str] = {
    "help": "list, describe and delete streams groups (KIP-1071, Kafka 4.1 early access), as kafka-streams-groups.sh",
    "description": "Lists the streams groups (--list, or no --group; --list --state: with their state, --state S1,S2: "
    "those in these states), describes one in kafka-streams-groups.sh --describe's layouts (each source-topic "
    "partition of the members' active tasks with its lag by default; --members with their tasks; --state; --verbose "
    "adds the committed offsets and the epochs), or deletes groups (--delete: refused for a group with members, as "
    "the tool refuses it; asks first unless --yes), with their internal (repartition, changelog) topics.",
    "epilog": "A cluster without streams groups (Kafka before 4.1, the librdkafka mock, streams.version=0) is said in "
    "one line, with how to turn them on. Kafka 4.1's tool describes the first streams group listed whatever --group "
    "names; kafkatop describes the group named. Exit codes: 0 done; 1 Kafka could not be asked, has no streams "
    "groups, or refused a deletion; 2 bad input (an unknown group, options that do not go together).",
}

STATES = ("Empty", "NotReady", "Assigning", "Reconciling", "Stable", "Dead")


def add_streams_groups(s: Parser) -> None:
    s.option("--group", action="append", metavar="GROUP", type=text("a group id"),
             help="a streams group (--delete: repeatable)", shown="none")  # fmt: skip
    s.option("--all-groups", action="store_true", help="with --delete: every streams group")
    s.option("--list", action="store_true", help="the streams groups' names (with --state: and their state)")
    s.option("--describe", action="store_true", help="describe the --group (the default with --group)")
    s.option("--offsets", action="store_true", help="each source-topic partition with its lag (the default)")
    s.option("--members", action="store_true", help="the members (stream threads) and their tasks")
    # no `text` type: argparse passes the bare --state's "" through it, which `text` refuses; _states checks them
    s.option("--state", nargs="?", const="", metavar="STATES",
             help=f"with --describe: coordinator, state, members; with --list: each group's state, or only the "
             f"groups in these states (comma-separated: {', '.join(STATES)})", shown="off")  # fmt: skip
    s.option("--verbose", action="store_true", help="with --describe: committed offsets and epochs too")
    s.option("--delete", action="store_true", help="delete the --group(s): refused while one has members")
    s.option("--yes", action="store_true", help="delete without asking")
    json_option(s, "the result as JSON")
    timeout_option(s, 15.0, "to read or delete the groups")
