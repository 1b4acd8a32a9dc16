"""What `kafkatop produce` says of a topic the cluster did not have: created by the brokers on first use (and how
many partitions it got), or not, with why and the line that creates it (standard library only)."""

from __future__ import annotations

import argparse
import shlex
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kafkatop.backends.kafka.records.first_use import FirstUse

SETTING = "auto.create.topics.enable"


def _partitions(count: int) -> str:
    return f"{count} partition{'s' if count != 1 else ''}"


def created(used: FirstUse) -> str:
    """The line said before the records go to a topic the brokers created on first use."""
    topic, setting = used.topic, used.setting
    if setting.enabled:
        count = _partitions(used.partitions)
        return f"topic {topic!r} does not exist: the brokers create it ({SETTING}=true) with {count}"
    return (
        f"topic {topic!r} did not exist: the brokers created it when asked for it, as Kafka's producer asks, with "
        f"{_partitions(used.partitions)} ({SETTING} could not be read: {setting.unread})"
    )


def create_line(args: argparse.Namespace, partitions: int | None, replicas: int | None) -> str:
    """`kafkatop create-topic …` for this cluster, as the command was aimed at it (context, address or lab); the
    brokers' own defaults where known, else P and R to fill in."""
    words = ["kafkatop", "create-topic", args.topic, "--partitions", str(partitions or "P"), "--replication-factor",
             str(replicas or "R")]  # fmt: skip
    context = getattr(args, "context_name", None)
    if context:
        words += ["--context", context]
    elif getattr(args, "bootstrap_server", None):
        words += ["--bootstrap-server", str(args.bootstrap_server)]
    else:
        words += [w for flag in ("name", "state_dir") if getattr(args, flag, None)
                  for w in (f"--{flag.replace('_', '-')}", str(getattr(args, flag)))]  # fmt: skip
    if getattr(args, "command_config", None) and not context:
        words += ["--command-config", str(args.command_config)]
    return " ".join(shlex.quote(w) if w not in ("P", "R") else w for w in words)


def not_created(args: argparse.Namespace, used: FirstUse) -> str:
    """Why nothing was sent: the brokers do not create topics on first use (or did not), and how to create it."""
    topic, setting = used.topic, used.setting
    if used.invalid:
        return (
            f"topic {topic!r} does not exist, and the brokers refuse the name ({used.answer}): a topic's name is "
            "letters, digits, '.', '_' and '-', at most 249 of them; nothing was sent"
        )
    if setting.enabled is False:
        why = f"the brokers do not create topics on first use ({SETTING}=false on broker {setting.broker})"
    elif setting.enabled:
        why = f"the brokers did not create it although {SETTING}=true ({used.answer})"
    else:
        why = (f"the brokers did not create it when asked for it ({used.answer}; {SETTING} could not be read: "
               f"{setting.unread})")  # fmt: skip
    line = create_line(args, setting.num_partitions, setting.replication_factor)
    return (
        f"topic {topic!r} does not exist, and {why}: create it with `{line}` "
        "(kafka-topics.sh --create does the same), then send again; nothing was sent"
    )
