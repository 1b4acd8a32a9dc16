"""The options of `kafkatop lag` — standard library only, so `kafkatop --help` answers at once."""

from __future__ import annotations

from kafkatop.tui.cli.options import Parser
from kafkatop.tui.cli.parser_common import json_option, timeout_option
from kafkatop.tui.cli.values import SECONDS, number, text, whole

FAIL_ON = ("warn", "rewind", "stall", "stop", "err")

LAG: dict[str, str] = {
    "help": "every group's lag in records and in time, its status (OK, WARN, REWIND, STALL, STOP, ERR) and time to "
    "catch up, for scripts and cron",
    "description": "Polls the cluster every --interval for one status window (the context's [lag] window, else 60 s; "
    "--window), as the live view does, then prints each group with committed offsets: its status by Burrow's rules "
    'fitted to polls (README: "Lag you can act on"), its lag in records and in time (how old its oldest unread record '
    "is: interpolated from the high watermarks the polls saw, and, for a record older than the first poll, read from "
    "the record itself), the rates its offsets and its partitions' ends moved at, and how long it would take to catch "
    "up at them. --watch goes on and prints a line for each status change. It writes nothing.",
    "epilog": "Exit codes: 0 every group OK, or none worse than --fail-on allows; 11 WARN, 12 REWIND, 13 STALL, 14 "
    "STOP, 15 ERR (the worst group's, when at or past --fail-on; default warn); 1 the cluster could not be asked, or "
    "a --group has no committed offsets; 2 bad input; 130 interrupted.",
}


def add_lag(lag: Parser) -> None:
    lag.option("--group", action="append", metavar="GROUP", type=text("a group id"), shown="every group",
               help="only this group (repeatable)")  # fmt: skip
    lag.option("--topic", action="append", metavar="TOPIC", type=text("a topic"), shown="every topic",
               help="only groups with offsets on this topic, and only its partitions (repeatable)")  # fmt: skip
    lag.option("--partitions", action="store_true", help="a line per partition under each group")
    lag.option("--window", metavar="SECONDS", type=SECONDS, shown="the context's [lag] window, else 60",
               help="the polls a status is decided over (STALL and STOP need the whole window observed)")  # fmt: skip
    lag.option("--warn-seconds", metavar="SECONDS", type=number(above=None, at_least=0.0),
               shown="the context's, else 300",
               help="WARN when a group's oldest unread record is older (0: off)")  # fmt: skip
    lag.option("--warn-records", metavar="N", type=whole(0, what="a number of records"),
               shown="the context's, else off",
               help="WARN when a partition's lag passes N records (0: off)")  # fmt: skip
    lag.option("--interval", metavar="SECONDS", type=number(at_least=0.2), default=2.0, help="between two polls")
    lag.option("--watch", action="store_true", help="go on after the first window: a line per status change (Ctrl-C "
               "ends)")  # fmt: skip
    lag.option("--fail-on", choices=FAIL_ON, default="warn", help="the least status that makes the exit status "
               "non-zero")  # fmt: skip
    json_option(lag, "one JSON object per group (JSON Lines): group, status, lag, lag_seconds, … and its partitions")
    timeout_option(lag, 10.0, "for each poll")
