"""The checks' options: durability (records lost while a leader is killed) and chaos (random broker faults while
kafkatop watches) — standard library only, so `kafkatop --help` answers at once."""

from __future__ import annotations

import argparse

from kafkatop.tui.cli.options import Parser
from kafkatop.tui.cli.parser_common import json_option, timeout_option
from kafkatop.tui.cli.values import COUNT, SECONDS, fraction, fraction_or_none, number, text, whole

DURABILITY: dict[str, str] = {
    "help": "write sequenced records while a partition's leader is killed; read back: lost, duplicated, reordered",
    "description": "Writes N sequenced records to a replicated topic, kills (or stops) the leader of a partition "
    "partway through and starts it again later, then reads the topic back and counts, per partition, the records "
    "lost (acknowledged but not in the log), duplicated, out of order, and present although unacknowledged. "
    "With --transactional the records go in transactions (a transactional producer; one aborted after the fault "
    "is sent again) and are read back read_committed: every record of a committed transaction exactly once, none "
    "of an aborted one; a read_uncommitted read counts the aborted records that are in the log all the same. "
    "On a lab cluster by default, or an attached one (--bootstrap-server: its brokers on this host are killed "
    "by signal, and not started again).",
    "epilog": "Exit codes: 0 the log kept what the settings promise (losses that acks=1, acks=0 or "
    "min.insync.replicas=1 allow are reported, not failed); 1 records lost under settings that promise none, "
    "duplicated or reordered with idempotence, a record of an aborted transaction read with read_committed, an "
    "incomplete run, or a cluster error; 2 bad input, or refused before anything was sent (missing topic, RF 1, "
    "a cluster that cannot do transactions, …); 130 interrupted (a broker the check took down is "
    "started again first).",
}


def add_durability(dur: Parser) -> None:
    dur.option("--topic", metavar="NAME", type=text("a topic name"), help="a replicated topic (RF 3 for a real test)",
               shown="required, except with --connect")  # fmt: skip
    dur.option("--connect", action="store_true", help="check a Kafka Connect pipeline instead: a FileStreamSource "
               "reads --records sequenced lines into a new topic, a FileStreamSink writes them back out, the worker "
               "running the source task is killed at --kill-at and started again once its task runs elsewhere "
               "(--restart-at none: left down); lines lost, duplicated, reordered per stage. On a lab with Connect "
               "workers (`up --connect 2`)")  # fmt: skip
    dur.option("--keep", action="store_true", help="with --connect, keep its connectors, topic and files")
    dur.option("--records", type=whole(1, 10_000_000, "a count"), default=10_000, metavar="N", help="records to write")
    dur.option("--acks", choices=("all", "1", "0"), default="all", help="producer acks")
    dur.option("--idempotence", action=argparse.BooleanOptionalAction, help="enable.idempotence",
               shown="on with acks=all, else off")  # fmt: skip
    dur.option("--retries", type=whole(0, what="a count"), metavar="N", help="producer retries",
               shown="until the delivery timeout")  # fmt: skip
    dur.option("--delivery-timeout", type=SECONDS, metavar="SECONDS", help="per record",
               shown="60; 5 with --transactional, shorter than a failover after kill -9")  # fmt: skip
    dur.option("--transactional", action="store_true", help="a transactional producer (transactional.id "
               "kafkatop-durability-RUN), read back read_committed: exactly once, no aborted record read")  # fmt: skip
    dur.option("--transaction-records", type=whole(1, 100_000, "a count"), default=100, metavar="N",
               help="records per transaction, with --transactional")  # fmt: skip
    dur.option("--fault", choices=("kill", "stop", "none"), default="kill", help="kill -9, controlled stop, or none")
    dur.option("--kill-at", type=fraction, default=0.3, metavar="F", help="after this share of the records")
    dur.option("--restart-at", type=fraction_or_none, metavar="F|none", help="start the broker again after this share",
               shown="0.7; none with --bootstrap-server")  # fmt: skip
    dur.option("--partition", type=whole(0, what="a partition"), default=0, metavar="P", help="whose leader fails")
    dur.option("--yes", action="store_true", help="on an attached cluster (--bootstrap-server), kill or stop its "
               "local broker without asking")  # fmt: skip
    dur.option("--rate", type=number(what="records per second"), metavar="N", help="records per second",
               shown="as fast as it goes; 1000 lines/s with --connect")  # fmt: skip
    timeout_option(dur, 10.0, "per request")
    json_option(dur, "the report as JSON")


