"""A lab as a scenario (README "Following a lab"): the values a scenario file is parsed into (scenario_file.py) — the
cluster, its topics, then steps, each an action of kafkatop's own (kill -9, stop or start a node, or the current leader
of a partition; produce; an election; wait) and what should follow it (an expectation with a deadline: the ISR of a
partition shrinks to 2 within 30 s, its leader is none), each with why Kafka does it. Run by backends/checks/scenario.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, get_args

Action = Literal[
    "kill", "stop", "start", "produce", "consume", "stop-consumer", "wait", "elect", "transaction", "connector"
]
ACTIONS: tuple[Action, ...] = get_args(Action)
What = Literal[
    "isr",
    "elr",
    "last-known-elr",
    "leader",
    "acked-read-back",
    "group",
    "refused",
    "acked-lost",
    "records",
    "transaction",
    "connector",
]
WHATS: tuple[What, ...] = get_args(What)
ELECTIONS = ("unclean", "preferred")  # kafka-leader-election.sh's --election-type
ISOLATIONS = ("read_committed", "read_uncommitted")  # a consumer's isolation.level
TRANSACTION_ENDS = ("commit", "abort", "open")  # a transaction step: how it ends ("open": a later step goes on with it)
OUTCOMES = ("committed", "aborted", "open")
SIZED = {"isr": "the ISR", "elr": "the ELR", "last-known-elr": "the last known ELR"}


@dataclass(frozen=True, slots=True)
class NodeRef:
    """A node as a step names it: `broker-2`; `leader:purchases-0`, the partition's leader when the step runs; or
    `last-down` / `first-down`, the node this run killed or stopped last / first (and has not started since)."""

    name: str | None = None
    leader_of: tuple[str, int] | None = None
    down: Literal["last-down", "first-down"] | None = None
    follower_of: tuple[str, int] | None = None  # `follower:T-P`: an in-sync replica that does not lead (lowest id)
    worker_of: str | None = None  # `worker:NAME`: the Connect worker running the connector's first task

    def __str__(self) -> str:
        if self.worker_of is not None:
            return f"worker:{self.worker_of}"
        if self.leader_of is not None:
            return f"leader:{self.leader_of[0]}-{self.leader_of[1]}"
        if self.follower_of is not None:
            return f"follower:{self.follower_of[0]}-{self.follower_of[1]}"
        return self.down or str(self.name)


@dataclass(frozen=True, slots=True)
class Expectation:
    what: What
    partition: tuple[str, int] | None  # isr, leader
    topic: str | None  # acked-read-back, acked-lost, refused (the records this step produced to it: none acknowledged)
    size: int | None  # isr: how many replicas in sync
    leader: str | None  # leader: "none", "changed", or a broker id
    group: str | None  # group: its id, and how many members share all its topics' partitions
    members: int
    within_s: float
    throughout: bool  # it must hold at every poll until `within_s` (the ISR *stays* 3), not become true by then
    explain: str | None
    line: int
    isolation: str | None = None  # records: the consumer's isolation.level
    count: int | None = None  # records: how many of this run's records it reads; connector: its tasks RUNNING
    connector: str | None = None  # connector: its name
    outcome: str | None = None  # transaction: how this run's last transaction ended (or that it is open)

    def describe(self) -> str:
        """As a person would say it: "the ISR of purchases-0 has 2 replicas within 30 s"."""
        when = f"for {self.within_s:g} s" if self.throughout else f"within {self.within_s:g} s"
        if self.what == "records":
            return f"a {self.isolation} consumer reads {self.count} of this run's records of {self.topic} {when}"
        if self.what == "transaction":
            return f"the transaction is {self.outcome}"
        if self.what == "connector":
            return f"connector {self.connector} has {self.count} task(s) RUNNING on workers that are up {when}"
        if self.what == "acked-read-back":
            return f"every record acknowledged on {self.topic} reads back {when}"
        if self.what == "acked-lost":
            return f"records acknowledged on {self.topic} are lost (not read back) {when}"
        if self.what == "refused":
            return f"the records this step produced to {self.topic} are refused (none acknowledged)"
        if self.what == "group":
            return f"group {self.group} has {self.members} member(s) sharing every partition {when}"
        assert self.partition is not None
        where = f"{self.partition[0]}-{self.partition[1]}"
        if self.what in SIZED:
            has = "keeps" if self.throughout else "has"
            return f"{SIZED[self.what]} of {where} {has} {self.size} replica{'s' if self.size != 1 else ''} {when}"
        said = {"none": "none (-1)", "changed": "another broker"}.get(self.leader or "", f"broker {self.leader}")
        return f"the leader of {where} {'stays' if self.throughout else 'is'} {said} {when}"


@dataclass(frozen=True, slots=True)
class Step:
    number: int  # 1, 2, … in the file's order
    action: Action
    node: NodeRef | None  # kill, stop, start
    topic: str | None  # produce, consume, transaction
    group: str | None  # consume (its members join it), stop-consumer (its last member started leaves)
    members: int  # consume: how many consumers join
    count: int  # produce: records
    seconds: float  # wait
    say: str | None  # what the step is for, as a lab text would put it
    expect: tuple[Expectation, ...]
    line: int
    by_key: bool = False  # kill, stop, start: in the live view the user does it by key (headless: done for them)
    retry: bool = True  # produce: idempotent, retried until the timeout; False: each record sent once
    partition: tuple[str, int] | None = None  # elect: the partition whose leader is elected
    election: str = "unclean"  # elect: unclean or preferred (ElectLeaders, as kafka-leader-election.sh)
    end: str = "commit"  # transaction: commit, abort or open (left open: the next transaction step goes on with it)
    connector: str | None = None  # connector: its name
    config: tuple[tuple[str, str], ...] = ()  # connector: its config ("{dir}" in a value: a folder of the run's own)

    def describe(self) -> str:
        if self.action in ("kill", "stop", "start"):
            verb = {"kill": "kill -9", "stop": "stop (controlled shutdown)", "start": "start"}[self.action]
            return f"{verb} {self.node}"
        if self.action == "produce":
            return f"produce {self.count} records to {self.topic} (acks=all{'' if self.retry else ', each sent once'})"
        if self.action == "consume":
            return f"{self.members} consumer(s) of {self.topic} join group {self.group}"
        if self.action == "elect" and self.partition is not None:
            return f"{self.election} leader election on {self.partition[0]}-{self.partition[1]}"
        if self.action == "transaction":
            end = {"commit": "commit", "abort": "abort", "open": "leave it open"}[self.end]
            return f"{self.count} records to {self.topic} in a transaction, then {end}"
        if self.action == "connector":
            kind = dict(self.config).get("connector.class", "").rpartition(".")[2]
            return f"create connector {self.connector} ({kind})"
        if self.action == "stop-consumer":
            return f"a consumer of group {self.group} stops (it leaves the group)"
        return f"wait {self.seconds:g} s"


@dataclass(frozen=True, slots=True)
class TopicSpec:
    name: str
    partitions: int
    replication_factor: int
    config: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class ClusterShape:
    mode: Literal["kraft", "zookeeper"]
    brokers: int
    controllers: int  # KRaft: dedicated controllers; 0: combined broker+controller nodes
    connect: int = 0  # Kafka Connect workers (connect-1, …), in one group


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    title: str
    about: str | None
    cluster: ClusterShape
    topics: tuple[TopicSpec, ...]
    steps: tuple[Step, ...]
    source: str  # the file, or "built in"
