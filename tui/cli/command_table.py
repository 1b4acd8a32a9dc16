"""Every headless command, one row each: its name, its help, its options, the function that runs it, what it writes
to the cluster and whether it acts on a lab only. The parser (tui/cli/parser.py), `kafkatop --help`'s list of
commands, the dispatch (tui/cli/main.py) and the read-only refusal (tui/cli/contexts.py) are made from it. Standard
library only, so `kafkatop --help` answers at once: a command's module is named, and imported when it runs."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial

from kafkatop.tui.cli.options import Parser, Settle
from kafkatop.tui.cli.parser_acls import ACLS, add_acls
from kafkatop.tui.cli.parser_audit import AUDIT, add_audit
from kafkatop.tui.cli.parser_checks import CHAOS, DURABILITY, SCENARIO, add_chaos, add_durability, add_scenario
from kafkatop.tui.cli.parser_clients import (
    CONSUME,
    COUNTS,
    GROUPS,
    PRODUCE,
    SHARE_GROUPS,
    add_consume,
    add_counts,
    add_groups,
    add_produce,
    add_share_groups,
)
from kafkatop.tui.cli.parser_common import CONTEXTS, add_contexts, cluster_options, lab_options
from kafkatop.tui.cli.parser_connect import CONNECT, add_connect, connect_writes, settle_connect
from kafkatop.tui.cli.parser_lab import (
    ADD_BROKER,
    ADD_CONNECT,
    DOWN,
    INSTALL,
    KILL,
    RESTART,
    START,
    STATUS,
    STOP,
    UP,
    add_down,
    add_install,
    add_node,
    add_status,
    add_up,
    start_timeout,
)
from kafkatop.tui.cli.parser_lag import LAG, add_lag
from kafkatop.tui.cli.parser_streams import STREAMS_GROUPS, add_streams_groups
from kafkatop.tui.cli.parser_tools import (
    API_VERSIONS,
    CLIENT_METRICS,
    DELETE_RECORDS,
    GET_OFFSETS,
    LOG_DIRS,
    METADATA_QUORUM,
    add_api_versions,
    add_client_metrics,
    add_delete_records,
    add_get_offsets,
    add_log_dirs,
    add_metadata_quorum,
)
from kafkatop.tui.cli.parser_topics import (
    ADD_PARTITIONS,
    CONFIGS,
    CREATE_TOPIC,
    DESCRIBE,
    ELECT_LEADERS,
    FEATURES,
    REASSIGN,
    TRANSACTIONS,
    add_add_partitions,
    add_configs,
    add_create_topic,
    add_describe,
    add_elect_leaders,
    add_features,
    add_reassign,
    add_transactions,
    settle_create_topic,
)
from kafkatop.tui.cli.parser_topics_tool import TOPICS, add_topics, settle_topics, topics_writes
from kafkatop.tui.cli.parser_users import USERS, add_users

# What a command, as given, writes to the cluster, said after "writes to the cluster (…)"; None: it only reads.
Writes = Callable[[argparse.Namespace], str | None]
# "module:function", the module under tui/cli when it starts with "."; or a chooser of one by the options given.
Runs = str | Callable[[argparse.Namespace], str]


def always(what: str) -> Writes:
    return lambda args: what


def never(args: argparse.Namespace) -> str | None:
    return None


def when(test: Callable[[argparse.Namespace], bool], what: str) -> Writes:
    return lambda args: what if test(args) else None


@dataclass(frozen=True, slots=True)
class Command:
    """One headless command: all that its parser, the help, the dispatch and read-only need to know of it."""

    name: str
    texts: Mapping[str, str]  # add_parser's help, and its description and epilog where it has them
    options: tuple[Callable[[Parser], None], ...]  # each adds some of its options, in the help's order
    run: Runs
    writes: Writes
    lab_only: bool = False  # starts, grows or reads a lab: an attached default context does not apply to it
    note: str | None = None  # beside its name in `kafkatop --help`'s overview of the commands
    settle: Settle | None = None  # its last step after parsing (tui/cli/options.py)


# In the help's order: lab cluster, topics, then the rest as they came.
# fmt: off
COMMANDS: tuple[Command, ...] = (
    Command("up", UP, (lab_options, add_up), ".lab:cmd_up", always("starts the lab's processes"), lab_only=True),
    Command("down", DOWN, (lab_options, add_down), ".lab:cmd_down", always("stops the lab's processes"), lab_only=True),
    Command("status", STATUS, (lab_options, add_status), ".lab:cmd_status", never, lab_only=True),
    Command("kill", KILL, (lab_options, partial(add_node, signals=True)), ".lab:cmd_node",
            always("sends SIGKILL to a process of the cluster")),
    Command("stop", STOP, (lab_options, partial(add_node, signals=True)), ".lab:cmd_node",
            always("stops a process of the cluster")),
    Command("start", START, (lab_options, partial(add_node, signals=False)), ".lab:cmd_node",
            always("starts a process of the cluster")),
    Command("restart", RESTART, (lab_options, partial(add_node, signals=False)), ".lab:cmd_node",
            always("restarts a process of the cluster")),
    Command("add-broker", ADD_BROKER, (lab_options, start_timeout), ".lab:cmd_add_broker", always("adds a broker"),
            lab_only=True),
    Command("add-connect", ADD_CONNECT, (lab_options, start_timeout), ".lab:cmd_add_connect",
            always("adds a Kafka Connect worker"), lab_only=True),
    Command("topics", TOPICS, (cluster_options, add_topics), ".topics_tool:cmd_topics", topics_writes,
            note="as kafka-topics.sh", settle=settle_topics),
    Command("create-topic", CREATE_TOPIC, (cluster_options, add_create_topic), ".topics:cmd_create_topic",
            always("creates a topic"), settle=settle_create_topic),
    Command("describe", DESCRIBE, (cluster_options, add_describe), ".topics:cmd_describe", never),
    Command("install", INSTALL, (add_install,), ".install:cmd_install", never, note="download Apache Kafka"),
    Command("configs", CONFIGS, (cluster_options, add_configs), ".configs:cmd_configs",
            when(lambda a: bool(a.alter or a.delete_config), "--alter/--delete change configs")),
    Command("reassign", REASSIGN, (cluster_options, add_reassign), ".reassign:cmd_reassign",
            when(lambda a: bool(a.execute or a.cancel or a.status), "--execute/--cancel move replicas, and --status "
                 "clears the reassignment's throttle once done (--list reads)")),
    Command("groups", GROUPS, (cluster_options, add_groups), ".groups:cmd_groups",
            when(lambda a: bool(a.delete or a.delete_offsets or (a.reset_offsets and a.execute)),
                 "--delete/--delete-offsets delete groups' data, --reset-offsets --execute commits offsets")),
    Command("lag", LAG, (cluster_options, add_lag), ".lag:cmd_lag", never, note="statuses, for scripts"),
    Command("share-groups", SHARE_GROUPS, (cluster_options, add_share_groups), ".share_groups:cmd_share_groups",
            when(lambda a: bool(a.delete or a.delete_offsets),
                 "--delete/--delete-offsets delete share groups' data")),
    Command("streams-groups", STREAMS_GROUPS, (cluster_options, add_streams_groups),
            ".streams_groups:cmd_streams_groups",
            when(lambda a: bool(a.delete), "--delete deletes streams groups and their internal topics")),
    Command("client-metrics", CLIENT_METRICS, (cluster_options, add_client_metrics),
            ".client_metrics:cmd_client_metrics",
            when(lambda a: bool(a.alter or a.delete), "--alter/--delete change client-metrics resources")),
    Command("consume", CONSUME, (cluster_options, add_consume), ".consume:cmd_consume", never),  # commits nothing
    Command("produce", PRODUCE, (cluster_options, add_produce), ".produce:cmd_produce", always("produces records")),
    Command("durability", DURABILITY, (cluster_options, add_durability),
            lambda a: ".pipeline:cmd_pipeline" if a.connect else ".durability:cmd_durability",
            always("produces records and kills a leader")),
    Command("counts", COUNTS, (cluster_options, add_counts), ".counts:cmd_counts", never, note="Spark"),
    Command("chaos", CHAOS, (cluster_options, add_chaos), ".chaos:cmd_chaos", always("kills and stops brokers")),
    Command("scenario", SCENARIO, (lab_options, add_scenario), ".scenario:cmd_scenario",
            when(lambda a: a.what == "run", "run starts a lab, produces records and kills its nodes"), lab_only=True,
            note="the labs, step by step"),
    Command("elect-leaders", ELECT_LEADERS, (cluster_options, add_elect_leaders), ".elect:cmd_elect_leaders",
            when(lambda a: not a.dry_run, "elects leaders (--dry-run only asks)")),
    Command("add-partitions", ADD_PARTITIONS, (cluster_options, add_add_partitions), ".elect:cmd_add_partitions",
            when(lambda a: not a.dry_run, "adds partitions (--dry-run only validates)")),
    Command("features", FEATURES, (cluster_options, add_features), ".features:cmd_features", never),
    Command("transactions", TRANSACTIONS, (cluster_options, add_transactions), ".transactions:cmd_transactions",
            when(lambda a: a.transactions_command == "abort", "abort writes an abort marker")),
    Command("contexts", CONTEXTS, (add_contexts,), ".contexts:cmd_contexts", never,
            note="named clusters, --context NAME"),
    Command("connect", CONNECT, (add_connect,), ".connect:cmd_connect",
            when(connect_writes, "create, pause, resume, stop, restart and delete change connectors, offsets --reset "
                 "and --alter their offsets"), note="Kafka Connect", settle=settle_connect),
    Command("users", USERS, (cluster_options, add_users), ".users:cmd_users",
            when(lambda a: a.add is not None or a.delete is not None, "--add/--delete change SCRAM credentials"),
            note="SCRAM users, quotas"),
    Command("acls", ACLS, (cluster_options, add_acls), ".acls:cmd_acls",
            when(lambda a: bool(a.add or a.remove), "--add/--remove change ACLs (--list reads)"),
            note="as kafka-acls.sh"),
    Command("log-dirs", LOG_DIRS, (cluster_options, add_log_dirs), ".log_dirs:cmd_log_dirs", never,
            note="as kafka-log-dirs.sh"),
    Command("get-offsets", GET_OFFSETS, (cluster_options, add_get_offsets), ".get_offsets:cmd_get_offsets", never,
            note="as kafka-get-offsets.sh"),
    Command("delete-records", DELETE_RECORDS, (cluster_options, add_delete_records),
            ".delete_records:cmd_delete_records", always("deletes records"), note="as kafka-delete-records.sh"),
    Command("metadata-quorum", METADATA_QUORUM, (cluster_options, add_metadata_quorum),
            ".metadata_quorum:cmd_metadata_quorum", never, note="as kafka-metadata-quorum.sh describe"),
    Command("api-versions", API_VERSIONS, (cluster_options, add_api_versions), ".api_versions:cmd_api_versions", never,
            note="as kafka-broker-api-versions.sh"),
    Command("audit", AUDIT, (add_audit,), ".audit:cmd_audit", never, note="who changed what"),
)
# fmt: on

# `kafkatop --help`'s overview of the commands, by what they act on. A command not placed here is listed last.
OVERVIEW: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Lab cluster commands", ("up", "down", "status", "kill", "stop", "start", "restart", "add-broker", "add-connect")),
    ("topics", ("topics", "create-topic", "describe", "add-partitions")),
    (
        "operations",
        (
            "elect-leaders",
            "reassign",
            "configs",
            "groups",
            "lag",
            "share-groups",
            "streams-groups",
            "consume",
            "produce",
        ),
    ),
    ("", ("acls", "users")),
    ("", ("durability", "chaos", "scenario")),
    ("", ("counts",)),
    ("", ("features",)),
    ("", ("log-dirs", "get-offsets", "delete-records", "metadata-quorum", "api-versions", "client-metrics")),
    ("", ("transactions",)),
    ("", ("connect",)),
    ("", ("audit",)),
    ("", ("install",)),
    ("", ("contexts",)),
)


def named(name: str) -> Command:
    return {c.name: c for c in COMMANDS}[name]  # read at each call: a test may add a row


def lab_only(command: str | None) -> bool:
    return command is not None and named(command).lab_only


def overview() -> str:
    """The commands by group: `topics: create-topic, describe, …; acls (as kafka-acls.sh), users (…); …`."""
    placed = {name for _, names in OVERVIEW for name in names}
    groups = [*OVERVIEW, *(("", (c.name,)) for c in COMMANDS if c.name not in placed)]

    def listed(name: str) -> str:
        note = named(name).note
        return name if note is None else f"{name} ({note})"

    return "; ".join((f"{label}: " if label else "") + ", ".join(map(listed, names)) for label, names in groups)


def run(args: argparse.Namespace) -> int:
    """Runs the command given, importing its module only now."""
    runs = named(args.command).run
    module, function = (runs if isinstance(runs, str) else runs(args)).split(":")
    command: Callable[[argparse.Namespace], int] = getattr(importlib.import_module(module, __package__), function)
    return command(args)