DEFAULT_ACTIONS = "kill,stop,restart,start"
CHAOS: dict[str, str] = {
    "help": "random kill/stop/restart steps on a lab cluster while producing and consuming: did kafkatop keep up, "
    "was a record lost, is a process left behind",
    "description": "Takes K random steps (kill, stop, restart, start) on the brokers of a lab cluster while a "
    "sequenced producer (acks=all, idempotence) writes to a replicated topic and a consumer group reads it. "
    "After each step, once the cluster has settled, it counts how many of kafkatop's own polls it took to show "
    "the brokers, leaders and ISRs (within 2 is keeping up). At the end every broker is started again, the "
    "records are verified (lost, duplicated, out of order) and no process may be left behind. Never more than "
    "--max-down brokers are down at once.",
    "epilog": "Exit codes: 0 kafkatop kept up, nothing lost, duplicated or reordered, no orphan process; 1 one of "
    "those failed, an incomplete run, or a cluster error; 2 bad input, or refused before any node was touched "
    "(missing topic, RF 1, a cluster kafkatop did not start); 130 interrupted (the brokers the run took down are "
    "started again first).",
}


def add_chaos(chaos: Parser) -> None:
    chaos.option("--topic", required=True, metavar="NAME", type=text("a topic name"),
                 help="a replicated topic (RF 3 for a real test)")  # fmt: skip
    chaos.option("--steps", type=whole(1, 50, "a count"), default=5, metavar="K", help="steps to take, 1 to 50")
    chaos.option("--seed", type=whole(0, what="a seed"), metavar="S", help="for the random steps",
                 shown="drawn and reported")  # fmt: skip
    chaos.option("--actions", default=DEFAULT_ACTIONS, type=text("actions"), metavar="LIST",
                 help="allowed, comma-separated; without start a broker is started only when nothing else is "
                 "possible, and at the end")  # fmt: skip
    chaos.option("--max-down", type=COUNT, default=1, metavar="N", help="brokers down at once, at most")
    chaos.option("--step-timeout", type=SECONDS, default=60.0, metavar="SECONDS", help="for the cluster to settle")
    chaos.option("--hold", type=number(above=None, at_least=0.0), default=5.0, metavar="SECONDS",
                 help="keep each step's state this long")  # fmt: skip
    chaos.option("--rate", type=number(what="records per second"), default=100.0, metavar="N",
                 help="records per second")  # fmt: skip
    chaos.option("--interval", type=SECONDS, default=1.0, metavar="SECONDS", help="kafkatop's poll interval")
    chaos.option("--time-limit", type=SECONDS, default=1800.0, metavar="SECONDS", help="no new step after")
    chaos.option("--group", default="kafkatop-chaos", type=text("a group id"), metavar="ID",
                 help="the consumer group reading the topic (a new member joins at once only once the last run's "
                 "consumer has left)")  # fmt: skip
    json_option(chaos, "the report as JSON (steps go to stderr)")


SCENARIO: dict[str, str] = {
    "help": "the labs as scenarios: a lab started, each step done, each expectation checked and explained",
    "description": "A scenario is a TOML file: its cluster (brokers, controllers, mode), its topics, then steps — "
    "kill -9, stop or start a node (broker-N, leader:TOPIC-P, last-down), produce records (acks=all), wait — each "
    "with expectations that must hold within a deadline (the ISR of a partition has N replicas, its leader is none, "
    "changed or broker N, every acknowledged record reads back) and why Kafka does it. `list` names the built-in "
    'ones (the labs in the README\'s "Following a lab"), `check FILE` says what a file would do or its first '
    "mistake with its line, `run NAME|FILE` starts a lab of the scenario's shape (up's options), runs it and stops "
    "the lab (--detach leaves it running).",
    "epilog": "Exit codes: 0 every expectation held (check: the file is a scenario); 1 one did not, or the lab "
    "failed; 2 bad input (a file that is no scenario: its line); 130 interrupted (the lab is stopped first).",
}


def add_scenario(scenario: Parser) -> None:
    from kafkatop.tui.cli.parser_lab import add_up

    scenario.add_argument("what", choices=("list", "check", "run"), metavar="list|check|run",
                          help="list the built-in scenarios, check a file, or run one")  # fmt: skip
    scenario.add_argument("target", nargs="?", metavar="NAME|FILE", type=text("a scenario"),
                          help="a built-in scenario's name or a .toml file")  # fmt: skip
    add_up(scenario)
    json_option(scenario, "run: the report as one JSON object (the steps go to stderr)")
